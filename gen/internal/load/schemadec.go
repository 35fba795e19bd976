package load

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ocpgen/ocpgen/internal/jsontext"
)

// decodeSchema decodes the JSON schema raw in one pass over its bytes into
// the *jsonschema.Schema that json.Unmarshal (jsonschema-go's
// Schema.UnmarshalJSON, v0.4.3) would produce. jsonschema-go decodes every
// sub-schema twice at each level (once into the struct, once into a map for
// Extra), so a schema n levels deep is decoded 2n times; this reads it once.
//
// It covers the schemas real servers send. For anything else it returns
// ok false and the caller uses jsonschema-go itself: any input that is not
// valid JSON or that jsonschema-go refuses (so every error comes from
// jsonschema-go, as before), a repeated keyword in one schema object (which
// encoding/json merges into the earlier value), a key that matches a
// keyword only up to case folding (encoding/json fills the field and
// jsonschema-go also keeps it in Extra), and the rarer value shapes (a null
// inside "type", "required", "$vocabulary" and the like). TestDecodeSchema
// and FuzzDecodeSchema compare the two decoders.
func decodeSchema(raw []byte) (s *jsonschema.Schema, ok bool) {
	d := schemaDecoder{data: raw}
	d.space()
	if d.i >= len(d.data) {
		return nil, false
	}
	// The top level is decoded as json.Unmarshal(raw, &s) does: null is
	// the false schema there.
	s = d.schemaValue(true)
	if d.bad {
		return nil, false
	}
	d.space()
	if d.i != len(d.data) {
		return nil, false
	}
	return s, true
}

// schemaDecoder reads JSON from data, from offset i. bad is set at the
// first thing it does not decode as jsonschema-go would (or that is not
// valid JSON); from then on its results mean nothing.
type schemaDecoder struct {
	data []byte
	i    int
	bad  bool
	// buf is scratch space for unquoting strings with escapes.
	buf []byte
	// depth is how deep the value being read nests; past maxDecodeDepth
	// the decoder gives up (encoding/json refuses 10,000 levels).
	depth int
}

const maxDecodeDepth = 1000

func (d *schemaDecoder) fail() { d.bad = true }

func (d *schemaDecoder) space() { d.i = jsontext.SkipSpace(d.data, d.i) }

// peek returns the next non-space byte, or 0 at the end.
func (d *schemaDecoder) peek() byte {
	d.space()
	if d.i >= len(d.data) {
		return 0
	}
	return d.data[d.i]
}

// literal consumes the literal word (true, false, null), which must come
// next.
func (d *schemaDecoder) literal(word string) {
	if len(d.data)-d.i < len(word) || string(d.data[d.i:d.i+len(word)]) != word {
		d.fail()
		d.i = len(d.data)
		return
	}
	d.i += len(word)
}

// schemaValue decodes a schema: an object, true or false. null is the
// false schema when explicit is set (json.Unmarshal into a Schema calls
// UnmarshalJSON, which reads null as the boolean false), else nil (a
// *Schema field, element or map value that encoding/json sets to nil).
func (d *schemaDecoder) schemaValue(explicit bool) *jsonschema.Schema {
	switch d.peek() {
	case '{':
		return d.schemaObject()
	case 't':
		d.literal("true")
		return &jsonschema.Schema{}
	case 'f':
		d.literal("false")
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}
	case 'n':
		d.literal("null")
		if explicit {
			return &jsonschema.Schema{Not: &jsonschema.Schema{}}
		}
		return nil
	}
	d.fail()
	return nil
}

// isNull consumes a null if one comes next.
func (d *schemaDecoder) isNull() bool {
	if d.peek() == 'n' {
		d.literal("null")
		return true
	}
	return false
}

// object calls member for each member of the object that comes next, with
// its key decoded; member reads the value. It returns false (and sets bad)
// if what comes next is not an object.
func (d *schemaDecoder) object(member func(key string)) bool {
	if d.peek() != '{' || d.depth >= maxDecodeDepth {
		d.fail()
		return false
	}
	d.depth++
	defer func() { d.depth-- }()
	d.i++
	if d.peek() == '}' {
		d.i++
		return true
	}
	for !d.bad {
		if d.peek() != '"' {
			d.fail()
			return false
		}
		key := d.str()
		if d.peek() != ':' {
			d.fail()
			return false
		}
		d.i++
		member(key)
		if d.bad {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return true
		default:
			d.fail()
			return false
		}
	}
	return false
}

// array calls elem for each element of the array that comes next. It
// returns false (and sets bad) if what comes next is not an array.
func (d *schemaDecoder) array(elem func()) bool {
	if d.peek() != '[' || d.depth >= maxDecodeDepth {
		d.fail()
		return false
	}
	d.depth++
	defer func() { d.depth-- }()
	d.i++
	if d.peek() == ']' {
		d.i++
		return true
	}
	for !d.bad {
		elem()
		if d.bad {
			return false
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return true
		default:
			d.fail()
			return false
		}
	}
	return false
}

// str decodes the JSON string that comes next, as encoding/json does.
func (d *schemaDecoder) str() string {
	if d.peek() != '"' {
		d.fail()
		return ""
	}
	start := d.i
	end, plain, ok := jsontext.ScanString(d.data, d.i)
	d.i = end
	switch {
	case !ok:
		d.fail()
		return ""
	case plain:
		return string(d.data[start+1 : end-1])
	}
	var s string
	s, d.buf = jsontext.Unquote(d.buf, d.data[start:end])
	return s
}

// number consumes the number that comes next and returns its literal. It
// sets bad unless the literal is valid JSON and a float64 holds it
// (encoding/json refuses, into a float64 or an any, one that overflows).
func (d *schemaDecoder) number() (lit []byte, f float64) {
	start := d.i
	i := d.i
	digits := func() bool {
		j := i
		for i < len(d.data) && '0' <= d.data[i] && d.data[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	switch {
	case i < len(d.data) && d.data[i] == '0':
		i++
	case !digits():
		d.fail()
		return nil, 0
	}
	if i < len(d.data) && d.data[i] == '.' {
		i++
		if !digits() {
			d.fail()
			return nil, 0
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if !digits() {
			d.fail()
			return nil, 0
		}
	}
	d.i = i
	lit = d.data[start:i]
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		d.fail()
	}
	return lit, f
}

// anyValue decodes the value that comes next as encoding/json decodes into
// an any: map[string]any (a repeated key keeps its last value), []any,
// string, float64, bool or nil.
func (d *schemaDecoder) anyValue() any {
	switch c := d.peek(); {
	case c == '{':
		m := map[string]any{}
		d.object(func(key string) { m[key] = d.anyValue() })
		return m
	case c == '[':
		a := []any{}
		d.array(func() { a = append(a, d.anyValue()) })
		return a
	case c == '"':
		return d.str()
	case c == 't':
		d.literal("true")
		return true
	case c == 'f':
		d.literal("false")
		return false
	case c == 'n':
		d.literal("null")
		return nil
	case c == '-' || '0' <= c && c <= '9':
		_, f := d.number()
		return f
	}
	d.fail()
	return nil
}

// rawValue consumes the value that comes next, checking it as anyValue
// would (syntax, numbers a float64 holds) without building it, and returns
// its exact bytes.
func (d *schemaDecoder) rawValue() json.RawMessage {
	d.space()
	start := d.i
	d.skip()
	return d.data[start:d.i:d.i]
}

func (d *schemaDecoder) skip() {
	switch c := d.peek(); {
	case c == '{':
		d.object(func(string) { d.skip() })
	case c == '[':
		d.array(d.skip)
	case c == '"':
		d.skipString()
	case c == 't':
		d.literal("true")
	case c == 'f':
		d.literal("false")
	case c == 'n':
		d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		d.number()
	default:
		d.fail()
	}
}

// skipString consumes the string that comes next, checking its syntax.
func (d *schemaDecoder) skipString() {
	end, _, ok := jsontext.ScanString(d.data, d.i)
	d.i = end
	if !ok {
		d.fail()
	}
}

// optString decodes a string field: null leaves it empty.
func (d *schemaDecoder) optString() string {
	if d.isNull() {
		return ""
	}
	return d.str()
}

func (d *schemaDecoder) optBool() bool {
	switch d.peek() {
	case 't':
		d.literal("true")
		return true
	case 'f':
		d.literal("false")
		return false
	case 'n':
		d.literal("null")
		return false
	}
	d.fail()
	return false
}

func (d *schemaDecoder) optFloat() *float64 {
	if d.isNull() {
		return nil
	}
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		d.fail()
		return nil
	}
	_, f := d.number()
	return &f
}

// optInt decodes an integer-valued keyword (minLength and the like) as
// jsonschema-go's integer type does: a number with a fraction must be
// integral, one without must be an int64 literal, and either must fit an
// int32.
func (d *schemaDecoder) optInt() *int {
	if d.isNull() {
		return nil
	}
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		d.fail()
		return nil
	}
	lit, f := d.number()
	if d.bad {
		return nil
	}
	var n int64
	hasDot, hasExp := false, false
	for _, c := range lit {
		switch c {
		case '.':
			hasDot = true
		case 'e', 'E':
			hasExp = true
		}
	}
	switch {
	case hasDot:
		if f < math.MinInt32 || f > math.MaxInt32 || f != math.Trunc(f) {
			d.fail()
			return nil
		}
		n = int64(f)
	case hasExp:
		d.fail() // not an int64 literal: jsonschema-go refuses it
		return nil
	default:
		var err error
		if n, err = strconv.ParseInt(string(lit), 10, 64); err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			d.fail()
			return nil
		}
	}
	v := int(n)
	return &v
}

// strings decodes an array of strings; the empty array is non-nil.
func (d *schemaDecoder) strings() []string {
	out := []string{}
	d.array(func() {
		if d.peek() != '"' {
			d.fail()
			return
		}
		out = append(out, d.str())
	})
	return out
}

func (d *schemaDecoder) optStrings() []string {
	if d.isNull() {
		return nil
	}
	return d.strings()
}

func (d *schemaDecoder) optAnys() []any {
	if d.isNull() {
		return nil
	}
	if d.peek() != '[' {
		d.fail()
		return nil
	}
	a := []any{}
	d.array(func() { a = append(a, d.anyValue()) })
	return a
}

func (d *schemaDecoder) optSchemas() []*jsonschema.Schema {
	if d.isNull() {
		return nil
	}
	return d.schemas()
}

func (d *schemaDecoder) schemas() []*jsonschema.Schema {
	out := []*jsonschema.Schema{}
	d.array(func() { out = append(out, d.schemaValue(false)) })
	return out
}

func (d *schemaDecoder) optSchemaMap() map[string]*jsonschema.Schema {
	if d.isNull() {
		return nil
	}
	m := map[string]*jsonschema.Schema{}
	d.object(func(key string) { m[key] = d.schemaValue(false) })
	return m
}

// schemaKeys are the keys encoding/json matches to the fields of the
// struct jsonschema-go's UnmarshalJSON decodes into (and which it leaves
// out of Extra), each with its bit in a schema object's set of keys seen.
var schemaKeys = func() map[string]uint64 {
	names := []string{
		"$id", "$schema", "$ref", "$comment", "$defs", "definitions",
		"$anchor", "$dynamicAnchor", "$dynamicRef", "$vocabulary",
		"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
		"type", "enum", "const", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
		"minLength", "maxLength", "pattern",
		"prefixItems", "items", "minItems", "maxItems", "additionalItems", "uniqueItems", "contains",
		"minContains", "maxContains", "unevaluatedItems",
		"minProperties", "maxProperties", "required", "dependentRequired", "properties", "patternProperties",
		"additionalProperties", "propertyNames", "unevaluatedProperties",
		"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies",
		"contentEncoding", "contentMediaType", "contentSchema", "format",
	}
	m := make(map[string]uint64, len(names))
	for i, n := range names {
		m[n] = 1 << i
	}
	return m
}()

// foldedSchemaKeys are schemaKeys folded as encoding/json folds a key
// that matches no field exactly.
var foldedSchemaKeys = func() map[string]bool {
	m := make(map[string]bool, len(schemaKeys))
	for k := range schemaKeys {
		m[string(jsontext.AppendFoldedName(nil, []byte(k)))] = true
	}
	return m
}()

// schemaObject decodes the schema object that comes next.
func (d *schemaDecoder) schemaObject() *jsonschema.Schema {
	s := &jsonschema.Schema{}
	var seen uint64
	d.object(func(key string) {
		bit, known := schemaKeys[key]
		if !known {
			if foldedSchemaKeys[string(jsontext.AppendFoldedName(nil, []byte(key)))] {
				d.fail() // encoding/json would fill the field too
				return
			}
			if s.Extra == nil {
				s.Extra = map[string]any{}
			}
			s.Extra[key] = d.anyValue()
			return
		}
		if seen&bit != 0 {
			d.fail() // encoding/json merges a repeated keyword
			return
		}
		seen |= bit
		d.keyword(s, key)
	})
	return s
}

// keyword decodes the value of the schema keyword key into s.
func (d *schemaDecoder) keyword(s *jsonschema.Schema, key string) {
	switch key {
	case "$id":
		s.ID = d.optString()
	case "$schema":
		s.Schema = d.optString()
	case "$ref":
		s.Ref = d.optString()
	case "$comment":
		s.Comment = d.optString()
	case "$anchor":
		s.Anchor = d.optString()
	case "$dynamicAnchor":
		s.DynamicAnchor = d.optString()
	case "$dynamicRef":
		s.DynamicRef = d.optString()
	case "title":
		s.Title = d.optString()
	case "description":
		s.Description = d.optString()
	case "pattern":
		s.Pattern = d.optString()
	case "contentEncoding":
		s.ContentEncoding = d.optString()
	case "contentMediaType":
		s.ContentMediaType = d.optString()
	case "format":
		s.Format = d.optString()

	case "deprecated":
		s.Deprecated = d.optBool()
	case "readOnly":
		s.ReadOnly = d.optBool()
	case "writeOnly":
		s.WriteOnly = d.optBool()
	case "uniqueItems":
		s.UniqueItems = d.optBool()

	case "$vocabulary":
		if d.isNull() {
			return
		}
		s.Vocabulary = map[string]bool{}
		d.object(func(k string) {
			switch d.peek() {
			case 't':
				d.literal("true")
				s.Vocabulary[k] = true
			case 'f':
				d.literal("false")
				s.Vocabulary[k] = false
			default:
				d.fail()
			}
		})

	case "default":
		// A json.RawMessage keeps the bytes, null included.
		s.Default = d.rawValue()
	case "examples":
		s.Examples = d.optAnys()
	case "enum":
		s.Enum = d.optAnys()
	case "const":
		// jsonschema-go reads null as a pointer to a nil any.
		v := d.anyValue()
		s.Const = &v

	case "multipleOf":
		s.MultipleOf = d.optFloat()
	case "minimum":
		s.Minimum = d.optFloat()
	case "maximum":
		s.Maximum = d.optFloat()
	case "exclusiveMinimum":
		s.ExclusiveMinimum = d.optFloat()
	case "exclusiveMaximum":
		s.ExclusiveMaximum = d.optFloat()

	case "minLength":
		s.MinLength = d.optInt()
	case "maxLength":
		s.MaxLength = d.optInt()
	case "minItems":
		s.MinItems = d.optInt()
	case "maxItems":
		s.MaxItems = d.optInt()
	case "minProperties":
		s.MinProperties = d.optInt()
	case "maxProperties":
		s.MaxProperties = d.optInt()
	case "minContains":
		s.MinContains = d.optInt()
	case "maxContains":
		s.MaxContains = d.optInt()

	case "type":
		switch d.peek() {
		case '"':
			s.Type = d.str()
		case '[':
			s.Types = d.strings()
		default:
			d.fail() // jsonschema-go refuses it
		}
	case "required":
		s.Required = d.optStrings()
	case "dependentRequired":
		if d.isNull() {
			return
		}
		s.DependentRequired = map[string][]string{}
		d.object(func(k string) {
			if d.peek() != '[' {
				d.fail()
				return
			}
			s.DependentRequired[k] = d.strings()
		})

	case "items":
		if d.peek() == '[' {
			s.ItemsArray = d.schemas()
		} else {
			s.Items = d.schemaValue(true)
		}
	case "prefixItems":
		s.PrefixItems = d.optSchemas()
	case "allOf":
		s.AllOf = d.optSchemas()
	case "anyOf":
		s.AnyOf = d.optSchemas()
	case "oneOf":
		s.OneOf = d.optSchemas()

	case "$defs":
		s.Defs = d.optSchemaMap()
	case "definitions":
		s.Definitions = d.optSchemaMap()
	case "properties":
		s.Properties = d.optSchemaMap()
	case "patternProperties":
		s.PatternProperties = d.optSchemaMap()
	case "dependentSchemas":
		s.DependentSchemas = d.optSchemaMap()

	case "dependencies":
		if d.isNull() {
			return
		}
		d.object(func(k string) {
			if _, dup := s.DependencyStrings[k]; dup {
				d.fail() // the last of repeated keys wins
				return
			}
			if _, dup := s.DependencySchemas[k]; dup {
				d.fail()
				return
			}
			if d.peek() == '[' {
				if s.DependencyStrings == nil {
					s.DependencyStrings = map[string][]string{}
				}
				s.DependencyStrings[k] = d.strings()
				return
			}
			if s.DependencySchemas == nil {
				s.DependencySchemas = map[string]*jsonschema.Schema{}
			}
			s.DependencySchemas[k] = d.schemaValue(true)
		})

	case "additionalItems":
		s.AdditionalItems = d.schemaValue(false)
	case "contains":
		s.Contains = d.schemaValue(false)
	case "unevaluatedItems":
		s.UnevaluatedItems = d.schemaValue(false)
	case "additionalProperties":
		s.AdditionalProperties = d.schemaValue(false)
	case "propertyNames":
		s.PropertyNames = d.schemaValue(false)
	case "unevaluatedProperties":
		s.UnevaluatedProperties = d.schemaValue(false)
	case "not":
		s.Not = d.schemaValue(false)
	case "if":
		s.If = d.schemaValue(false)
	case "then":
		s.Then = d.schemaValue(false)
	case "else":
		s.Else = d.schemaValue(false)
	case "contentSchema":
		s.ContentSchema = d.schemaValue(false)
	default:
		d.fail() // a key of schemaKeys without a case here
	}
}
