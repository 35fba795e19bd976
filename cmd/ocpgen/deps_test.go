package main

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestNoNetworkStack: the generator links neither the network stack (net,
// and with it cgo and the dynamic loader that every process would pay for
// at start) nor the go-sdk: recording a server's tools is ocpgen-snapshot's
// job. It fails naming the import chain that brings one in.
func TestNoNetworkStack(t *testing.T) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps,
		// The default build where a C compiler is present: net imports
		// runtime/cgo.
		Env: append(os.Environ(), "CGO_ENABLED=1"),
	}
	pkgs, err := packages.Load(cfg, "github.com/ocpgen/ocpgen/cmd/ocpgen")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading cmd/ocpgen: %v", pkgs)
	}
	forbidden := func(path string) bool {
		return path == "net" || path == "runtime/cgo" || strings.HasPrefix(path, "github.com/modelcontextprotocol/go-sdk/")
	}
	// Breadth first from cmd/ocpgen, so each chain reported is a shortest.
	from := map[string]string{pkgs[0].PkgPath: ""}
	queue := []*packages.Package{pkgs[0]}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if forbidden(p.PkgPath) {
			chain := []string{p.PkgPath}
			for q := from[p.PkgPath]; q != ""; q = from[q] {
				chain = append([]string{q}, chain...)
			}
			t.Errorf("ocpgen links %s: %s", p.PkgPath, strings.Join(chain, " → "))
			continue // one chain for each forbidden package, not one for each below it
		}
		for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
			if _, seen := from[path]; !seen {
				from[path] = p.PkgPath
				queue = append(queue, p.Imports[path])
			}
		}
	}
}
