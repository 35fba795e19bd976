package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// moduleRoot returns the directory of this module's go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	return testcorpus.ModuleRoot(t)
}

// tcPackage is one package to type-check: generated files, or a hand-written
// file that imports a generated package ("{{pkg:NAME}}" in its source is
// replaced by that package's import path).
type tcPackage struct {
	name  string
	files map[string][]byte
	// gate: the round-trip driver starts a gate with the package's
	// Catalogue (which needs a classification: without tiers no gate starts).
	gate bool
}

// moduleTempDir makes a temporary directory inside the module, removed
// when the test ends, whose name starts with prefix ("_…", so ./... never
// sees it). It returns the directory and its import path.
func moduleTempDir(t testing.TB, prefix string) (dir, importPath string) {
	t.Helper()
	root := moduleRoot(t)
	dir, err := os.MkdirTemp(root, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, "github.com/ocpgen/ocpgen/" + filepath.ToSlash(rel)
}

// typeCheck writes the packages into a temporary directory inside the module
// (its name starts with "_", so ./... patterns never see it) and type-checks
// them all with one go/packages load. It returns each package's errors, by
// package name; a package without errors is absent.
func typeCheck(t *testing.T, pkgs []tcPackage) map[string][]string {
	t.Helper()
	root := moduleRoot(t)
	dir, importBase := moduleTempDir(t, "_typecheck-")
	patterns := make([]string, 0, len(pkgs))
	byPath := map[string]string{}
	for _, p := range pkgs {
		pdir := filepath.Join(dir, p.name)
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, src := range p.files {
			src = pkgRef.ReplaceAll(src, []byte(importBase+"/$1"))
			if err := os.WriteFile(filepath.Join(pdir, name), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		patterns = append(patterns, importBase+"/"+p.name)
		byPath[importBase+"/"+p.name] = p.name
	}
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  root,
		Env:  append(os.Environ(), "GOFLAGS=-mod=mod"),
	}
	loaded, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatalf("go/packages: %v", err)
	}
	out := map[string][]string{}
	seen := map[string]bool{}
	for _, lp := range loaded {
		name, ok := byPath[lp.PkgPath]
		if !ok {
			t.Fatalf("go/packages returned unexpected package %q", lp.PkgPath)
		}
		seen[name] = true
		for _, e := range lp.Errors {
			out[name] = append(out[name], e.Msg)
		}
	}
	for _, p := range pkgs {
		if !seen[p.name] {
			t.Fatalf("package %s was not loaded", p.name)
		}
	}
	return out
}

// requireTypeChecks fails the test for every package with errors.
// pkgRef is a test source's reference {{pkg:NAME}} to another package of
// the same type check.
var pkgRef = regexp.MustCompile(`\{\{pkg:([^}]*)\}\}`)

func requireTypeChecks(t *testing.T, pkgs []tcPackage) {
	t.Helper()
	errs := typeCheck(t, pkgs)
	names := make([]string, 0, len(errs))
	for n := range errs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		msgs := errs[n]
		if len(msgs) > 5 {
			msgs = append(msgs[:5], fmt.Sprintf("... and %d more", len(msgs)-5))
		}
		t.Errorf("generated package %s does not type-check:\n\t%s", n, strings.Join(msgs, "\n\t"))
	}
}
