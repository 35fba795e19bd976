package gen

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// sampler derives instances of a JSON schema for the round-trip test. One
// sampler makes one instance: the minimal one (required properties only) or
// a maximal one (every property). Wherever the schema offers a choice (an
// enum value, a union branch, a type of a type list, an "interesting" scalar
// such as an explicit false, 0, "" or a big integer, an empty or a full
// array) the sampler takes option variant mod n, so the instances of variants
// 0..choices-1 together visit every option of every choice point.
type sampler struct {
	root    *jsonschema.Schema
	variant int
	max     bool
	// choices is the largest number of options met at one choice point.
	choices int
	// input makes samples for the gate path (arguments): integers written
	// 1.0 or 1e2 and integers beyond int64, which a typed decode of a
	// result need not accept.
	input bool
	// hits are the categories (enum value, union branch) the choices made.
	hits map[string]bool
}

func (s *sampler) hit(c string) {
	if s.hits == nil {
		s.hits = map[string]bool{}
	}
	s.hits[c] = true
}

// maxSampleDepth bounds recursion through $refs and nesting.
const maxSampleDepth = 12

func (s *sampler) choose(n int) int {
	if n > s.choices {
		s.choices = n
	}
	if n == 0 {
		return 0
	}
	return s.variant % n
}

func sampleTypes(sc *jsonschema.Schema) []string {
	if sc.Type != "" {
		return []string{sc.Type}
	}
	return slices.Clone(sc.Types)
}

func schemaText(sc *jsonschema.Schema) string {
	if sc == nil {
		return "true"
	}
	b, _ := json.Marshal(sc)
	return string(b)
}

func (s *sampler) deref(sc *jsonschema.Schema) *jsonschema.Schema {
	for i := 0; sc != nil && sc.Ref != "" && i < 8; i++ {
		var defs map[string]*jsonschema.Schema
		var name string
		switch {
		case strings.HasPrefix(sc.Ref, "#/$defs/"):
			defs, name = s.root.Defs, sc.Ref[len("#/$defs/"):]
		case strings.HasPrefix(sc.Ref, "#/definitions/"):
			defs, name = s.root.Definitions, sc.Ref[len("#/definitions/"):]
		case sc.Ref == "#":
			sc = s.root
			continue
		default:
			return nil
		}
		t := defs[strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")]
		if t == nil {
			return nil
		}
		// Keywords beside the $ref (2020-12) apply too.
		c := *t
		if sc.Type != "" || len(sc.Types) > 0 {
			c.Type, c.Types = sc.Type, sc.Types
		}
		sc = &c
	}
	return sc
}

// merge overlays the keywords of b on a copy of a, without a's anyOf,
// oneOf and allOf (a union branch on its parent, an allOf member on the
// merged object): properties are merged and required lists joined.
func merge(a, b *jsonschema.Schema) *jsonschema.Schema {
	toMap := func(sc *jsonschema.Schema) map[string]any {
		m := map[string]any{}
		if sc != nil {
			raw, _ := json.Marshal(sc)
			_ = json.Unmarshal(raw, &m) // a true schema gives no keys
		}
		return m
	}
	m, o := toMap(a), toMap(b)
	delete(m, "anyOf")
	delete(m, "oneOf")
	delete(m, "allOf")
	for k, v := range o {
		switch k {
		case "properties":
			props, _ := m[k].(map[string]any)
			if props == nil {
				props = map[string]any{}
			}
			for pk, pv := range v.(map[string]any) {
				props[pk] = pv
			}
			m[k] = props
		case "required":
			req, _ := m[k].([]any)
			m[k] = append(req, v.([]any)...)
		default:
			m[k] = v
		}
	}
	raw, _ := json.Marshal(m)
	var c jsonschema.Schema
	if err := json.Unmarshal(raw, &c); err != nil {
		return a
	}
	return &c
}

// value returns an instance of sc, or false when the sampler cannot make
// one (a false schema, a depth limit).
func (s *sampler) value(sc *jsonschema.Schema, depth int) (any, bool) {
	if depth > maxSampleDepth {
		return nil, false
	}
	if sc != nil && sc.Ref != "" {
		sc = s.deref(sc)
		if sc == nil {
			return nil, false
		}
	}
	switch schemaText(sc) {
	case "true", "{}":
		return s.anyValue(), true
	case "false":
		return nil, false
	}
	if sc.Const != nil {
		return *sc.Const, true
	}
	if len(sc.Enum) > 0 {
		s.hit(catEnum)
		return sc.Enum[s.choose(len(sc.Enum))], true
	}
	if len(sc.AllOf) > 0 {
		m := merge(sc, nil)
		for _, sub := range sc.AllOf {
			m = merge(m, s.deref(sub))
		}
		return s.value(m, depth+1)
	}
	if len(sc.AnyOf) > 0 && len(sc.OneOf) > 0 {
		return nil, false // not attempted: both must hold at once
	}
	if alts := slices.Concat(sc.AnyOf, sc.OneOf); len(alts) > 0 {
		s.hit(catUnion)
		first := s.choose(len(alts))
		for i := range alts {
			br := s.deref(alts[(first+i)%len(alts)])
			if br == nil {
				continue
			}
			if v, ok := s.value(merge(sc, br), depth+1); ok {
				return v, true
			}
		}
		return nil, false
	}
	types := sampleTypes(sc)
	if len(types) == 0 {
		switch {
		case len(sc.Properties) > 0 || sc.AdditionalProperties != nil:
			types = []string{"object"}
		case sc.Items != nil || len(sc.PrefixItems) > 0:
			types = []string{"array"}
		case sc.Format != "" || sc.Pattern != "" || sc.MinLength != nil || sc.MaxLength != nil:
			types = []string{"string"}
		default:
			return s.anyValue(), true
		}
	}
	switch t := types[s.choose(len(types))]; t {
	case "null":
		return nil, true
	case "boolean":
		return []bool{false, true}[s.choose(2)], true
	case "string":
		return s.str(sc)
	case "integer":
		return s.integer(sc)
	case "number":
		return s.number(sc)
	case "array":
		return s.array(sc, depth)
	case "object":
		return s.object(sc, depth)
	}
	return nil, false
}

func (s *sampler) anyValue() any {
	opts := []any{
		map[string]any{"a": []any{json.Number("1"), "x", nil, true}, "b": map[string]any{}},
		"any",
		json.Number("0"),
		nil,
	}
	return opts[s.choose(len(opts))]
}

// formatSamples are lossless-test values for string formats: a timestamp
// with nanoseconds and an offset must come back byte for byte.
var formatSamples = map[string]string{
	"date-time": "2024-02-29T23:59:60.123456789+05:45",
	"date":      "2024-02-29",
	"time":      "23:59:59.5Z",
	"uri":       "https://example.com/a%20b?q=<&>#frag",
	"email":     "a.b@example.com",
	"ipv4":      "192.0.2.1",
	"ipv6":      "2001:db8::1",
	"uuid":      "123e4567-e89b-12d3-a456-426614174000",
	"hostname":  "example.com",
}

func (s *sampler) str(sc *jsonschema.Schema) (any, bool) {
	var v string
	switch {
	case sc.Pattern != "":
		p, ok := patternSample(sc.Pattern)
		if !ok {
			return nil, false
		}
		v = p
	case formatSamples[sc.Format] != "":
		v = formatSamples[sc.Format]
	default:
		v = []string{"", "sample \"q\" <&> é \u2028 \U0001F600"}[s.choose(2)]
	}
	if sc.MinLength != nil {
		for len([]rune(v)) < *sc.MinLength {
			v += "a"
		}
	}
	if sc.MaxLength != nil && len([]rune(v)) > *sc.MaxLength {
		v = string([]rune(v)[:*sc.MaxLength])
	}
	return v, true
}

// patternSample makes a string that matches an (RE2-compatible) pattern.
func patternSample(pat string) (string, bool) {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	genRegexp(re.Simplify(), &b)
	ok, err := regexp.MatchString(pat, b.String())
	return b.String(), ok && err == nil
}

func genRegexp(re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) >= 2 {
			r := re.Rune[0]
			for i := 0; i+1 < len(re.Rune); i += 2 {
				if lo := re.Rune[i]; unicode.IsLetter(lo) || unicode.IsDigit(lo) {
					r = lo
					break
				}
			}
			b.WriteRune(r)
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture, syntax.OpPlus:
		genRegexp(re.Sub[0], b)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			genRegexp(sub, b)
		}
	case syntax.OpAlternate:
		genRegexp(re.Sub[0], b)
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			genRegexp(re.Sub[0], b)
		}
	}
}

// inBounds reports whether x satisfies sc's numeric bounds.
func inBounds(sc *jsonschema.Schema, x *big.Rat) bool {
	f := func(p *float64) *big.Rat { return new(big.Rat).SetFloat64(*p) }
	switch {
	case sc.Minimum != nil && x.Cmp(f(sc.Minimum)) < 0,
		sc.Maximum != nil && x.Cmp(f(sc.Maximum)) > 0,
		sc.ExclusiveMinimum != nil && x.Cmp(f(sc.ExclusiveMinimum)) <= 0,
		sc.ExclusiveMaximum != nil && x.Cmp(f(sc.ExclusiveMaximum)) >= 0:
		return false
	}
	if sc.MultipleOf != nil && *sc.MultipleOf > 0 {
		q := new(big.Rat).Quo(x, f(sc.MultipleOf))
		if !q.IsInt() {
			return false
		}
	}
	return true
}

// bigInt is 2^53+1, the smallest integer a float64 cannot hold.
const bigInt = "9007199254740993"

func (s *sampler) integer(sc *jsonschema.Schema) (any, bool) {
	cands := []string{"0", bigInt, "-1", "1"}
	if s.input {
		// JSON Schema integers written as floats, and one beyond int64
		// (refused unless the field is a uint64: documented).
		cands = append(cands, "10.0", "1e2", "9223372036854775808")
	}
	for _, p := range []*float64{sc.Minimum, sc.Maximum} {
		if p != nil && *p == math.Trunc(*p) && math.Abs(*p) < 1e18 {
			cands = append(cands, strconv.FormatInt(int64(*p), 10))
		}
	}
	for _, p := range []*float64{sc.ExclusiveMinimum} {
		if p != nil && math.Abs(*p) < 1e18 {
			cands = append(cands, strconv.FormatInt(int64(math.Floor(*p))+1, 10))
		}
	}
	return s.pickNumber(sc, cands)
}

func (s *sampler) number(sc *jsonschema.Schema) (any, bool) {
	cands := []string{"0", "0.5", "-2.25", "1e21", "12345.678"}
	for _, p := range []*float64{sc.Minimum, sc.Maximum} {
		if p != nil {
			cands = append(cands, strconv.FormatFloat(*p, 'g', -1, 64))
		}
	}
	return s.pickNumber(sc, cands)
}

func (s *sampler) pickNumber(sc *jsonschema.Schema, cands []string) (any, bool) {
	var ok []string
	seen := map[string]bool{}
	for _, c := range cands {
		x, good := new(big.Rat).SetString(c)
		if good && !seen[c] && inBounds(sc, x) {
			seen[c] = true
			ok = append(ok, c)
		}
	}
	if len(ok) == 0 {
		return nil, false
	}
	return json.Number(ok[s.choose(len(ok))]), true
}

func (s *sampler) array(sc *jsonschema.Schema, depth int) (any, bool) {
	out := []any{}
	for _, p := range sc.PrefixItems {
		v, ok := s.value(p, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	items := sc.Items
	if len(sc.PrefixItems) > 0 && items == nil {
		return out, true
	}
	lo := 0
	if sc.MinItems != nil {
		lo = *sc.MinItems
	}
	n := max(lo, 1)
	if lo == 0 && s.choose(2) == 1 {
		n = 0
	}
	if sc.MaxItems != nil && n > *sc.MaxItems {
		n = *sc.MaxItems
	}
	saved := s.variant
	defer func() { s.variant = saved }()
	for i := 0; i < n; i++ {
		s.variant = saved + i
		v, ok := s.value(items, depth+1)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// extraKey is the key the sampler adds to nested objects that declare
// additional properties explicitly.
const extraKey = "zz_extra-key"

func (s *sampler) object(sc *jsonschema.Schema, depth int) (any, bool) {
	out := map[string]any{}
	props := make([]string, 0, len(sc.Properties))
	for k := range sc.Properties {
		props = append(props, k)
	}
	sort.Strings(props)
	for _, k := range props {
		req := slices.Contains(sc.Required, k)
		if !req && (!s.max || !jsonscan.IsValidTagName(k)) {
			// A name no struct tag can hold has no field, as the
			// generator warns: calls that set it are refused, by design.
			continue
		}
		v, ok := s.value(sc.Properties[k], depth+1)
		if !ok {
			if req {
				return nil, false
			}
			continue
		}
		out[k] = v
	}
	// Extra keys only where the schema says additionalProperties explicitly
	// (the generator models those; an absent additionalProperties is
	// treated as closed), and never at the top level (the gate forwards
	// only declared arguments).
	if ap := sc.AdditionalProperties; depth > 0 && ap != nil && schemaText(ap) != "false" && (s.max || len(sc.Properties) == 0) {
		if _, taken := sc.Properties[extraKey]; !taken {
			if v, ok := s.value(ap, depth+1); ok {
				out[extraKey] = v
			}
		}
	}
	for _, k := range sc.Required {
		if _, ok := out[k]; !ok {
			return nil, false
		}
	}
	return out, true
}
