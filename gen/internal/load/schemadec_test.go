package load

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/tools/txtar"

	"github.com/ocpgen/ocpgen/gen/internal/schemakw"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// decodeCases are schemas for the differential test and the fuzz seeds:
// every keyword and value shape, and every case decodeSchema leaves to
// jsonschema-go (fallback says which).
var decodeCases = []struct {
	raw      string
	fallback bool // decodeSchema must give up on it
}{
	{`{}`, false}, {`true`, false}, {`false`, false}, {`null`, false}, {` { } `, false},
	{`{"type":"object","properties":{"a":{"type":"string","description":"x\n\"y\"\u00e9\ud83d\ude00 \/"},"b":true,"c":false,"d":null}}`, false},
	{`{"type":["string","null"],"enum":["a",1,2.5,-0,1e300,true,null,{"x":[1,{}]},[]],"const":{"a":[null]}}`, false},
	{`{"const":null}`, false}, {`{"const":0}`, false}, {`{"enum":[]}`, false}, {`{"enum":null}`, false},
	{`{"examples":[1,"a"],"default":{"a": [1, 2 ]},"title":"t","$comment":"c"}`, false},
	{`{"default":null}`, false}, {`{"default":1e400}`, true}, {`{"x":{"y":[1e400]}}`, true}, {`{"x":1e-400}`, false},
	{`{"minimum":1,"maximum":2.5,"exclusiveMinimum":-1e3,"exclusiveMaximum":null,"multipleOf":0.1}`, false},
	{`{"minimum":"1"}`, true}, {`{"minimum":1e400}`, true},
	{`{"minLength":0,"maxLength":10,"minItems":1.0,"maxItems":-0,"minProperties":2147483647,"maxProperties":-2147483648,"minContains":null,"maxContains":3}`, false},
	{`{"minLength":1.5}`, true}, {`{"minLength":1e2}`, true}, {`{"minLength":2147483648}`, true}, {`{"minLength":1.5e1}`, false},
	{`{"minLength":"1"}`, true}, {`{"minLength":99999999999999999999}`, true}, {`{"maxItems":-2147483649.0}`, true},
	{`{"items":{"type":"string"}}`, false}, {`{"items":[{"type":"string"},true,null]}`, false}, {`{"items":[]}`, false},
	{`{"items":null}`, false}, {`{"items":true}`, false}, {`{"items":false}`, false}, {`{"items":5}`, true},
	{`{"prefixItems":[{},null],"additionalItems":false,"contains":{"const":1},"unevaluatedItems":null,"uniqueItems":true}`, false},
	{`{"required":["a","b"],"dependentRequired":{"a":["b"],"c":[]},"patternProperties":{"^x":{}},"additionalProperties":{"type":"integer"},"propertyNames":{"pattern":"^a"},"unevaluatedProperties":false}`, false},
	{`{"required":[]}`, false}, {`{"required":null}`, false}, {`{"required":[null]}`, true}, {`{"required":[1]}`, true},
	{`{"allOf":[{"$ref":"#/$defs/a"}],"anyOf":[],"oneOf":null,"not":{},"if":{"const":1},"then":true,"else":false}`, false},
	{`{"$defs":{"a":{"type":"string"}},"definitions":{}}`, false},
	{`{"$id":"x","$schema":"https://json-schema.org/draft/2020-12/schema","$anchor":"a","$dynamicAnchor":"b","$dynamicRef":"#b","$vocabulary":{"x":true,"y":false}}`, false},
	{`{"$vocabulary":{"x":null}}`, true}, {`{"$vocabulary":null}`, false},
	{`{"deprecated":true,"readOnly":false,"writeOnly":null,"format":"date","contentEncoding":"base64","contentMediaType":"a/b","contentSchema":{}}`, false},
	{`{"dependencies":{"a":["b"],"c":{"type":"object"},"d":true,"e":null,"f":[]}}`, false}, {`{"dependencies":null}`, false},
	{`{"dependencies":{"a":["b"],"a":{}}}`, true}, {`{"dependencies":{"a":5}}`, true},
	{`{"dependentSchemas":{"a":{}}}`, false},
	{`{"x-extra":1,"another":{"a":[true]},"":null,"x-extra":"last"}`, false},
	{`{"Type":"string"}`, true}, {`{"TYPE":"string","type":"object"}`, true}, {`{"$ſchema":"x"}`, true}, {`{"tıtle":"x"}`, false},
	{`{"type":"object","type":"string"}`, true}, {`{"title":"a","title":"b"}`, true},
	{`{"properties":{"a":{},"a":{"type":"string"}}}`, false},
	{`{"type":null}`, true}, {`{"type":5}`, true}, {`{"type":[]}`, false}, {`{"type":["a",null]}`, true},
	{`{"title":5}`, true}, {`{"title":null}`, false}, {`{"properties":[]}`, true}, {`{"properties":{"a":5}}`, true},
	{`{"not":"x"}`, true}, {`5`, true}, {`"x"`, true}, {`[]`, true}, {``, true}, {`{`, true}, {`{"a":1,}`, true},
	{`{"a":01}`, true}, {`{"a":1.}`, true}, {`{"a":-}`, true}, {`{"a":tru}`, true}, {`{} x`, true}, {"{\"a\":\"\x01\"}", true},
	{`{"a":"\x"}`, true}, {`{"a":"\u12"}`, true}, {`{"a":"\u12g4"}`, true},
	{`{"description":"lone \ud800 surrogate","title":"\udc00","x":"\ud800\u0041"}`, false},
	{"{\"description\":\"bad \xff utf8\",\"\xfe\":1}", false},
	{`{"properties":{"k\u00e9y":{"title":"\u0000"}}}`, false},
	{`{"description":"\u2028\u2029<>&"}`, false},
}

// refDecode is jsonschema-go's decoding, what the loader did before.
func refDecode(raw []byte) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// checkDecode compares decodeSchema and parseSchema with jsonschema-go on
// raw, and returns whether decodeSchema decoded it itself.
func checkDecode(t *testing.T, raw []byte) bool {
	t.Helper()
	want, werr := refDecode(raw)
	got, ok := decodeSchema(raw)
	if ok {
		if werr != nil {
			t.Fatalf("%q: decodeSchema decoded what jsonschema-go refuses (%v)", raw, werr)
		}
		if !reflect.DeepEqual(got, want) {
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			t.Fatalf("%q: decodeSchema differs from jsonschema-go:\n got %s\nwant %s\n got %#v\nwant %#v", raw, gb, wb, got, want)
		}
	}
	p := parseSchema(raw)
	switch {
	case (p.err == nil) != (werr == nil):
		t.Fatalf("%q: parseSchema error %v, jsonschema-go %v", raw, p.err, werr)
	case werr != nil && p.err.Error() != werr.Error():
		t.Fatalf("%q: parseSchema error %q, jsonschema-go %q", raw, p.err, werr)
	case werr == nil && !reflect.DeepEqual(p.s, want):
		t.Fatalf("%q: parseSchema differs from jsonschema-go", raw)
	}
	return ok
}

func TestDecodeSchemaCases(t *testing.T) {
	for _, c := range decodeCases {
		if ok := checkDecode(t, []byte(c.raw)); ok == c.fallback {
			t.Errorf("%q: decodeSchema decoded it: %v, want %v", c.raw, ok, !c.fallback)
		}
	}
}

// TestSchemaKeys checks that the decoder decodes every keyword of the
// table (schemakw.All, which schemakw's tests check against the struct
// jsonschema-go decodes into) itself: null is a valid value of each but
// "type".
func TestSchemaKeys(t *testing.T) {
	if len(schemakw.All) > 64 {
		t.Errorf("%d keywords: the decoder's set of keywords seen holds 64", len(schemakw.All))
	}
	for _, k := range schemakw.All {
		d := schemaDecoder{data: []byte(`null`)}
		d.keyword(&jsonschema.Schema{}, k)
		if d.bad != (k.Name == "type") {
			t.Errorf("keyword %q (kind %d): decoding null fails: %v", k.Name, k.Kind, d.bad)
		}
	}
}

// schemaSamples returns every input and output schema of the corpus, the
// goldens and the adversarial cases (those with a tools.json section).
func schemaSamples(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	add := func(name string, data []byte) {
		var snap struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		}
		if json.Unmarshal(data, &snap) != nil {
			return
		}
		for i, tool := range snap.Tools {
			for key, raw := range map[string]json.RawMessage{"in": tool.InputSchema, "out": tool.OutputSchema} {
				if len(raw) > 0 {
					out[name+"/"+tool.Name+"/"+key+"/"+string(rune('0'+i%10))] = raw
				}
			}
		}
	}
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(f), data)
	}
	root := testcorpus.ModuleRoot(t)
	for _, dir := range []string{"golden", "adversarial"} {
		paths, _ := filepath.Glob(filepath.Join(root, "testdata", dir, "*.txtar"))
		if len(paths) == 0 {
			t.Fatalf("no cases in testdata/%s", dir)
		}
		for _, p := range paths {
			ar, err := txtar.ParseFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range ar.Files {
				if f.Name == "tools.json" {
					add(dir+"/"+filepath.Base(p), f.Data)
				}
			}
		}
	}
	return out
}

// TestDecodeSchemaSamples compares the decoders on every schema of the
// corpus, the goldens and the adversarial cases, and requires decodeSchema
// to decode every corpus schema itself (the fallback is for rare input).
func TestDecodeSchemaSamples(t *testing.T) {
	samples := schemaSamples(t)
	fallbacks := 0
	for name, raw := range samples {
		if !checkDecode(t, raw) {
			fallbacks++
			if !strings.HasPrefix(name, "golden/") && !strings.HasPrefix(name, "adversarial/") {
				t.Errorf("%s: decodeSchema left a corpus schema to jsonschema-go", name)
			}
		}
	}
	if len(samples) < 500 {
		t.Fatalf("%d sample schemas, want the corpus's 500 and more", len(samples))
	}
	t.Logf("%d schemas, %d left to jsonschema-go", len(samples), fallbacks)
}

func FuzzDecodeSchema(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c.raw))
	}
	f.Add([]byte(`{"type":"object","properties":{"q":{"type":"string","minLength":1},"n":{"type":"integer","minimum":0,"default":10},"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}},"required":["q"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`))
	for _, raw := range schemaSamples(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkDecode(t, raw)
	})
}
