package outdir

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/ocpfile"
)

func gen(body string) []byte { return []byte(ocpfile.Header + "\n\npackage p\n" + body) }

func readDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func TestWriteRemovesStaleKeepsForeign(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, map[string][]byte{"a.go": gen("// a"), "b.go": gen("// b")}); err != nil {
		t.Fatal(err)
	}
	// A hand-written file in the same directory, and a test file.
	os.WriteFile(filepath.Join(dir, "hub.go"), []byte("package p\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "x_test.go"), gen("// test"), 0o644)

	ch, err := Write(dir, map[string][]byte{"a.go": gen("// a2"), "c.go": gen("// c")})
	if err != nil {
		t.Fatal(err)
	}
	want := Changes{Written: []string{"a.go", "c.go"}, Removed: []string{"b.go"}}
	if !reflect.DeepEqual(ch, want) {
		t.Fatalf("changes = %+v, want %+v", ch, want)
	}
	got := readDir(t, dir)
	if _, ok := got["b.go"]; ok {
		t.Error("stale b.go not removed")
	}
	if got["hub.go"] != "package p\n" || got["x_test.go"] == "" {
		t.Errorf("files ocpgen did not write were touched: %v", got)
	}
	ch, err = Write(dir, map[string][]byte{"a.go": gen("// a2"), "c.go": gen("// c")})
	if err != nil || len(ch.Written) != 0 || len(ch.Unchanged) != 2 {
		t.Fatalf("second identical write: %+v, %v", ch, err)
	}
	for name := range got {
		if strings.Contains(name, ".tmp-") {
			t.Errorf("temporary file left behind: %s", name)
		}
	}
}

func TestWriteRefusesForeignFileAndWritesNothing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("package p // mine\n"), 0o644)
	_, err := Write(dir, map[string][]byte{"a.go": gen("// a"), "b.go": gen("// b")})
	if err == nil || !strings.Contains(err.Error(), "was not written by ocpgen") {
		t.Fatalf("err = %v, want refusal", err)
	}
	got := readDir(t, dir)
	if len(got) != 1 || got["b.go"] != "package p // mine\n" {
		t.Fatalf("directory changed after a refused write: %v", got)
	}
}

func TestWriteRejectsPathNames(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(dir, map[string][]byte{"../x.go": gen("")}); err == nil {
		t.Fatal("a file name with a path was accepted")
	}
}

// TestWriteFileReplacesWhole: WriteFile replaces a file's content, mode
// 0644, and leaves no temporary file beside it; where it cannot write, the
// old content stays and nothing else is left.
func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.tools.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if got := readDir(t, dir); !reflect.DeepEqual(got, map[string]string{"a.tools.json": "new"}) {
		t.Errorf("after WriteFile the directory holds %q", got)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode().Perm(), err)
	}
	// A directory in the way of the rename: the write fails, the
	// temporary file goes.
	blocked := filepath.Join(dir, "sub")
	if err := os.Mkdir(blocked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(blocked, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(blocked, []byte("data")); err == nil {
		t.Fatal("WriteFile over a non-empty directory succeeded")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !reflect.DeepEqual(names, []string{"a.tools.json", "sub"}) {
		t.Errorf("a failed WriteFile left %q", names)
	}
}
