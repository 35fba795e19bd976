package load

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ocpgen/ocpgen/internal/canon"
)

// clearDefaults sets the Default of every schema reachable from v to nil.
func clearDefaults(v reflect.Value, seen map[*jsonschema.Schema]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if s, ok := v.Interface().(*jsonschema.Schema); ok {
			if seen[s] {
				return
			}
			seen[s] = true
			s.Default = nil
		}
		clearDefaults(v.Elem(), seen)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				clearDefaults(v.Field(i), seen)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			clearDefaults(v.Index(i), seen)
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			clearDefaults(it.Value(), seen)
		}
	}
}

// checkKeysDistinct holds parsedSchema's decoded report (what the model
// reads as Tool.InputSchemaKeysDistinct) to its claim: when decodeSchema
// reads raw itself, jsonschema-go's parse of the canonical JSON is the
// same schema, up to the bytes of "default" values.
func checkKeysDistinct(t *testing.T, raw []byte) bool {
	t.Helper()
	p := parseSchema(raw)
	if !p.decoded {
		return false
	}
	canonical, _ := canon.Append(nil, raw)
	c, err := refDecode(canonical)
	if err != nil {
		t.Fatalf("%q: jsonschema-go refuses the canonical form %s: %v", raw, canonical, err)
	}
	clearDefaults(reflect.ValueOf(p.s), map[*jsonschema.Schema]bool{})
	clearDefaults(reflect.ValueOf(c), map[*jsonschema.Schema]bool{})
	if !reflect.DeepEqual(p.s, c) {
		t.Fatalf("%q: decoded, but its canonical form %s parses to another schema", raw, canonical)
	}
	return true
}

var keysDistinctCases = []string{
	`{"type":"object","properties":{"a":{"type":"string"},"A":{}}}`, `{"properties":{"a":{"type":"string"},"a":{}}}`,
	`{"x-a":1,"X-A":{"b":1,"b":2},"enum":[{"k":1,"K":2}]}`, `{"default":{"z":1,"a":[1.0,1e2]},"minimum":1.50}`,
	`{"$defs":{"b":{"const":{"y":1,"x":2}},"a":true},"dependencies":{"q":["r"],"p":{"maximum":9007199254740993}}}`,
}

func TestKeysDistinct(t *testing.T) {
	for _, c := range keysDistinctCases {
		checkKeysDistinct(t, []byte(c))
	}
	for _, c := range decodeCases {
		checkKeysDistinct(t, []byte(c.raw))
	}
	decoded := 0
	for _, raw := range schemaSamples(t) {
		if checkKeysDistinct(t, raw) {
			decoded++
		}
	}
	if decoded < 500 {
		t.Fatalf("%d sample schemas decoded, want the corpus's 500 and more", decoded)
	}
}

func FuzzKeysDistinct(f *testing.F) {
	for _, c := range keysDistinctCases {
		f.Add([]byte(c))
	}
	for _, c := range decodeCases {
		f.Add([]byte(c.raw))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) {
			checkKeysDistinct(t, raw)
		}
	})
}
