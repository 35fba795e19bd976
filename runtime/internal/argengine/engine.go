package argengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// MaxArgsDepth bounds nesting, as encoding/json does ([RuleDepth]).
const MaxArgsDepth = 10000

// Limits bounds the arguments of one call. A call beyond either bound is
// refused before the work it would cost: its length before anything reads
// it ([RuleSize]), its values as the parse counts them, before it
// allocates anything for more ([RuleValues]).
type Limits struct {
	// Bytes bounds the length of the arguments' JSON text, at most
	// MaxLimitBytes.
	Bytes int
	// Values bounds how many JSON values they hold (every object, array,
	// string, number and literal, at any depth, counts one), at most
	// MaxLimitValues.
	Values int
}

// The largest limits [Compile] takes. The tape holds offsets of 32 bits and
// lengths of 27; the bounds keep a call's memory to a few times its bytes
// (docs/security-model.md, "Bounds").
const (
	MaxLimitBytes  = 64 << 20
	MaxLimitValues = 1 << 22
)

// check returns an error naming the limit that is out of range.
func (l Limits) check() error {
	switch {
	case l.Bytes < 1 || l.Bytes > MaxLimitBytes:
		return fmt.Errorf("the limit of bytes, %d, is not within 1 to %d", l.Bytes, MaxLimitBytes)
	case l.Values < 1 || l.Values > MaxLimitValues:
		return fmt.Errorf("the limit of values, %d, is not within 1 to %d", l.Values, MaxLimitValues)
	}
	return nil
}

// Engine is the argument engine of one tool: its input schema and its Go
// argument type, compiled once by [Compile]. It is immutable and safe for
// concurrent use.
type Engine struct {
	typ    reflect.Type
	check  *schemaCheck
	codec  *codecNode      // typed decode and re-encoding; nil: encoding/json
	props  map[string]bool // top-level property names of the schema
	limits Limits
	// headers are the schema's x-mcp-header annotations (RuleParamHeader).
	headers []paramHeader
}

// Compile compiles the tool whose input schema is the JSON text
// inputSchema and whose argument type is the struct type typ, for calls
// within lim. It refuses limits out of range, and a schema it cannot
// compile (see [CompileSchema]); a schema with a pattern that has no
// ECMA-262 translation compiles, and then [Engine.Check] refuses every
// call ([RulePatternUntranslatable]).
func Compile(inputSchema []byte, typ reflect.Type, lim Limits) (*Engine, error) {
	if err := lim.check(); err != nil {
		return nil, err
	}
	check, err := compileSchemaJSON(inputSchema)
	if err != nil {
		return nil, err
	}
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(inputSchema, &top); err != nil {
		return nil, err
	}
	props := make(map[string]bool, len(top.Properties))
	for k := range top.Properties {
		props[k] = true
	}
	headers, err := paramHeaders(inputSchema)
	if err != nil {
		return nil, err
	}
	return &Engine{typ: typ, check: check, codec: compileCodec(typ), props: props, limits: lim, headers: headers}, nil
}

// Typed selects the typed arguments that [Engine.Check] makes: the
// top-level fields of the tool's struct type that its caller reads (a
// resource template's placeholders). A nil Typed, or one without Fields,
// makes none.
type Typed struct {
	// Fields are the indices (as reflect.Type.Field numbers them) of the
	// fields decoded; every other field of the typed arguments is left
	// zero. An index of no field the arguments' JSON encoding has (out of
	// range, unexported, json:"-") decodes nothing.
	Fields []int
	// Elems, when positive, bounds the elements decoded of a field in
	// Fields that is a slice (not a json.RawMessage, which is bytes): its
	// first Elems elements when it has more (a caller that refuses more
	// than Elems-1 values can tell, without decoding the rest). Zero
	// decodes them all.
	Elems int
}

// Check checks a call's arguments, raw. It returns the typed arguments (a
// pointer to a new value of the tool's type, holding the fields that read
// selects, nil when it selects none) and the bytes to forward: their
// re-encoding, which equals raw as a JSON value. Its error is a
// *[Refusal]: the rule that refused, and the pointer of the value refused.
//
// The verdict and the bytes do not depend on read. A field read has the
// value the typed decode of the whole arguments gives it (but a slice cut
// to read.Elems elements), and its strings are its own: nothing it holds
// is the forwarded bytes. For a tool type the engine's codec does not
// cover (decoded by encoding/json) any read decodes the whole arguments.
//
// The arguments must be JSON (RFC 8259, UTF-8) within the engine's
// [Limits], without duplicate keys, nesting deeper than [MaxArgsDepth] or
// trailing data; an object valid against the tool's schema; with only the
// schema's top-level properties; held by the tool's type; and their
// re-encoding must equal them, at every depth, so that a key the typed
// decode dropped, matched case-insensitively or altered is refused. raw is
// copied: nothing the caller does to it afterwards changes what was
// checked; the bytes returned are no one else's.
func (e *Engine) Check(raw []byte, read *Typed) (any, []byte, error) {
	if len(raw) == 0 {
		return nil, nil, refusal("", RuleSyntax, errors.New("no arguments (an object is required)"))
	}
	if len(raw) > e.limits.Bytes {
		return nil, nil, refusal("", RuleSize, fmt.Errorf("arguments of %d bytes exceed the limit of %d", len(raw), e.limits.Bytes))
	}
	if !utf8.Valid(raw) {
		return nil, nil, badUTF8(raw, e.limits.Values)
	}
	// A private copy: the tape's strings are substrings of it.
	t := getTape()
	t.maxValues = e.limits.Values
	args, fwd, err := e.checkParsed(t, raw, read)
	putTape(t)
	return args, fwd, err
}

// checkParsed is Check with the tape t: its steps, in order (the
// benchmarks of memory measure each: BenchmarkArgsHeap).
//
// The tape reads a private copy of raw, own, as its text, without
// another copy (parseOwned); nothing writes own while the tape holds it.
// When the re-encoding is own's bytes, own is the forwarded bytes: then
// nothing read from the tape outlives the check (decodeRead copies what it
// reads), and the caller is own's only holder.
func (e *Engine) checkParsed(t *tape, raw []byte, read *Typed) (any, []byte, error) {
	own := bytes.Clone(raw)
	if err := t.parseOwned(own); err != nil {
		return nil, nil, err
	}
	if err := e.validate(t); err != nil {
		return nil, nil, err
	}
	typed := read != nil && len(read.Fields) > 0
	args, fwd, same, err := e.reencode(t, own, typed)
	if err != nil {
		return nil, nil, err
	}
	// Anything the typed decode dropped, case-folded or altered would
	// otherwise be approved in one form and forwarded in another. Identical
	// bytes (a typed call, or a client that sends keys in schema order)
	// are equal without reading them again.
	if !same {
		if err := sameAsTape(t, fwd); err != nil {
			return nil, nil, err
		}
	}
	if typed && e.codec != nil {
		// Accepted: only now what the caller reads.
		if args, err = e.decodeRead(t, read); err != nil {
			return nil, nil, err
		}
	}
	return args, fwd, nil
}

// decodeRead decodes into a new value of the tool's type the fields that
// read selects of the accepted arguments on t, member by member as the
// codec's decode of the struct does (codecNode.decodeMember), a slice cut
// to read.Elems elements; it leaves the other fields zero. What it decodes
// is then copied out of the tape's text (detach).
func (e *Engine) decodeRead(t *tape, read *Typed) (any, error) {
	p := reflect.New(e.typ)
	v := p.Elem()
	for m := t.first(0); m < t.end(0); m = t.end(m) {
		if err := e.codec.decodeMember(t, m, v, decodeMode{}, read); err != nil {
			return nil, err
		}
	}
	for _, i := range read.Fields {
		if i >= 0 && i < v.NumField() && v.Field(i).CanSet() {
			detach(v.Field(i))
		}
	}
	return p.Interface(), nil
}

// detach replaces every string v holds (at any depth, map keys included)
// with a copy: a string decoded from the tape may be a substring of its
// text, the private copy of the arguments that Check may return as the
// forwarded bytes. v is settable; so is every value detach reaches, a
// Nullable's value through its OCPValue.
func detach(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(strings.Clone(v.String()))
	case reflect.Pointer:
		if !v.IsNil() {
			detach(v.Elem())
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // json.RawMessage: decoded as a copy (tape.rawInput)
		}
		for i := range v.Len() {
			detach(v.Index(i))
		}
	case reflect.Struct:
		if nv, ok := v.Addr().Interface().(nullable); ok {
			// ocpimpl.Nullable: its value is in an unexported field.
			if p := nv.OCPValue(); p != nil {
				detach(reflect.ValueOf(p).Elem())
			}
			return
		}
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				detach(f)
			}
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			detach(k)
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			detach(e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// validate checks the parsed arguments against the schema, that they hold
// only the schema's top-level properties, and that those the schema
// mirrors into HTTP headers can be headers.
func (e *Engine) validate(t *tape) error {
	if t.kind(0) != tObject {
		return refusal("", RuleSchema, errors.New("arguments are not a JSON object"))
	}
	if err := e.check.validate(t, 0); err != nil {
		return err
	}
	// Only what the schema takes is forwarded, whatever the schema says
	// about additional properties. (After the schema: an undeclared key the
	// schema refuses is the schema's refusal.)
	for p := t.first(0); p < len(t.nodes); p = t.end(p) {
		if k := t.key(p); !e.props[k] {
			return refusal(t.pointer(p), RuleUndeclared, fmt.Errorf("argument %s is not a property of the tool's schema", truncQuote(k)))
		}
	}
	return checkParamHeaders(t, e.headers)
}

// reencode returns the bytes to forward, and whether those are the bytes
// of own, the private copy of the arguments that t reads, and for a type
// the codec does not cover, with needTyped, the typed arguments (else
// nil: checkParsed decodes what is read once the arguments are accepted).
// In the common case the bytes are written straight from the tape
// (codecNode.encodeTape), and when they are own's they are own itself;
// otherwise the typed decode makes the arguments and they are encoded: by
// the tool's codec (argcodec.go), or by encoding/json for a type it does
// not cover.
func (e *Engine) reencode(t *tape, own []byte, needTyped bool) (args any, fwd []byte, same bool, err error) {
	if e.codec == nil {
		typed, err := decodeArgs(e.typ, t.decodeInput(own))
		if err != nil {
			return nil, nil, false, decodeError(t, fmt.Errorf("decode: %w", err))
		}
		if fwd, err = MarshalPlain(typed); err != nil {
			return nil, nil, false, refusal("", RuleRoundTrip, fmt.Errorf("re-encode: %w", err))
		}
		if needTyped {
			args = typed
		}
		return args, fwd, bytes.Equal(own, fwd), nil
	}
	if w := newFwdBuf(own); e.codec.encodeTape(w, t, 0, false) {
		fwd, same := w.bytes()
		return nil, fwd, same, nil
	}
	// The decode's refusal, if any, without the typed value, whose
	// memory is not bounded by the arguments' size (8 bytes for each "0,"
	// of an []int64).
	if err := e.codec.decode(t, 0, reflect.Value{}); err != nil {
		return nil, nil, false, err
	}
	p := reflect.New(e.typ)
	if err := e.codec.decode(t, 0, p.Elem()); err != nil {
		return nil, nil, false, err
	}
	fwd, err = e.codec.encode(make([]byte, 0, len(own)+16), p.Elem(), false) // the arguments' size, which the re-encoding usually is
	if err != nil {
		return nil, nil, false, refusal("", RuleRoundTrip, fmt.Errorf("re-encode: %w", err))
	}
	// The typed arguments go now.
	return nil, fwd, bytes.Equal(own, fwd), nil
}

// MarshalPlain is json.Marshal without HTML escaping (an Encoder with
// SetEscapeHTML(false), without its newline): the encoding of the bytes
// the engine forwards, which go to a JSON parser, not into a page.
func MarshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Schema is a JSON Schema compiled by [CompileSchema], the validator
// [Engine.Check] uses, for a value that is not a call's arguments (a
// tool's structured result). It is immutable and safe for concurrent use.
type Schema struct{ sc *schemaCheck }

// CompileSchema compiles a JSON Schema (draft 2020-12, or draft-07 when
// its "$schema" says so) from its JSON text. It refuses, naming the
// pointer: text that is not JSON, a keyword value of the wrong form, a
// "$schema" other than the two drafts, a reference that does not resolve
// inside the document (no remote schema is loaded), and a cycle of
// references that consumes no instance ({"$ref":"#"}). A pattern with no
// ECMA-262 translation compiles, and then every value is refused.
func CompileSchema(schema []byte) (*Schema, error) {
	sc, err := compileSchemaJSON(schema)
	if err != nil {
		return nil, err
	}
	return &Schema{sc}, nil
}

// ValidateJSON validates the JSON text b against s. Its error is a
// *[Refusal]: [RuleSchema] with the failing value's pointer,
// [RulePatternUntranslatable] at the root, or a rule of the parse when b is
// not JSON the engine takes.
func (s *Schema) ValidateJSON(b []byte) error { return validateJSON(s.sc, b) }
