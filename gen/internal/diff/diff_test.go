package diff

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/model"
)

func kinds(cs []Change) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.Kind+" "+c.Pointer)
	}
	return strings.Join(s, "; ")
}

func TestSchemaEdgeCases(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		output         bool
		want           string
		breaking       bool
	}{
		{"equal", `{"type":"object"}`, `{"type": "object"}`, false, "", false},
		{"true to false", `{"properties":{"a":true}}`, `{"properties":{"a":false}}`, false, "schema-tightened /s/properties/a", true},
		{"false to object", `{"properties":{"a":false}}`, `{"properties":{"a":{"type":"string"}}}`, false, "schema-loosened /s/properties/a", false},
		{"absent type imposed", `{"properties":{"a":{}}}`, `{"properties":{"a":{"type":"string"}}}`, false, "type-narrowed /s/properties/a/type", true},
		{"type reorder", `{"type":["string","null"]}`, `{"type":["null","string"]}`, false, "", false},
		{"integer to number output", `{"type":"integer"}`, `{"type":"number"}`, true, "type-widened /s/type", true},
		{"number same value", `{"minimum":1}`, `{"minimum":1.0}`, false, "", false},
		{"hostile exponent", `{"minimum":1}`, `{"minimum":1e999999999}`, false, "keyword-changed /s/minimum", true},
		{"multipleOf unrelated", `{"multipleOf":2}`, `{"multipleOf":3}`, false, "constraint-changed /s/multipleOf", true},
		{"multipleOf decimal", `{"multipleOf":0.1}`, `{"multipleOf":0.3}`, false, "constraint-tightened /s/multipleOf", true},
		{"exclusive bound lowered", `{"exclusiveMaximum":5}`, `{"exclusiveMaximum":10}`, false, "constraint-loosened /s/exclusiveMaximum", false},
		{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, `{"additionalProperties":{"type":"integer"}}`, false, "type-changed /s/additionalProperties/type", true},
		{"additionalProperties true to {}", `{"additionalProperties":true}`, `{}`, false, "", false},
		{"enum added", `{"type":"string"}`, `{"type":"string","enum":["a"]}`, false, "enum-added /s/enum", true},
		{"enum removed output", `{"enum":["a"]}`, `{}`, true, "enum-removed /s/enum", true},
		{"tuple", `{"prefixItems":[{"type":"string"}]}`, `{"prefixItems":[{"type":"string"},{"type":"integer"}]}`, false, "type-narrowed /s/prefixItems/1/type", true},
		{"escaped pointer", `{"properties":{"a/b~c":{"type":"string"}}}`, `{"properties":{"a/b~c":{"type":"integer"}}}`, false, "type-changed /s/properties/a~1b~0c/type", true},
		{"unknown keyword", `{}`, `{"not":{"type":"string"}}`, false, "keyword-changed /s/not", true},
		{"vendor keyword", `{"x-order":1}`, `{"x-order":2}`, false, "annotation-changed /s/x-order", false},
		{"default", `{"default":1}`, `{"default":2}`, false, "annotation-changed /s/default", false},
		{"not json", `{`, `{"type":"object"}`, false, "keyword-changed /s", true},
		{"alternatives removed", `{"oneOf":[{"type":"string"},{"type":"integer"}]}`, `{"oneOf":[{"type":"string"}]}`, false, "alternative-removed /s/oneOf/1", true},
		{"required not an array", `{"required":true}`, `{"required":["a"]}`, false, "property-required /s/properties/a", true},
	} {
		cs := Schema("/s", []byte(tc.old), []byte(tc.new), tc.output)
		if got := kinds(cs); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			continue
		}
		if len(cs) > 0 && cs[0].Breaking != tc.breaking {
			t.Errorf("%s: breaking = %v, want %v", tc.name, cs[0].Breaking, tc.breaking)
		}
	}
}

// TestSchemaNeverPanics feeds the walker random mutations of JSON values.
func TestSchemaNeverPanics(t *testing.T) {
	vals := []string{`null`, `true`, `false`, `1`, `"s"`, `[]`, `{}`, `[1,"a",null]`, `{"type":"string"}`, `["x"]`, `{"a":{}}`, `-0.5e3`}
	keys := []string{"type", "properties", "required", "enum", "const", "items", "prefixItems", "anyOf", "allOf", "additionalProperties", "minimum", "multipleOf", "$defs", "$ref", "description", "pattern", "uniqueItems", "not"}
	r := rand.New(rand.NewPCG(1, 2))
	gen := func(depth int) string {
		var build func(d int) string
		build = func(d int) string {
			if d == 0 || r.IntN(3) == 0 {
				return vals[r.IntN(len(vals))]
			}
			var parts []string
			for range r.IntN(4) {
				parts = append(parts, strconv.Quote(keys[r.IntN(len(keys))])+":"+build(d-1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
		return build(depth)
	}
	for range 3000 {
		a, b := gen(4), gen(4)
		for _, out := range []bool{false, true} {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("panic on %s → %s: %v", a, b, p)
					}
				}()
				Schema("", []byte(a), []byte(b), out)
			}()
		}
		if cs := Schema("", []byte(a), []byte(a), false); len(cs) != 0 && validJSON(a) {
			t.Fatalf("a schema compared with itself has changes: %s: %s", a, kinds(cs))
		}
	}
}

func validJSON(s string) bool { _, err := Decode([]byte(s)); return err == nil }

// apply applies a unified diff to a, the way patch(1) would, and fails the
// test on any malformed hunk or context mismatch.
func apply(t *testing.T, a, unified string) string {
	t.Helper()
	if unified == "" {
		return a
	}
	lines := strings.Split(strings.TrimSuffix(unified, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		t.Fatalf("no header: %q", unified)
	}
	src, _ := SplitLines(a)
	srcNoEOL := a != "" && !strings.HasSuffix(a, "\n")
	var out []string
	outNoEOL := false
	pos := 0 // next src line (0-based)
	hunk := regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)
	i := 2
	for i < len(lines) {
		m := hunk.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("bad hunk header %q in\n%s", lines[i], unified)
		}
		start, _ := strconv.Atoi(m[1])
		acount := 1
		if m[2] != "" {
			acount, _ = strconv.Atoi(m[2])
		}
		bcount := 1
		if m[4] != "" {
			bcount, _ = strconv.Atoi(m[4])
		}
		if acount > 0 {
			start--
		}
		if start < pos {
			t.Fatalf("hunks overlap or go backwards in\n%s", unified)
		}
		out = append(out, src[pos:start]...)
		pos = start
		i++
		na, nb := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != l[1:] {
					t.Fatalf("context mismatch at line %d: %q in\n%s", pos+1, l, unified)
				}
				if l[0] == ' ' {
					out = append(out, l[1:])
					nb++
				}
				pos++
				na++
			case '+':
				out = append(out, l[1:])
				nb++
			case '\\':
				if lines[i-1][0] != '-' {
					outNoEOL = true
				}
			default:
				t.Fatalf("bad line %q", l)
			}
			i++
		}
		if na != acount || nb != bcount {
			t.Fatalf("hunk counts %d,%d but header says %d,%d in\n%s", na, nb, acount, bcount, unified)
		}
	}
	out = append(out, src[pos:]...)
	if pos < len(src) {
		outNoEOL = srcNoEOL
	}
	if len(out) == 0 {
		return ""
	}
	s := strings.Join(out, "\n")
	if !outNoEOL {
		s += "\n"
	}
	return s
}

func TestUnifiedApplies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"a", "b", "c", "d", "package x", ""}
	text := func() string {
		var b strings.Builder
		n := r.IntN(25)
		for i := range n {
			b.WriteString(words[r.IntN(len(words))])
			if i < n-1 || r.IntN(4) != 0 {
				b.WriteByte('\n')
			}
		}
		return b.String()
	}
	for range 5000 {
		a, b := text(), text()
		u := Unified("a", "b", a, b)
		if (u == "") != (a == b) {
			t.Fatalf("Unified(%q, %q) = %q", a, b, u)
		}
		if got := apply(t, a, u); got != b {
			t.Fatalf("applying\n%s\nto %q gives %q, want %q", u, a, got, b)
		}
	}
}

func TestUnifiedFormat(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13"
	want := `--- a/x.go
+++ b/x.go
@@ -1,6 +1,6 @@
 1
 2
-3
+three
 4
 5
 6
@@ -10,3 +10,4 @@
 10
 11
 12
+13
\ No newline at end of file
`
	if got := Unified("a/x.go", "b/x.go", a, b); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := Unified("/dev/null", "b/new.go", "", "x\n"); got != "--- /dev/null\n+++ b/new.go\n@@ -0,0 +1 @@\n+x\n" {
		t.Errorf("new file: got\n%s", got)
	}
}

func TestLinesLargeFallsBack(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, fmt.Sprint("a", i))
		b = append(b, fmt.Sprint("b", i))
	}
	ops := Lines(a, b)
	if len(ops) != 6000 || ops[0].Kind != '-' || ops[5999].Kind != '+' {
		t.Errorf("fallback diff has %d ops", len(ops))
	}
}

func classification(t *testing.T, yaml string) *load.Classification {
	t.Helper()
	c, diags := load.LoadClassification("c.yaml", []byte(yaml))
	if diags.Err() != nil {
		t.Fatal(diags.Err())
	}
	return c
}

func TestTierReordered(t *testing.T) {
	a := classification(t, "version: 1\ntiers: [visitor, member, admin]\ndefault: {tier: member}\ntools: {}\n")
	b := classification(t, "version: 1\ntiers: [member, visitor, admin]\ndefault: {tier: member}\ntools: {}\n")
	cs := ComparePolicies(model.ResolvePolicy("t", a), model.ResolvePolicy("t", b))
	if kinds(cs) != "tier-lowered /default/tier" || !cs[0].Security {
		t.Errorf("reordered tiers: %s", kinds(cs))
	}
	c := classification(t, "version: 1\ntiers: [visitor, boss, admin]\ndefault: {tier: boss}\ntools: {}\n")
	if cs := ComparePolicies(model.ResolvePolicy("t", a), model.ResolvePolicy("t", c)); kinds(cs) != "tier-changed /default/tier" {
		t.Errorf("renamed tier: %s", kinds(cs))
	}
}
