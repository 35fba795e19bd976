package model

import (
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
)

// TestInvisibleNameWarns: generate warns, with a code, about a tool whose
// name holds a character a reader cannot see (purge_all and purge_all +
// U+3164 read the same), and about no other tool.
func TestInvisibleNameWarns(t *testing.T) {
	schema := `{"type":"object"}`
	names := map[string]string{
		"purge_all":              "",
		"purge_all\u3164":        "U+3164",
		"purge\u034Fall\uFE0F":   "U+034F, U+FE0F",
		"purge_all\u200B":        "U+200B",
		"purge_all\u2065":        "U+2065",
		"caf\u00e9_\u65e5\u672c": "",
	}
	in := map[string]string{}
	for n := range names {
		in[n] = schema
	}
	_, ds := buildTools(t, in, nil)
	if ds.Err() != nil {
		t.Fatal(ds)
	}
	got := map[string]diag.Diagnostic{}
	for _, d := range ds {
		if d.Code == diag.CodeInvisibleName {
			got[d.Tool] = d
		}
	}
	for n, hidden := range names {
		d, warned := got[n]
		switch {
		case hidden == "" && warned:
			t.Errorf("%q: warned: %v", n, d)
		case hidden != "" && !warned:
			t.Errorf("%q: no %s warning in %v", n, diag.CodeInvisibleName, ds)
		case warned && (d.Severity != diag.Warning || !strings.Contains(d.Msg, "("+hidden+")") || !strings.HasSuffix(d.Pointer, "/name")):
			t.Errorf("%q: %+v, want a warning at /name listing %s", n, d, hidden)
		}
	}
}
