package argengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/ocpgen/ocpgen/internal/ecmare"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// The compiled validator is held to two references: the JSON Schema Test
// Suite's expected verdicts (TestSchemaCheckSuite) and
// santhosh-tekuri/jsonschema v6, configured to mean what the gate means:
// numbers exact (its UnmarshalJSON keeps json.Number) and patterns
// ECMA-262 through internal/ecmare. They are compared on the suite, on the
// real schemas of the corpus (testdata/corpus) and on random schemas, with
// instances generated from each schema (mostly valid, then perturbed), and
// FuzzSchemaCheck lets the fuzzer look for a disagreement.

// oracle is a schema compiled by santhosh-tekuri/jsonschema.
type oracle struct{ s *jsv.Schema }

func ecmaEngine(src string) (jsv.Regexp, error) {
	re, err := ecmare.Compile(src)
	if err != nil {
		return nil, err
	}
	return re, nil
}

func compileOracle(raw []byte) (*oracle, error) {
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsv.NewCompiler()
	c.DefaultDraft(jsv.Draft2020)
	c.UseRegexpEngine(ecmaEngine)
	// format is an annotation for the gate; santhosh-tekuri/jsonschema
	// asserts it under draft-07 whatever it is told, so every format it
	// knows asserts nothing here ("regex" it checks with the engine above).
	for _, name := range []string{"json-pointer", "relative-json-pointer", "uuid", "duration", "period", "ipv4", "ipv6",
		"hostname", "email", "idn-email", "idn-hostname", "date", "time", "date-time", "uri", "iri", "uri-reference",
		"iri-reference", "uri-template", "semver"} {
		c.RegisterFormat(&jsv.Format{Name: name, Validate: func(any) error { return nil }})
	}
	if err := c.AddResource(defaultBase, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(defaultBase)
	if err != nil {
		return nil, err
	}
	return &oracle{s}, nil
}

func (o *oracle) valid(inst []byte) (bool, error) {
	v, err := jsv.UnmarshalJSON(bytes.NewReader(inst))
	if err != nil {
		return false, err
	}
	return o.s.Validate(v) == nil, nil
}

type diffSchema struct {
	name  string
	raw   []byte
	rs    *jsonschema.Resolved // only to generate instances
	check *schemaCheck
	ref   *oracle
}

// compiledOK validates inst (which must parse) with sc.
func compiledOK(t testing.TB, sc *schemaCheck, inst []byte) (bool, error) {
	tp := getTape()
	defer putTape(tp)
	if err := tp.parse(string(inst)); err != nil {
		return false, err
	}
	err := sc.validate(tp, 0)
	var pr *patternRefusal
	if errors.As(err, &pr) {
		return false, err
	}
	return err == nil, nil
}

// newDiff compiles raw with both validators; nil when either refuses it
// (the tests that need both to compile say so).
func newDiff(t testing.TB, name string, raw []byte) *diffSchema {
	sc, err := compileSchemaJSON(raw)
	if err != nil || sc.refusal != nil {
		return nil
	}
	if sc.root.draft7 && bytes.Contains(raw, []byte(`"$ref"`)) {
		// santhosh-tekuri/jsonschema v6.0.3 applies draft-06 and draft-07
		// keywords (const, contains, propertyNames, if/then/else) beside
		// a draft-07 $ref, which draft-07 says MUST be ignored (§8.3), and
		// the gate ignores: no oracle for these.
		return nil
	}
	o, err := compileOracle(raw)
	if err != nil {
		return nil
	}
	d := &diffSchema{name: name, raw: raw, check: sc, ref: o}
	var s jsonschema.Schema
	if json.Unmarshal(raw, &s) == nil {
		if rs, err := s.Resolve(nil); err == nil {
			d.rs = rs
		}
	}
	return d
}

// agree fails the test when the validators disagree on the instance.
func (d *diffSchema) agree(t testing.TB, inst []byte) {
	t.Helper()
	got, err := compiledOK(t, d.check, inst)
	if err != nil {
		return // not an instance the gate parses (see argtape.go)
	}
	want, err := d.ref.valid(inst)
	if err != nil {
		return
	}
	if got != want {
		t.Fatalf("%s: schema %s, instance %s: compiled says %v, santhosh-tekuri/jsonschema says %v", d.name, d.raw, inst, got, want)
	}
}

func (d *diffSchema) instance(r *rand.Rand) []byte {
	var s *jsonschema.Schema
	if d.rs != nil {
		s = d.rs.Schema()
	}
	b, err := json.Marshal(gen(r, s, 0))
	if err != nil {
		panic(err)
	}
	return b
}

// suiteDir holds the JSON Schema Test Suite's draft 2020-12 files.
var suiteDir = filepath.Join("..", "..", "..", "testdata", "jsonschema-suite", "tests", "draft2020-12")

type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

func suiteFiles(t testing.TB) []string {
	var files []string
	for _, glob := range []string{"*.json", "optional/*.json"} {
		m, err := filepath.Glob(filepath.Join(suiteDir, glob))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("only %d suite files under %s", len(files), suiteDir)
	}
	return files
}

func readSuite(t testing.TB, file string) []suiteGroup {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var groups []suiteGroup
	if err := json.Unmarshal(b, &groups); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return groups
}

// suiteExceptions are the suite's cases the compiled validator is not held
// to, each with its reason: "file|group" for a whole group, or
// "file|group|test" for one case.
var suiteExceptions = map[string]string{
	// The gate loads no remote schema: these groups refer to the suite's
	// remotes/ (http://localhost:1234/...), which are not kept.
	"refRemote.json|*": "needs the suite's remotes: the gate resolves no remote reference (a compile error)",
	"vocabulary.json|schema that uses custom metaschema with with no validation vocabulary": "its $schema is a remote metaschema: neither draft (a compile error)",
	"vocabulary.json|ignore unrecognized optional vocabulary":                               "its $schema is a remote metaschema: neither draft (a compile error)",
	"ref.json|remote ref, containing refs itself":                                           "refers to the 2020-12 metaschema by URL: a remote reference",
	"defs.json|validate definition against metaschema":                                      "refers to the 2020-12 metaschema by URL: a remote reference",
	"dynamicRef.json|strict-tree schema, guards against misspelled properties":              "refers to http://localhost:1234/draft2020-12/tree.json: a remote reference",
	"dynamicRef.json|tests for implementation dynamic anchor and reference link":            "refers to http://localhost:1234/draft2020-12/extendible-dynamic-ref.json: a remote reference",
	"dynamicRef.json|$ref and $dynamicAnchor are independent of order - $defs first":        "refers to http://localhost:1234/draft2020-12/extendible-dynamic-ref.json: a remote reference",
	"dynamicRef.json|$ref and $dynamicAnchor are independent of order - $ref first":         "refers to http://localhost:1234/draft2020-12/extendible-dynamic-ref.json: a remote reference",
	"dynamicRef.json|$ref to $dynamicRef finds detached $dynamicAnchor":                     "refers to http://localhost:1234/draft2020-12/detached-dynamicref.json: a remote reference",
}

// gen makes an instance of s: valid by construction where it can be, with
// the odd wrong type, bound or extra key.
func gen(r *rand.Rand, s *jsonschema.Schema, depth int) any {
	if s == nil || depth > 6 || r.IntN(12) == 0 {
		return randomJSON(r, depth)
	}
	if len(s.Enum) > 0 && r.IntN(6) != 0 {
		return s.Enum[r.IntN(len(s.Enum))]
	}
	if s.Const != nil && r.IntN(4) != 0 {
		return *s.Const
	}
	for _, xs := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf} {
		if len(xs) > 0 && r.IntN(2) == 0 {
			return gen(r, xs[r.IntN(len(xs))], depth+1)
		}
	}
	typ := s.Type
	if typ == "" && len(s.Types) > 0 {
		typ = s.Types[r.IntN(len(s.Types))]
	}
	if typ == "" {
		switch {
		case s.Properties != nil:
			typ = "object"
		case s.Items != nil:
			typ = "array"
		default:
			return randomJSON(r, depth)
		}
	}
	switch typ {
	case "null":
		return nil
	case "boolean":
		return r.IntN(2) == 0
	case "integer", "number":
		lo, hi := -5.0, 50.0
		if s.Minimum != nil {
			lo = *s.Minimum
		}
		if s.ExclusiveMinimum != nil {
			lo = *s.ExclusiveMinimum
		}
		if s.Maximum != nil {
			hi = *s.Maximum
		}
		if s.ExclusiveMaximum != nil {
			hi = *s.ExclusiveMaximum
		}
		if hi < lo {
			hi = lo + 10
		}
		picks := []float64{lo, hi, lo - 1, hi + 1, float64(int(lo + (hi-lo)/2)), lo + 0.5}
		if s.MultipleOf != nil {
			picks = append(picks, *s.MultipleOf*float64(r.IntN(5)))
		}
		return picks[r.IntN(len(picks))]
	case "string":
		n := r.IntN(8)
		if s.MinLength != nil && r.IntN(2) == 0 {
			n = *s.MinLength + r.IntN(3) - 1
		}
		if s.MaxLength != nil && r.IntN(3) == 0 {
			n = *s.MaxLength + r.IntN(3) - 1
		}
		if n < 0 {
			n = 0
		}
		b := make([]rune, n)
		for i := range b {
			b[i] = rune("ab-0123456789éZ_"[r.IntN(16)])
		}
		if s.Pattern != "" && r.IntN(2) == 0 {
			return []string{"2024-01-31", "abc", "", "a-b", "A1", "x/y", "12345"}[r.IntN(7)]
		}
		return string(b)
	case "array":
		n := r.IntN(4)
		if s.MinItems != nil && r.IntN(2) == 0 {
			n = max(*s.MinItems+r.IntN(3)-1, 0)
		}
		a := make([]any, n)
		for i := range a {
			a[i] = gen(r, s.Items, depth+1)
		}
		if s.UniqueItems && n > 0 && r.IntN(3) == 0 {
			a = append(a, a[0])
		}
		return a
	case "object":
		m := map[string]any{}
		names := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if slices.Contains(s.Required, k) && r.IntN(20) != 0 || r.IntN(2) == 0 {
				m[k] = gen(r, s.Properties[k], depth+1)
			}
		}
		if r.IntN(8) == 0 {
			m[fmt.Sprintf("extra%d", r.IntN(3))] = randomJSON(r, depth+1)
		}
		if s.AdditionalProperties != nil && r.IntN(3) == 0 {
			m["more"] = gen(r, s.AdditionalProperties, depth+1)
		}
		return m
	}
	return randomJSON(r, depth)
}

func randomJSON(r *rand.Rand, depth int) any {
	k := r.IntN(9)
	if depth > 4 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return float64(r.IntN(21) - 10)
	case 3:
		return []float64{0.5, -0, 1e300, 2.5e-7, 3}[r.IntN(5)]
	case 4, 5:
		return []string{"", "a", "é", "2024-01-31", "person", "x y"}[r.IntN(6)]
	case 6:
		a := make([]any, r.IntN(3))
		for i := range a {
			a[i] = randomJSON(r, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for i := range r.IntN(3) {
			m[fmt.Sprintf("k%d", i)] = randomJSON(r, depth+1)
		}
		return m
	}
}

// randomSchema makes a schema from the keywords the compiled validator
// covers, and now and then one it does not.
func randomSchema(r *rand.Rand, depth int) map[string]any {
	s := map[string]any{}
	types := []string{"null", "boolean", "integer", "number", "string", "array", "object"}
	switch r.IntN(4) {
	case 0:
	case 1:
		s["type"] = types[r.IntN(len(types))]
	case 2:
		a, b := r.IntN(len(types)), r.IntN(len(types)-1)
		if b >= a {
			b++
		}
		s["type"] = []any{types[a], types[b]}
	case 3:
		s["type"] = types[4+r.IntN(3)]
	}
	maybe := func(p int, k string, v func() any) {
		if r.IntN(p) == 0 {
			s[k] = v()
		}
	}
	num := func() any { return []float64{0, 1, 2.5, -3, 10, 1e-3}[r.IntN(6)] }
	small := func() any { return float64(r.IntN(4)) }
	maybe(6, "enum", func() any { return []any{"a", 1.0, nil, []any{1.0}, map[string]any{"x": true}}[:1+r.IntN(5)] })
	maybe(12, "const", func() any { return []any{"a", 1.0, nil, false}[r.IntN(4)] })
	maybe(5, "minimum", num)
	maybe(5, "maximum", num)
	maybe(8, "exclusiveMinimum", num)
	maybe(8, "exclusiveMaximum", num)
	maybe(8, "multipleOf", func() any { return []float64{0.5, 2, 3}[r.IntN(3)] })
	maybe(5, "minLength", small)
	maybe(5, "maxLength", small)
	maybe(6, "pattern", func() any { return []string{"^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "^a", "b", "[é]"}[r.IntN(4)] })
	maybe(6, "minItems", small)
	maybe(6, "maxItems", small)
	maybe(5, "uniqueItems", func() any { return true })
	maybe(8, "minProperties", small)
	maybe(8, "maxProperties", small)
	maybe(12, "format", func() any { return "date-time" })
	maybe(12, "description", func() any { return "d" })
	if depth < 3 {
		maybe(3, "items", func() any { return randomSchema(r, depth+1) })
		maybe(2, "properties", func() any {
			p := map[string]any{}
			for i := range 1 + r.IntN(3) {
				p[fmt.Sprintf("k%d", i)] = randomSchema(r, depth+1)
			}
			return p
		})
		maybe(3, "required", func() any { return []any{"k0", "k1"}[:1+r.IntN(2)] })
		maybe(4, "additionalProperties", func() any {
			if r.IntN(2) == 0 {
				return false
			}
			return randomSchema(r, depth+1)
		})
		maybe(10, "dependentRequired", func() any { return map[string]any{"k0": []any{"k1"}} })
		sub := func() any {
			a := []any{}
			for range 1 + r.IntN(3) {
				a = append(a, randomSchema(r, depth+1))
			}
			return a
		}
		maybe(8, "anyOf", sub)
		maybe(8, "oneOf", sub)
		maybe(10, "allOf", sub)
		maybe(10, "not", func() any { return randomSchema(r, depth+1) })
		maybe(12, "if", func() any { return randomSchema(r, depth+1) })
		maybe(12, "then", func() any { return randomSchema(r, depth+1) })
		maybe(12, "else", func() any { return randomSchema(r, depth+1) })
		maybe(10, "contains", func() any { return randomSchema(r, depth+1) })
		maybe(12, "minContains", small)
		maybe(12, "maxContains", small)
		maybe(8, "prefixItems", sub)
		maybe(10, "patternProperties", func() any {
			return map[string]any{[]string{"^k", "1$", "^\\p{L}+\\d$"}[r.IntN(3)]: randomSchema(r, depth+1)}
		})
		maybe(12, "propertyNames", func() any { return map[string]any{"maxLength": small(), "pattern": "^k"} })
		maybe(12, "dependentSchemas", func() any { return map[string]any{"k0": randomSchema(r, depth+1)} })
		maybe(8, "unevaluatedProperties", func() any {
			if r.IntN(2) == 0 {
				return false
			}
			return randomSchema(r, depth+1)
		})
		maybe(10, "unevaluatedItems", func() any { return r.IntN(2) == 0 })
		maybe(8, "$ref", func() any { return []string{"#/$defs/a", "#/$defs/b", "#a"}[r.IntN(3)] })
	}
	if depth == 0 {
		s["$defs"] = map[string]any{
			"a": map[string]any{"$anchor": "a", "type": []any{"integer", "string", "object"}, "maximum": 9007199254740993.0, "properties": map[string]any{"k0": map[string]any{"$ref": "#/$defs/b"}}},
			"b": map[string]any{"anyOf": []any{map[string]any{"type": "string", "pattern": "^.$"}, map[string]any{"items": map[string]any{"$ref": "#"}}}},
		}
	}
	if depth == 0 && r.IntN(6) == 0 {
		s["$schema"] = "http://json-schema.org/draft-07/schema#"
	}
	return s
}

func suiteException(file, group, test string) (string, bool) {
	for _, k := range []string{file + "|*", file + "|" + group, file + "|" + group + "|" + test} {
		if r, ok := suiteExceptions[k]; ok {
			return r, true
		}
	}
	return "", false
}

// TestSchemaCheckSuite: on every case of the suite's draft 2020-12 files
// (required and optional), the compiled validator's verdict is the suite's
// and santhosh-tekuri/jsonschema's, but for suiteExceptions.
func TestSchemaCheckSuite(t *testing.T) {
	cases, excepted := 0, 0
	used := map[string]bool{}
	for _, file := range suiteFiles(t) {
		rel, _ := filepath.Rel(suiteDir, file)
		rel = filepath.ToSlash(rel)
		for _, g := range readSuite(t, file) {
			sc, cerr := compileSchemaJSON(g.Schema)
			o, oerr := compileOracle(g.Schema)
			for _, tc := range g.Tests {
				name := rel + "|" + g.Description + "|" + tc.Description
				if reason, ok := suiteException(rel, g.Description, tc.Description); ok {
					for _, k := range []string{rel + "|*", rel + "|" + g.Description, name} {
						if _, ok := suiteExceptions[k]; ok {
							used[k] = true
						}
					}
					if reason == "" {
						t.Errorf("%s: an exception without a reason", name)
					}
					excepted++
					continue
				}
				cases++
				if cerr != nil {
					t.Errorf("%s: compile: %v", name, cerr)
					continue
				}
				if oerr != nil {
					t.Errorf("%s: santhosh-tekuri/jsonschema compile: %v", name, oerr)
					continue
				}
				got, err := compiledOK(t, sc, tc.Data)
				if err != nil {
					t.Errorf("%s: %s: %v", name, tc.Data, err)
					continue
				}
				want, err := o.valid(tc.Data)
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.Valid || want != tc.Valid {
					t.Errorf("%s: schema %s, instance %s: compiled %v, santhosh-tekuri/jsonschema %v, the suite %v", name, g.Schema, tc.Data, got, want, tc.Valid)
				}
			}
		}
	}
	for k := range suiteExceptions {
		if !used[k] {
			t.Errorf("exception %q matches no case", k)
		}
	}
	t.Logf("%d cases held to the suite and santhosh-tekuri/jsonschema, %d excepted", cases, excepted)
	if cases < 1000 {
		t.Errorf("only %d cases ran", cases)
	}
}

func corpusSchemas(t testing.TB) []*diffSchema {
	var out []*diffSchema
	tools := testcorpus.Tools(t)
	for _, tool := range tools {
		name := filepath.Base(tool.File) + " " + tool.Name
		if _, err := compileSchemaJSON(tool.InputSchema); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d := newDiff(t, name, tool.InputSchema); d != nil {
			out = append(out, d)
		}
	}
	if len(out)*10 < len(tools)*9 {
		t.Errorf("only %d of %d corpus schemas compiled by both validators", len(out), len(tools))
	}
	return out
}

// TestSchemaCheckAgreesOnCorpus: every corpus schema compiles, and the
// compiled validator agrees with santhosh-tekuri/jsonschema on instances
// generated from each.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: no
// test of this package runs the engine concurrently, runtime/ocp's do.
func TestSchemaCheckAgreesOnCorpus(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	schemas := corpusSchemas(t)
	r := rand.New(rand.NewPCG(1, 2))
	n := 300
	if testing.Short() {
		n = 30
	}
	for _, d := range schemas {
		for range n {
			d.agree(t, d.instance(r))
		}
	}
}

// TestSchemaCheckAgreesOnRandomSchemas: on random schemas, the compiled
// validator agrees with santhosh-tekuri/jsonschema on instances generated
// from each.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: no
// test of this package runs the engine concurrently, runtime/ocp's do.
func TestSchemaCheckAgreesOnRandomSchemas(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	r := rand.New(rand.NewPCG(3, 4))
	schemas, compiled := 1500, 0
	if testing.Short() {
		schemas = 300
	}
	for i := range schemas {
		raw, _ := json.Marshal(randomSchema(r, 0))
		d := newDiff(t, fmt.Sprintf("random %d", i), raw)
		if d == nil {
			continue
		}
		compiled++
		for range 40 {
			d.agree(t, d.instance(r))
		}
	}
	// Not compiled by both: a draft-07 schema with a $ref (see newDiff).
	if compiled < schemas*3/4 {
		t.Errorf("only %d of %d random schemas compiled by both", compiled, schemas)
	}
}

// FuzzSchemaCheck compares the compiled validator with
// santhosh-tekuri/jsonschema on arbitrary schema/instance pairs, seeded
// with every case of the suite.
func FuzzSchemaCheck(f *testing.F) {
	for _, file := range suiteFiles(f) {
		for _, g := range readSuite(f, file) {
			for _, tc := range g.Tests {
				f.Add([]byte(g.Schema), []byte(tc.Data))
			}
		}
	}
	f.Fuzz(func(t *testing.T, schema, inst []byte) {
		d := newDiff(t, "fuzz", schema) // nil for a remote reference, among others
		if d == nil {
			return
		}
		d.agree(t, inst)
	})
}

// The exact-number cases of issue 25: each must be refused.
func TestSchemaCheckExactNumbers(t *testing.T) {
	for _, tc := range []struct {
		schema, inst string
		ok           bool
	}{
		{`{"minimum":9007199254740993}`, `9007199254740992`, false},
		{`{"minimum":9007199254740993}`, `9007199254740993`, true},
		{`{"enum":[9007199254740993]}`, `9007199254740992`, false},
		{`{"enum":[9007199254740993]}`, `9007199254740993`, true},
		{`{"$ref":"#/$defs/m","$defs":{"m":{"maximum":9007199254740992}}}`, `9007199254740993`, false},
		{`{"$ref":"#/$defs/m","$defs":{"m":{"maximum":9007199254740992}}}`, `9007199254740992`, true},
		{`{"exclusiveMaximum":0.1}`, `0.1000000000000000055511151231257827`, false},
		{`{"exclusiveMinimum":0.1}`, `0.1000000000000000055511151231257827`, true},
		{`{"multipleOf":0.1}`, `0.30000000000000004`, false},
		{`{"multipleOf":0.1}`, `0.3`, true},
		{`{"const":{"a":[9007199254740993]}}`, `{"a":[9007199254740992]}`, false},
		{`{"const":{"a":[9007199254740993]}}`, `{"a":[9.007199254740993e15]}`, true},
		{`{"enum":[9007199254740992]}`, `9007199254740993`, false},
		{`{"enum":[9007199254740992]}`, `9.007199254740992e15`, true},
		{`{"const":0.1}`, `0.1000000000000000055511151231257827`, false},
		{`{"const":0.10}`, `0.1`, true},
		{`{"enum":[[1,{"a":2}]]}`, `[1.0,{"a":2e0}]`, true},
		{`{"uniqueItems":true}`, `[9007199254740992,9007199254740993]`, true},
		{`{"uniqueItems":true}`, `[1,1.0]`, false},
		{`{"type":"integer"}`, `1.0`, true},
		{`{"type":"integer"}`, `1.0000000000000001`, false},
		{`{"maximum":1e400}`, `1e300`, true},
		{`{"minimum":1e-400}`, `0`, false},
	} {
		sc, err := compileSchemaJSON([]byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		got, err := compiledOK(t, sc, []byte(tc.inst))
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.ok {
			t.Errorf("%s on %s: valid %v, want %v", tc.schema, tc.inst, got, tc.ok)
		}
		if o, err := compileOracle([]byte(tc.schema)); err == nil {
			if want, _ := o.valid([]byte(tc.inst)); want != tc.ok {
				t.Errorf("%s on %s: santhosh-tekuri/jsonschema says %v, the test %v", tc.schema, tc.inst, want, tc.ok)
			}
		}
	}
}

// TestSchemaCheckRefusesAtCompile: what no validation could honour fails
// compilation, naming the place.
func TestSchemaCheckRefusesAtCompile(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"$ref":"#"}`, "cycle"},
		{`{"properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"allOf":[{"$ref":"#/$defs/x"}]}}}`, "cycle"},
		{`{"$ref":"https://example.com/other.json"}`, "remote"},
		{`{"$ref":"#/$defs/missing"}`, "does not exist"},
		{`{"$ref":"#nope"}`, "no anchor"},
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, "neither"},
		{`{"type":"strin"}`, "not a JSON Schema type"},
		{`{"minLength":-1}`, "non-negative"},
		{`{"items":[{"type":"string"}]}`, "prefixItems"},
	} {
		_, err := compileSchemaJSON([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.schema, err, tc.want)
		}
	}
	// A cycle through an applicator that consumes the instance is fine.
	for _, s := range []string{
		`{"items":{"$ref":"#"}}`,
		`{"properties":{"next":{"$ref":"#"}}}`,
		`{"$defs":{"unused":{"$ref":"#/$defs/unused"}}}`,
	} {
		if _, err := compileSchemaJSON([]byte(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// TestSchemaCheckPatternRefusal: a pattern with no ECMA-262 translation
// compiles, and then refuses every value, also where the pattern would not
// be reached or is negated, naming its pointer.
func TestSchemaCheckPatternRefusal(t *testing.T) {
	for _, tc := range []struct{ schema, at, inst string }{
		{`{"properties":{"s":{"pattern":"^(?!admin)"}}}`, "/properties/s/pattern", `{"s":"x"}`},
		{`{"not":{"pattern":"(a)\\1"}}`, "/not/pattern", `"aa"`},
		{`{"anyOf":[true,{"pattern":"(?<=a)b"}]}`, "/anyOf/1/pattern", `"b"`},
		{`{"patternProperties":{"^(?=x)":true}}`, "/patternProperties/^(?=x)", `{}`},
		{`{"$defs":{"p":{"pattern":"^(?!a)"}},"properties":{"p":{"$ref":"#/$defs/p"}}}`, "/$defs/p/pattern", `{"q":1}`},
	} {
		sc, err := compileSchemaJSON([]byte(tc.schema))
		if err != nil {
			t.Fatalf("%s: %v", tc.schema, err)
		}
		_, err = compiledOK(t, sc, []byte(tc.inst))
		var pr *patternRefusal
		if !errors.As(err, &pr) || pr.At != tc.at {
			t.Errorf("%s on %s: %v, want a patternRefusal at %s", tc.schema, tc.inst, err, tc.at)
		}
	}
}

// TestSchemaCheckErrorPointer: a failure names the failing value.
func TestSchemaCheckErrorPointer(t *testing.T) {
	sc, err := compileSchemaJSON([]byte(`{"properties":{"a/b":{"items":{"type":"string"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tp := getTape()
	defer putTape(tp)
	if err := tp.parse(`{"a/b":["x",3]}`); err != nil {
		t.Fatal(err)
	}
	var ae *Refusal
	if err := sc.validate(tp, 0); !errors.As(err, &ae) || ae.Pointer != "/a~1b/1" || ae.Rule != RuleSchema {
		t.Fatalf("%v, want a schema refusal at /a~1b/1", err)
	}
}

// TestSchemaCheckBoundedWork: a schema that applies one definition twice
// at each level of a recursive structure is validated with work linear in
// the instance (the memo), not 2^depth.
func TestSchemaCheckBoundedWork(t *testing.T) {
	schema := `{"$defs":{"n":{"anyOf":[{"type":"integer"},{"items":{"allOf":[{"$ref":"#/$defs/n"},{"$ref":"#/$defs/n"}]}}]}},"$ref":"#/$defs/n"}`
	sc, err := compileSchemaJSON([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	const depth = 20 // 2^20 evaluations without the memo
	inst := strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
	tp := getTape()
	defer putTape(tp)
	if err := tp.parse(inst); err != nil {
		t.Fatal(err)
	}
	ok, evals := sc.run(tp, 0)
	if !ok {
		t.Fatal("refused")
	}
	if evals > 20*(depth+1) {
		t.Fatalf("%d evaluations for %d values", evals, depth+1)
	}
}

// TestIntBoundsAgreeWithDecimals holds numBounds.check's integer and float
// paths to its exact decimal one: random numeric keywords (integers, near
// 2^53, and fractions, which turn those paths off) against integer
// literals at, next to and far from them, and fractions just beside them.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: no
// test of this package runs the engine concurrently, runtime/ocp's do.
func TestIntBoundsAgreeWithDecimals(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	r := rand.New(rand.NewPCG(5, 6))
	bound := func() *float64 {
		var f float64
		switch r.IntN(6) {
		case 0:
			return nil
		case 1:
			f = float64(r.IntN(21) - 10)
		case 2:
			f = float64(r.Int64N(1<<54) - 1<<53)
		case 3:
			f = float64(1<<53) * float64(1-2*r.IntN(2))
		case 4:
			f = float64(r.IntN(2001)-1000) / 4
		default:
			f = float64(r.IntN(7) + 1)
		}
		return &f
	}
	rounds := 5000
	if testing.Short() {
		rounds = 1000
	}
	used := 0
	for range rounds {
		s := jsonschema.Schema{Minimum: bound(), Maximum: bound(), ExclusiveMinimum: bound(), ExclusiveMaximum: bound()}
		if r.IntN(3) == 0 {
			s.MultipleOf = bound()
			if s.MultipleOf != nil && *s.MultipleOf <= 0 {
				s.MultipleOf = nil
			}
		}
		raw, _ := json.Marshal(&s)
		sc, err := compileSchemaJSON(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		c := sc.root.num
		if c == nil {
			continue
		}
		slow := *c
		slow.intBounds = false
		if c.intBounds {
			used++
		}
		var near []int64
		for _, f := range []*float64{s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum, s.MultipleOf} {
			if f != nil && math.Abs(*f) < 1<<62 {
				near = append(near, int64(*f)-1, int64(*f), int64(*f)+1)
			}
		}
		near = append(near, 0, r.Int64N(1<<60)-1<<59, r.Int64N(41)-20)
		var lits []string
		for _, k := range near {
			lits = append(lits, strconv.FormatInt(k, 10))
			for _, frac := range []string{".5", ".25", ".000000000000001", ".999999999999999", ".00000000000001", ".0000000000000001", ".9999999999999999"} {
				for _, base := range []int64{k, k - 1} {
					lits = append(lits, strconv.FormatInt(base, 10)+frac)
				}
			}
		}
		lits = append(lits, strconv.FormatFloat(r.Float64()*4-2, 'f', -1, 64), "0.1", "-0.1", "1.5", "-1.5")
		for _, lit := range lits {
			reason := func(b *numBounds) string {
				format, bound := b.check(lit)
				if format == "" {
					return ""
				}
				return fmt.Sprintf(format, lit, bound)
			}
			if got, want := reason(c), reason(&slow); got != want {
				t.Fatalf("%s, %s: fast path %q, decimals %q", raw, lit, got, want)
			}
		}
	}
	if used < rounds/10 {
		t.Errorf("the integer path was on for only %d of %d schemas", used, rounds)
	}
}

var _ = slices.Contains[[]string]
