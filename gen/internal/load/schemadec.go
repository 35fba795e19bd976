package load

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ocpgen/ocpgen/gen/internal/schemakw"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
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

func (d *schemaDecoder) space() { d.i = jsonscan.SkipSpace(d.data, d.i) }

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
	return d.container('{', '}', func() {
		if d.peek() != '"' {
			d.fail()
			return
		}
		key := d.str()
		if d.peek() != ':' {
			d.fail()
			return
		}
		d.i++
		member(key)
	})
}

// array calls elem for each element of the array that comes next. It
// returns false (and sets bad) if what comes next is not an array.
func (d *schemaDecoder) array(elem func()) bool { return d.container('[', ']', elem) }

// container calls elem for each element of the object or array that comes
// next, which open and close delimit, and reads the commas between them.
func (d *schemaDecoder) container(open, close byte, elem func()) bool {
	if d.peek() != open || d.depth >= maxDecodeDepth {
		d.fail()
		return false
	}
	d.depth++
	defer func() { d.depth-- }()
	d.i++
	if d.peek() == close {
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
		case close:
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
	end, plain, ok := jsonscan.ScanString(d.data, d.i)
	d.i = end
	switch {
	case !ok:
		d.fail()
		return ""
	case plain:
		return string(d.data[start+1 : end-1])
	}
	var s string
	s, d.buf = jsonscan.Unquote(d.buf, d.data[start:end])
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
	end, _, ok := jsonscan.ScanString(d.data, d.i)
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

// foldedSchemaKeys are the keywords (schemakw.All) folded as encoding/json
// folds a key that matches no field exactly.
var foldedSchemaKeys = func() map[string]bool {
	m := make(map[string]bool, len(schemakw.All))
	for _, k := range schemakw.All {
		m[string(jsonscan.AppendFoldedName(nil, []byte(k.Name)))] = true
	}
	return m
}()

// schemaObject decodes the schema object that comes next: a key
// encoding/json matches to a field of the struct jsonschema-go's
// UnmarshalJSON decodes into (a schemakw keyword) fills it, any other goes
// to Extra.
func (d *schemaDecoder) schemaObject() *jsonschema.Schema {
	s := &jsonschema.Schema{}
	var seen uint64 // the keywords seen, by Index
	d.object(func(key string) {
		k := schemakw.Lookup(key)
		if k == nil {
			if foldedSchemaKeys[string(jsonscan.AppendFoldedName(nil, []byte(key)))] {
				d.fail() // encoding/json would fill the field too
				return
			}
			if s.Extra == nil {
				s.Extra = map[string]any{}
			}
			s.Extra[key] = d.anyValue()
			return
		}
		if k.Index >= 64 || seen&(1<<k.Index) != 0 {
			d.fail() // encoding/json merges a repeated keyword
			return
		}
		seen |= 1 << k.Index
		d.keyword(s, k)
	})
	return s
}

// keyword decodes the value of the keyword k into s, by its kind.
func (d *schemaDecoder) keyword(s *jsonschema.Schema, k *schemakw.Keyword) {
	switch k.Kind {
	case schemakw.String:
		*schemakw.Field[string](k, s) = d.optString()
	case schemakw.Bool:
		*schemakw.Field[bool](k, s) = d.optBool()
	case schemakw.Number:
		*schemakw.Field[*float64](k, s) = d.optFloat()
	case schemakw.Integer:
		*schemakw.Field[*int](k, s) = d.optInt()
	case schemakw.Strings:
		*schemakw.Field[[]string](k, s) = d.optStrings()
	case schemakw.Values:
		*schemakw.Field[[]any](k, s) = d.optAnys()
	case schemakw.Value:
		// jsonschema-go reads null as a pointer to a nil any.
		v := d.anyValue()
		*schemakw.Field[*any](k, s) = &v
	case schemakw.Raw:
		// A json.RawMessage keeps the bytes, null included.
		*schemakw.Field[json.RawMessage](k, s) = d.rawValue()
	case schemakw.Schema:
		*schemakw.Field[*jsonschema.Schema](k, s) = d.schemaValue(false)
	case schemakw.Schemas:
		*schemakw.Field[[]*jsonschema.Schema](k, s) = d.optSchemas()
	case schemakw.SchemaMap:
		*schemakw.Field[map[string]*jsonschema.Schema](k, s) = d.optSchemaMap()

	case schemakw.BoolMap:
		if d.isNull() {
			return
		}
		m := map[string]bool{}
		*schemakw.Field[map[string]bool](k, s) = m
		d.object(func(key string) {
			switch d.peek() {
			case 't':
				d.literal("true")
				m[key] = true
			case 'f':
				d.literal("false")
				m[key] = false
			default:
				d.fail()
			}
		})
	case schemakw.StringsMap:
		if d.isNull() {
			return
		}
		m := map[string][]string{}
		*schemakw.Field[map[string][]string](k, s) = m
		d.object(func(key string) {
			if d.peek() != '[' {
				d.fail()
				return
			}
			m[key] = d.strings()
		})

	case schemakw.Type:
		switch d.peek() {
		case '"':
			s.Type = d.str()
		case '[':
			s.Types = d.strings()
		default:
			d.fail() // jsonschema-go refuses it
		}
	case schemakw.Items:
		if d.peek() == '[' {
			s.ItemsArray = d.schemas()
		} else {
			s.Items = d.schemaValue(true)
		}
	case schemakw.Dependencies:
		if d.isNull() {
			return
		}
		d.object(func(key string) {
			if _, dup := s.DependencyStrings[key]; dup {
				d.fail() // the last of repeated keys wins
				return
			}
			if _, dup := s.DependencySchemas[key]; dup {
				d.fail()
				return
			}
			if d.peek() == '[' {
				if s.DependencyStrings == nil {
					s.DependencyStrings = map[string][]string{}
				}
				s.DependencyStrings[key] = d.strings()
				return
			}
			if s.DependencySchemas == nil {
				s.DependencySchemas = map[string]*jsonschema.Schema{}
			}
			s.DependencySchemas[key] = d.schemaValue(true)
		})
	default:
		d.fail() // a keyword of a kind this decoder does not know: jsonschema-go decodes it
	}
}
