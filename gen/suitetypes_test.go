package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/model"
)

// suiteGroup is one test group of the JSON Schema Test Suite.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// TestSuiteTypes holds the generated types to the JSON Schema Test Suite
// (draft 2020-12, testdata/jsonschema-suite; its required files and the
// optional bignum.json): each group's schema becomes the one required
// property "v" of a tool's input schema (its "#" references rewritten to
// "#/properties/v"), and every valid instance is sent as {"v": DATA}
// through Gate.Dispatch to a spy server. The typed step (decode into the
// generated struct and re-encode) must forward it as the same JSON value,
// or refuse it only by a rule generate warned about for that tool (codes
// integer-range and number-precision). Refusals by the validator
// (runtime/ocp's, not the generated types') are counted, not judged here.
// Groups with $id, anchors, $dynamicRef, $vocabulary or a remote $ref are
// left out: the wrapping cannot keep their meaning.
func TestSuiteTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program over the suite")
	}
	dir := filepath.Join(moduleRoot(t), "testdata", "jsonschema-suite", "tests", "draft2020-12")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	files = append(files, filepath.Join(dir, "optional", "bignum.json"))
	type call struct {
		file, group, test string
		args              json.RawMessage
		documented        bool
	}
	var pkgs []tcPackage
	var samples []rtSample
	var calls []call
	const classify = "version: 1\ntiers: [member]\ndefault: {tier: member}\ntools: {}\n"
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(data, &groups); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		base := strings.TrimSuffix(filepath.Base(path), ".json")
		pkg := "st_" + strings.NewReplacer("-", "_").Replace(base)
		type tool struct {
			name  string
			group int
		}
		var tools []tool
		var snap bytes.Buffer
		snap.WriteString(`{"tools":[`)
		for gi, g := range groups {
			schema, ok := wrapSuiteSchema(g.Schema)
			if !ok {
				continue
			}
			name := fmt.Sprintf("g%d", gi)
			if len(tools) > 0 {
				snap.WriteByte(',')
			}
			fmt.Fprintf(&snap, `{"name":%q,"inputSchema":{"type":"object","properties":{"v":%s},"required":["v"]}}`, name, schema)
			tools = append(tools, tool{name, gi})
		}
		snap.WriteString(`]}`)
		if len(tools) == 0 {
			continue
		}
		res, err := Generate(Input{SnapshotFile: "tools.json", Snapshot: snap.Bytes(), ClassifyFile: "classify.yaml", Classify: []byte(classify)}, Options{Package: pkg})
		if err != nil {
			t.Errorf("%s: generate: %v", base, err)
			continue
		}
		ls, ds := load.LoadSnapshot("tools.json", snap.Bytes())
		if ds.Err() != nil {
			t.Fatal(ds.Err())
		}
		mp, _ := model.Build(ls, nil, pkg)
		if mp == nil {
			t.Fatalf("%s: model.Build failed", base)
		}
		goName := map[string]string{}
		for _, mt := range mp.Tools {
			goName[mt.Name] = mt.GoName
		}
		documented := map[string]bool{}
		for _, d := range res.Diagnostics {
			if d.Code == diag.CodeIntegerRange || d.Code == diag.CodeNumberPrecision {
				documented[d.Tool] = true
			}
		}
		pkgs = append(pkgs, tcPackage{name: pkg, files: res.Files, gate: true})
		for _, tl := range tools {
			g := groups[tl.group]
			for _, tc := range g.Tests {
				if !tc.Valid {
					continue
				}
				args := json.RawMessage(`{"v":` + string(tc.Data) + `}`)
				samples = append(samples, rtSample{Key: pkg + "." + goName[tl.name] + "Args", Args: args, GatePkg: pkg, GateTool: tl.name})
				calls = append(calls, call{base, g.Description, tc.Description, args, documented[tl.name]})
			}
		}
	}
	outs := runDriver(t, pkgs, samples)
	forwarded, validator, documented := 0, 0, 0
	for i, o := range outs {
		c := calls[i]
		switch {
		case o.Refusal == "":
			if ptr, same := jsonDiff(c.args, o.Fwd); !same {
				t.Errorf("%s: %s: %s: %s forwarded as %s (differs at %s)", c.file, c.group, c.test, c.args, o.Fwd, ptr)
				continue
			}
			forwarded++
		case strings.Contains(o.Refusal, "schema:"):
			validator++
			t.Logf("%s: %s: %s: refused by the validator: %s", c.file, c.group, c.test, o.Refusal)
		case c.documented:
			documented++
			t.Logf("%s: %s: %s: refused by a rule generate warned about: %s", c.file, c.group, c.test, o.Refusal)
		default:
			t.Errorf("%s: %s: %s: valid call %s refused by the typed step: %s", c.file, c.group, c.test, c.args, o.Refusal)
		}
	}
	t.Logf("%d valid instances: %d forwarded unchanged, %d refused by the validator, %d by a documented rule", len(calls), forwarded, validator, documented)
}

// wrapSuiteSchema makes a suite schema the value of the property "v": its
// $schema goes, and its "#" references point into /properties/v. It
// returns false for a schema the wrapping cannot keep the meaning of.
func wrapSuiteSchema(raw json.RawMessage) ([]byte, bool) {
	for _, k := range []string{`"$id"`, `"$anchor"`, `"$dynamicRef"`, `"$dynamicAnchor"`, `"$vocabulary"`, `"$recursiveRef"`} {
		if bytes.Contains(raw, []byte(k)) {
			return nil, false
		}
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // the schema's numbers as written (bignum.json)
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "$schema")
	}
	ok := true
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				switch k {
				case "const", "enum", "default", "examples":
					continue
				case "$ref":
					if s, isStr := x[k].(string); isStr {
						if !strings.HasPrefix(s, "#") || (s != "#" && !strings.HasPrefix(s, "#/")) {
							ok = false
						}
						x[k] = "#/properties/v" + strings.TrimPrefix(s, "#")
						continue
					}
				}
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(v)
	return b, err == nil
}
