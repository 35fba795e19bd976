package model

import (
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/load"
)

// PatternDiagnostics names the tool and the pointer of each pattern the gate
// cannot match with its ECMA-262 meaning, including those (lookaround,
// back-references) that make the schema an error.
func TestPatternDiagnostics(t *testing.T) {
	snap, ds := load.LoadSnapshot("tools.json", []byte(`{"tools":[{"name":"login","inputSchema":{"type":"object","properties":{
		"user":{"type":"string","pattern":"^\\S+$"},
		"password":{"type":"string","pattern":"^(?=.*\\d).{8,}$"},
		"twice":{"type":"array","items":{"type":"string","pattern":"^(a)\\1$"}},
		"role":{"type":"string","pattern":"(?i)admin","enum":["admin"],"default":"x"},
		"tags":{"type":"object","patternProperties":{"^(?!x-)":{}}}}}}]}`))
	if ds.Err() != nil {
		t.Fatal(ds.Err())
	}
	got := PatternDiagnostics("tools.json", snap.Tools[0])
	// Go's regexp parses (?i) but not lookaround or back-references: those
	// make the schema an error, the other fails closed at run time.
	want := []struct {
		ptr, msg string
		sev      diag.Severity
	}{
		{"/tools/0/inputSchema/properties/password/pattern", "lookaround", diag.Error},
		{"/tools/0/inputSchema/properties/role/pattern", "group modifier", diag.Warning},
		{"/tools/0/inputSchema/properties/tags/patternProperties/^(?!x-)", "lookaround", diag.Error},
		{"/tools/0/inputSchema/properties/twice/items/pattern", "back-reference", diag.Error},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d warnings, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		say := "fail closed"
		if w.sev == diag.Error {
			say = "could not validate calls"
		}
		if got[i].Tool != "login" || got[i].Pointer != w.ptr || got[i].Severity != w.sev || !strings.Contains(got[i].Msg, w.msg) || !strings.Contains(got[i].Msg, say) {
			t.Errorf("warning %d = %+v, want %s: …%s…", i, got[i], w.ptr, w.msg)
		}
	}
}
