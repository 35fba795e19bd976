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

// moduleTempDir makes a scratch Go module outside the repository
// (testcorpus.ScratchModule: under t.TempDir(), built against this
// checkout), and its subdirectory sub. It returns the module's directory,
// for the go command to run in, and the import path of sub.
func moduleTempDir(t testing.TB, sub string) (modDir, importPath string) {
	t.Helper()
	modDir = testcorpus.ScratchModule(t)
	if err := os.Mkdir(filepath.Join(modDir, sub), 0o755); err != nil {
		t.Fatal(err)
	}
	return modDir, testcorpus.ScratchModulePath + "/" + sub
}

// typeCheck writes the packages into a scratch module outside the
// repository (moduleTempDir) and type-checks them all with one go/packages
// load. It returns each package's errors, by
// package name; a package without errors is absent.
func typeCheck(t *testing.T, pkgs []tcPackage) map[string][]string {
	t.Helper()
	root, importBase := moduleTempDir(t, "typecheck")
	dir := filepath.Join(root, "typecheck")
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
