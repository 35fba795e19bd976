package model

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

var trivialCases = []string{
	`{}`, `true`, `false`, `{"type":"object","properties":{"a":{"type":"string"},"b":null}}`,
	`{"$defs":{},"definitions":{}}`, `{"items":{},"ItemsArray":[]}`, `{"pattern":"("}`, `{"pattern":"a"}`,
	`{"patternProperties":{"(":{}}}`, `{"$vocabulary":{"x":true}}`, `{"$id":"x"}`, `{"$anchor":"a"}`,
	`{"$ref":"#/nope"}`, `{"properties":{"a":{"$ref":"#"}}}`, `{"allOf":[null]}`, `{"not":null}`,
	`{"dependencies":{"a":["b"],"c":{}}}`, `{"pattern":"["}`, `{"pattern":"(?=a)"}`, `{"patternProperties":{"^a$":{"$ref":"#"}}}`,
	`{"$defs":{"a":{}},"properties":{"x":{"$ref":"#/$defs/a"}}}`, `{"$ref":"#/$defs/missing"}`, `{"$ref":"#"}`,
	`{"definitions":{"a.b-c_1":{}},"$ref":"#/definitions/a.b-c_1"}`, `{"$defs":{"a":null},"$ref":"#/$defs/a"}`,
	`{"$defs":{"a b":{}},"$ref":"#/$defs/a b"}`, `{"$defs":{"a":{}},"$ref":"#/$defs/a/"}`, `{"$defs":{"a":{"$ref":"#/$defs/a"}}}`,
	`{"definitions":{"a":{}},"$ref":"#/$defs/a"}`, `{"$defs":{"a~1":{}},"$ref":"#/$defs/a~1"}`, `{"$defs":{"%61":{}},"$ref":"#/$defs/%61"}`,
	`{"properties":{"p":{"$defs":{"a":{}},"$ref":"#/$defs/a"}}}`, `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{}},"$ref":"#/definitions/a"}`, `{"type":"object","TYPE":["x"]}`, `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{}]}`,
}

// checkTrivial checks resolvesTrivially's claim on raw against Resolve.
func checkTrivial(t *testing.T, raw []byte) bool {
	t.Helper()
	var s jsonschema.Schema
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	if !resolvesTrivially(&s) {
		return false
	}
	if _, err := s.Resolve(nil); err != nil {
		t.Fatalf("%s: resolvesTrivially, but Resolve: %v", raw, err)
	}
	return true
}

func TestResolvesTrivially(t *testing.T) {
	// Every field that holds sub-schemas is walked: a $ref below any of
	// them makes the schema non-trivial.
	st := reflect.TypeFor[jsonschema.Schema]()
	schemaPtr := reflect.TypeFor[*jsonschema.Schema]()
	fields := 0
	for i := range st.NumField() {
		f := st.Field(i)
		child := reflect.ValueOf(&jsonschema.Schema{Ref: "#/x"})
		root := reflect.New(st)
		fv := root.Elem().Field(i)
		switch {
		case f.Type == schemaPtr:
			fv.Set(child)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem() == schemaPtr:
			fv.Set(reflect.Append(reflect.MakeSlice(f.Type, 0, 1), child))
		case f.Type.Kind() == reflect.Map && f.Type.Elem() == schemaPtr:
			fv.Set(reflect.MakeMap(f.Type))
			fv.SetMapIndex(reflect.ValueOf("k"), child)
		default:
			continue
		}
		fields++
		if resolvesTrivially(root.Interface().(*jsonschema.Schema)) {
			t.Errorf("a $ref under %s is not seen", f.Name)
		}
	}
	if fields < 20 {
		t.Fatalf("%d fields hold sub-schemas, want them all", fields)
	}
	for _, c := range trivialCases {
		checkTrivial(t, []byte(c))
	}
	trivial, all := 0, 0
	for _, c := range corpusSchemas(t) {
		for _, raw := range []json.RawMessage{c.input, c.output} {
			if raw != nil {
				all++
				if checkTrivial(t, raw) {
					trivial++
				}
			}
		}
	}
	if trivial < all*9/10 {
		t.Fatalf("%d of %d corpus schemas resolve trivially, want most", trivial, all)
	}
	t.Logf("%d of %d corpus schemas resolve trivially", trivial, all)
}

func FuzzResolvesTrivially(f *testing.F) {
	for _, c := range trivialCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkTrivial(t, raw)
	})
}
