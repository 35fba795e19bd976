package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// foldDistinctRef is foldDistinct by a json.Decoder and bytes.EqualFold.
func foldDistinctRef(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var value func() bool
	value = func() bool {
		tok, err := dec.Token()
		if err != nil {
			panic(err)
		}
		switch tok {
		case json.Delim('{'):
			var keys []string
			for dec.More() {
				k, _ := dec.Token()
				for _, prev := range keys {
					if bytes.EqualFold([]byte(prev), []byte(k.(string))) {
						return false
					}
				}
				keys = append(keys, k.(string))
				if !value() {
					return false
				}
			}
			dec.Token()
		case json.Delim('['):
			for dec.More() {
				if !value() {
					return false
				}
			}
			dec.Token()
		}
		return true
	}
	return value()
}

func foldCases() []string {
	many := func(n int, last string) string {
		var b strings.Builder
		b.WriteString(`{"x":[{"a":1,"A":1}`)
		b.WriteString(`],"o":{`)
		for i := range n {
			fmt.Fprintf(&b, `"key%d":{"key%d":1},`, i, i)
		}
		b.WriteString(`"` + last + `":0}}`)
		return b.String()
	}
	return []string{
		`{}`, `[]`, `1`, `"a"`, `{"a":1,"b":2}`, `{"a":1,"A":2}`, `{"a":1,"a":2}`, `{"k":1,"\u212a":2}`, `{"K":1,"K":2}`,
		`{"s":1,"ſ":2}`, `{"ß":1,"ẞ":2}`, `{"a":{"b":1},"c":{"b":2}}`, `[{"a":1},{"a":1}]`, `{"a\"b":1,"A\"B":1}`,
		`{"a":"{,\"","b":1,"c":"\"}"}`, `{"a":[1,{"a":1}],"b":1}`, `{"a":[1,{"a":1,"A":1}],"b":1}`, "{\"\xff\":1,\"\xfe\":2}",
		`{"\u00e9":1,"\u00c9":2}`, `{"é":1,"e":2}`, `{"properties":{"type":{"type":"string"},"Type":{}}}`, ` { "a" : [ { } , { "b" : 1 , "B" : 2 } ] } `,
		`{"a\\":1,"A\\":1}`, `{"a\\":1,"A":1}`, many(40, "other"), many(40, "KEY39"), many(40, "key3"), many(31, "KEY30"),
	}
}

func TestFoldDistinct(t *testing.T) {
	for _, c := range foldCases() {
		if !json.Valid([]byte(c)) {
			t.Fatalf("invalid case %s", c)
		}
		if got, want := foldDistinct([]byte(c)), foldDistinctRef([]byte(c)); got != want {
			t.Errorf("foldDistinct(%s) = %v, want %v", c, got, want)
		}
	}
}

func FuzzFoldDistinct(f *testing.F) {
	for _, c := range foldCases() {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		if got, want := foldDistinct(raw), foldDistinctRef(raw); got != want {
			t.Errorf("foldDistinct(%q) = %v, want %v", raw, got, want)
		}
	})
}

// TestResolvable checks that resolvable, which resolves the loaded schema
// where it can, says what resolving the canonical schema says.
func TestResolvable(t *testing.T) {
	schemas := []string{
		`{"type":"object"}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/b"}},"$defs":{"a":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{}},"$defs":{"b":{}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"b":{}},"$defs":{"a":{}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{}},"$DEFS":{"b":{}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$DEFS":{"a":{}},"$defs":{"b":{}}}`,
		`{"type":"object","default":[1, 2, 3],"properties":{"a":{"$ref":"#/default/5"}}}`,
		`{"type":"object","default":[1, 2, 3],"properties":{"a":{"$ref":"#/default/20"}}}`,
		`{"type":"object","properties":{"a":{"pattern":"("}}}`,
		`{"type":"object","patternProperties":{"(":{}}}`,
		`{"type":"object","$defs":{},"definitions":{}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/properties/b"},"b":{"type":"integer"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#a"},"b":{"$anchor":"a"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#b"},"b":{"$anchor":"a"}}}`,
		`{"type":"object","$id":"rel","properties":{"a":{"$ref":"#"}}}`,
		`{"type":"object","$id":"https://x.example/a#frag"}`,
		// Keys foldDistinct refuses that the loader's decoder reads.
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"A":{}},"$defs":{"x":{}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"a":{}}}`,
		`{"type":"object","properties":{"a":{}},"a":{"$ref":"#/$defs/x"},"a":1,"x-a":1,"X-A":2}`,
		`{"type":"object","properties":{"a":{"default":{"k":1,"K":{"$ref":"#/$defs/x"}}}}}`,
		`{"type":"object","$defs":{"x":{"enum":[{"a":1,"A":2}]}},"properties":{"a":{"$ref":"#/$defs/x"}}}`,
	}
	for _, c := range corpusSchemas(t) {
		schemas = append(schemas, string(c.input))
		if c.output != nil {
			schemas = append(schemas, string(c.output))
		}
	}
	handed := 0 // schemas the loader reports distinct where foldDistinct does not
	for _, raw := range schemas {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		canonical, err := canon.JSON([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		tool := &load.Tool{Name: "t", InputSchemaRaw: json.RawMessage(raw), InputSchema: &s}
		got, want := fmt.Sprint(resolvable(tool, canonical)), fmt.Sprint(resolveCanonical(canonical, true))
		if got != want {
			t.Errorf("%s:\nresolvable:   %s\ncanonical:    %s", raw, got, want)
		}
		if got := fmt.Sprint(resolvesLike([]byte(raw), &s, canonical, false, true)); got != want {
			t.Errorf("%s:\nresolvesLike: %s\ncanonical:    %s", raw, got, want)
		}
		// As the loader hands the tool over, its report of distinct
		// keys (load.Tool.InputSchemaKeysDistinct) included.
		snap, _ := load.LoadSnapshot("s.tools.json", []byte(`{"tools":[{"name":"t","inputSchema":`+raw+`}]}`))
		if snap == nil {
			continue
		}
		lt := snap.Tools[0]
		if lt.InputSchemaKeysDistinct && !foldDistinct([]byte(raw)) {
			handed++
		}
		if got, want := fmt.Sprint(resolvable(lt, lt.InputSchemaCanonical)), fmt.Sprint(resolveCanonical(lt.InputSchemaCanonical, true)); got != want {
			t.Errorf("%s (loaded, keys distinct %v):\nresolvable:   %s\ncanonical:    %s", raw, lt.InputSchemaKeysDistinct, got, want)
		}
	}
	if handed < 4 {
		t.Errorf("%d schemas the loader reports distinct and foldDistinct does not, want at least 4", handed)
	}
}

// corpusSchema is one tool's schemas from the corpus (testdata/corpus).
type corpusSchema struct{ input, output json.RawMessage }

// corpusSchemas returns the schemas of every tool of the corpus (see
// testcorpus).
func corpusSchemas(t *testing.T) []corpusSchema {
	t.Helper()
	var out []corpusSchema
	for _, tl := range testcorpus.Tools(t) {
		out = append(out, corpusSchema{tl.InputSchema, tl.OutputSchema})
	}
	return out
}
