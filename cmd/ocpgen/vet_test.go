package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/ocpgen/ocpgen/internal/cli"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
	"github.com/ocpgen/ocpgen/vet"
)

func vetModuleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", dir)
	}
	return dir
}

// TestVetRepository runs the check on the runtime and the example's
// generated bridge (with their tests): they may call the server, so it is
// silent. A bypass seeded into the bridge package (as an overlay: nothing
// is written) is found, at its line.
//
// The silent run over the repository is breadth (every package of the
// runtime, with its tests, type-checked in the test's own process), and
// vetPackages starts no goroutine of its own, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race; the
// seeded bypasses are checked under -race too.
func TestVetRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: loads and type-checks runtime/... and examples/tickets/... with their tests; the full suite runs it")
	}
	root := vetModuleRoot(t)
	t.Run("silent", func(t *testing.T) {
		testcorpus.SkipUnderRace(t)
		pkgs := []string{"github.com/ocpgen/ocpgen/runtime/...", "github.com/ocpgen/ocpgen/examples/tickets/..."}
		diags, err := vetPackages(root, true, nil, pkgs...)
		if err != nil {
			t.Fatal(err)
		}
		if len(diags) > 0 {
			t.Errorf("runtime and generated code: %d findings:\n%s", len(diags), strings.Join(diags, "\n"))
		}
	})

	// Two bypasses seeded at once, in one load (an overlay makes go/packages
	// type-check every dependency from source, so each load is costly): in
	// the generated bridge package, and the gate's own client called from
	// the example hub.
	seeded := filepath.Join(root, "examples", "tickets", "ticketsocp", "zz_bypass.go")
	hub := filepath.Join(root, "examples", "tickets", "hub", "zz_bypass.go")
	overlay := map[string][]byte{
		seeded: []byte(`package ticketsocp

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func bypass(ctx context.Context, cs *mcp.ClientSession) {
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_ticket"})
}
`),
		hub: []byte(`package main

import (
	"context"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

func around(ctx context.Context, c *ocp.Client) {
	c.CallTool(ctx, "close_ticket", nil)
}
`),
	}
	diags, err := vetPackages(root, false, overlay, "github.com/ocpgen/ocpgen/examples/tickets/ticketsocp", "github.com/ocpgen/ocpgen/examples/tickets/hub")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		hub + ":10:4: calls (*ocp.Client).CallTool directly",
		seeded + ":10:5: calls (*mcp.ClientSession).CallTool directly",
	}
	if len(diags) != len(want) {
		t.Fatalf("seeded bypasses: got %q, want one at each of %q", diags, want)
	}
	for i, w := range want { // vetPackages sorts its findings
		if !strings.HasPrefix(diags[i], w) {
			t.Errorf("seeded bypass: got %q, want %q…", diags[i], w)
		}
	}
}

func TestVetCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs ocpgen vet on packages it loads and type-checks; the full suite runs it")
	}
	t.Chdir(vetModuleRoot(t))
	if code, out, errs := ocpgen(t, "vet", "./examples/tickets/ticketsocp"); code != cli.ExitOK {
		t.Errorf("ocpgen vet on generated code: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := ocpgen(t, "vet", "./no/such/dir"); code != cli.ExitTrouble {
		t.Errorf("ocpgen vet on a missing package: exit %d\n%s", code, errs)
	}
	if code, _, errs := ocpgen(t, "vet", "-bogus"); code != cli.ExitTrouble {
		t.Errorf("ocpgen vet -bogus: exit %d\n%s", code, errs)
	}
}

// TestVetAnalyzersUseNoFacts holds vetPackages' load mode to the analyzers
// it runs: it type-checks dependencies from export data, without their
// syntax, which is enough only while no analyzer (nor one it requires)
// exchanges facts between packages. One that does needs
// packages.LoadAllSyntax.
func TestVetAnalyzersUseNoFacts(t *testing.T) {
	seen := map[*analysis.Analyzer]bool{}
	var walk func(a *analysis.Analyzer)
	walk = func(a *analysis.Analyzer) {
		if seen[a] {
			return
		}
		seen[a] = true
		if len(a.FactTypes) > 0 {
			t.Errorf("analyzer %s uses facts: vetPackages must load with packages.LoadAllSyntax", a.Name)
		}
		for _, r := range a.Requires {
			walk(r)
		}
	}
	walk(vet.Analyzer)
}
