package model

import (
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/load"
)

// PatternDiagnostics names the tool and the pointer of each pattern the gate
// cannot match with its ECMA-262 meaning, each a warning with its code:
// lookaround and back-references (which Go's regexp cannot parse either)
// no more than the others.
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
	want := []struct{ ptr, msg string }{
		{"/tools/0/inputSchema/properties/password/pattern", "lookaround"},
		{"/tools/0/inputSchema/properties/role/pattern", "group modifier"},
		{"/tools/0/inputSchema/properties/tags/patternProperties/^(?!x-)", "lookaround"},
		{"/tools/0/inputSchema/properties/twice/items/pattern", "back-reference"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d warnings, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		if got[i].Tool != "login" || got[i].Pointer != w.ptr || got[i].Severity != diag.Warning || got[i].Code != diag.CodePatternUntranslatable ||
			!strings.Contains(got[i].Msg, w.msg) || !strings.Contains(got[i].Msg, "fail closed") {
			t.Errorf("warning %d = %+v, want %s: …%s…", i, got[i], w.ptr, w.msg)
		}
	}
}
