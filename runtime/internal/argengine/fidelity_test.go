package argengine

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The engine's half of the gate's fidelity rules (issue 15); runtime/ocp's
// fidelity_test.go sends the other cases through Gate.Dispatch.

// Issue 15 item 1: a lone surrogate escape is refused with a pointer
// naming where it is.
func TestLoneSurrogatePointers(t *testing.T) {
	tp := getTape()
	defer putTape(tp)
	err := tp.parse(`{"m":{"a/b":["x","\ud800"]}}`)
	if err == nil || !strings.Contains(err.Error(), "/m/a~1b/1") || !strings.Contains(err.Error(), "surrogate") {
		t.Errorf("error %v does not name /m/a~1b/1", err)
	}
	err = tp.parse(`{"raw":{"\ud800":1}}`)
	if err == nil || !strings.Contains(err.Error(), "/raw") || !strings.Contains(err.Error(), "member name") {
		t.Errorf("error %v does not name the member name under /raw", err)
	}
}

// Issue 15 item 5: a pattern means what ECMA-262 says.
func TestPatternECMADialect(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		ok         bool
	}{
		{`^\S+$`, "admin", true},
		{`^\S+$`, "admin\u00a0", false},
		{`^\S+$`, "admin\ufeff", false},
		{`^\s$`, "\v", true},
		{`^\s$`, "\u3000", true},
		{`^.$`, "\u2028", false},
		{`^.$`, "\r", false},
		{`^[\s]$`, "\u00a0", true},
		{`^[^\S]$`, "\u2029", true},
		{`(?i)^admin$`, "admin", false}, // no ECMA-262 meaning: fail closed
		{`^\w+$`, "é", false},
		{`^\d$`, "٣", false},
	} {
		raw := `{"type":"string","pattern":` + jsonQuote(tc.pattern) + `}`
		d := resolveExact(t, raw)
		tp := getTape()
		if err := tp.parse(jsonQuote(tc.s)); err != nil {
			t.Fatal(err)
		}
		if err := d.validate(tp, 0); (err == nil) != tc.ok {
			t.Errorf("%s on %q: %v, want ok=%v", tc.pattern, tc.s, err, tc.ok)
		}
		putTape(tp)
	}
	// Lookaround has no linear-time translation: the tool is still built
	// (NewGate does not fail), and every call of it is refused, naming the
	// pattern's pointer, whatever the value.
	e, err := Compile([]byte(`{"type":"object","properties":{"s":{"type":"string","pattern":"^(?!admin)"}}}`), reflect.TypeFor[GetNoteArgs](), testLimits)
	if err != nil {
		t.Fatalf("a tool with a lookahead pattern: %v", err)
	}
	for _, args := range []string{`{"s":"x"}`, `{}`} {
		_, _, err := e.Check([]byte(args), allFields(e))
		var pr *patternRefusal
		var r *Refusal
		if !errors.As(err, &pr) || pr.At != "/properties/s/pattern" || !errors.As(err, &r) || r.Rule != RulePatternUntranslatable || r.Pointer != "" {
			t.Errorf("%s: %v, want a patternRefusal at /properties/s/pattern, refused at the root", args, err)
		}
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// resolveExact compiles a schema as Compile does.
func resolveExact(t *testing.T, raw string) *schemaCheck {
	t.Helper()
	c, err := compileSchemaJSON([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// enum, const and uniqueItems compare numbers exactly too.
func TestExactNumericEquality(t *testing.T) {
	for _, tc := range []struct {
		schema, inst string
		ok           bool
	}{
		{`{"enum":[9007199254740992]}`, `9007199254740993`, false},
		{`{"enum":[9007199254740992]}`, `9007199254740992`, true},
		{`{"enum":[9007199254740992]}`, `9.007199254740992e15`, true},
		{`{"const":0.1}`, `0.1000000000000000055511151231257827`, false},
		{`{"const":0.1}`, `0.10`, true},
		{`{"enum":[[1,{"a":2}]]}`, `[1.0,{"a":2e0}]`, true},
		{`{"uniqueItems":true}`, `[9007199254740992,9007199254740993]`, true},
		{`{"uniqueItems":true}`, `[1,1.0]`, false},
	} {
		c := resolveExact(t, tc.schema)
		tp := getTape()
		if err := tp.parse(tc.inst); err != nil {
			t.Fatal(err)
		}
		if err := c.validate(tp, 0); (err == nil) != tc.ok {
			t.Errorf("%s on %s: %v, want ok=%v", tc.schema, tc.inst, err, tc.ok)
		}
		putTape(tp)
	}
}
