package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/ocpgen/ocpgen/internal/cli"
	"github.com/ocpgen/ocpgen/vet"
)

func cmdVet(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("vet", "[-tests=false] [packages]\n\n"+
		"Reports calls to the go-sdk's (*mcp.ClientSession).CallTool, and to the\n"+
		"gate's server (ocp.Server.CallTool, (*ocp.Client).CallTool), outside\n"+
		"ocpgen's runtime and generated code: they reach the MCP server without the\n"+
		"Hub's authorization and confirm gate (ocpbypass). The same check runs as\n"+
		"go vet -vettool=$(which ocpgen-vet).\n"+
		"Packages default to ./...", stderr)
	tests := fs.Bool("tests", true, "also check test files")
	if err := fs.Parse(args); err != nil {
		return parseError(err)
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	diags, err := vetPackages("", *tests, nil, patterns...)
	if err != nil {
		return err
	}
	for _, d := range diags {
		fmt.Fprintln(stdout, d)
	}
	if len(diags) > 0 {
		return cli.Findings("ocpgen vet: %d finding(s)", len(diags))
	}
	return nil
}

// parseError maps a flag error to cli.ErrUsage (flag has printed it).
func parseError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return cli.ErrUsage
}

// vetPackages loads the packages matching patterns (from dir; "" is the
// working directory; overlay replaces or adds files, by absolute path) and
// runs the analyzers on them. It returns the
// findings as "file:line:col: message", sorted, or an error when a package
// does not load or type-check. Only the matched packages are parsed and
// type-checked from source; their dependencies' types come from the go
// command's export data, as go vet's own do: the analyzers use no facts,
// so nothing in a dependency's syntax changes a finding.
func vetPackages(dir string, tests bool, overlay map[string][]byte, patterns ...string) ([]string, error) {
	cfg := &packages.Config{Mode: packages.LoadSyntax, Dir: dir, Tests: tests, Overlay: overlay}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("ocpgen vet: %w", err)
	}
	if n := packages.PrintErrors(pkgs); n > 0 {
		return nil, fmt.Errorf("ocpgen vet: %d package error(s)", n)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("ocpgen vet: no packages match %q", patterns)
	}
	graph, err := checker.Analyze([]*analysis.Analyzer{vet.Analyzer}, pkgs, nil)
	if err != nil {
		return nil, fmt.Errorf("ocpgen vet: %w", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, act := range graph.Roots {
		if act.Err != nil {
			return nil, fmt.Errorf("ocpgen vet: %s: %w", act.Package.PkgPath, act.Err)
		}
		for _, d := range act.Diagnostics {
			s := fmt.Sprintf("%s: %s", act.Package.Fset.Position(d.Pos), d.Message)
			if !seen[s] { // a file is in a package and its test variant
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}
