package ocpimpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/ocpgen/ocpgen/runtime/internal/branchcheck"
)

// This file holds the (un)marshalling that generated union types and
// structs with additional properties share, so that the generated methods
// are one call each.

// JSONKind is a set of JSON value kinds, used to pick a union branch by the
// first token of a value before any decoding is tried.
type JSONKind uint8

// The JSON kinds. A branch whose schema accepts any value has all of them.
const (
	JSONString JSONKind = 1 << iota
	JSONNumber
	JSONBool
	JSONArray
	JSONObject
	JSONNull
	JSONAny = JSONString | JSONNumber | JSONBool | JSONArray | JSONObject | JSONNull
)

// kindOf returns the kind of a JSON value from its first byte.
func kindOf(b []byte) JSONKind {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"':
		return JSONString
	case '{':
		return JSONObject
	case '[':
		return JSONArray
	case 't', 'f':
		return JSONBool
	case 'n':
		return JSONNull
	}
	return JSONNumber
}

// UnionBranch is one branch of a generated union type: a pointer field, the
// JSON kinds its schema accepts, and its schema (self-contained JSON), or,
// when the generator could not make it self-contained, the properties it
// requires. Build it with [Branch].
type UnionBranch struct {
	kinds    JSONKind
	schema   string
	required []string
	set      func() bool
	clear    func()
	marshal  func() ([]byte, error)
	decode   func([]byte) error
	field    any // the **T given to Branch
}

// OCPBranch returns what br was built with: the JSON kinds, the schema, the
// required properties, and the field, the **T given to [Branch]. It is for
// the gate's argument codec, which decodes and encodes a union as
// [UnmarshalUnion] and [MarshalUnion] do without calling them; generated
// code does not call it.
func (br UnionBranch) OCPBranch() (kinds uint8, schema string, required []string, field any) {
	return uint8(br.kinds), br.schema, br.required, br.field
}

// Branch describes the union branch held in *field. For generated code:
// schema is the branch's schema, or "" with the required properties.
func Branch[T any](field **T, kinds JSONKind, schema string, required ...string) UnionBranch {
	return UnionBranch{
		kinds:    kinds,
		schema:   schema,
		required: required,
		set:      func() bool { return *field != nil },
		clear:    func() { *field = nil },
		marshal:  func() ([]byte, error) { return json.Marshal(*field) },
		decode: func(b []byte) error {
			v, err := decodeStrict[T](b)
			if err != nil {
				return err
			}
			*field = &v
			return nil
		},
		field: field,
	}
}

// MarshalUnion encodes the one branch that is set. It fails when none or
// more than one is: a union value must say which alternative it is.
func MarshalUnion(name string, branches ...UnionBranch) ([]byte, error) {
	var which *UnionBranch
	for i := range branches {
		if branches[i].set() {
			if which != nil {
				return nil, fmt.Errorf("%s: more than one alternative is set", name)
			}
			which = &branches[i]
		}
	}
	if which == nil {
		return nil, fmt.Errorf("%s: no alternative is set", name)
	}
	return which.marshal()
}

// UnmarshalUnion decodes b into the branch the schema picks: the first, in
// schema order, whose kinds include b's JSON kind, against whose schema b
// validates (for a oneOf, which the gate has validated as a whole, the only
// one), and into whose type b decodes strictly (unknown fields refused).
// The branch schemas are checked by the gate's own validator, the one that
// validated the arguments (exact numbers, ECMA-262 patterns), in every
// program that links runtime/ocp. A branch without a schema is tried on its
// required properties instead, as is every branch in a program without the
// gate's validator.
// Every other branch is left unset. Each branch type encodes what it
// decoded unchanged, so the union does too, whichever branch matched.
func UnmarshalUnion(name string, b []byte, branches ...UnionBranch) error {
	for _, br := range branches {
		br.clear()
	}
	kind := kindOf(b)
	var keys map[string]json.RawMessage
	var errs []error
	for i, br := range branches {
		if br.kinds&kind == 0 {
			continue
		}
		valid, compiled := false, false
		if br.schema != "" && branchcheck.Valid != nil {
			valid, compiled = branchcheck.Valid(br.schema, b)
		}
		switch {
		case compiled:
			if !valid {
				errs = append(errs, fmt.Errorf("alternative %d: the value is not valid under its schema", i+1))
				continue
			}
		case len(br.required) > 0:
			if keys == nil {
				if err := json.Unmarshal(b, &keys); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
			missing := ""
			for _, r := range br.required {
				if _, ok := keys[r]; !ok {
					missing = r
					break
				}
			}
			if missing != "" {
				errs = append(errs, fmt.Errorf("alternative %d: missing property %q", i+1, missing))
				continue
			}
		}
		if err := br.decode(b); err != nil {
			errs = append(errs, fmt.Errorf("alternative %d: %w", i+1, err))
			continue
		}
		return nil
	}
	if len(errs) == 0 {
		return fmt.Errorf("%s: no alternative accepts a JSON %s", name, kindName(kind))
	}
	return fmt.Errorf("%s: the value matches no alternative: %w", name, errors.Join(errs...))
}

func kindName(k JSONKind) string {
	switch k {
	case JSONString:
		return "string"
	case JSONNumber:
		return "number"
	case JSONBool:
		return "boolean"
	case JSONArray:
		return "array"
	case JSONObject:
		return "object"
	case JSONNull:
		return "null"
	}
	return "value"
}

// WithExtra is implemented (by its pointer) by every generated struct with
// additional properties: a struct whose field AdditionalProperties, a
// map[string]V tagged "-", holds the members no other field declares,
// whose MarshalJSON is [MarshalWithExtra] of its other fields and that map,
// and whose UnmarshalJSON is [UnmarshalWithExtra] with the JSON names of its
// other fields. The gate's typed decode and re-encoding rely on it to do
// what those two methods do without calling them.
type WithExtra interface{ OCPWithExtra() }

// MarshalWithExtra encodes a struct with additional properties: the declared
// fields of plain (the struct converted to a type without methods, whose
// catch-all field is tagged "-"), then the additional properties in key
// order. An additional key that is also a declared property is an error:
// the object would have a duplicate key.
func MarshalWithExtra[V any](plain any, extra map[string]V) ([]byte, error) {
	b, err := json.Marshal(plain)
	if err != nil {
		return nil, err
	}
	if len(extra) == 0 {
		return b, nil
	}
	var declared map[string]json.RawMessage
	if err := json.Unmarshal(b, &declared); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		if _, dup := declared[k]; dup {
			return nil, fmt.Errorf("additional property %q is also a declared property", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	buf.Write(bytes.TrimRight(b[:len(b)-1], " \n"))
	first := len(declared) == 0
	for _, k := range keys {
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(extra[k])
		if err != nil {
			return nil, err
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalWithExtra decodes an object into a struct with additional
// properties: the keys that exactly match a declared property (names)
// decode strictly into plain, every other key into *extra. Keys are matched
// exactly, never case-insensitively.
func UnmarshalWithExtra[V any](b []byte, plain any, extra *map[string]V, names ...string) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	if all == nil {
		return errors.New("expected a JSON object")
	}
	declared := map[string]json.RawMessage{}
	*extra = nil
	for k, v := range all {
		if slices.Contains(names, k) {
			declared[k] = v
			continue
		}
		ev, err := decodeStrict[V](v)
		if err != nil {
			return fmt.Errorf("additional property %q: %w", k, err)
		}
		if *extra == nil {
			*extra = map[string]V{}
		}
		(*extra)[k] = ev
	}
	db, err := json.Marshal(declared)
	if err != nil {
		return err
	}
	return decodeStrictInto(db, plain)
}
