package ocp

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ocpgen/ocpgen/runtime/ecmare"
)

// A schemaCheck is a tool's input schema compiled, once at NewGate, into a
// validator that runs on the argument tape. It gives exactly the verdict of
// jsonschema-go's Resolved.Validate on the arguments decoded by encoding/json
// (the differential tests and fuzz target in schemacheck_test.go hold it to
// that), at a fraction of the cost: no reflection, no annotations, no
// allocation on success.
//
// It covers the keywords real MCP servers use (see BENCHMARKS.md): type,
// enum, const, the numeric, string, array and object bounds, pattern,
// properties, additionalProperties, required, dependentRequired, allOf,
// anyOf, oneOf, not, if/then/else, and every annotation. A schema with any
// other keyword ($ref, prefixItems, contains, patternProperties, unevaluated*
// and so on) is not compiled, and the gate validates it with jsonschema-go
// instead; so is a schema that uses a field jsonschema-go may add later,
// because the check below lists the fields it knows rather than the ones it
// does not.
type schemaCheck struct {
	hasType bool
	types   uint8 // bit per JSON type; with hasType, "type": [] allows none
	enum    []any
	// enumSet holds the values of a large enum of strings only, so that a
	// check costs one lookup, not one comparison per value.
	enumSet  map[string]struct{}
	hasConst bool
	cnst     any

	multipleOf, minimum, maximum, exclMin, exclMax *float64
	// The same bounds as exact decimals (floatDecimal), which the check
	// compares with the literal itself (decimal.go).
	dMultipleOf, dMin, dMax, dExclMin, dExclMax *decimal
	// floatNumbers makes the numeric keywords and the integer type use
	// float64, as jsonschema-go does: only for the differential tests,
	// which hold the rest of the validator to jsonschema-go's verdict.
	floatNumbers bool

	minLength, maxLength *int
	pattern              *regexp.Regexp
	patternFast          *runeSeq // pattern's fast matcher, if it has one
	patternSrc           string
	patternErr           error // the pattern has no ECMA-262 translation

	items              *schemaCheck
	minItems, maxItems *int
	uniqueItems        bool

	props        map[string]*schemaCheck
	additional   *schemaCheck
	required     []string
	depRequired  map[string][]string
	minProps     *int
	maxProps     *int
	allOf, anyOf []*schemaCheck
	oneOf        []*schemaCheck
	not          *schemaCheck
	ifS, thenS   *schemaCheck
	elseS        *schemaCheck

	// logic: allOf, anyOf, oneOf, not or if is set. values: enum or const
	// is. The common schema has neither, and check skips their code.
	logic, values bool

	// The numeric keywords as integers, when every one present is an
	// integer of at most 2^53 in magnitude (multipleOf a positive one), so
	// that an integer literal is checked without a decimal: intBounds.
	intBounds                bool
	iMin, iMax, iXMin, iXMax int64
	iMult                    int64 // 0: no multipleOf
}

const (
	jtNull uint8 = 1 << iota
	jtBoolean
	jtInteger
	jtNumber
	jtString
	jtArray
	jtObject
)

var jsonTypeBits = map[string]uint8{
	"null": jtNull, "boolean": jtBoolean, "integer": jtInteger, "number": jtNumber,
	"string": jtString, "array": jtArray, "object": jtObject,
}

// schemaFieldsHandled are the jsonschema.Schema fields compileSchema either
// compiles or knows to have no effect on validation (annotations, and
// definitions, which only a $ref, not compiled, could reach).
var schemaFieldsHandled = map[string]bool{
	// Annotations and identifiers.
	"ID": true, "Schema": true, "Comment": true, "Defs": true, "Definitions": true,
	"Anchor": true, "DynamicAnchor": true, "Vocabulary": true,
	"Title": true, "Description": true, "Default": true, "Deprecated": true,
	"ReadOnly": true, "WriteOnly": true, "Examples": true,
	"ContentEncoding": true, "ContentMediaType": true, "ContentSchema": true,
	"Format": true, "Extra": true, "PropertyOrder": true,
	// Compiled.
	"Type": true, "Types": true, "Enum": true, "Const": true,
	"MultipleOf": true, "Minimum": true, "Maximum": true, "ExclusiveMinimum": true, "ExclusiveMaximum": true,
	"MinLength": true, "MaxLength": true, "Pattern": true,
	"Items": true, "MinItems": true, "MaxItems": true, "UniqueItems": true,
	"MinProperties": true, "MaxProperties": true, "Required": true,
	"DependentRequired": true, "DependencyStrings": true,
	"Properties": true, "AdditionalProperties": true,
	"AllOf": true, "AnyOf": true, "OneOf": true, "Not": true,
	"If": true, "Then": true, "Else": true,
}

var errNotCompiled = errors.New("schema uses a keyword the compiled validator does not cover")

// compileRoot compiles a resolved schema, or returns errNotCompiled when
// jsonschema-go must validate it.
func compileRoot(rs *jsonschema.Resolved) (*schemaCheck, error) {
	return compileRootMode(rs, false)
}

// compileRootMode is compileRoot; floatNumbers is for the differential
// tests (see schemaCheck.floatNumbers).
func compileRootMode(rs *jsonschema.Resolved, floatNumbers bool) (*schemaCheck, error) {
	root := rs.Schema()
	var draft7 bool
	switch root.Schema {
	case "", "https://json-schema.org/draft/2020-12/schema":
	case "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
		draft7 = true
	default:
		return nil, errNotCompiled // jsonschema-go refuses to validate it at all
	}
	return compileSchema(root, draft7, floatNumbers, 0)
}

func compileSchema(s *jsonschema.Schema, draft7, floatNumbers bool, depth int) (*schemaCheck, error) {
	if s == nil {
		return nil, nil
	}
	if depth > 200 {
		return nil, errNotCompiled
	}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		if !v.Field(i).IsZero() && !schemaFieldsHandled[v.Type().Field(i).Name] {
			return nil, errNotCompiled
		}
	}
	c := &schemaCheck{
		enum: s.Enum, multipleOf: s.MultipleOf, minimum: s.Minimum, maximum: s.Maximum,
		exclMin: s.ExclusiveMinimum, exclMax: s.ExclusiveMaximum,
		minLength: s.MinLength, maxLength: s.MaxLength,
		minItems: s.MinItems, maxItems: s.MaxItems, uniqueItems: s.UniqueItems,
		required: s.Required, minProps: s.MinProperties, maxProps: s.MaxProperties,
		floatNumbers: floatNumbers,
	}
	if len(s.Enum) > 16 {
		set := make(map[string]struct{}, len(s.Enum))
		for _, e := range s.Enum {
			str, ok := e.(string)
			if !ok {
				set = nil
				break
			}
			set[str] = struct{}{}
		}
		c.enumSet = set
	}
	dec := func(f *float64) *decimal {
		if f == nil {
			return nil
		}
		return floatDecimal(*f)
	}
	c.dMultipleOf, c.dMin, c.dMax = dec(s.MultipleOf), dec(s.Minimum), dec(s.Maximum)
	c.dExclMin, c.dExclMax = dec(s.ExclusiveMinimum), dec(s.ExclusiveMaximum)
	if s.Const != nil {
		c.hasConst, c.cnst = true, *s.Const
	}
	// jsonschema-go applies dependentRequired in 2020-12 and the string form
	// of dependencies in draft-07, each ignoring the other.
	if draft7 {
		c.depRequired = s.DependencyStrings
	} else {
		c.depRequired = s.DependentRequired
	}
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	c.hasType = types != nil
	for _, t := range types {
		b, ok := jsonTypeBits[t]
		if !ok {
			return nil, errNotCompiled
		}
		c.types |= b
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			return nil, errNotCompiled // jsonschema-go's Resolve refuses it too
		}
		// ECMA-262's meaning (\s, \S, "." …), in linear time; a pattern that
		// cannot have it (lookaround, back-references) refuses every string
		// it checks: fail closed, and the generator has said so.
		c.patternSrc = s.Pattern
		if re, err := ecmare.Compile(s.Pattern); err != nil {
			c.patternErr = err
		} else {
			c.pattern, c.patternFast = re, compileRuneSeq(re)
		}
	}
	var err error
	sub := func(x *jsonschema.Schema) *schemaCheck {
		if err != nil {
			return nil
		}
		var sc *schemaCheck
		sc, err = compileSchema(x, draft7, floatNumbers, depth+1)
		return sc
	}
	subs := func(xs []*jsonschema.Schema) []*schemaCheck {
		if xs == nil {
			return nil
		}
		out := make([]*schemaCheck, len(xs))
		for i, x := range xs {
			out[i] = sub(x)
		}
		return out
	}
	c.items = sub(s.Items)
	c.additional = sub(s.AdditionalProperties)
	c.not = sub(s.Not)
	c.ifS, c.thenS, c.elseS = sub(s.If), sub(s.Then), sub(s.Else)
	c.allOf, c.anyOf, c.oneOf = subs(s.AllOf), subs(s.AnyOf), subs(s.OneOf)
	if s.Properties != nil {
		c.props = make(map[string]*schemaCheck, len(s.Properties))
		for k, x := range s.Properties {
			c.props[k] = sub(x)
		}
	}
	if err != nil {
		return nil, err
	}
	c.logic = c.allOf != nil || c.anyOf != nil || c.oneOf != nil || c.not != nil || c.ifS != nil
	c.compileIntBounds()
	c.values = c.enum != nil || c.hasConst
	return c, nil
}

// typeBit is the JSON Schema type of node i: a number is an integer when
// its literal has no fractional part (1.0 and 1e2 are integers,
// 1.0000000000000001 is not). With floatNumbers it is the type jsonschema-go
// sees in the value encoding/json decodes: a float64 with no fraction.
func typeBit(x *tapeNode, floatNumbers bool) uint8 {
	switch x.kind {
	case tNull:
		return jtNull
	case tFalse, tTrue:
		return jtBoolean
	case tNumber:
		if floatNumbers {
			if _, f := math.Modf(x.num); f == 0 {
				return jtInteger
			}
			return jtNumber
		}
		switch {
		case !notInt(x.str):
			return jtInteger
		case fractionOnly(x.str):
			return jtNumber
		}
		if d, _ := parseDecimal(x.str); d.isInteger() {
			return jtInteger
		}
		return jtNumber
	case tString:
		return jtString
	case tArray:
		return jtArray
	}
	return jtObject
}

var typeNames = [...]string{"null", "boolean", "integer", "number", "string", "array", "object"}

func typeName(b uint8) string {
	for i, n := range typeNames {
		if b == 1<<i {
			return n
		}
	}
	return "?"
}

// checkFailure is the first failure a check found: its message, the node
// of the tape it is about, and its rule when it is not ruleSchema.
type checkFailure struct {
	msg  string
	node int
	rule argRule
}

// validate checks value i of t; its error is an *argError at the value that
// failed, built only on failure.
func (c *schemaCheck) validate(t *tape, i int) error {
	if c.valid(t, i) {
		return nil
	}
	return c.explain(t, i)
}

// valid is the hot path: a verdict without an explanation.
func (c *schemaCheck) valid(t *tape, i int) bool {
	return c.check(t, i, nil)
}

// check validates value i of t; when why is non-nil it receives the reason
// of the first failure found.
func (c *schemaCheck) check(t *tape, i int, why *checkFailure) bool {
	if c == nil {
		return true
	}
	fail := func(format string, args ...any) bool {
		if why != nil && why.msg == "" {
			why.msg, why.node = fmt.Sprintf(format, args...), i
		}
		return false
	}
	x := &t.nodes[i]
	if c.hasType {
		got := typeBit(x, c.floatNumbers)
		if c.types&got == 0 && !(got == jtInteger && c.types&jtNumber != 0) {
			return fail("type: has type %q", typeName(got))
		}
	}
	if c.values && !c.checkValues(t, i, why) {
		return false
	}
	switch x.kind {
	case tNumber:
		if !c.floatNumbers {
			if msg := c.checkNumber(x.str, x.num); msg != "" {
				return fail("%s", msg)
			}
			break
		}
		n := x.num
		if c.multipleOf != nil {
			if _, f := math.Modf(n / *c.multipleOf); f != 0 {
				return fail("multipleOf: %v is not a multiple of %v", n, *c.multipleOf)
			}
		}
		if c.minimum != nil && n < *c.minimum {
			return fail("minimum: %v is less than %v", n, *c.minimum)
		}
		if c.maximum != nil && n > *c.maximum {
			return fail("maximum: %v is greater than %v", n, *c.maximum)
		}
		if c.exclMin != nil && n <= *c.exclMin {
			return fail("exclusiveMinimum: %v is not greater than %v", n, *c.exclMin)
		}
		if c.exclMax != nil && n >= *c.exclMax {
			return fail("exclusiveMaximum: %v is not less than %v", n, *c.exclMax)
		}
	case tString:
		if c.minLength != nil || c.maxLength != nil {
			n := utf8.RuneCountInString(x.str)
			if c.minLength != nil && n < *c.minLength {
				return fail("minLength: %d code points, fewer than %d", n, *c.minLength)
			}
			if c.maxLength != nil && n > *c.maxLength {
				return fail("maxLength: %d code points, more than %d", n, *c.maxLength)
			}
		}
		if c.patternErr != nil {
			if why != nil && why.msg == "" {
				why.rule = rulePatternUntranslatable
			}
			return fail("pattern: %v: refused, as every value it checks", c.patternErr)
		}
		if c.patternFast != nil {
			if !c.patternFast.match(x.str) {
				return fail("pattern: does not match %q", c.patternSrc)
			}
		} else if c.pattern != nil && !c.pattern.MatchString(x.str) {
			return fail("pattern: does not match %q", c.patternSrc)
		}
	}

	if c.logic && !c.checkLogic(t, i, why) {
		return false
	}

	switch x.kind {
	case tArray:
		if c.items != nil {
			for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
				if !c.items.check(t, p, why) {
					return fail("items")
				}
			}
		}
		if c.minItems != nil && int(x.n) < *c.minItems {
			return fail("minItems: %d items, fewer than %d", x.n, *c.minItems)
		}
		if c.maxItems != nil && int(x.n) > *c.maxItems {
			return fail("maxItems: %d items, more than %d", x.n, *c.maxItems)
		}
		if c.uniqueItems && x.n > 1 && !uniqueItems(t, i, !c.floatNumbers) {
			return fail("uniqueItems: two items are equal")
		}
	case tObject:
		for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
			k := t.nodes[p].key
			if s, declared := c.props[k]; declared {
				if !s.check(t, p, why) {
					return fail("property %q", k)
				}
			} else if c.additional != nil && !c.additional.check(t, p, why) {
				return fail("additional property %q", k)
			}
		}
		if c.minProps != nil && int(x.n) < *c.minProps {
			return fail("minProperties: %d properties, fewer than %d", x.n, *c.minProps)
		}
		if c.maxProps != nil && int(x.n) > *c.maxProps {
			return fail("maxProperties: %d properties, more than %d", x.n, *c.maxProps)
		}
		for _, r := range c.required {
			if t.member(i, r) < 0 {
				return fail("required: missing property %q", r)
			}
		}
		for k, reqs := range c.depRequired {
			if t.member(i, k) < 0 {
				continue
			}
			for _, r := range reqs {
				if t.member(i, r) < 0 {
					return fail("dependentRequired[%q]: missing property %q", k, r)
				}
			}
		}
	}
	return true
}

// checkValues is check's enum and const.
func (c *schemaCheck) checkValues(t *tape, i int, why *checkFailure) bool {
	fail := func(format string, args ...any) bool {
		if why != nil && why.msg == "" {
			why.msg, why.node = fmt.Sprintf(format, args...), i
		}
		return false
	}
	if c.enum != nil {
		ok := false
		if c.enumSet != nil {
			_, ok = c.enumSet[t.nodes[i].str]
			ok = ok && t.nodes[i].kind == tString
		} else {
			for _, e := range c.enum {
				if tapeEqualsAny(t, i, e, !c.floatNumbers) {
					ok = true
					break
				}
			}
		}
		if !ok {
			// The schema's values are the server's text: name them only
			// when they are few, so that a refusal costs no more than the
			// check.
			if len(c.enum) > 16 {
				return fail("enum: value is not one of the schema's %d values", len(c.enum))
			}
			return fail("enum: value is not one of %v", c.enum)
		}
	}
	if c.hasConst && !tapeEqualsAny(t, i, c.cnst, !c.floatNumbers) {
		return fail("const: value is not %v", c.cnst)
	}
	return true
}

// checkLogic is check's allOf, anyOf, oneOf, not and if/then/else.
func (c *schemaCheck) checkLogic(t *tape, i int, why *checkFailure) bool {
	fail := func(format string, args ...any) bool {
		if why != nil && why.msg == "" {
			why.msg, why.node = fmt.Sprintf(format, args...), i
		}
		return false
	}
	// Logic (the order does not change a verdict: no unevaluated* keyword is
	// compiled, so no annotation matters).
	for _, s := range c.allOf {
		if !s.check(t, i, why) {
			return fail("allOf")
		}
	}
	if c.anyOf != nil {
		ok := false
		for _, s := range c.anyOf {
			if s.check(t, i, nil) {
				ok = true
				break
			}
		}
		if !ok {
			return fail("anyOf: matches none of %d schemas", len(c.anyOf))
		}
	}
	if c.oneOf != nil {
		n := 0
		for _, s := range c.oneOf {
			if s.check(t, i, nil) {
				n++
			}
		}
		if n != 1 {
			return fail("oneOf: matches %d of %d schemas, not exactly one", n, len(c.oneOf))
		}
	}
	if c.not != nil && c.not.check(t, i, nil) {
		return fail("not: matches a schema it must not")
	}
	if c.ifS != nil {
		next := c.elseS
		if c.ifS.check(t, i, nil) {
			next = c.thenS
		}
		if next != nil && !next.check(t, i, why) {
			return fail("if/then/else")
		}
	}
	return true
}

// compileIntBounds sets intBounds and the integer bounds, if every
// numeric keyword present is an integer that a float64 holds exactly (and,
// for multipleOf, positive).
func (c *schemaCheck) compileIntBounds() {
	const lim = 1 << 53
	asInt := func(f *float64, dflt int64) (int64, bool) {
		if f == nil {
			return dflt, true
		}
		if *f != math.Trunc(*f) || *f > lim || *f < -lim {
			return 0, false
		}
		return int64(*f), true
	}
	var ok [5]bool
	c.iMin, ok[0] = asInt(c.minimum, math.MinInt64)
	c.iMax, ok[1] = asInt(c.maximum, math.MaxInt64)
	c.iXMin, ok[2] = asInt(c.exclMin, math.MinInt64)
	c.iXMax, ok[3] = asInt(c.exclMax, math.MaxInt64)
	c.iMult, ok[4] = asInt(c.multipleOf, 0)
	// iMult is 0 without multipleOf: with one, it must be positive.
	c.intBounds = ok == [5]bool{true, true, true, true, true} && (c.multipleOf == nil || c.iMult > 0)
}

// intValid reports whether the integer k meets every numeric keyword
// (intBounds is set). The literal of k is an integer of at most 18 digits
// and every bound an integer of at most 2^53, so the comparison is exact.
func (c *schemaCheck) intValid(k int64) bool {
	return k >= c.iMin && k <= c.iMax && (c.exclMin == nil || k > c.iXMin) && (c.exclMax == nil || k < c.iXMax) &&
		(c.iMult == 0 || k%c.iMult == 0)
}

// floatValid reports whether f, the float64 of a canonical literal (at
// most 15 significant digits, no exponent), meets the bounds (intBounds is
// set, without multipleOf). It is exact: such a literal that differs from
// an integer bound differs from it by more than half the bound's float64
// spacing, so its float64 lies on the same side.
func (c *schemaCheck) floatValid(f float64) bool {
	return f >= float64(c.iMin) && f <= float64(c.iMax) && (c.exclMin == nil || f > float64(c.iXMin)) && (c.exclMax == nil || f < float64(c.iXMax))
}

// checkNumber applies the numeric keywords to a literal exactly; num is
// its float64. It returns the failure, or "".
func (c *schemaCheck) checkNumber(lit string, num float64) string {
	if c.dMultipleOf == nil && c.dMin == nil && c.dMax == nil && c.dExclMin == nil && c.dExclMax == nil {
		return ""
	}
	if c.intBounds {
		// A literal that passes needs no decimal; one that fails takes the
		// path below, which says why.
		if k, ok := parseIntLiteral(lit); ok {
			if c.intValid(k) {
				return ""
			}
		} else if c.iMult == 0 && canonicalFloatLiteral(lit) && c.floatValid(num) {
			return ""
		}
	}
	d, _ := parseDecimal(lit) // the tape bounded its exponent
	switch {
	case c.dMultipleOf != nil && !multipleOf(&d, c.dMultipleOf):
		return fmt.Sprintf("multipleOf: %s is not a multiple of %v", lit, *c.multipleOf)
	case c.dMin != nil && cmpDecimal(&d, c.dMin) < 0:
		return fmt.Sprintf("minimum: %s is less than %v", lit, *c.minimum)
	case c.dMax != nil && cmpDecimal(&d, c.dMax) > 0:
		return fmt.Sprintf("maximum: %s is greater than %v", lit, *c.maximum)
	case c.dExclMin != nil && cmpDecimal(&d, c.dExclMin) <= 0:
		return fmt.Sprintf("exclusiveMinimum: %s is not greater than %v", lit, *c.exclMin)
	case c.dExclMax != nil && cmpDecimal(&d, c.dExclMax) >= 0:
		return fmt.Sprintf("exclusiveMaximum: %s is not less than %v", lit, *c.exclMax)
	}
	return ""
}

// explain re-runs a failed check to say why (the cold path).
func (c *schemaCheck) explain(t *tape, i int) *argError {
	why := checkFailure{node: i, rule: ruleSchema}
	c.check(t, i, &why)
	if why.msg == "" {
		why.msg = "invalid"
	}
	return refusal(t.pointer(why.node), why.rule, errors.New(why.msg))
}

// uniqueItems reports whether the items of the array at i are pairwise
// unequal (numbers compared by value: exactly, or as float64s as
// jsonschema-go does).
func uniqueItems(t *tape, i int, exact bool) bool {
	x := &t.nodes[i]
	if x.n <= 32 {
		for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
			for q := int(t.nodes[p].end); q < int(x.end); q = int(t.nodes[q].end) {
				if tapeSameValue(t, p, q, exact) {
					return false
				}
			}
		}
		return true
	}
	seed := maphash.MakeSeed()
	byHash := make(map[uint64][]int, x.n)
	for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
		var h maphash.Hash
		h.SetSeed(seed)
		hashTape(&h, t, p)
		s := h.Sum64()
		for _, q := range byHash[s] {
			if tapeSameValue(t, p, q, exact) {
				return false
			}
		}
		byHash[s] = append(byHash[s], p)
	}
	return true
}

// tapeSameValue is JSON Schema equality of two values of one tape: numbers
// by value, exactly, or (not exact) by their float64 value, as jsonschema-go
// compares decoded instances. Exactly equal numbers have equal float64s, so
// hashTape serves both.
func tapeSameValue(t *tape, i, j int, exact bool) bool {
	x, y := &t.nodes[i], &t.nodes[j]
	if x.kind != y.kind {
		return false
	}
	switch x.kind {
	case tNumber:
		if x.num != y.num {
			return false
		}
		return !exact || literalsEqual(x.str, y.str)
	case tString:
		return x.str == y.str
	case tArray:
		if x.n != y.n {
			return false
		}
		for p, q := i+1, j+1; p < int(x.end); p, q = int(t.nodes[p].end), int(t.nodes[q].end) {
			if !tapeSameValue(t, p, q, exact) {
				return false
			}
		}
		return true
	case tObject:
		if x.n != y.n {
			return false
		}
		for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
			q := t.member(j, t.nodes[p].key)
			if q < 0 || !tapeSameValue(t, p, q, exact) {
				return false
			}
		}
		return true
	}
	return true
}

func hashTape(h *maphash.Hash, t *tape, i int) {
	x := &t.nodes[i]
	h.WriteByte(byte(x.kind))
	switch x.kind {
	case tNumber:
		f := x.num
		if f == 0 {
			f = 0 // -0 and 0 are equal
		}
		var b [8]byte
		u := math.Float64bits(f)
		for k := range b {
			b[k] = byte(u >> (8 * k))
		}
		h.Write(b[:])
	case tString:
		h.WriteString(x.str)
	case tArray:
		for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
			hashTape(h, t, p)
		}
	case tObject:
		// Order-independent: combine member hashes commutatively.
		var sum uint64
		seed := h.Seed()
		for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
			var m maphash.Hash
			m.SetSeed(seed)
			m.WriteString(t.nodes[p].key)
			hashTape(&m, t, p)
			sum += m.Sum64()
		}
		var b [8]byte
		for k := range b {
			b[k] = byte(sum >> (8 * k))
		}
		h.Write(b[:])
	}
}

// tapeEqualsAny compares value i of t with a value of a schema (enum,
// const) as encoding/json decoded it: numbers by value, exactly (the
// schema's number is the shortest decimal of its float64, as for bounds) or
// as float64s.
func tapeEqualsAny(t *tape, i int, v any, exact bool) bool {
	x := &t.nodes[i]
	switch w := v.(type) {
	case nil:
		return x.kind == tNull
	case bool:
		return w && x.kind == tTrue || !w && x.kind == tFalse
	case float64:
		if x.kind != tNumber || x.num != w {
			return false
		}
		return !exact || literalsEqual(x.str, strconv.FormatFloat(w, 'g', -1, 64))
	case string:
		return x.kind == tString && x.str == w
	case []any:
		if x.kind != tArray || int(x.n) != len(w) {
			return false
		}
		k := 0
		for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
			if !tapeEqualsAny(t, p, w[k], exact) {
				return false
			}
			k++
		}
		return true
	case map[string]any:
		if x.kind != tObject || int(x.n) != len(w) {
			return false
		}
		for p := i + 1; p < int(x.end); p = int(t.nodes[p].end) {
			e, ok := w[t.nodes[p].key]
			if !ok || !tapeEqualsAny(t, p, e, exact) {
				return false
			}
		}
		return true
	}
	return false
}
