package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/load"
)

// The rules that keep a generated type from refusing a schema-valid value
// (issue 25 item 4). Each test fails on the model before them.

// argType builds a tool whose input schema has the one property x and
// returns x's Go type, without the pointer or Nullable of optionality.
func argType(t *testing.T, prop string) (Type, diag.List) {
	t.Helper()
	p, ds := build(t, `{"type":"object","properties":{"x":`+prop+`}}`, nil)
	if p == nil {
		t.Fatalf("%s: %v", prop, ds)
	}
	f := p.Tools[0].Args.field("x")
	if f == nil {
		t.Fatalf("%s: no field x", prop)
	}
	return unwrap(f.Type), ds
}

func unwrap(t Type) Type {
	for {
		switch x := t.(type) {
		case Pointer:
			t = x.Elem
		case Nullable:
			t = x.Elem
		default:
			return t
		}
	}
}

// Rule A: only type (or an enum or const) decides a shape. Object or array
// keywords without a type constrain only objects or arrays, so a string,
// number or null is valid there too: the type is json.RawMessage.
func TestTypelessIsRaw(t *testing.T) {
	for _, tc := range []struct {
		prop string
		raw  bool
	}{
		{`{"properties":{"a":{"type":"string"}}}`, true},
		{`{"required":["a"],"additionalProperties":false}`, true},
		{`{"patternProperties":{"^a":{"type":"integer"}}}`, true},
		{`{"items":{"type":"integer"}}`, true},
		{`{"prefixItems":[{"type":"integer"}]}`, true},
		{`{"allOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"string"}}}]}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, false},
		{`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"string"}}}]}`, false},
		{`{"type":"array","items":{"type":"integer"}}`, false},
		{`{"enum":["a","b"]}`, false},
	} {
		typ, _ := argType(t, tc.prop)
		if _, isRaw := typ.(Raw); isRaw != tc.raw {
			t.Errorf("%s: type %#v, want raw %v", tc.prop, typ, tc.raw)
		}
	}
}

// Rule B: a nested object's struct holds every key its schema allows:
// only additionalProperties false (and no patternProperties) closes it.
// Keys declared only in dependentSchemas, in an anyOf beside allOf, or
// allowed by an absent additionalProperties or by unevaluatedProperties
// go to the catch-all AdditionalProperties.
func TestNestedObjectKeepsAllowedKeys(t *testing.T) {
	for _, tc := range []struct {
		prop string
		open bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string"}}}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}},"dependentSchemas":{"a":{"properties":{"b":{"type":"integer"}}}}}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}},"unevaluatedProperties":{"type":"integer"}}`, true},
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`, false},
		{`{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"patternProperties":{"^x":{}}}`, true},
		{`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}],"anyOf":[{"required":["b"]},{"required":["c"]}]}`, true},
		// A closed member closes the merge: every key is one of its
		// properties, all of them fields.
		{`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"additionalProperties":false}]}`, false},
	} {
		typ, _ := argType(t, tc.prop)
		st, ok := typ.(*Struct)
		if !ok {
			t.Errorf("%s: type %#v, want a struct", tc.prop, typ)
			continue
		}
		if (st.Extra != nil) != tc.open {
			t.Errorf("%s: Extra %#v, want open %v", tc.prop, st.Extra, tc.open)
		}
	}
}

// Rule B: the properties beside a $ref are kept: with a plain object
// definition the two are merged into one struct (both properties, both
// required lists); with any other definition the $ref's type stands (it
// holds every value valid under the $ref, so every value valid under both).
func TestRefSiblingsKept(t *testing.T) {
	p, ds := build(t, `{"type":"object","properties":{
		"x":{"$ref":"#/$defs/base","properties":{"extra":{"type":"integer"}},"required":["extra"]},
		"y":{"$ref":"#/$defs/name","minLength":2},
		"z":{"$ref":"#/$defs/name","type":"object","properties":{"a":{}}}},
		"$defs":{"base":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"name":{"type":"string"}}}`, nil)
	if p == nil {
		t.Fatal(ds)
	}
	args := p.Tools[0].Args
	st, ok := unwrap(args.field("x").Type).(*Struct)
	if !ok {
		t.Fatalf("x: %#v, want a struct", args.field("x").Type)
	}
	if got := fmt.Sprint(fieldNames(st)); got != "map[extra:Extra id:ID]" {
		t.Errorf("x: fields %s, want extra and id", got)
	}
	for _, f := range st.Fields {
		if !f.Required {
			t.Errorf("x.%s is not required", f.JSONName)
		}
	}
	for _, name := range []string{"y", "z"} {
		if typ := unwrap(args.field(name).Type); typ != (Scalar{String}) {
			t.Errorf("%s: %#v, want the $ref's string", name, typ)
		}
	}
}

// Rule C: a tuple is []T only when every item schema and the schema of the
// items past it (items, additionalItems; any value when absent) are T's;
// any other tuple is []json.RawMessage, which holds every array.
func TestTupleRest(t *testing.T) {
	for _, tc := range []struct {
		prop string
		elem Type
	}{
		{`{"type":"array","prefixItems":[{"type":"string"},{"type":"string"}]}`, Raw{}},
		{`{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, Raw{}},
		{`{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, Raw{}},
		{`{"type":"array","prefixItems":[{"type":"string"},{"type":"string"}],"items":false}`, Scalar{String}},
		{`{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"string"}}`, Scalar{String}},
		{`{"type":"array","items":[{"type":"string"}]}`, Raw{}},
		{`{"type":"array","items":[{"type":"string"}],"additionalItems":false}`, Scalar{String}},
	} {
		typ, _ := argType(t, tc.prop)
		sl, ok := typ.(Slice)
		if !ok || sl.Elem != tc.elem {
			t.Errorf("%s: %#v, want a slice of %#v", tc.prop, typ, tc.elem)
		}
	}
}

// Rule D: a value valid under two anyOf branches decodes into the first:
// each object branch's struct is open (rule B), so the keys only the other
// branch declares do not make the first refuse it, and a typeless branch
// is json.RawMessage (rule A).
func TestOverlappingAnyOf(t *testing.T) {
	typ, _ := argType(t, `{"anyOf":[
		{"type":"object","properties":{"bar":{"type":"integer"}},"required":["bar"]},
		{"type":"object","properties":{"foo":{"type":"string"}},"required":["foo"]},
		{"properties":{"baz":{"type":"string"}}}]}`)
	u, ok := typ.(*Union)
	if !ok || len(u.Branches) != 3 {
		t.Fatalf("%#v, want a union of three", typ)
	}
	for i, br := range u.Branches[:2] {
		if st, ok := br.Type.(*Struct); !ok || st.Extra == nil {
			t.Errorf("branch %d: %#v, want an open struct", i, br.Type)
		}
	}
	if _, ok := u.Branches[2].Type.(Raw); !ok {
		t.Errorf("branch 2: %#v, want json.RawMessage", u.Branches[2].Type)
	}
}

// Rule E: a property whose name no struct tag can hold has no field, with
// a warning, and its value is kept in AdditionalProperties, at the top
// level as in a closed nested object, instead of being refused.
func TestUntaggableNameKept(t *testing.T) {
	p, ds := build(t, `{"type":"object","properties":{"a,b":{"type":"string"},"q\"":{"type":"integer"},
		"n":{"type":"object","properties":{"c\\d":{"type":"string"}},"additionalProperties":false}}}`, nil)
	if p == nil {
		t.Fatal(ds)
	}
	args := p.Tools[0].Args
	if _, ok := args.Extra.(Raw); !ok || len(args.Fields) != 1 {
		t.Errorf("Args: Extra %#v, fields %v, want json.RawMessage and n alone", args.Extra, fieldNames(args))
	}
	n := unwrap(args.field("n").Type).(*Struct)
	if _, ok := n.Extra.(Raw); !ok || len(n.Fields) != 0 {
		t.Errorf("n: Extra %#v, fields %v, want json.RawMessage and none", n.Extra, fieldNames(n))
	}
	warned := 0
	for _, d := range ds {
		if strings.Contains(d.Msg, "cannot be a JSON struct tag") && strings.Contains(d.Msg, "kept as sent") {
			warned++
		}
	}
	if warned != 3 {
		t.Errorf("%d warnings about untaggable names, want 3: %v", warned, ds)
	}
}

// An integer whose bounds keep it within int64 (uint64) gets no warning;
// any other gets one, a warning per tool listing its pointers (code
// integer-range). Bounds at the edges are read exactly from the schema's
// literals: 9223372036854775807 is 2^63 as a float64.
func TestIntegerRangeWarning(t *testing.T) {
	for _, tc := range []struct {
		prop string
		warn bool
	}{
		{`{"type":"integer","minimum":0,"maximum":100}`, false},
		{`{"type":"integer","minimum":-9223372036854775808,"maximum":9223372036854775807}`, false},
		{`{"type":"integer","exclusiveMinimum":-9223372036854775809,"exclusiveMaximum":9223372036854775808}`, false},
		{`{"type":"integer","format":"uint64","minimum":0,"maximum":18446744073709551615}`, false},
		{`{"type":"integer","enum":[1,2]}`, false},
		{`{"type":"integer"}`, true},
		{`{"type":"integer","minimum":0}`, true},
		{`{"type":"integer","minimum":0,"maximum":9223372036854775808}`, true},
		{`{"type":"integer","minimum":-9223372036854775809,"maximum":0}`, true},
		{`{"type":"integer","format":"uint64","minimum":0,"maximum":18446744073709551616}`, true},
	} {
		_, ds := argType(t, tc.prop)
		var got []diag.Diagnostic
		for _, d := range ds {
			if d.Code == diag.CodeIntegerRange {
				got = append(got, d)
			}
		}
		if (len(got) > 0) != tc.warn {
			t.Errorf("%s: integer-range warnings %v, want %v", tc.prop, got, tc.warn)
		}
		if len(got) > 0 && (got[0].Tool != "tool" || got[0].Severity != diag.Warning || !strings.HasSuffix(got[0].Msg, "/tools/0/inputSchema/properties/x")) {
			t.Errorf("%s: %+v, want the tool and the pointer", tc.prop, got[0])
		}
	}
	// One warning per tool and rule, however many integers.
	_, ds := build(t, `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"array","items":{"type":"integer"}},"c":{"type":"number"}}}`, nil)
	var lines []string
	for _, d := range ds {
		if d.Code == diag.CodeIntegerRange || d.Code == diag.CodeNumberPrecision {
			lines = append(lines, d.Msg)
		}
	}
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "/tools/0/inputSchema/properties/a, /tools/0/inputSchema/properties/b/items") ||
		!strings.HasSuffix(lines[1], "/tools/0/inputSchema/properties/c") {
		t.Errorf("warnings %q, want one integer-range (a, b/items) and one number-precision (c)", lines)
	}
}

// A pattern the gate cannot translate (lookaround, a back-reference, one
// Go's regexp cannot parse) is a warning with its code naming the tool and
// the pointer; the package is built, the other tools with it.
func TestPatternUntranslatableIsWarning(t *testing.T) {
	p, ds := buildTools(t, map[string]string{
		"login": `{"type":"object","properties":{"p":{"type":"string","pattern":"^(?=.*\\d).{8,}$"},"q":{"type":"object","patternProperties":{"^(a)\\1":{}}}}}`,
		"other": `{"type":"object","properties":{"s":{"type":"string"}}}`,
	}, nil)
	if p == nil || len(p.Tools) != 2 {
		t.Fatalf("not built: %v", ds)
	}
	var ptrs []string
	for _, d := range ds {
		if d.Code == diag.CodePatternUntranslatable {
			_, d.Pointer, _ = strings.Cut(d.Pointer, "/inputSchema") // the tools' order in the file is a map's
			if d.Severity != diag.Warning || d.Tool != "login" || !strings.Contains(d.Msg, "fail closed") {
				t.Errorf("%+v", d)
			}
			ptrs = append(ptrs, d.Pointer)
		}
	}
	if fmt.Sprint(ptrs) != `[/properties/p/pattern /properties/q/patternProperties/^(a)\1]` {
		t.Errorf("pattern warnings at %v", ptrs)
	}
}

// An output schema with such a pattern still does not resolve: the gate
// would not validate results against it, which a warning says, and the
// package carries no output schema for the tool.
func TestPatternUntranslatableOutputSchema(t *testing.T) {
	s, ds := load.LoadSnapshot("s.tools.json", []byte(`{"tools":[{"name":"t","inputSchema":{"type":"object"},
		"outputSchema":{"type":"object","properties":{"p":{"type":"string","pattern":"(?=x)"}}}}]}`))
	if s == nil {
		t.Fatal(ds)
	}
	p, ds := Build(s, nil, "p")
	if p == nil {
		t.Fatal(ds)
	}
	if p.Tools[0].CanonicalOutputSchema != nil {
		t.Errorf("output schema kept: %s", p.Tools[0].CanonicalOutputSchema)
	}
	found := false
	for _, d := range ds {
		found = found || (d.Pointer == "/tools/0/outputSchema" && strings.Contains(d.Msg, "will not validate"))
	}
	if !found {
		t.Errorf("no warning about the output schema: %v", ds)
	}
}
