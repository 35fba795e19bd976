package ocp

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// The compiled validator must give jsonschema-go's verdict on every
// instance. These tests compare the two on the real schemas of the corpus
// (testdata/corpus) and on random schemas, with instances generated from
// each schema (mostly valid, then perturbed), and FuzzSchemaCheck lets the fuzzer look
// for a disagreement.

type diffSchema struct {
	name  string
	rs    *jsonschema.Resolved
	check *schemaCheck // nil: not compiled (jsonschema-go validates)
}

func resolveSchema(t testing.TB, name string, raw []byte) *diffSchema {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	c, _ := compileRootMode(rs, true) // numbers as jsonschema-go reads them: see TestDecimal*
	return &diffSchema{name: name, rs: rs, check: c}
}

func corpusSchemas(t testing.TB) []*diffSchema {
	var out []*diffSchema
	for _, tool := range testcorpus.Tools(t) {
		if d := resolveSchema(t, filepath.Base(tool.File)+" "+tool.Name, tool.InputSchema); d != nil {
			out = append(out, d)
		}
	}
	return out
}

// agree fails the test when the validators disagree on the instance.
func (d *diffSchema) agree(t testing.TB, inst []byte) {
	t.Helper()
	tp := getTape()
	defer putTape(tp)
	if tp.parse(string(inst)) != nil {
		return
	}
	refErr := d.rs.Validate(tp.toAny(0))
	var err error
	if d.check != nil {
		err = d.check.validate(tp, 0)
	} else {
		return
	}
	if (err == nil) != (refErr == nil) {
		t.Fatalf("%s: instance %s: compiled says %v, jsonschema-go says %v", d.name, inst, err, refErr)
	}
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
		s["type"] = []any{types[r.IntN(len(types))], types[r.IntN(len(types))]}
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
		maybe(25, "contains", func() any { return randomSchema(r, depth+1) }) // not compiled
	}
	if depth == 0 && r.IntN(6) == 0 {
		s["$schema"] = "http://json-schema.org/draft-07/schema#"
	}
	return s
}

func TestSchemaCheckAgreesOnCorpus(t *testing.T) {
	schemas := corpusSchemas(t)
	compiled := 0
	for _, d := range schemas {
		if d.check != nil {
			compiled++
		}
	}
	t.Logf("%d of %d corpus schemas compiled", compiled, len(schemas))
	if compiled*10 < len(schemas)*9 {
		t.Errorf("only %d of %d corpus schemas compiled", compiled, len(schemas))
	}
	r := rand.New(rand.NewPCG(1, 2))
	n := 300
	if testing.Short() {
		n = 30
	}
	for _, d := range schemas {
		for range n {
			b, err := json.Marshal(gen(r, d.rs.Schema(), 0))
			if err != nil {
				t.Fatal(err)
			}
			d.agree(t, b)
		}
	}
}

func TestSchemaCheckAgreesOnRandomSchemas(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	schemas, compiled := 3000, 0
	if testing.Short() {
		schemas = 300
	}
	for i := range schemas {
		raw, _ := json.Marshal(randomSchema(r, 0))
		d := resolveSchema(t, fmt.Sprintf("random %d %s", i, raw), raw)
		if d == nil {
			continue
		}
		if d.check != nil {
			compiled++
		}
		for range 60 {
			b, _ := json.Marshal(gen(r, d.rs.Schema(), 0))
			d.agree(t, b)
		}
	}
	if compiled < schemas/2 {
		t.Errorf("only %d of %d random schemas compiled", compiled, schemas)
	}
}

func TestSchemaCheckFallsBack(t *testing.T) {
	for _, raw := range []string{
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		`{"type":"array","prefixItems":[{"type":"string"}]}`,
		`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,
		`{"type":"object","unevaluatedProperties":false}`,
		`{"type":"array","contains":{"type":"string"}}`,
	} {
		if d := resolveSchema(t, raw, []byte(raw)); d == nil || d.check != nil {
			t.Errorf("%s: compiled, want the jsonschema-go fallback", raw)
		}
	}
}

func FuzzSchemaCheck(f *testing.F) {
	f.Add(uint64(1), []byte(`{"query":"x","limit":3}`))
	f.Add(uint64(7), []byte(`{"a":[1,1],"b":{"c":null}}`))
	f.Add(uint64(42), []byte(`[1,"a",true,{"k0":1,"k1":[]}]`))
	f.Fuzz(func(t *testing.T, seed uint64, inst []byte) {
		r := rand.New(rand.NewPCG(seed, seed>>7))
		raw, _ := json.Marshal(randomSchema(r, 0))
		d := resolveSchema(t, string(raw), raw)
		if d == nil {
			return
		}
		d.agree(t, inst)
		b, _ := json.Marshal(gen(r, d.rs.Schema(), 0))
		d.agree(t, b)
	})
}

// TestIntBoundsClauseRedundant: compileIntBounds decides as it did with
// the clause iMult >= 0, which it dropped. That clause was one conjunct of
// intBounds, beside the same others, so the old form is the new one and
// iMult >= 0; they agree when iMult >= 0 holds wherever intBounds does.
// It does: iMult is 0 (asInt's default) when multipleOf is absent, and the
// conjunct that stays requires it to be positive when multipleOf is present.
// Checked over every combination of keywords at the edges of 2^53 (asInt's
// limit) and of int64 (the defaults, and 2^63, which int64 cannot hold),
// and beside them.
func TestIntBoundsClauseRedundant(t *testing.T) {
	const p53 = float64(1 << 53)
	edges := []float64{
		0, math.Copysign(0, -1), 1, -1, 3, 0.5, -0.5,
		p53 - 1, p53, p53 + 2, math.Nextafter(p53, math.Inf(1)), math.Nextafter(p53, 0),
		-p53 + 1, -p53, -p53 - 2, math.Nextafter(-p53, math.Inf(-1)),
		math.MaxInt64, math.MinInt64, math.Nextafter(math.MaxInt64, 0), math.Nextafter(math.MinInt64, 0),
		math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1), math.Inf(-1), math.NaN(),
	}
	vals := []*float64{nil}
	for i := range edges {
		vals = append(vals, &edges[i])
	}
	few := []*float64{nil, &edges[2], &edges[9]} // absent, 1, 2^53+2
	n, on := 0, 0
	for _, mult := range vals {
		for _, lo := range vals {
			for _, hi := range vals {
				for _, xlo := range few {
					for _, xhi := range few {
						c := schemaCheck{multipleOf: mult, minimum: lo, maximum: hi, exclMin: xlo, exclMax: xhi}
						c.compileIntBounds()
						if old := c.intBounds && c.iMult >= 0; old != c.intBounds {
							t.Fatalf("multipleOf %v, minimum %v, maximum %v, exclusive %v %v: intBounds %v, the old form %v (iMult %d)",
								deref(mult), deref(lo), deref(hi), deref(xlo), deref(xhi), c.intBounds, old, c.iMult)
						}
						n++
						if c.intBounds {
							on++
						}
					}
				}
			}
		}
	}
	if on == 0 || on == n {
		t.Fatalf("intBounds was on for %d of %d combinations: the grid does not reach both sides", on, n)
	}
}

func deref(f *float64) any {
	if f == nil {
		return "absent"
	}
	return *f
}

// TestIntBoundsAgreeWithDecimals holds checkNumber's integer and float
// paths to its exact decimal one: random numeric keywords (integers, near
// 2^53, and fractions, which turn those paths off) against integer
// literals at, next to and far from them, and fractions just beside them.
func TestIntBoundsAgreeWithDecimals(t *testing.T) {
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
		var back jsonschema.Schema
		if json.Unmarshal(raw, &back) != nil {
			t.Fatal(string(raw))
		}
		rs, err := back.Resolve(nil)
		if err != nil {
			continue
		}
		c, err := compileRoot(rs)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
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
			// Fractions next to it: canonical literals of up to 15
			// significant digits, and longer ones.
			for _, frac := range []string{".5", ".25", ".000000000000001", ".999999999999999", ".00000000000001", ".0000000000000001", ".9999999999999999"} {
				for _, base := range []int64{k, k - 1} {
					lits = append(lits, strconv.FormatInt(base, 10)+frac)
				}
			}
		}
		lits = append(lits, strconv.FormatFloat(r.Float64()*4-2, 'f', -1, 64), "0.1", "-0.1", "1.5", "-1.5")
		for _, lit := range lits {
			num, err := strconv.ParseFloat(lit, 64)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := c.checkNumber(lit, num), slow.checkNumber(lit, num); got != want {
				t.Fatalf("%s, %s: fast path %q, decimals %q", raw, lit, got, want)
			}
		}
	}
	if used < rounds/10 {
		t.Errorf("the integer path was on for only %d of %d schemas", used, rounds)
	}
}
