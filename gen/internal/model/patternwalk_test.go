package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/internal/ecmare"
	"github.com/ocpgen/ocpgen/internal/jsonptr"
)

// patternWarningsRef is patternWarnings as it was: a walk of the schema
// marshalled and decoded into maps.
func patternWarningsRef(file, tool string, root *jsonschema.Schema, src []byte, ptr string) diag.List {
	if src != nil && !mayHoldPattern(src) {
		return nil
	}
	raw, err := json.Marshal(root)
	if err != nil {
		return nil
	}
	// encoding/json writes an ASCII key as it is, so a schema whose
	// encoding has no `"pattern` has neither keyword anywhere: skip the
	// decoding into maps and the walk, most of this function's time.
	if !bytes.Contains(raw, []byte(`"pattern`)) {
		return nil
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil || doc == nil {
		return nil // a boolean schema marshals as true or false
	}
	var out diag.List
	check := func(p, ptr string) {
		if _, err := ecmare.Compile(p); err != nil {
			out = append(out, patternDiag(file, tool, ptr, err))
		}
	}
	var walk func(v any, ptr string)
	walk = func(v any, ptr string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) { // deterministic order
				e := x[k]
				p := ptr + "/" + jsonptr.EscapeToken(k)
				switch k {
				case "const", "enum", "default", "examples":
					continue // values, not schemas
				case "pattern":
					if ps, ok := e.(string); ok {
						check(ps, p)
						continue
					}
				case "patternProperties":
					if m, ok := e.(map[string]any); ok {
						for _, re := range slices.Sorted(maps.Keys(m)) {
							check(re, p+"/"+jsonptr.EscapeToken(re))
						}
					}
				}
				walk(e, p)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s/%d", ptr, i))
			}
		}
	}
	walk(doc, ptr)
	return out
}

var patternWalkCases = []string{
	`{"pattern":"(?=a)"}`, `{"pattern":"a"}`, `{"pattern":"("}`, `{"properties":{"a":{"pattern":"(?<=x)"},"pattern":{"type":"string"}}}`,
	`{"patternProperties":{"(?=a)":{"pattern":"\\1"},"^b$":{}}}`, `{"properties":{"patternProperties":{"type":"string","x-(":1}}}`,
	`{"properties":{"patternProperties":true,"default":{"pattern":"(?=a)"},"enum":{"pattern":"(?=b)"}}}`,
	`{"properties":{"patternProperties":{"not":{}}}}`, `{"properties":{"patternProperties":{"not":{"type":"x"}}}}`,
	`{"x-ext":{"pattern":"(?=a)","nested":[{"patternProperties":{"(?=b)":1}}],"const":{"pattern":"(?=c)"}}}`,
	`{"items":[{"pattern":"(?=a)"},null],"anyOf":[{"items":{"pattern":"(?!a)"}}]}`, `{"$defs":{"a":{"pattern":"(?=a)"}},"definitions":{}}`,
	`{"dependencies":{"a":["b"],"patternProperties":{"type":"object","(?=z)":1},"c":{"pattern":"(?=c)"}}}`,
	`{"not":{"pattern":"(?=n)"},"if":{"pattern":"(?=i)"},"then":{},"else":{"patternProperties":{"(?=e)":true}}}`,
	`{"additionalProperties":{"pattern":"(?=a)"},"propertyNames":{"pattern":"(?=p)"},"contains":{"pattern":"(?=c)"},"contentSchema":{"pattern":"(?=s)"}}`,
	`{"dependentSchemas":{"x":{"pattern":"(?=d)"}},"prefixItems":[{"pattern":"(?=q)"}],"unevaluatedItems":{"pattern":"(?=u)"},"unevaluatedProperties":{"pattern":"(?=v)"},"additionalItems":{"pattern":"(?=w)"}}`,
	`{"Pattern":"(?=f)","x~/":{"pattern":"(?=t)"}}`, `true`, `false`, `{"type":"string","types":["a"],"pattern":"(?=y)"}`,
}

func checkPatternWalk(t *testing.T, raw []byte) {
	t.Helper()
	var s jsonschema.Schema
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	got := patternWarnings("f", "t", &s, nil, "/tools/0/inputSchema")
	want := patternWarningsRef("f", "t", &s, nil, "/tools/0/inputSchema")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %v\nwant %v", raw, got, want)
	}
}

func TestPatternWalk(t *testing.T) {
	for _, c := range patternWalkCases {
		checkPatternWalk(t, []byte(c))
	}
	for _, c := range corpusSchemas(t) {
		for _, raw := range []json.RawMessage{c.input, c.output} {
			if raw != nil {
				checkPatternWalk(t, raw)
			}
		}
	}
	// The walk reaches what it must: the cases hold diagnostics.
	n := 0
	for _, c := range patternWalkCases {
		var s jsonschema.Schema
		if json.Unmarshal([]byte(c), &s) == nil {
			n += len(patternWarnings("f", "t", &s, nil, ""))
		}
	}
	if n < 20 {
		t.Fatalf("%d diagnostics from the cases, want at least 20", n)
	}
}

func FuzzPatternWalk(f *testing.F) {
	for _, c := range patternWalkCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkPatternWalk(t, raw)
	})
}
