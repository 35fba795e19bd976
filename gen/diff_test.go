package gen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestDiffJSONIsStable(t *testing.T) {
	snap := []byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`)
	r, err := Diff(Input{SnapshotFile: "o.json"}, Input{SnapshotFile: "n.json", Snapshot: snap})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"format", "old", "new", "summary", "tools"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON report has no %q", k)
		}
	}
	tool := m["tools"].([]any)[0].(map[string]any)
	for _, k := range []string{"changes", "notes"} {
		if _, ok := tool[k].([]any); !ok {
			t.Errorf("tools[0].%s is %v, want an array (never null)", k, tool[k])
		}
	}
	if tool["old"] != nil {
		t.Errorf("an added tool's old policy is %v, want null", tool["old"])
	}
}

func TestDiffErrors(t *testing.T) {
	good := []byte(`{"tools":[]}`)
	for _, tc := range []struct {
		name     string
		old, new Input
		want     string
	}{
		{"no snapshots", Input{}, Input{}, "neither side has a snapshot"},
		{"bad json", Input{SnapshotFile: "o.json", Snapshot: []byte(`{`)}, Input{SnapshotFile: "n.json", Snapshot: good}, "o.json:1:2: invalid JSON"},
		{"bad yaml", Input{SnapshotFile: "o.json", Snapshot: good},
			Input{SnapshotFile: "n.json", Snapshot: good, ClassifyFile: "n.yaml", Classify: []byte("version: 1\nacess: x\n")}, "n.yaml:2:1"},
	} {
		_, err := Diff(tc.old, tc.new)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
