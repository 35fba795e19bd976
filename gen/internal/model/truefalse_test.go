package model

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The marshalled forms isTrueSchema and isFalseSchema stand for.
func marshalledTrue(s *jsonschema.Schema) bool {
	j := schemaJSON(s)
	return j == "true" || j == "{}"
}

func marshalledFalse(s *jsonschema.Schema) bool { return s != nil && schemaJSON(s) == "false" }

func checkTrueFalse(t *testing.T, what string, s *jsonschema.Schema) {
	t.Helper()
	if got, want := isTrueSchema(s), marshalledTrue(s); got != want {
		t.Errorf("%s: isTrueSchema = %v, marshalled form %q", what, got, schemaJSON(s))
	}
	if got, want := isFalseSchema(s), marshalledFalse(s); got != want {
		t.Errorf("%s: isFalseSchema = %v, marshalled form %q", what, got, schemaJSON(s))
	}
}

// schemaFieldValues returns, for each field of jsonschema.Schema, values
// that are not its zero value: for maps and slices an empty one (which the
// marshaller may or may not write) and one with an element.
func schemaFieldValues(t *testing.T) [][]func(*jsonschema.Schema) {
	t.Helper()
	typ := reflect.TypeFor[jsonschema.Schema]()
	var out [][]func(*jsonschema.Schema)
	for i := range typ.NumField() {
		f := typ.Field(i)
		var vals []reflect.Value
		switch f.Type {
		case reflect.TypeFor[string]():
			vals = append(vals, reflect.ValueOf("x"))
		case reflect.TypeFor[bool]():
			vals = append(vals, reflect.ValueOf(true))
		case reflect.TypeFor[*float64]():
			vals = append(vals, reflect.ValueOf(new(float64)))
		case reflect.TypeFor[*int]():
			vals = append(vals, reflect.ValueOf(new(int)))
		case reflect.TypeFor[*any]():
			vals = append(vals, reflect.ValueOf(new(any)))
		case reflect.TypeFor[json.RawMessage]():
			vals = append(vals, reflect.ValueOf(json.RawMessage{}), reflect.ValueOf(json.RawMessage("1")))
		case reflect.TypeFor[[]any]():
			vals = append(vals, reflect.ValueOf([]any{}), reflect.ValueOf([]any{1.0}))
		case reflect.TypeFor[[]string]():
			vals = append(vals, reflect.ValueOf([]string{}), reflect.ValueOf([]string{"a"}))
		case reflect.TypeFor[*jsonschema.Schema]():
			vals = append(vals, reflect.ValueOf(&jsonschema.Schema{}), reflect.ValueOf(&jsonschema.Schema{Not: &jsonschema.Schema{}}))
		case reflect.TypeFor[[]*jsonschema.Schema]():
			vals = append(vals, reflect.ValueOf([]*jsonschema.Schema{}), reflect.ValueOf([]*jsonschema.Schema{{}}))
		case reflect.TypeFor[map[string]*jsonschema.Schema]():
			vals = append(vals, reflect.ValueOf(map[string]*jsonschema.Schema{}), reflect.ValueOf(map[string]*jsonschema.Schema{"a": {}}))
		case reflect.TypeFor[map[string]bool]():
			vals = append(vals, reflect.ValueOf(map[string]bool{}), reflect.ValueOf(map[string]bool{"a": true}))
		case reflect.TypeFor[map[string][]string]():
			vals = append(vals, reflect.ValueOf(map[string][]string{}), reflect.ValueOf(map[string][]string{"a": {}}))
		case reflect.TypeFor[map[string]any]():
			vals = append(vals, reflect.ValueOf(map[string]any{}), reflect.ValueOf(map[string]any{"a": 1.0}))
		default:
			t.Fatalf("jsonschema.Schema.%s has type %s, unknown to this test (and maybe to isTrueSchema)", f.Name, f.Type)
		}
		var sets []func(*jsonschema.Schema)
		for _, v := range vals {
			sets = append(sets, func(s *jsonschema.Schema) { reflect.ValueOf(s).Elem().Field(i).Set(v) })
		}
		out = append(out, sets)
	}
	return out
}

// TestTrueFalseSchema checks the structural isTrueSchema and isFalseSchema
// against jsonschema-go's marshalled forms "true" and "false": for every
// field and every pair of fields set, alone and beside (or inside) "not",
// and for every sub-schema of the corpus and of tricky schemas.
func TestTrueFalseSchema(t *testing.T) {
	fields := schemaFieldValues(t)
	var sets []func(*jsonschema.Schema)
	for _, f := range fields {
		sets = append(sets, f...)
	}
	shapes := []struct {
		name string
		make func(set ...func(*jsonschema.Schema)) *jsonschema.Schema
	}{
		{"plain", func(set ...func(*jsonschema.Schema)) *jsonschema.Schema {
			s := &jsonschema.Schema{}
			for _, f := range set {
				f(s)
			}
			return s
		}},
		{"beside not", func(set ...func(*jsonschema.Schema)) *jsonschema.Schema {
			s := &jsonschema.Schema{}
			for _, f := range set {
				f(s)
			}
			if s.Not == nil {
				s.Not = &jsonschema.Schema{}
			}
			return s
		}},
		{"inside not", func(set ...func(*jsonschema.Schema)) *jsonschema.Schema {
			n := &jsonschema.Schema{}
			for _, f := range set {
				f(n)
			}
			return &jsonschema.Schema{Not: n}
		}},
	}
	for _, sh := range shapes {
		checkTrueFalse(t, sh.name+" empty", sh.make())
		for i, a := range sets {
			checkTrueFalse(t, sh.name+" one field", sh.make(a))
			for _, b := range sets[i+1:] {
				checkTrueFalse(t, sh.name+" two fields", sh.make(a, b))
			}
		}
	}
	checkTrueFalse(t, "nil", nil)
	checkTrueFalse(t, "property order", &jsonschema.Schema{PropertyOrder: []string{"a", "a"}})
	checkTrueFalse(t, "property order", &jsonschema.Schema{Not: &jsonschema.Schema{PropertyOrder: []string{"a"}}})

	docs := []string{
		`true`, `false`, `{}`, `{"not":{}}`, `{"not":true}`, `{"not":false}`, `{"not":{"not":{}}}`,
		`{"$defs":{},"definitions":{}}`, `{"not":{"$defs":{},"definitions":{}}}`, `{"not":{},"$defs":{},"definitions":{}}`,
		`{"$defs":{}}`, `{"not":{},"$defs":{}}`, `{"enum":[]}`, `{"type":[]}`, `{"properties":{}}`, `{"items":[]}`,
		`{"items":null}`, `{"not":null}`, `{"x":1}`, `{"not":{},"x":null}`, `{"dependencies":{}}`, `{"dependencies":{"a":[]}}`,
		`{"required":[]}`, `{"const":null}`, `{"default":null}`, `{"description":""}`, `{"minLength":0}`,
		`{"not":{"minLength":0}}`, `{"additionalProperties":false,"properties":{"a":false,"b":true,"c":{"not":{}}}}`,
	}
	for _, c := range corpusSchemas(t) {
		docs = append(docs, string(c.input))
		if c.output != nil {
			docs = append(docs, string(c.output))
		}
	}
	for _, d := range docs {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(d), &s); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		walkSchemas(&s, func(sub *jsonschema.Schema) { checkTrueFalse(t, d, sub) })
	}
}

// walkSchemas calls f on s and each of its sub-schemas (all the fields of
// type *Schema, []*Schema and map[string]*Schema).
func walkSchemas(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		switch x := v.Field(i).Interface().(type) {
		case *jsonschema.Schema:
			walkSchemas(x, f)
		case []*jsonschema.Schema:
			for _, c := range x {
				walkSchemas(c, f)
			}
		case map[string]*jsonschema.Schema:
			for _, c := range x {
				walkSchemas(c, f)
			}
		}
	}
}
