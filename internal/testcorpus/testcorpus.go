// Package testcorpus finds the corpus of real tools/list snapshots
// (testdata/corpus at the module root) for the tests of every package.
//
// The corpus is part of the repository, so it is always there: a test that
// uses it never skips. $OCPGEN_CORPUS, when set, names another folder of
// *.tools.json files to use instead.
package testcorpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Env is the environment variable that overrides the corpus folder.
const Env = "OCPGEN_CORPUS"

// Dir returns the corpus folder: $OCPGEN_CORPUS if set, else testdata/corpus
// at the root of the module that holds the test's working directory. It
// fails the test if the folder holds no *.tools.json file.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		dir = filepath.Join(ModuleRoot(t), "testdata", "corpus")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.tools.json")); len(m) == 0 {
		t.Fatalf("corpus: no *.tools.json in %s (set %s to override)", dir, Env)
	}
	return dir
}

// Files returns the corpus snapshots (Dir's *.tools.json), sorted.
func Files(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(Dir(t), "*.tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ModuleRoot returns the nearest folder at or above the working directory
// that holds a go.mod: the module root, since go test runs a package's
// tests in the package's folder.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found at or above the test's directory")
		}
		dir = parent
	}
}

// Tool is one tool of a corpus snapshot, as the file writes it.
type Tool struct {
	File         string          `json:"-"` // the snapshot's path
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"` // nil or null when absent
}

// Tools returns every tool of every corpus snapshot (Files), in file
// order, read with encoding/json and nothing else (no loader check).
func Tools(t testing.TB) []Tool {
	t.Helper()
	var out []Tool
	for _, f := range Files(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var snap struct{ Tools []Tool }
		if err := json.Unmarshal(data, &snap); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tl := range snap.Tools {
			tl.File = f
			out = append(out, tl)
		}
	}
	return out
}
