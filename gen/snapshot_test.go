package gen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestEncodeSnapshotRefusesWhatGenerateRefuses: a tool list generate would
// refuse (a name twice, a tool without inputSchema) is refused when the
// snapshot is written.
func TestEncodeSnapshotRefusesWhatGenerateRefuses(t *testing.T) {
	tool := json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`)
	_, err := EncodeSnapshot("x.tools.json", SnapshotServer{Name: "s"}, "test", []json.RawMessage{tool, tool})
	if err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("duplicate tools: err = %v", err)
	}
	_, err = EncodeSnapshot("x.tools.json", SnapshotServer{Name: "s"}, "test", []json.RawMessage{json.RawMessage(`{"name":"b"}`)})
	if err == nil {
		t.Fatal("a tool without inputSchema was accepted")
	}
}

// TestEncodeSnapshotKeepsWhatTheServerSaid: members mcp.Tool lacks
// ("execution") and exact numbers are kept; text encoding/json would
// rewrite, and a key given twice, are refused (issue 15 items 7, 9, 11).
func TestEncodeSnapshotKeepsWhatTheServerSaid(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"z","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}},"execution":{"taskSupport":"optional"}}`),
		json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`),
	}
	b, err := EncodeSnapshot("x.tools.json", SnapshotServer{Name: "s"}, "test", tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"maximum": 9007199254740993`, `"taskSupport": "optional"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("snapshot lacks %s:\n%s", want, b)
		}
	}
	if bytes.Index(b, []byte(`"name": "a"`)) > bytes.Index(b, []byte(`"name": "z"`)) {
		t.Errorf("tools not sorted:\n%s", b)
	}
	for raw, want := range map[string]string{
		`{"name":"a","description":"caf` + "\xe9" + `","inputSchema":{"type":"object"}}`: `tools[0]/description: a string holds invalid UTF-8`,
		`{"name":"a","inputSchema":{"type":"object","type":"object"}}`:                   `key "type" twice in the object at "/inputSchema"`,
	} {
		_, err := EncodeSnapshot("x.tools.json", SnapshotServer{Name: "s"}, "test", []json.RawMessage{json.RawMessage(raw)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", raw, err, want)
		}
	}
}
