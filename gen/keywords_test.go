package gen

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// keywordsSchema uses every keyword of JSON Schema 2020-12 (core,
// applicator, unevaluated, validation, meta-data, format and content
// vocabularies), MCP 2026-07-28's x-mcp-header, and a vendor extension.
// Its object keys are in byte order and its strings need no escape, so
// that what a snapshot writes of it compacts to the same bytes; its
// numbers are written as a server may write them (1e3, 1.0, 0.50).
const keywordsSchema = `{
"$comment":"every keyword",
"$defs":{"name":{"$anchor":"name","maxLength":64,"minLength":1,"type":"string"},"node":{"$dynamicAnchor":"node","properties":{"kids":{"items":{"$dynamicRef":"#node"},"type":"array"}},"type":"object"}},
"$id":"https://example.com/schemas/route.json",
"$schema":"https://json-schema.org/draft/2020-12/schema",
"$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true},
"additionalProperties":false,
"allOf":[{"required":["region"]}],
"dependentRequired":{"shard":["region"]},
"dependentSchemas":{"tree":{"required":["label"]}},
"description":"Route a request.",
"else":{"maxProperties":8},
"if":{"properties":{"mode":{"const":"fast"}}},
"maxProperties":12,
"minProperties":1,
"not":{"required":["forbidden"]},
"patternProperties":{"^x_":{"type":"string"}},
"properties":{
"anyone":{"anyOf":[{"type":"string"},{"type":"null"}]},
"count":{"exclusiveMaximum":100,"exclusiveMinimum":0,"multipleOf":0.50,"type":"number"},
"label":{"$ref":"#/$defs/name"},
"meta":{"propertyNames":{"pattern":"^[a-z]+$"},"type":"object","unevaluatedProperties":{"type":"string"}},
"mode":{"default":"safe","deprecated":true,"enum":["fast","safe"],"examples":["fast"]},
"oneish":{"oneOf":[{"type":"boolean"},{"type":"integer"}]},
"payload":{"contentEncoding":"base64","contentMediaType":"application/json","contentSchema":{"type":"object"},"type":"string"},
"region":{"format":"hostname","pattern":"^[a-z0-9-]+$","readOnly":false,"title":"Region","type":"string","writeOnly":false,"x-mcp-header":"Region"},
"shard":{"maximum":1e3,"minimum":1.0,"type":"integer","x-mcp-header":"Shard"},
"tags":{"contains":{"const":"prod"},"items":{"type":"string"},"maxContains":2,"maxItems":5,"minContains":1,"minItems":1,"type":"array","unevaluatedItems":false,"uniqueItems":true},
"tree":{"$ref":"#/$defs/node"},
"tuple":{"items":false,"prefixItems":[{"type":"string"},{"type":"integer"}],"type":"array"}
},
"required":["region"],
"then":{"required":["shard"]},
"title":"route",
"type":"object",
"x-vendor":{"a":2,"b":[1,2.50]}
}`

// keywordPointers are, for every keyword of JSON Schema 2020-12 and the
// two extensions, the pointer of one use of it in keywordsSchema.
var keywordPointers = map[string]string{
	"$schema": "/$schema", "$id": "/$id", "$vocabulary": "/$vocabulary", "$comment": "/$comment", "$defs": "/$defs",
	"$anchor": "/$defs/name/$anchor", "$dynamicAnchor": "/$defs/node/$dynamicAnchor", "$ref": "/properties/label/$ref",
	"$dynamicRef": "/$defs/node/properties/kids/items/$dynamicRef",
	"allOf":       "/allOf", "anyOf": "/properties/anyone/anyOf", "oneOf": "/properties/oneish/oneOf", "not": "/not",
	"if": "/if", "then": "/then", "else": "/else", "dependentSchemas": "/dependentSchemas",
	"prefixItems": "/properties/tuple/prefixItems", "items": "/properties/tags/items", "contains": "/properties/tags/contains",
	"properties": "/properties", "patternProperties": "/patternProperties", "additionalProperties": "/additionalProperties",
	"propertyNames":    "/properties/meta/propertyNames",
	"unevaluatedItems": "/properties/tags/unevaluatedItems", "unevaluatedProperties": "/properties/meta/unevaluatedProperties",
	"type": "/$defs/name/type", "const": "/properties/tags/contains/const", "enum": "/properties/mode/enum",
	"multipleOf": "/properties/count/multipleOf", "maximum": "/properties/shard/maximum",
	"exclusiveMaximum": "/properties/count/exclusiveMaximum", "minimum": "/properties/shard/minimum",
	"exclusiveMinimum": "/properties/count/exclusiveMinimum",
	"maxLength":        "/$defs/name/maxLength", "minLength": "/$defs/name/minLength", "pattern": "/properties/region/pattern",
	"maxItems": "/properties/tags/maxItems", "minItems": "/properties/tags/minItems", "uniqueItems": "/properties/tags/uniqueItems",
	"maxContains": "/properties/tags/maxContains", "minContains": "/properties/tags/minContains",
	"maxProperties": "/maxProperties", "minProperties": "/minProperties", "required": "/required",
	"dependentRequired": "/dependentRequired",
	"title":             "/title", "description": "/description", "default": "/properties/mode/default",
	"deprecated": "/properties/mode/deprecated", "readOnly": "/properties/region/readOnly",
	"writeOnly": "/properties/region/writeOnly", "examples": "/properties/mode/examples",
	"format":          "/properties/region/format",
	"contentEncoding": "/properties/payload/contentEncoding", "contentMediaType": "/properties/payload/contentMediaType",
	"contentSchema": "/properties/payload/contentSchema",
	"x-mcp-header":  "/properties/region/x-mcp-header", "x-vendor": "/x-vendor",
}

// keywordsTool is a tool object with schema as its input schema.
func keywordsTool(schema string) json.RawMessage {
	return json.RawMessage(`{"inputSchema":` + schema + `,"name":"route"}`)
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("compact %.80s: %v", b, err)
	}
	return out.String()
}

// Item 6 of issue 27: a snapshot keeps every 2020-12 keyword of an input
// schema byte-exact (numbers as written included), and the file loads.
func TestSnapshotKeepsEveryKeyword(t *testing.T) {
	for kw, ptr := range keywordPointers {
		if !strings.HasSuffix(ptr, "/"+kw) || !strings.Contains(keywordsSchema, `"`+kw+`":`) {
			t.Errorf("keyword %s: pointer %s does not name a use of it", kw, ptr)
		}
	}
	data, err := EncodeSnapshot("route.tools.json", SnapshotServer{Name: "route"}, "test", []json.RawMessage{keywordsTool(keywordsSchema)})
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Tools []struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &file); err != nil || len(file.Tools) != 1 {
		t.Fatalf("snapshot: %v\n%s", err, data)
	}
	if got, want := compact(t, file.Tools[0].InputSchema), compact(t, []byte(keywordsSchema)); got != want {
		t.Errorf("the snapshot's input schema is not the server's, byte for byte:\n got %s\nwant %s", got, want)
	}
	// The same file again is byte-identical.
	again, err := EncodeSnapshot("route.tools.json", SnapshotServer{Name: "route"}, "test", []json.RawMessage{json.RawMessage(mustMarshalTool(t, data))})
	if err != nil || !bytes.Equal(again, data) {
		t.Errorf("a snapshot of the snapshot differs (%v):\n%s\n%s", err, again, data)
	}
}

// mustMarshalTool returns the one tool object of a snapshot file.
func mustMarshalTool(t *testing.T, snapshot []byte) []byte {
	t.Helper()
	var file struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(snapshot, &file); err != nil || len(file.Tools) != 1 {
		t.Fatalf("snapshot: %v", err)
	}
	return file.Tools[0]
}

// Item 6 of issue 27: ocpgen diff sees a change of each keyword, at the
// keyword's pointer, with its old and new values byte-exact, and no change
// at all between a schema and itself.
func TestDiffSeesEveryKeyword(t *testing.T) {
	snap := func(schema string) []byte {
		b, err := EncodeSnapshot("route.tools.json", SnapshotServer{}, "", []json.RawMessage{keywordsTool(schema)})
		if err != nil {
			t.Fatalf("%v\n%s", err, schema)
		}
		return b
	}
	old := snap(keywordsSchema)
	r, err := Diff(Input{SnapshotFile: "o.json", Snapshot: old}, Input{SnapshotFile: "n.json", Snapshot: old})
	if err != nil || len(r.Tools) != 0 {
		t.Fatalf("a schema against itself: %v, %+v", err, r)
	}
	kws := make([]string, 0, len(keywordPointers))
	for kw := range keywordPointers {
		kws = append(kws, kw)
	}
	slices.Sort(kws)
	for _, kw := range kws {
		ptr := keywordPointers[kw]
		newSchema, oldVal, newVal := mutate(t, keywordsSchema, ptr)
		r, err := Diff(Input{SnapshotFile: "o.json", Snapshot: old}, Input{SnapshotFile: "n.json", Snapshot: snap(newSchema)})
		if err != nil {
			t.Errorf("%s: %v", kw, err)
			continue
		}
		// The change is reported at the keyword, below it, or at the
		// keyword holding it that the diff does not descend into (a
		// required name at its property); every value it quotes is a piece
		// of its side's schema, byte for byte.
		related := func(p string) bool {
			p = strings.TrimPrefix(p, "/inputSchema")
			if kw == "required" {
				return strings.HasPrefix(p, strings.TrimSuffix(ptr, "required")+"properties/")
			}
			return p == ptr || strings.HasPrefix(p, ptr+"/") || strings.HasPrefix(ptr, p+"/")
		}
		oldText, newText := compact(t, []byte(keywordsSchema)), compact(t, []byte(newSchema))
		seen := 0
		for _, td := range r.Tools {
			for _, c := range td.Changes {
				if related(c.Pointer) {
					seen++
				}
				if c.Old != nil && !strings.Contains(oldText, string(c.Old)) || c.New != nil && !strings.Contains(newText, string(c.New)) {
					t.Errorf("%s: change %s at %s quotes %s → %s, not the schemas' bytes", kw, c.Kind, c.Pointer, c.Old, c.New)
				}
			}
		}
		if seen == 0 {
			t.Errorf("%s changed from %s to %s: no change reported at %s (report: %+v)", kw, oldVal, newVal, ptr, r.Tools)
		}
	}
}

// mutate returns schema with the value at ptr changed (a number
// incremented, a string or a key extended, a boolean negated, an element
// or member added), and the old and new values, compact.
func mutate(t *testing.T, schema, ptr string) (string, string, string) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(schema))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		t.Fatal(err)
	}
	toks := strings.Split(ptr, "/")[1:]
	parent := root
	for _, tok := range toks[:len(toks)-1] {
		switch p := parent.(type) {
		case map[string]any:
			parent = p[tok]
		case []any:
			i, _ := strconv.Atoi(tok)
			parent = p[i]
		}
	}
	last := toks[len(toks)-1]
	obj := parent.(map[string]any)
	old := obj[last]
	var nw any
	switch v := old.(type) {
	case json.Number:
		r, _ := strconv.ParseFloat(string(v), 64)
		nw = json.Number(strconv.FormatFloat(r+1, 'f', -1, 64))
	case string:
		nw = v + "x"
		if last == "type" {
			nw = "integer"
		}
		if strings.HasPrefix(v, "#") || strings.HasPrefix(v, "^") || strings.HasPrefix(v, "https:") {
			nw = v + "z" // still a reference, a pattern, a URI
		}
		if last == "$ref" {
			nw = "#/$defs/node"
		}
		if last == "$dynamicRef" {
			nw = "#/$defs/node"
		}
	case bool:
		nw = !v
	case []any:
		nw = append(slices.Clone(v), v[0])
		if last == "required" || last == "enum" || last == "examples" {
			nw = append(slices.Clone(v), "zz")
		}
	case map[string]any:
		m := make(map[string]any, len(v)+1)
		for k, x := range v {
			m[k] = x
		}
		switch last {
		case "$defs", "properties", "patternProperties", "dependentSchemas":
			m["zz"] = map[string]any{"type": "string"}
		case "dependentRequired":
			m["zz"] = []any{"region"}
		case "$vocabulary":
			m["https://json-schema.org/draft/2020-12/vocab/validation"] = true
		default:
			m["minProperties"] = json.Number("3")
		}
		nw = m
	default:
		t.Fatalf("%s: cannot change %T", ptr, old)
	}
	obj[last] = nw
	enc := func(v any) string {
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		if err := e.Encode(v); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	return enc(root), enc(old), enc(nw)
}
