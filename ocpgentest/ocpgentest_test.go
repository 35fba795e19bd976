package ocpgentest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/internal/ocpfile"
	"github.com/ocpgen/ocpgen/internal/outdir"
)

// recorder is a testing.TB that records instead of failing.
type recorder struct {
	testing.TB
	failed, fatal bool
	out           strings.Builder
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	fmt.Fprintf(&r.out, format+"\n", args...)
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed, r.fatal = true, true
	fmt.Fprintf(&r.out, format+"\n", args...)
}
func (r *recorder) Logf(format string, args ...any) { fmt.Fprintf(&r.out, "LOG "+format+"\n", args...) }

const (
	snapshot = `{"tools": [
  {"name": "delete_note", "description": "Delete a note.", "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
  {"name": "list_notes", "description": "List notes.", "inputSchema": {"type": "object"}}
]}
`
	classification = "version: 1\ntiers: [member, admin]\ndefault: {tier: member}\ntools:\n  delete_note: {access: write}\n  list_notes: {access: read}\n"
	partial        = "version: 1\ntiers: [member, admin]\ndefault: {tier: member}\ntools:\n  list_notes: {access: read}\n"
)

// setup makes, in a temporary directory that becomes the working
// directory, the inputs and the package generated from them, in notes/.
func setup(t *testing.T, class string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("notes.tools.json", []byte(snapshot), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("notes.ocp.yaml", []byte(class), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := gen.Generate(gen.Input{SnapshotFile: "notes.tools.json", Snapshot: []byte(snapshot),
		ClassifyFile: "notes.ocp.yaml", Classify: []byte(class)}, gen.Options{Package: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outdir.Write("notes", res.Files); err != nil {
		t.Fatal(err)
	}
	// A hand-written file beside the generated ones is none of Check's
	// business.
	if err := os.WriteFile(filepath.Join("notes", "hub.go"), []byte("package notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func check(opts ...Option) *recorder {
	r := &recorder{}
	Check(r, "notes.tools.json", "notes.ocp.yaml", "notes", opts...)
	return r
}

func generatedFile(t *testing.T) string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("notes", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if ok, _ := outdir.Generated(n); ok && strings.Contains(n, "delete_note") {
			return n
		}
	}
	t.Fatalf("no generated file for delete_note among %v", names)
	return ""
}

func TestUpToDate(t *testing.T) {
	setup(t, classification)
	if r := check(Strict()); r.failed {
		t.Errorf("fresh output fails the check:\n%s", r.out.String())
	}
}

func TestStaleFileFailsWithDiff(t *testing.T) {
	setup(t, classification)
	f := generatedFile(t)
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "Delete a note.", "Delete a note, or two.", 1)
	if edited == string(data) {
		t.Fatalf("%s does not hold the description", f)
	}
	if err := os.WriteFile(f, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r := check()
	out := r.out.String()
	if !r.failed || r.fatal {
		t.Fatalf("an edited file: failed=%v fatal=%v\n%s", r.failed, r.fatal, out)
	}
	for _, want := range []string{
		"stale    " + filepath.ToSlash(f),
		"--- a/" + filepath.ToSlash(f),
		"+++ b/" + filepath.ToSlash(f),
		"Delete a note, or two.",
		"ocpgen generate -snapshot notes.tools.json -classify notes.ocp.yaml -package notes -out notes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The diff goes from the committed file to the generated one.
	if !strings.Contains(out, "\n-") || !strings.Contains(out, "\n+") {
		t.Errorf("no -/+ lines:\n%s", out)
	}
}

func TestMissingExtraForeign(t *testing.T) {
	setup(t, classification)
	f := generatedFile(t)
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join("notes", "old_tool.go")
	if err := os.WriteFile(extra, []byte(ocpfile.Header+"\n\npackage notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := check()
	out := r.out.String()
	for _, want := range []string{"missing  " + filepath.ToSlash(f), "extra    notes/old_tool.go", "+++ /dev/null", "--- /dev/null"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !r.failed {
		t.Error("check passed")
	}
	// A hand-written file at a generated name.
	if err := os.Remove(extra); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte("package notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := check(); !r.failed || !strings.Contains(r.out.String(), "foreign  "+filepath.ToSlash(f)) {
		t.Errorf("foreign file: failed=%v\n%s", r.failed, r.out.String())
	}
}

func TestStrictFailsOnUnlistedTool(t *testing.T) {
	setup(t, partial)
	r := check()
	if r.failed || !strings.Contains(r.out.String(), `warning: tool "delete_note"`) {
		t.Errorf("without Strict an unlisted tool is a logged warning: failed=%v\n%s", r.failed, r.out.String())
	}
	r = check(Strict())
	out := r.out.String()
	if !r.failed || !strings.Contains(out, `notes.ocp.yaml: tool "delete_note": not classified`) {
		t.Errorf("Strict: failed=%v\n%s", r.failed, out)
	}
	if strings.Count(out, `"delete_note"`) != 1 {
		t.Errorf("the unlisted tool is reported more than once:\n%s", out)
	}
}

func TestBadInputsAreFatal(t *testing.T) {
	setup(t, classification)
	r := &recorder{}
	Check(r, "missing.tools.json", "notes.ocp.yaml", "notes")
	if !r.fatal || !strings.Contains(r.out.String(), "missing.tools.json") {
		t.Errorf("missing snapshot: fatal=%v %s", r.fatal, r.out.String())
	}
	if err := os.WriteFile("bad.ocp.yaml", []byte("version: 1\ntools:\n  list_notes: {acess: read}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = &recorder{}
	Check(r, "notes.tools.json", "bad.ocp.yaml", "notes")
	if !r.fatal || !strings.Contains(r.out.String(), "bad.ocp.yaml:3:") {
		t.Errorf("bad classification: fatal=%v %s", r.fatal, r.out.String())
	}
}

// TestExampleUpToDate is the test this package exists for, run on the
// repository's own example bridge.
func TestExampleUpToDate(t *testing.T) {
	ex := filepath.Join("..", "examples", "tickets")
	Check(t, filepath.Join(ex, "tickets.tools.json"), filepath.Join(ex, "tickets.ocp.yaml"), filepath.Join(ex, "ticketsocp"), Strict())
}
