package testcorpus

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestDirInTree(t *testing.T) {
	t.Setenv(Env, "")
	dir := Dir(t)
	if want := filepath.Join(ModuleRoot(t), "testdata", "corpus"); dir != want {
		t.Fatalf("Dir = %s, want %s", dir, want)
	}
	if n := len(Files(t)); n < 20 {
		t.Fatalf("Files: %d snapshots, want the whole corpus", n)
	}
}

func TestDirOverride(t *testing.T) {
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "x.tools.json"), []byte(`{"tools":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, other)
	if got := Dir(t); got != other {
		t.Fatalf("Dir = %s with %s=%s", got, Env, other)
	}
}

// TestScratchModuleIsOutsideTheRepository: scratch code is never written in
// the work tree (issue 29: a killed test left _roundtrip-NNN/ in it), and
// the module it is written in resolves this module to the checkout.
func TestScratchModuleIsOutsideTheRepository(t *testing.T) {
	root := ModuleRoot(t)
	dir := ScratchModule(t)
	if rel, err := filepath.Rel(root, dir); err == nil && filepath.IsLocal(rel) {
		t.Fatalf("ScratchModule made %s inside the module at %s", dir, root)
	}
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"module " + ScratchModulePath + "\n", "replace github.com/ocpgen/ocpgen => " + strconv.Quote(root) + "\n"} {
		if !strings.Contains(string(gomod), want) {
			t.Errorf("go.mod lacks %q:\n%s", want, gomod)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "go.sum")); err != nil {
		t.Error(err)
	}
}

// TestSkipUnderRace: a breadth test is skipped exactly when the binary has
// the race detector, and the skip names the package it is in.
func TestSkipUnderRace(t *testing.T) {
	ran := false
	var inner *testing.T
	t.Run("breadth", func(t *testing.T) {
		inner = t
		SkipUnderRace(t)
		ran = true
	})
	if inner.Skipped() != Race || ran == Race {
		t.Errorf("Race = %v: the test ran %v, was skipped %v", Race, ran, inner.Skipped())
	}
	if got, want := callerOfHelper(), "github.com/ocpgen/ocpgen/internal/testcorpus"; got != want {
		t.Errorf("callerPackage = %q, want %q", got, want)
	}
}

// callerOfHelper stands where SkipUnderRace stands: callerPackage reports
// the package of its caller.
func callerOfHelper() string { return callerPackage() }
