package argengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"
)

// MaxArgsBytes bounds the arguments of one call; larger ones are refused
// ([RuleSize]).
const MaxArgsBytes = 4 << 20

// MaxArgsDepth bounds nesting, as encoding/json does ([RuleDepth]).
const MaxArgsDepth = 10000

// Engine is the argument engine of one tool: its input schema and its Go
// argument type, compiled once by [Compile]. It is immutable and safe for
// concurrent use.
type Engine struct {
	typ   reflect.Type
	check *schemaCheck
	codec *codecNode      // typed decode and re-encoding; nil: encoding/json
	props map[string]bool // top-level property names of the schema
}

// Compile compiles the tool whose input schema is the JSON text
// inputSchema and whose argument type is the struct type typ. It refuses a
// schema it cannot compile (see [CompileSchema]); a schema with a pattern
// that has no ECMA-262 translation compiles, and then [Engine.Check]
// refuses every call ([RulePatternUntranslatable]).
func Compile(inputSchema []byte, typ reflect.Type) (*Engine, error) {
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
	return &Engine{typ: typ, check: check, codec: compileCodec(typ), props: props}, nil
}

// Check checks a call's arguments, raw. It returns the typed arguments (a
// pointer to a new value of the tool's type) and the bytes to forward:
// their re-encoding, which equals raw as a JSON value. Without needTyped
// the typed arguments may be nil: the caller reads only the bytes. Its
// error is a *[Refusal]: the rule that refused, and the pointer of the
// value refused.
//
// The arguments must be JSON (RFC 8259, UTF-8) of at most [MaxArgsBytes]
// bytes, without duplicate keys, nesting deeper than [MaxArgsDepth] or
// trailing data; an object valid against the tool's schema; with only the
// schema's top-level properties; held by the tool's type; and their
// re-encoding must equal them, at every depth, so that a key the typed
// decode dropped, matched case-insensitively or altered is refused. raw is
// copied: nothing the caller does to it afterwards changes what was
// checked.
func (e *Engine) Check(raw []byte, needTyped bool) (any, []byte, error) {
	if len(raw) == 0 {
		return nil, nil, refusal("", RuleSyntax, errors.New("no arguments (an object is required)"))
	}
	if len(raw) > MaxArgsBytes {
		return nil, nil, refusal("", RuleSize, errArgsTooLarge)
	}
	if !utf8.Valid(raw) {
		return nil, nil, badUTF8(raw)
	}
	// A private copy: the tape's strings are substrings of it.
	t := getTape()
	args, fwd, err := e.checkParsed(t, raw, needTyped)
	putTape(t)
	return args, fwd, err
}

// checkParsed is Check with the tape t.
func (e *Engine) checkParsed(t *tape, raw []byte, needTyped bool) (any, []byte, error) {
	if err := t.parse(string(raw)); err != nil {
		return nil, nil, err
	}
	if t.nodes[0].kind != tObject {
		return nil, nil, refusal("", RuleSchema, errors.New("arguments are not a JSON object"))
	}
	if err := e.check.validate(t, 0); err != nil {
		return nil, nil, err
	}
	// Only what the schema takes is forwarded, whatever the schema says
	// about additional properties. (After the schema: an undeclared key the
	// schema refuses is the schema's refusal.)
	for p := 1; p < len(t.nodes); p = int(t.nodes[p].end) {
		if k := t.nodes[p].key; !e.props[k] {
			return nil, nil, refusal(t.pointer(p), RuleUndeclared, fmt.Errorf("argument %s is not a property of the tool's schema", truncQuote(k)))
		}
	}
	// What the caller reads of the typed arguments must be what is
	// forwarded: then the bytes are the typed arguments' own encoding.
	// Without needTyped, in the common case, they are written straight
	// from the tape.
	var args any
	fwd, ok := []byte(nil), false
	if !needTyped {
		fwd, ok = e.fastEncode(t, raw)
	}
	if !ok {
		var err error
		if args, fwd, err = e.decodeEncode(t, raw); err != nil {
			return nil, nil, err
		}
	}
	// Anything the typed decode dropped, case-folded or altered would
	// otherwise be approved in one form and forwarded in another. Identical
	// bytes (a typed call, or a client that sends keys in schema order)
	// are equal without a second parse.
	if !bytes.Equal(raw, fwd) {
		if err := sameAsTape(t, fwd); err != nil {
			return nil, nil, err
		}
	}
	return args, fwd, nil
}

// sameAsTape parses fwd and compares it with t as JSON values; a
// difference is refused at its place in t.
func sameAsTape(t *tape, fwd []byte) error {
	back := getTape()
	defer putTape(back)
	if err := back.parse(string(fwd)); err != nil {
		return refusal("", RuleRoundTrip, fmt.Errorf("re-encode: %w", err))
	}
	if d := tapeDiff(t, 0, back, 0); d >= 0 {
		return refusal(t.pointer(d), RuleRoundTrip, errors.New("the value does not survive the typed round trip (a key in another case, a lost value or precision)"))
	}
	return nil
}

// fastEncode is the re-encoding written straight from the tape by the
// tool's codec (codecNode.encodeTape), for the common case; ok is false
// when the tool has no codec or the case is not the common one.
func (e *Engine) fastEncode(t *tape, raw []byte) ([]byte, bool) {
	if e.codec == nil {
		return nil, false
	}
	return e.codec.encodeTape(make([]byte, 0, len(raw)+16), t, 0)
}

// decodeEncode is the typed decode of the parsed arguments and their
// re-encoding: by the tool's codec (argcodec.go), or by encoding/json for a
// type it does not cover.
func (e *Engine) decodeEncode(t *tape, raw []byte) (any, []byte, error) {
	if e.codec == nil {
		args, err := decodeArgs(e.typ, t.decodeInput(raw))
		if err != nil {
			return nil, nil, decodeError(t, fmt.Errorf("decode: %w", err))
		}
		fwd, err := json.Marshal(args)
		if err != nil {
			return nil, nil, refusal("", RuleRoundTrip, fmt.Errorf("re-encode: %w", err))
		}
		return args, fwd, nil
	}
	p := reflect.New(e.typ)
	if err := e.codec.decode(t, 0, p.Elem()); err != nil {
		return nil, nil, err
	}
	return p.Interface(), e.codec.encode(make([]byte, 0, len(raw)+16), p.Elem(), t), nil
}

var errArgsTooLarge = fmt.Errorf("arguments exceed %d bytes", MaxArgsBytes)

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
