package testcorpus

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// ScratchModulePath is the module path of the module ScratchModule makes.
const ScratchModulePath = "ocpgenscratch"

// moduleLine is go.mod's module directive.
var moduleLine = regexp.MustCompile(`(?m)^module\s+\S+\s*$`)

// ScratchModule makes, under t.TempDir() (outside the repository, so that a
// killed test leaves nothing in the work tree), a Go module named
// ScratchModulePath that builds against this checkout: its go.mod is this
// module's, renamed, with a require of github.com/ocpgen/ocpgen replaced
// by ModuleRoot, and its go.sum is this module's. Code written under the
// returned directory imports the runtime as a Hub module would, and is
// built or type-checked with the go command run in that directory.
func ScratchModule(t testing.TB) string {
	t.Helper()
	root := ModuleRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !moduleLine.Match(gomod) {
		t.Fatalf("%s: no module directive", filepath.Join(root, "go.mod"))
	}
	gomod = moduleLine.ReplaceAll(gomod, []byte("module "+ScratchModulePath))
	gomod = append(gomod, "\nrequire github.com/ocpgen/ocpgen v0.0.0\n\nreplace github.com/ocpgen/ocpgen => "+strconv.Quote(root)+"\n"...)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), gomod, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
