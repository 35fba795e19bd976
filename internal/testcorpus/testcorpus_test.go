package testcorpus

import (
	"os"
	"path/filepath"
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
