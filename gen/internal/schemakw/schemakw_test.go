package schemakw

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestAll checks the table against the struct jsonschema-go decodes into:
// Schema's fields with a JSON name, and the three it decodes itself; and
// that v0.4.3 has no keyword of a kind the table does not know.
func TestAll(t *testing.T) {
	// jsonschema-go v0.4.3's keywords, written out: a keyword it adds or
	// drops fails here until the table's kinds are checked for it.
	want := []string{
		"$anchor", "$comment", "$defs", "$dynamicAnchor", "$dynamicRef", "$id", "$ref", "$schema", "$vocabulary",
		"additionalItems", "additionalProperties", "allOf", "anyOf", "const", "contains", "contentEncoding",
		"contentMediaType", "contentSchema", "default", "definitions", "dependencies", "dependentRequired",
		"dependentSchemas", "deprecated", "description", "else", "enum", "examples", "exclusiveMaximum",
		"exclusiveMinimum", "format", "if", "items", "maxContains", "maxItems", "maxLength", "maxProperties",
		"maximum", "minContains", "minItems", "minLength", "minProperties", "minimum", "multipleOf", "not",
		"oneOf", "pattern", "patternProperties", "prefixItems", "properties", "propertyNames", "readOnly",
		"required", "then", "title", "type", "unevaluatedItems", "unevaluatedProperties", "uniqueItems", "writeOnly",
	}
	var got []string
	for i, k := range All {
		got = append(got, k.Name)
		if k.Index != i || Lookup(k.Name) != k {
			t.Errorf("%q: Index %d at %d, Lookup %v", k.Name, k.Index, i, Lookup(k.Name))
		}
		if k.Kind == Unknown {
			t.Errorf("%q: a field of type %v the table does not know", k.Name, k.typ)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("All = %q\nwant %q", got, want)
	}
	for name, kind := range special {
		if k := Lookup(name); k == nil || k.Kind != kind {
			t.Errorf("%q: %+v, want kind %d", name, k, kind)
		}
	}
	if n := len(OfKind(Integer)) + len(OfKind(Value)); n != len(special) {
		t.Errorf("%d keywords of kind Integer or Value, want the %d jsonschema-go reads by name", n, len(special))
	}
	if Lookup("Type") != nil || Lookup("x") != nil {
		t.Error("Lookup found a name that is no keyword")
	}
	if Field[int](Lookup("title"), &jsonschema.Schema{}) != nil {
		t.Error("Field gave a *int for a string field")
	}
	if p := Field[string](Lookup("title"), &jsonschema.Schema{Title: "t"}); p == nil || *p != "t" {
		t.Errorf("Field(title) = %v", p)
	}
}

// encodeCases are schemas for TestEncoded: every keyword, empty and
// present values, and the union keywords' two fields.
var encodeCases = []string{
	`{}`, `true`, `false`, `{"not":true}`, `{"not":{"type":"string"}}`,
	`{"properties":{}}`, `{"type":[]}`, `{"items":[]}`, `{"required":[]}`, `{"enum":[]}`, `{"$defs":{}}`,
	`{"dependencies":{"a":["b"]}}`, `{"dependencies":{"a":{}}}`, `{"dependencies":{}}`, `{"const":null}`,
	`{"default":null}`, `{"readOnly":false,"deprecated":true}`, `{"minLength":0,"title":"","x-a":1,"$zz":2}`,
	`{"$id":"x","$schema":"s","$ref":"#","$comment":"c","$defs":{"a":{}},"$anchor":"a","$dynamicAnchor":"b","$dynamicRef":"#b","$vocabulary":{"x":true},
	 "title":"t","description":"d","default":1,"deprecated":true,"readOnly":true,"writeOnly":true,"examples":[1],
	 "type":"object","enum":[1],"const":1,"multipleOf":1,"minimum":1,"maximum":1,"exclusiveMinimum":1,"exclusiveMaximum":1,
	 "minLength":1,"maxLength":1,"pattern":"a","prefixItems":[{}],"items":{},"minItems":1,"maxItems":1,"additionalItems":{},
	 "uniqueItems":true,"contains":{},"minContains":1,"maxContains":1,"unevaluatedItems":{},"minProperties":1,"maxProperties":1,
	 "required":["a"],"dependentRequired":{"a":[]},"properties":{"a":{}},"patternProperties":{"a":{}},"additionalProperties":{},
	 "propertyNames":{},"unevaluatedProperties":{},"allOf":[{}],"anyOf":[{}],"oneOf":[{}],"not":{},"if":{},"then":{},"else":{},
	 "dependentSchemas":{"a":{}},"dependencies":{"b":{}},"contentEncoding":"e","contentMediaType":"m","contentSchema":{},"format":"f","x":1}`,
	`{"definitions":{"a":{}}}`,
}

// TestEncoded compares Encoded with the keys of json.Marshal's encoding.
func TestEncoded(t *testing.T) {
	for _, c := range encodeCases {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(c), &s); err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		raw, err := json.Marshal(&s)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		var m map[string]json.RawMessage
		if string(raw) == "false" {
			m = map[string]json.RawMessage{"not": nil}
		} else if string(raw) != "true" {
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("%s: %s: %v", c, raw, err)
			}
		}
		want := slices.Sorted(maps.Keys(m))
		if got := Encoded(&s); !slices.Equal(got, want) {
			t.Errorf("%s: Encoded = %q, want %q", c, got, want)
		}
	}
	if Encoded(nil) != nil {
		t.Error("Encoded(nil) is not nil")
	}
}

// TestChildren compares Children with a walk of Schema's fields by
// reflection: every sub-schema, nil elements of lists and maps included,
// in the order of the keywords, then of indexes or (sorted) keys.
func TestChildren(t *testing.T) {
	c := func(title string) *jsonschema.Schema { return &jsonschema.Schema{Title: title} }
	var s jsonschema.Schema
	v := reflect.ValueOf(&s).Elem()
	var want []string
	for _, k := range All {
		f := v.Field(k.field)
		name := k.Name
		switch k.Kind {
		case Schema, Items:
			f.Set(reflect.ValueOf(c(name)))
			want = append(want, name+"//"+name)
			if k.Kind == Items {
				s.ItemsArray = []*jsonschema.Schema{c("i0"), nil}
				want = append(want, name+"/0/i0", name+"/1/")
			}
		case Schemas:
			f.Set(reflect.ValueOf([]*jsonschema.Schema{c(name + "0"), nil, c(name + "2")}))
			want = append(want, name+"/0/"+name+"0", name+"/1/", name+"/2/"+name+"2")
		case SchemaMap, Dependencies:
			f.Set(reflect.ValueOf(map[string]*jsonschema.Schema{"b": c(name + "b"), "a": nil, "c": c(name + "c")}))
			want = append(want, name+"/a/", name+"/b/"+name+"b", name+"/c/"+name+"c")
			if k.Kind == Dependencies {
				s.DependencyStrings = map[string][]string{"d": {"x"}}
			}
		}
	}
	for _, sorted := range []bool{true, false} {
		var got []string
		Children(&s, sorted, func(sub Sub) bool {
			tok := sub.Key
			if sub.Index >= 0 {
				tok = fmt.Sprint(sub.Index)
			}
			title := ""
			if sub.Schema != nil {
				title = sub.Schema.Title
			}
			got = append(got, sub.Keyword.Name+"/"+tok+"/"+title)
			return true
		})
		if !sorted {
			slices.Sort(got)
			want := slices.Sorted(slices.Values(want))
			if !slices.Equal(got, want) {
				t.Errorf("Children unsorted = %q\nwant %q", got, want)
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("Children = %q\nwant %q", got, want)
		}
	}
	n := 0
	if Children(&s, true, func(Sub) bool { n++; return n < 3 }) || n != 3 {
		t.Errorf("Children went on after false (%d calls)", n)
	}
}
