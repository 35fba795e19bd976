package gen

import (
	"testing"
	"testing/fstest"
)

// TestCheckStrictLint checks that -strict turns generate's own unclassified
// findings into errors, found by their code: one diagnostic per finding,
// never the warning and the error both.
func TestCheckStrictLint(t *testing.T) {
	snap := []byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}]}`)
	class := []byte("version: 1\ntiers: [member]\ndefault: {tier: member}\ntools:\n  a: {access: read}\n")
	for _, tc := range []struct {
		name   string
		in     Input
		code   Code
		tool   string
		strict bool
	}{
		{"unlisted", Input{SnapshotFile: "s.tools.json", Snapshot: snap, ClassifyFile: "c.ocp.yaml", Classify: class}, CodeUnclassified, "b", true},
		{"unlisted-lax", Input{SnapshotFile: "s.tools.json", Snapshot: snap, ClassifyFile: "c.ocp.yaml", Classify: class}, CodeUnclassified, "b", false},
		{"no-classification", Input{SnapshotFile: "s.tools.json", Snapshot: snap}, CodeNoClassification, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Check(tc.in, CheckOptions{Package: "p", Strict: tc.strict}, fstest.MapFS{})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Diagnostics) != 1 {
				t.Fatalf("diagnostics: %v", r.Diagnostics)
			}
			d := r.Diagnostics[0]
			want := SeverityWarning
			if tc.strict {
				want = SeverityError
			}
			if d.Code != tc.code || d.Tool != tc.tool || d.Severity != want {
				t.Errorf("diagnostic %+v, want code %q tool %q severity %v", d, tc.code, tc.tool, want)
			}
			if (r.Diagnostics.Err() != nil) != tc.strict {
				t.Errorf("Diagnostics.Err() = %v", r.Diagnostics.Err())
			}
		})
	}
}
