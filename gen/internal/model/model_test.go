package model

import (
	"encoding/json"
	"fmt"
	"go/doc/comment"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/internal/impl"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

func TestIdent(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"read_graph", "ReadGraph"},
		{"get-issue", "GetIssue"},
		{"entityNames", "EntityNames"},
		{"HTTPServer", "HTTPServer"},
		{"user_id", "UserID"},
		{"userId", "UserID"},
		{"html_url", "HTMLURL"},
		{"ids", "IDs"},
		{"api.v2/list", "APIV2List"},
		{"with space", "WithSpace"},
		{"2fa", "X2fa"},
		{"type", "Type"},
		{"café", "Cafe"},
		{"straße", "Strasse"},
		{"sha256sum", "Sha256sum"},
		{"json_schema", "JSONSchema"},
		{"", "X" + shortHash("", 6)},
		{"---", "X" + shortHash("---", 6)},
		{"名前", "X" + shortHash("名前", 6)},
		{"\xff\xfe", "X" + shortHash("\xff\xfe", 6)},
	} {
		if got := Ident(tc.in); got != tc.want {
			t.Errorf("Ident(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// build makes a one-tool snapshot from an input schema and builds it.
func build(t *testing.T, schema string, c *load.Classification) (*Package, diag.List) {
	t.Helper()
	return buildTools(t, map[string]string{"tool": schema}, c)
}

func buildTools(t *testing.T, schemas map[string]string, c *load.Classification) (*Package, diag.List) {
	t.Helper()
	type tool struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	var file struct {
		Tools []tool `json:"tools"`
	}
	for name, schema := range schemas {
		file.Tools = append(file.Tools, tool{name, json.RawMessage(schema)})
	}
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	s, ds := load.LoadSnapshot("s.tools.json", data)
	if s == nil {
		t.Fatalf("load: %v", ds)
	}
	return Build(s, c, "p")
}

func fieldNames(st *Struct) map[string]string {
	out := map[string]string{}
	for _, f := range st.Fields {
		out[f.JSONName] = f.GoName
	}
	return out
}

func TestFieldCollisions(t *testing.T) {
	p, ds := build(t, `{"type":"object","properties":{"get_issue":{"type":"string"},"get-issue":{"type":"string"},"getIssue":{"type":"string"},"read":{"type":"string"},"Read":{"type":"string"}}}`, nil)
	if ds.Err() != nil {
		t.Fatal(ds)
	}
	got := fieldNames(p.Tools[0].Args)
	want := map[string]string{
		"get_issue": "GetIssue",
		"get-issue": "GetIssue_" + shortHash("get-issue", 6),
		"getIssue":  "GetIssue_" + shortHash("getIssue", 6),
		"read":      "Read_",
		"Read":      "Read__" + shortHash("Read", 6),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field for %q = %q, want %q", k, got[k], v)
		}
	}
}

// TestNamesStable checks that adding a property (or a tool) never renames
// an existing field (or tool) when the newcomer is the worse source for the
// contested name, and never renames unrelated ones.
func TestNamesStable(t *testing.T) {
	base := map[string]string{"get_issue": "string", "entityNames": "string", "user_id": "integer"}
	schema := func(props map[string]string) string {
		var parts []string
		for k, typ := range props {
			parts = append(parts, fmt.Sprintf("%q:{\"type\":%q}", k, typ))
		}
		return `{"type":"object","properties":{` + strings.Join(parts, ",") + `}}`
	}
	p0, _ := build(t, schema(base), nil)
	before := fieldNames(p0.Tools[0].Args)
	for _, added := range []string{"get-issue", "getIssue", "GetIssue", "entity_names_x", "a", "zzz", "userId", "user-id"} {
		props := map[string]string{added: "string"}
		for k, v := range base {
			props[k] = v
		}
		p1, ds := build(t, schema(props), nil)
		if ds.Err() != nil {
			t.Fatal(ds)
		}
		after := fieldNames(p1.Tools[0].Args)
		for k, v := range before {
			if after[k] != v {
				t.Errorf("adding %q renamed %q from %s to %s", added, k, v, after[k])
			}
		}
	}
	// Tools: adding "a-b" next to "a_b" leaves AB and its types alone.
	pa, _ := buildTools(t, map[string]string{"a_b": `{"type":"object"}`}, nil)
	pb, _ := buildTools(t, map[string]string{"a_b": `{"type":"object"}`, "a-b": `{"type":"object"}`}, nil)
	if pa.Tools[0].GoName != "AB" || pb.Tools[1].Name != "a_b" || pb.Tools[1].GoName != "AB" || pb.Tools[1].Args.Name != "ABArgs" {
		t.Errorf("tool names not stable: %s / %s %s", pa.Tools[0].GoName, pb.Tools[1].GoName, pb.Tools[1].Args.Name)
	}
	if pb.Tools[0].GoName == pb.Tools[1].GoName {
		t.Errorf("a-b and a_b share the name %s", pb.Tools[0].GoName)
	}
}

// TestPackageNamesUnique: a tool "foo" with an object property "args" and
// a tool "foo_args" would both declare FooArgsArgs.
func TestPackageNamesUnique(t *testing.T) {
	p, ds := buildTools(t, map[string]string{
		"foo":      `{"type":"object","properties":{"args":{"type":"object","properties":{"x":{"type":"string"}}}}}`,
		"foo_args": `{"type":"object"}`,
	}, nil)
	if ds.Err() != nil {
		t.Fatal(ds)
	}
	seen := map[string]bool{}
	for _, tl := range p.Tools {
		for _, n := range append([]string{tl.GoName}, declNames(tl)...) {
			if seen[n] {
				t.Errorf("duplicate package-level name %s", n)
			}
			seen[n] = true
		}
	}
	if p.Tools[1].Args.Name != "FooArgsArgs" {
		t.Errorf("the tool's own Args lost its name: %s", p.Tools[1].Args.Name)
	}
}

func declNames(t *Tool) []string {
	var out []string
	for _, d := range t.Decls {
		out = append(out, d.DeclName())
		if e, ok := d.(*Enum); ok {
			for _, v := range e.Values {
				out = append(out, v.GoName)
			}
		}
	}
	return out
}

func TestOptionality(t *testing.T) {
	p, ds := build(t, `{"type":"object","required":["req","reqNull","reqArr","reqObj"],"properties":{
		"req":{"type":"string"},
		"opt":{"type":"integer"},
		"reqNull":{"type":["string","null"]},
		"optNull":{"type":["boolean","null"]},
		"reqArr":{"type":"array","items":{"type":"string"}},
		"optArr":{"type":"array","items":{"type":"string"}},
		"optMap":{"type":"object","additionalProperties":{"type":"number"}},
		"reqObj":{"type":"object","properties":{"a":{"type":"string"}}},
		"optObj":{"type":"object","properties":{"a":{"type":"string"}}},
		"uint":{"type":"integer","format":"uint64","minimum":0},
		"signedUint":{"type":"integer","format":"uint64"},
		"any":{}
	}}`, nil)
	if ds.Err() != nil {
		t.Fatal(ds)
	}
	want := map[string]string{
		"req":     "string `req`",
		"opt":     "*int64 `opt,omitzero`",
		"reqNull": "*string `reqNull`",
		"optNull": "Nullable[bool] `optNull,omitzero`",
		"reqArr":  "[]string `reqArr`",
		"optArr":  "[]string `optArr,omitzero`",
		"optMap":  "map[string]float64 `optMap,omitzero`",
		"reqObj":  "ToolArgsReqObj `reqObj`",
		"optObj":  "*ToolArgsOptObj `optObj,omitzero`",
		"uint":    "*uint64 `uint,omitzero`",
		// A format alone does not rule out -1: uint64 would refuse it.
		"signedUint": "*int64 `signedUint,omitzero`",
		"any":        "json.RawMessage `any,omitzero`",
	}
	for _, f := range p.Tools[0].Args.Fields {
		got := typeString(f.Type) + " `" + f.Tag + "`"
		if got != want[f.JSONName] {
			t.Errorf("%s: %s, want %s", f.JSONName, got, want[f.JSONName])
		}
	}
	// {} accepts any value: json.RawMessage is its exact type, not a
	// fallback, so there is no warning.
	for _, d := range ds {
		if d.Severity == diag.Warning && d.Pointer == "/tools/0/inputSchema/properties/any" {
			t.Errorf("warning for the exact mapping of {}: %v", d)
		}
	}
}

func typeString(t Type) string {
	switch x := t.(type) {
	case *Struct:
		return x.Name
	case *Enum:
		return x.Name
	case Scalar:
		return map[ScalarKind]string{String: "string", Int64: "int64", Uint64: "uint64", Float64: "float64", Bool: "bool"}[x.Kind]
	case Raw:
		return "json.RawMessage"
	case Slice:
		return "[]" + typeString(x.Elem)
	case Map:
		return "map[string]" + typeString(x.Elem)
	case Pointer:
		return "*" + typeString(x.Elem)
	case Nullable:
		return "Nullable[" + typeString(x.Elem) + "]"
	}
	return "?"
}

func TestPolicyDefaults(t *testing.T) {
	schema := `{"type":"object","properties":{"id":{"type":"string"}}}`
	c := &load.Classification{
		File: "c.ocp.yaml", Tiers: []string{"member", "admin"},
		Default: load.Defaults{Tier: "member", Scopes: []string{"s.default"}, Failure: "Default failure.", ConfirmTTL: 45 * time.Second},
		Tools: []*load.Entry{
			{Name: "r", Access: load.AccessRead, Scopes: []string{"s.read"}, Resource: "items/{id}"},
			{Name: "w", Access: load.AccessWrite, Tier: "admin", Failure: "W failed.", Confirm: &load.Confirm{Prompt: "Really {id}?", TTL: time.Minute}},
		},
	}
	p, ds := buildTools(t, map[string]string{"r": schema, "w": schema, "u": schema}, c)
	if ds.Err() != nil {
		t.Fatal(ds)
	}
	byName := map[string]*Tool{}
	for _, tl := range p.Tools {
		byName[tl.Name] = tl
	}
	r, w, u := byName["r"], byName["w"], byName["u"]
	if r.Kind != Read || !r.Classified || r.Policy.Tier != "member" || r.Policy.ConfirmTTL != 0 || r.Policy.Failure != "Default failure." ||
		strings.Join(r.Policy.Scopes, ",") != "s.read" || len(r.Policy.ResourceSegments) != 2 || r.Policy.ResourceSegments[1].Mode != ocpimpl.BindOptional {
		t.Errorf("read: %+v kind %v", r.Policy, r.Kind)
	}
	if w.Kind != Write || w.Policy.Tier != "admin" || w.Policy.ConfirmTTL != time.Minute || w.Policy.Failure != "W failed." ||
		w.Policy.ConfirmPrompt != "Really {id}?" || w.Policy.Resource != "w" || len(w.Policy.Scopes) != 0 {
		t.Errorf("write: %+v", w.Policy)
	}
	if u.Kind != Write || u.Classified || u.Policy.Tier != "member" || u.Policy.ConfirmTTL != 45*time.Second ||
		strings.Join(u.Policy.Scopes, ",") != "s.default" || !(u.Policy.PromptSegments[1].Mode == ocpimpl.BindAll) {
		t.Errorf("unlisted: %+v", u.Policy)
	}
	// The unclassified tool is data, and its warning has a code and says
	// the tool's name once (the diagnostic names the tool).
	if strings.Join(p.Unclassified, ",") != "u" {
		t.Errorf("Unclassified = %q, want [u]", p.Unclassified)
	}
	found := false
	for _, d := range ds {
		if d.Tool == "u" && d.Code == diag.CodeUnclassified {
			found = true
			if d.Severity != diag.Warning || d.Msg != "not classified: it is a write at the default tier" {
				t.Errorf("unclassified warning: %+v", d)
			}
			if got, want := d.String(), `c.ocp.yaml: warning: tool "u": not classified: it is a write at the default tier`; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
		}
	}
	if !found {
		t.Errorf("no unclassified warning: %v", ds)
	}

	// Build's policy is the resolver's, for every tool.
	for _, tl := range p.Tools {
		r := ResolvePolicy(tl.Name, c)
		got, want := tl.Policy, r.Policy
		got.ResourceSegments, got.PromptSegments = nil, nil
		if fmt.Sprint(got) != fmt.Sprint(want) || tl.Kind != r.Kind || tl.Classified != r.Classified {
			t.Errorf("%s: Build's policy %+v, ResolvePolicy's %+v", tl.Name, got, want)
		}
	}

	// Without any default: the generic failure and the default TTL, and
	// one warning with its code, not one per tool.
	p2, ds2 := build(t, schema, nil)
	if tl := p2.Tools[0]; tl.Policy.Failure != `The tool "tool" failed.` || tl.Policy.ConfirmTTL != DefaultConfirmTTL || tl.Classified || tl.Kind != Write {
		t.Errorf("no classification: %+v", tl.Policy)
	}
	ds2 = slices.DeleteFunc(ds2, func(d diag.Diagnostic) bool { return d.Code == diag.CodeRefusedEverywhere })
	if len(ds2) != 1 || ds2[0].Code != diag.CodeNoClassification || len(p2.Unclassified) != 0 {
		t.Errorf("no classification: diagnostics %v, Unclassified %q", ds2, p2.Unclassified)
	}
}

func TestResolvePolicy(t *testing.T) {
	c, ds := load.LoadClassification("c.yaml", []byte(`version: 1
tiers: [visitor, member, admin]
default: {tier: member, scopes: [base], failure: "Nope.", confirm_ttl: 90s}
tools:
  r: {access: read, tier: visitor, scopes: [b, a]}
  w: {access: write, resource: "x/{id}", confirm: {prompt: "Do {id}?", ttl: 3m}}
`))
	if ds.Err() != nil {
		t.Fatal(ds.Err())
	}
	r := ResolvePolicy("r", c)
	if r.Kind != Read || r.Policy.Tier != "visitor" || strings.Join(r.Policy.Scopes, ",") != "a,b" ||
		strings.Join(r.Authorized, ",") != "visitor,member,admin" || r.Policy.ConfirmTTL != 0 || r.Policy.Failure != "Nope." ||
		r.Policy.Resource != "r" || r.Source[FieldTier] != "/tools/r/tier" || r.Source[FieldFailure] != "/default/failure" {
		t.Errorf("r: %+v", r)
	}
	w := ResolvePolicy("w", c)
	if w.Kind != Write || w.Policy.Tier != "member" || len(w.Policy.Scopes) != 0 || w.Policy.ConfirmTTL != 3*time.Minute ||
		w.Policy.ConfirmPrompt != "Do {id}?" || w.Policy.Resource != "x/{id}" || w.Source[FieldTTL] != "/tools/w/confirm/ttl" {
		t.Errorf("w: %+v", w)
	}
	u := ResolvePolicy("un{listed}/x", c)
	if u.Classified || u.Kind != Write || u.Policy.Tier != "member" || strings.Join(u.Policy.Scopes, ",") != "base" ||
		u.Policy.ConfirmTTL != 90*time.Second || u.Policy.Resource != "un{{listed}}/x" || u.Source[FieldTier] != "/default/tier" ||
		u.Source[FieldAccess] != "/tools/un{listed}~1x" {
		t.Errorf("unlisted: %+v", u)
	}
	n := ResolvePolicy("x", nil)
	if n.Classified || n.Policy.Tier != "" || len(n.Authorized) != 0 || n.Kind != Write || n.Policy.ConfirmTTL != DefaultConfirmTTL ||
		n.Policy.Failure != `The tool "x" failed.` || len(n.Source) != 0 {
		t.Errorf("no classification: %+v", n)
	}
}

func TestPlaceholders(t *testing.T) {
	schema := `{"type":"object","required":["name"],"properties":{
		"name":{"type":"string"},"ids":{"type":"array","items":{"type":"integer"}},
		"obj":{"type":"object","properties":{"a":{"type":"string"}}},
		"objs":{"type":"array","items":{"type":"object","properties":{"a":{"type":"string"}}}},
		"maybe":{"type":["string","null"]},"maybeArr":{"type":["array","null"],"items":{"type":"string"}}}}`
	at := load.Pos{Line: 7, Col: 15}
	for _, tc := range []struct {
		resource, prompt, wantErr string
		modes                     []ocpimpl.BindMode
	}{
		{resource: "x/{name}/{ids}", modes: []ocpimpl.BindMode{ocpimpl.BindText, ocpimpl.BindValue, ocpimpl.BindText, ocpimpl.BindEach}},
		{resource: "{maybe}{maybeArr}", modes: []ocpimpl.BindMode{ocpimpl.BindNullable, ocpimpl.BindNullableEach}},
		{resource: "{nope}", wantErr: "c.ocp.yaml:7:15: tool \"tool\": resource placeholder {nope} names no property"},
		{resource: "{obj}", wantErr: "resource placeholder {obj} names a property that is not a scalar"},
		{resource: "{objs}", wantErr: "resource placeholder {objs} names a property that is not a scalar"},
		{resource: "{unclosed", wantErr: "c.ocp.yaml:7:15: tool \"tool\": resource template:"},
		{prompt: "Send {obj} and {objs}?"},
		{prompt: "Send {missing}?", wantErr: "c.ocp.yaml:3:4: tool \"tool\": confirm prompt placeholder {missing} names no property"},
	} {
		c := &load.Classification{File: "c.ocp.yaml", Tiers: []string{"m"}, Default: load.Defaults{Tier: "m"},
			Tools: []*load.Entry{{Name: "tool", Access: load.AccessWrite, Resource: tc.resource, ResourcePos: at}}}
		if tc.prompt != "" {
			c.Tools[0].Confirm = &load.Confirm{Prompt: tc.prompt, PromptPos: load.Pos{Line: 3, Col: 4}}
		}
		p, ds := build(t, schema, c)
		if tc.wantErr != "" {
			if ds.Err() == nil || !strings.Contains(ds.Err().Error(), tc.wantErr) || p != nil {
				t.Errorf("%q %q: errors %v, want %q", tc.resource, tc.prompt, ds.Err(), tc.wantErr)
			}
			continue
		}
		if ds.Err() != nil {
			t.Errorf("%q %q: %v", tc.resource, tc.prompt, ds.Err())
			continue
		}
		if tc.modes != nil {
			var got []ocpimpl.BindMode
			for _, sg := range p.Tools[0].Policy.ResourceSegments {
				got = append(got, sg.Mode)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.modes) {
				t.Errorf("%q: modes %v, want %v", tc.resource, got, tc.modes)
			}
		}
	}
}

func TestDocLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"a\r\nb\rc\nd", []string{"a", "b", "c", "d"}},
		{"\n\nx\n\n\n\ny\n\n", []string{"x", "", "y"}},
		{"tab\there  ", []string{"tab here"}},
		{"nul\x00 bidi\u202e ctl\x07", []string{"nul bidi ctl"}},
		{"bad \xff utf8", []string{"bad \uFFFD utf8"}},
		{"ls\u2028ps\u2029nel\u0085end", []string{"ls", "ps", "nel", "end"}},
	} {
		got := DocLines(tc.in)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("DocLines(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, l := range got {
			if strings.ContainsAny(l, "\r\n\x00") {
				t.Errorf("DocLines(%q): line %q has a line break or NUL", tc.in, l)
			}
		}
	}
}

// TestEnumSchemaOrder checks that enum constants keep the schema's order
// (as protoc-gen-go keeps declaration order), a repeated value once.
func TestEnumSchemaOrder(t *testing.T) {
	p, ds := build(t, `{"type":"object","properties":{
		"p":{"type":"string","enum":["low","normal","high","low"]},
		"n":{"type":"integer","enum":[3,-1,2,3]}}}`, nil)
	if ds.Err() != nil {
		t.Fatal(ds)
	}
	got := map[string]string{}
	for _, d := range p.Tools[0].Decls {
		if e, ok := d.(*Enum); ok {
			var vs []string
			for _, v := range e.Values {
				vs = append(vs, v.Value)
			}
			got[e.Name] = strings.Join(vs, ",")
		}
	}
	if got["ToolArgsP"] != "low,normal,high" || got["ToolArgsN"] != "3,-1,2" {
		t.Errorf("enum values: %v", got)
	}
}

// TestDocLinesNoHeading checks that no description becomes a doc-comment
// heading wherever the emitter puts it: gofmt prints a one-line paragraph
// such as "Returns the sum of two numbers" as "# Returns ...".
func TestDocLinesNoHeading(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Returns the sum of two numbers", "Returns the sum of two numbers."},
		{"# Usage", "Usage."},
		{"Adds two numbers.\n\nUsage\n\nCall it with a and b.", "Adds two numbers.|Usage||Call it with a and b."},
		{"Summary\n\nDetails follow here.", "Summary|Details follow here."},
		{"# A\n\n# B", "# A|# B"},
		{"Returns the sum.", "Returns the sum."},
	} {
		got := DocLines(tc.in)
		if s := strings.Join(got, "|"); s != tc.want {
			t.Errorf("DocLines(%q) = %q, want %q", tc.in, s, tc.want)
		}
		text := "X is a tool.\n\n" + strings.Join(got, "\n") + "\n\nServer hints (not trusted): readOnly=true.\n"
		var p comment.Parser
		for _, b := range p.Parse(text).Content {
			if _, ok := b.(*comment.Heading); ok {
				t.Errorf("DocLines(%q) = %q: a heading in\n%s", tc.in, got, text)
			}
		}
	}
}

// The descriptor holds what the gate compares with the live tool at every
// sync: annotations.title, execution.taskSupport, and the fingerprints of
// the icons (the members MCP defines) and of _meta (numbers as float64).
// An icons or _meta it cannot fingerprint is left out, with a warning.
func TestDescriptorHoldsWhatTheGateCompares(t *testing.T) {
	in := `{"tools": [
	 {"name": "a", "inputSchema": {}, "annotations": {"title": "The A", "readOnlyHint": true},
	  "execution": {"taskSupport": "optional"},
	  "icons": [{"src": "https://x/a.png", "sizes": ["48x48"], "x-extra": true}], "_meta": {"k": 1.0}},
	 {"name": "b", "inputSchema": {}, "icons": [7], "_meta": {"n": 1e400}},
	 {"name": "c", "inputSchema": {}, "icons": [], "_meta": {}}]}`
	s, ds := load.LoadSnapshot("s.tools.json", []byte(in))
	if s == nil {
		t.Fatalf("load: %v", ds)
	}
	p, diags := Build(s, nil, "p")
	if p == nil {
		t.Fatalf("build: %v", diags)
	}
	var warned []string
	for _, d := range diags {
		if strings.HasSuffix(d.Pointer, "/icons") || strings.HasSuffix(d.Pointer, "/_meta") {
			warned = append(warned, d.Tool+" "+d.Pointer)
		}
	}
	if slices.Sort(warned); !slices.Equal(warned, []string{"b /tools/1/_meta", "b /tools/1/icons"}) {
		t.Errorf("warnings of b at %q, want its icons and _meta: %v", warned, diags)
	}
	icons, _ := impl.IconsFingerprint([]byte(`[{"sizes":["48x48"],"src":"https://x/a.png"}]`))
	meta, _ := impl.MetaFingerprint([]byte(`{"k":1}`))
	a := p.Tools[0].Descriptor()
	if a.Hints.Title != "The A" || a.TaskSupport != "optional" || a.IconsFingerprint != icons || a.MetaFingerprint != meta || icons == "" || meta == "" {
		t.Errorf("a: %+v", a)
	}
	for _, tool := range p.Tools[1:] {
		if d := tool.Descriptor(); d.IconsFingerprint != "" || d.MetaFingerprint != "" || d.TaskSupport != "" || d.Hints.Title != "" {
			t.Errorf("%s: %+v, want no icons, _meta, taskSupport or annotations title", d.Name, d)
		}
	}
}
