// Package schemakw is the generator's one table of the JSON Schema keywords
// of jsonschema-go's Schema (v0.4.3): each keyword's JSON name, the shape of
// its value (Kind) and the field that holds it, read from the Schema struct
// by reflection once. The loader's schema decoder, the model's reading of a
// schema's encoding (which keys it has, whether it encodes) and every walk
// over a schema's sub-schemas use it, so a keyword jsonschema-go adds is
// picked up, or refused (Kind Unknown), here.
package schemakw

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Kind is the shape of a keyword's value, as jsonschema-go decodes and
// encodes it.
type Kind uint8

// The kinds: a Schema field of a type not listed has Kind Unknown.
const (
	// Unknown is a field type this table does not know. The decoder
	// leaves a schema with such a keyword to jsonschema-go, and the walks
	// over sub-schemas treat one that sets it as one they cannot read
	// (HasUnknown).
	Unknown      Kind = iota
	String            // string
	Bool              // bool
	Number            // *float64
	Integer           // *int: jsonschema-go decodes it as an integral int32
	Strings           // []string
	Values            // []any
	Value             // *any: "const", where null is a pointer to a nil any
	Raw               // json.RawMessage: "default", kept as written
	BoolMap           // map[string]bool: "$vocabulary"
	StringsMap        // map[string][]string: "dependentRequired"
	Schema            // *jsonschema.Schema
	Schemas           // []*jsonschema.Schema
	SchemaMap         // map[string]*jsonschema.Schema
	Type              // "type": Schema.Type (a string) or Schema.Types (an array)
	Items             // "items": Schema.Items (a schema) or Schema.ItemsArray
	Dependencies      // "dependencies": Schema.DependencySchemas or Schema.DependencyStrings
	numKinds
)

// A Keyword is one key of a schema object that jsonschema-go reads into a
// field of Schema (and so leaves out of Extra).
type Keyword struct {
	Name string
	Kind Kind
	// Index is the keyword's position in All.
	Index int

	field int // index of the field in Schema (the first, for Type, Items and Dependencies)
	typ   reflect.Type
}

var (
	// All are the keywords, sorted by name (byte order, as encoding/json
	// sorts map keys).
	All []*Keyword

	byName = map[string]*Keyword{}
	byKind [numKinds][]*Keyword
	// subs are the keywords whose values hold schemas, in All's order.
	subs []*Keyword
)

// unions are the fields jsonschema-go leaves out of its struct encoding
// (json:"-") and writes under one keyword itself; Extra and PropertyOrder
// are not keywords.
var unions = map[string]struct {
	name string
	kind Kind
}{
	"Type": {"type", Type}, "Items": {"items", Items}, "DependencySchemas": {"dependencies", Dependencies},
	"Types": {}, "ItemsArray": {}, "DependencyStrings": {}, "Extra": {}, "PropertyOrder": {},
}

// special are the keywords jsonschema-go's UnmarshalJSON reads in a way of
// its own, by name, not by their field's type: the integer-valued fields
// (through its integer type: 1.0 is 1, a fraction or a value beyond int32
// is an error) and const (null is a pointer to a nil any). A field of type
// *int or *any not listed here has Kind Unknown: jsonschema-go would read
// it by encoding/json's rules, which the decoder does not mirror.
var special = map[string]Kind{
	"minLength": Integer, "maxLength": Integer, "minItems": Integer, "maxItems": Integer,
	"minProperties": Integer, "maxProperties": Integer, "minContains": Integer, "maxContains": Integer,
	"const": Value,
}

// kinds are the kinds of the field types this table knows.
var kinds = map[reflect.Type]Kind{
	reflect.TypeFor[string]():                        String,
	reflect.TypeFor[bool]():                          Bool,
	reflect.TypeFor[*float64]():                      Number,
	reflect.TypeFor[*int]():                          Integer,
	reflect.TypeFor[[]string]():                      Strings,
	reflect.TypeFor[[]any]():                         Values,
	reflect.TypeFor[*any]():                          Value,
	reflect.TypeFor[json.RawMessage]():               Raw,
	reflect.TypeFor[map[string]bool]():               BoolMap,
	reflect.TypeFor[map[string][]string]():           StringsMap,
	reflect.TypeFor[*jsonschema.Schema]():            Schema,
	reflect.TypeFor[[]*jsonschema.Schema]():          Schemas,
	reflect.TypeFor[map[string]*jsonschema.Schema](): SchemaMap,
}

func init() {
	st := reflect.TypeFor[jsonschema.Schema]()
	for i := range st.NumField() {
		f := st.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		kind := kinds[f.Type]
		if name == "-" {
			u, known := unions[f.Name]
			if !known {
				// A field jsonschema-go encodes itself that this
				// table does not know: its keyword is unknown.
				name, kind = f.Name, Unknown
			} else if u.name == "" {
				continue
			} else {
				name, kind = u.name, u.kind
			}
		} else if name == "" {
			name = f.Name
		}
		if kind == Integer || kind == Value {
			if special[name] != kind {
				kind = Unknown
			}
		}
		All = append(All, &Keyword{Name: name, Kind: kind, field: i, typ: f.Type})
	}
	slices.SortFunc(All, func(a, b *Keyword) int { return strings.Compare(a.Name, b.Name) })
	for i, k := range All {
		k.Index = i
		byName[k.Name] = k
		byKind[k.Kind] = append(byKind[k.Kind], k)
		switch k.Kind {
		case Schema, Schemas, SchemaMap, Items, Dependencies:
			subs = append(subs, k)
		}
	}
}

// Lookup returns the keyword named name, or nil.
func Lookup(name string) *Keyword { return byName[name] }

// OfKind returns the keywords of kind k, in All's order.
func OfKind(k Kind) []*Keyword {
	if k >= numKinds {
		return nil
	}
	return byKind[k]
}

// Field returns a pointer to the field of s that holds k's value (the
// first of the two, for Type, Items and Dependencies), or nil if T is not
// that field's type.
func Field[T any](k *Keyword, s *jsonschema.Schema) *T {
	if reflect.TypeFor[T]() != k.typ {
		return nil
	}
	return field(k, s).Addr().Interface().(*T)
}

// field is the field of s that holds k's value.
func field(k *Keyword, s *jsonschema.Schema) reflect.Value {
	return reflect.ValueOf(s).Elem().Field(k.field)
}

// Present reports whether s's JSON encoding (jsonschema-go's MarshalJSON)
// has the keyword k: its field is not empty as omitempty means it, but
// "properties" is written even empty, and Type, Items and Dependencies
// are written from either of their fields.
func Present(k *Keyword, s *jsonschema.Schema) bool {
	switch k.Kind {
	case Type:
		return s.Type != "" || s.Types != nil
	case Items:
		return s.Items != nil || s.ItemsArray != nil
	case Dependencies:
		return len(s.DependencySchemas)+len(s.DependencyStrings) > 0
	}
	v := field(k, s)
	switch v.Kind() {
	case reflect.Map:
		if k.Name == "properties" {
			return !v.IsNil()
		}
		return v.Len() > 0
	case reflect.Array, reflect.Slice, reflect.String:
		return v.Len() > 0
	}
	return !v.IsZero() // encoding/json's omitempty for the rest
}

// Encoded returns the keys of s's JSON encoding (MarshalJSON's, with
// omitempty), its Extra keys included, sorted; nil for a nil s.
func Encoded(s *jsonschema.Schema) []string {
	if s == nil {
		return nil
	}
	var keys []string
	for _, k := range All {
		if Present(k, s) {
			keys = append(keys, k.Name)
		}
	}
	if len(s.Extra) > 0 {
		keys = append(keys, slices.Collect(maps.Keys(s.Extra))...)
		slices.Sort(keys)
	}
	return keys
}

// HasUnknown reports whether s sets a keyword of Kind Unknown (none does
// with jsonschema-go v0.4.3).
func HasUnknown(s *jsonschema.Schema) bool {
	for _, k := range byKind[Unknown] {
		if Present(k, s) {
			return true
		}
	}
	return false
}

// A Sub is a sub-schema of a schema: the value, or an element of the
// value, of Keyword.
type Sub struct {
	Keyword *Keyword
	// Key is the schema's key in a map of schemas (SchemaMap,
	// Dependencies); Index is its index in a list (Schemas, Items), or -1.
	Key    string
	Index  int
	Schema *jsonschema.Schema
}

// Children calls f for each sub-schema that s holds directly (the
// jsonschema-go's own walk, Schema.everyChild, is not exported), until f
// returns false, and reports whether f never did. A keyword holding one
// schema gives it unless it is nil; a list or a map gives every element,
// nil ones too. The keywords come in All's order, a list's elements in
// order and, when sorted is set, a map's in the order of their keys.
// Items gives Items and then ItemsArray; Dependencies gives only
// DependencySchemas (DependencyStrings hold no schema).
func Children(s *jsonschema.Schema, sorted bool, f func(Sub) bool) bool {
	for _, k := range subs {
		switch k.Kind {
		case Schema:
			if c := *Field[*jsonschema.Schema](k, s); c != nil && !f(Sub{k, "", -1, c}) {
				return false
			}
		case Schemas:
			if !list(k, *Field[[]*jsonschema.Schema](k, s), f) {
				return false
			}
		case SchemaMap:
			if !dict(k, *Field[map[string]*jsonschema.Schema](k, s), sorted, f) {
				return false
			}
		case Items:
			if s.Items != nil && !f(Sub{k, "", -1, s.Items}) {
				return false
			}
			if !list(k, s.ItemsArray, f) {
				return false
			}
		case Dependencies:
			if !dict(k, s.DependencySchemas, sorted, f) {
				return false
			}
		}
	}
	return true
}

func list(k *Keyword, l []*jsonschema.Schema, f func(Sub) bool) bool {
	for i, c := range l {
		if !f(Sub{k, "", i, c}) {
			return false
		}
	}
	return true
}

func dict(k *Keyword, m map[string]*jsonschema.Schema, sorted bool, f func(Sub) bool) bool {
	if sorted && len(m) > 1 {
		for _, key := range slices.Sorted(maps.Keys(m)) {
			if !f(Sub{k, key, -1, m[key]}) {
				return false
			}
		}
		return true
	}
	for key, c := range m {
		if !f(Sub{k, key, -1, c}) {
			return false
		}
	}
	return true
}
