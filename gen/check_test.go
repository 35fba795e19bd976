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
			ds := schemaIndependent(r.Diagnostics)
			if len(ds) != 1 {
				t.Fatalf("diagnostics: %v", ds)
			}
			d := ds[0]
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

// TestCheckIgnoresSnapshotSource: the same server snapshotted on two
// machines (npx on one, node /path on another) leaves the generated code
// up to date (issue 15 item 8): "source" reaches no generated file.
func TestCheckIgnoresSnapshotSource(t *testing.T) {
	tools := `"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}}]`
	here := []byte(`{"server":{"name":"s","version":"1"},"source":"stdio npx -y @acme/server",` + tools + "}\n")
	there := []byte("{\n  \"server\": {\"name\": \"s\", \"version\": \"1\"},\n  \"source\": \"stdio node /home/alice/acme/index.js\",\n  " + tools + "\n}\n")
	class := []byte("version: 1\ntiers: [member]\ndefault: {tier: member}\ntools:\n  a: {access: read}\n")
	res, err := Generate(Input{SnapshotFile: "s.tools.json", Snapshot: here, ClassifyFile: "c.ocp.yaml", Classify: class}, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	committed := fstest.MapFS{}
	for name, b := range res.Files {
		committed[name] = &fstest.MapFile{Data: b}
	}
	r, err := Check(Input{SnapshotFile: "s.tools.json", Snapshot: there, ClassifyFile: "c.ocp.yaml", Classify: class}, CheckOptions{Package: "p"}, committed)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Files {
		t.Errorf("%s is %s after a re-snapshot on another machine:\n%s", f.Name, f.State, f.Diff)
	}
}

// TestCheckStrictTaskRequired: a tool that can only be called as an MCP
// task is a warning of code task-required, which -strict makes an error
// (issue 15 item 11).
func TestCheckStrictTaskRequired(t *testing.T) {
	snap := []byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},{"name":"b","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]}`)
	class := []byte("version: 1\ntiers: [member]\ndefault: {tier: member}\ntools:\n  a: {access: read}\n  b: {access: read}\n")
	in := Input{SnapshotFile: "s.tools.json", Snapshot: snap, ClassifyFile: "c.ocp.yaml", Classify: class}
	for _, strict := range []bool{false, true} {
		r, err := Check(in, CheckOptions{Package: "p", Strict: strict}, fstest.MapFS{})
		if err != nil {
			t.Fatal(err)
		}
		ds := schemaIndependent(r.Diagnostics)
		if len(ds) != 1 {
			t.Fatalf("strict %v: diagnostics %v", strict, ds)
		}
		d := ds[0]
		want := SeverityWarning
		if strict {
			want = SeverityError
		}
		if d.Code != CodeTaskRequired || d.Tool != "a" || d.Severity != want || d.Pointer != "/tools/0/execution/taskSupport" {
			t.Errorf("strict %v: diagnostic %+v", strict, d)
		}
	}
	res, err := Generate(in, Options{Package: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.Files["a.go"]; ok {
		t.Error("a task-required tool was generated")
	}
	if _, ok := res.Files["b.go"]; !ok {
		t.Error("a task-optional tool was not generated")
	}
}

// schemaIndependent is ds without the one warning every package gets
// (code refused-everywhere: the rules the gate applies to every argument,
// whatever the schema), which -strict leaves a warning.
func schemaIndependent(ds Diagnostics) Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Code == CodeRefusedEverywhere && d.Severity == SeverityWarning {
			continue
		}
		out = append(out, d)
	}
	return out
}
