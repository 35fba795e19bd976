package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// corpusFiles returns the corpus snapshots (see testcorpus).
func corpusFiles(t testing.TB) []string {
	t.Helper()
	return testcorpus.Files(t)
}

func strs(l diag.List) []string {
	out := make([]string, len(l))
	for i, d := range l {
		out[i] = d.String()
	}
	return out
}

func TestLoadSnapshotCorpus(t *testing.T) {
	for _, file := range corpusFiles(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			s, diags := LoadSnapshot(filepath.Base(file), data)
			if len(diags) > 0 {
				t.Fatalf("diagnostics:\n%v", diags)
			}
			// An independent decode of the same file, to compare against.
			var want struct {
				Server struct{ Name, Version string }
				Tools  []struct {
					Name         string
					InputSchema  json.RawMessage
					OutputSchema json.RawMessage
				}
			}
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if len(s.Tools) != len(want.Tools) || len(s.Tools) == 0 {
				t.Fatalf("%d tools, want %d", len(s.Tools), len(want.Tools))
			}
			if s.Server.Name != want.Server.Name || s.Server.Version != want.Server.Version {
				t.Errorf("server = %+v, want %+v", s.Server, want.Server)
			}
			if !strings.HasPrefix(s.Digest, "sha256:") || len(s.Digest) != len("sha256:")+64 {
				t.Errorf("digest = %q", s.Digest)
			}
			if !slices.IsSortedFunc(s.Tools, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) }) {
				t.Error("tools not sorted by name")
			}
			for _, tool := range s.Tools {
				w := want.Tools[tool.Index]
				if w.Name != tool.Name {
					t.Errorf("tool %q has index %d, which is %q", tool.Name, tool.Index, w.Name)
				}
				if !bytes.Equal(tool.InputSchemaRaw, w.InputSchema) || !bytes.Contains(data, tool.InputSchemaRaw) {
					t.Errorf("tool %q: raw inputSchema not kept as in the file", tool.Name)
				}
				if !bytes.Equal(tool.OutputSchemaRaw, w.OutputSchema) {
					t.Errorf("tool %q: raw outputSchema not kept as in the file", tool.Name)
				}
				if tool.InputSchema == nil || (tool.OutputSchemaRaw != nil) != (tool.OutputSchema != nil) {
					t.Errorf("tool %q: schema not parsed", tool.Name)
				}
			}
		})
	}
}

func TestLoadSnapshotCorpusDetails(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testcorpus.Dir(t), "memory.tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, diags := LoadSnapshot("memory.tools.json", data)
	if diags.Err() != nil {
		t.Fatal(diags)
	}
	var del *Tool
	for _, tool := range s.Tools {
		if tool.Name == "delete_entities" {
			del = tool
		}
	}
	if del == nil {
		t.Fatal("no delete_entities")
	}
	if del.Annotations == nil || del.Annotations.DestructiveHint == nil || !*del.Annotations.DestructiveHint {
		t.Errorf("annotations = %+v, want destructiveHint true", del.Annotations)
	}
	if p := del.InputSchema.Properties["entityNames"]; p == nil || p.Type != "array" || p.Items == nil || p.Items.Type != "string" {
		t.Errorf("entityNames schema = %+v", p)
	}
	if del.OutputSchema == nil {
		t.Error("no outputSchema")
	}
	if del.Title == "" || del.Description == "" {
		t.Errorf("title %q, description %q", del.Title, del.Description)
	}
}

// tool0 is a minimal valid tool object.
const tool0 = `{"name": "a", "inputSchema": {"type": "object"}}`

func TestLoadSnapshotErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // every diagnostic, in order
		ok   bool     // the snapshot loads (warnings only)
	}{
		{"syntax one line", `{"tools": [}`,
			[]string{`s.json:1:12: invalid JSON: invalid character '}' looking for beginning of value`}, false},
		{"syntax multi line", "{\n  \"tools\": [\n    {\"name\": \"a\",}\n  ]\n}",
			[]string{`s.json:3:18: invalid JSON: invalid character '}' looking for beginning of object key string`}, false},
		{"truncated", `{"tools": [`,
			[]string{`s.json:1:12: invalid JSON: unexpected end of JSON input`}, false},
		{"empty file", ``,
			[]string{`s.json:1:1: invalid JSON: unexpected end of JSON input`}, false},
		{"top level array", `[]`,
			[]string{`s.json: the top level must be a JSON object with a "tools" array`}, false},
		{"no tools", `{"server": {"name": "x"}}`,
			[]string{`s.json: the top level has no "tools" array`}, false},
		{"tools not array", `{"tools": {}}`,
			[]string{`s.json: /tools: must be an array of tools`}, false},
		{"unknown top-level key", `{"tools": [], "extra": 1, "_meta": {}}`,
			[]string{`s.json: warning: /extra: unknown top-level key, ignored`}, true},
		{"next cursor", `{"tools": [], "nextCursor": "p2"}`,
			[]string{`s.json: warning: /nextCursor: this is one page of a paged tools/list: tools on other pages are missing and will not be callable`}, true},
		{"empty next cursor", `{"tools": [], "nextCursor": ""}`, nil, true},
		{"bad next cursor", `{"tools": [], "nextCursor": 2}`,
			[]string{`s.json: /nextCursor: must be a string`}, false},
		{"bad server", `{"server": "x", "tools": []}`,
			[]string{`s.json: /server: must be an object with a name and a version`}, false},
		{"bad server version", `{"server": {"name": "x", "version": 1}, "tools": []}`,
			[]string{`s.json: /server/version: must be a string`}, false},
		{"bad source", `{"source": [], "tools": []}`,
			[]string{`s.json: /source: must be a string`}, false},
		{"duplicate top-level key", `{"tools": [], "tools": [` + tool0 + `]}`,
			[]string{`s.json: /tools: duplicate key at the top level`}, false},
		{"duplicate tool key", `{"tools": [{"name": "a", "inputSchema": {"type": "object"}, "inputSchema": {}}]}`,
			[]string{`s.json: /tools/0/inputSchema: duplicate key in the tool object`}, false},
		{"duplicate empty tool key", `{"tools": [{"name": "a", "": 1, "inputSchema": {"type": "object"}, "": 2}]}`,
			[]string{`s.json: /tools/0/: duplicate key in the tool object`}, false},
		{"duplicate empty top-level key", `{"": 1, "tools": [` + tool0 + `], "": 2}`,
			[]string{`s.json: /: duplicate key at the top level`}, false},
		{"tool not object", `{"tools": [1]}`,
			[]string{`s.json: /tools/0: a tool must be a JSON object`}, false},
		{"no name", `{"tools": [{"inputSchema": {}}]}`,
			[]string{`s.json: /tools/0: tool has no name`}, false},
		{"empty name", `{"tools": [{"name": "", "inputSchema": {}}]}`,
			[]string{`s.json: /tools/0/name: name is empty`}, false},
		{"name not string", `{"tools": [{"name": 7, "inputSchema": {}}]}`,
			[]string{`s.json: /tools/0/name: name must be a string`}, false},
		{"duplicate names", `{"tools": [` + tool0 + `, {"name": "b", "inputSchema": {}}, ` + tool0 + `]}`,
			[]string{`s.json: tool "a": /tools/2/name: duplicate tool name (also /tools/0/name)`}, false},
		{"no inputSchema", `{"tools": [{"name": "a"}]}`,
			[]string{`s.json: tool "a": /tools/0: tool has no inputSchema (MCP requires an object schema)`}, false},
		{"null inputSchema", `{"tools": [{"name": "a", "inputSchema": null}]}`,
			[]string{`s.json: tool "a": /tools/0: tool has no inputSchema (MCP requires an object schema)`}, false},
		{"inputSchema array", `{"tools": [{"name": "a", "inputSchema": []}]}`,
			[]string{`s.json: tool "a": /tools/0/inputSchema: must be a JSON object (MCP requires an object schema)`}, false},
		{"inputSchema true", `{"tools": [{"name": "a", "inputSchema": true}]}`,
			[]string{`s.json: tool "a": /tools/0/inputSchema: must be a JSON object (MCP requires an object schema)`}, false},
		{"inputSchema type string", `{"tools": [{"name": "a", "inputSchema": {"type": "string"}}]}`,
			[]string{`s.json: tool "a": /tools/0/inputSchema/type: must be "object", not "string" (MCP requires an object schema)`}, false},
		{"inputSchema type list", `{"tools": [{"name": "a", "inputSchema": {"type": ["object", "null"]}}]}`,
			[]string{`s.json: tool "a": /tools/0/inputSchema/type: must be "object", not ["object","null"] (MCP requires an object schema)`}, false},
		{"inputSchema without type", `{"tools": [{"name": "a", "inputSchema": {"properties": {}}}]}`, nil, true},
		{"invalid schema keyword", `{"tools": [{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": 5}}}}]}`,
			[]string{`s.json: tool "a": /tools/0/inputSchema: invalid JSON Schema: invalid value for "type": "5"`}, false},
		{"outputSchema not object", `{"tools": [{"name": "a", "inputSchema": {}, "outputSchema": "x"}]}`,
			[]string{`s.json: tool "a": /tools/0/outputSchema: must be a JSON object (MCP requires an object schema)`}, false},
		{"description not string", `{"tools": [{"name": "a", "description": 1, "inputSchema": {}}]}`,
			[]string{`s.json: tool "a": /tools/0/description: must be a string`}, false},
		{"title not string", `{"tools": [{"name": "a", "title": {}, "inputSchema": {}}]}`,
			[]string{`s.json: tool "a": /tools/0/title: must be a string`}, false},
		{"annotations wrong type", `{"tools": [{"name": "a", "inputSchema": {}, "annotations": {"readOnlyHint": "yes"}}]}`,
			[]string{`s.json: warning: tool "a": /tools/0/annotations: ignored: json: cannot unmarshal string into Go struct field Annotations.readOnlyHint of type bool`}, true},
		{"annotations not object", `{"tools": [{"name": "a", "inputSchema": {}, "annotations": [true]}]}`,
			[]string{`s.json: warning: tool "a": /tools/0/annotations: not an object, ignored`}, true},
		{"errors in several tools", `{"tools": [{"name": "a"}, {"name": "b", "inputSchema": 1}]}`,
			[]string{
				`s.json: tool "a": /tools/0: tool has no inputSchema (MCP requires an object schema)`,
				`s.json: tool "b": /tools/1/inputSchema: must be a JSON object (MCP requires an object schema)`,
			}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, diags := LoadSnapshot("s.json", []byte(tt.in))
			if got := strs(diags); !slices.Equal(got, tt.want) {
				t.Errorf("diagnostics:\n got %q\nwant %q", got, tt.want)
			}
			if (s != nil) != tt.ok || (diags.Err() == nil) != tt.ok {
				t.Errorf("snapshot = %v, Err() = %v; want ok = %v", s, diags.Err(), tt.ok)
			}
		})
	}
}

func TestLoadSnapshotOrderAndIndex(t *testing.T) {
	in := `{"server": {"name": "srv", "version": "1.2"}, "source": "test",
	 "tools": [{"name": "b", "inputSchema": {}}, {"name": "a", "inputSchema": {"type": "object"},
	 "annotations": {"readOnlyHint": true}}]}`
	s, diags := LoadSnapshot("s.json", []byte(in))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if len(s.Tools) != 2 || s.Tools[0].Name != "a" || s.Tools[0].Index != 1 || s.Tools[1].Name != "b" || s.Tools[1].Index != 0 {
		t.Fatalf("tools = %+v, %+v", s.Tools[0], s.Tools[1])
	}
	if s.Server != (ServerInfo{Name: "srv", Version: "1.2"}) || s.Source != "test" || s.File != "s.json" {
		t.Errorf("snapshot = %+v", s)
	}
	if a := s.Tools[0].Annotations; a == nil || a.ReadOnlyHint == nil || !*a.ReadOnlyHint || a.DestructiveHint != nil {
		t.Errorf("annotations = %+v", a)
	}
	if s.Tools[1].Annotations != nil {
		t.Errorf("annotations of b = %+v, want nil", s.Tools[1].Annotations)
	}
	if got := s.Tools[0].Pointer("inputSchema", "properties", "a/b~c"); got != "/tools/1/inputSchema/properties/a~1b~0c" {
		t.Errorf("Pointer = %q", got)
	}
	// The raw result of tools/list loads too.
	raw, diags := LoadSnapshot("raw.json", []byte(`{"tools": [{"name": "x", "inputSchema": {}}]}`))
	if len(diags) > 0 || len(raw.Tools) != 1 || raw.Server.Name != "" {
		t.Errorf("raw tools/list: %v %+v", diags, raw)
	}
	// The digest is of the content generation reads (issue 15 item 8):
	// formatting, tool order and "source" (machine-specific) leave it
	// alone; a change to a tool or to the server does not.
	same := []string{
		" " + in,
		strings.Replace(in, `"source": "test"`, `"source": "stdio node /home/alice/server.js"`, 1),
		strings.Replace(in, `"source": "test",`, ``, 1),
		`{"tools": [{"name": "a", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object"}}, {"inputSchema": {}, "name": "b"}],
		  "source": "npx", "server": {"version": "1.2", "name": "srv"}}`,
	}
	for _, v := range same {
		other, ds := LoadSnapshot("s.json", []byte(v))
		if ds.Err() != nil {
			t.Fatal(ds.Err())
		}
		if other.Digest != s.Digest {
			t.Errorf("digest changed by formatting, order or source:\n%s", v)
		}
	}
	for _, v := range []string{
		strings.Replace(in, `"readOnlyHint": true`, `"readOnlyHint": false`, 1),
		strings.Replace(in, `"version": "1.2"`, `"version": "1.3"`, 1),
	} {
		if other, _ := LoadSnapshot("s.json", []byte(v)); other.Digest == s.Digest {
			t.Errorf("digest does not depend on the content:\n%s", v)
		}
	}
}

// deepSchema returns a tool whose inputSchema nests levels schemas deep
// through "properties".
func deepSchema(levels int) string {
	return `{"tools": [{"name": "deep", "inputSchema": ` +
		strings.Repeat(`{"type": "object", "properties": {"p": `, levels) + `{}` +
		strings.Repeat(`}}`, levels) + `}]}`
}

func TestLoadSnapshotLimits(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"schema depth", []byte(deepSchema(150)),
			`s.json: tool "deep": /tools/0/inputSchema: schema nests deeper than the limit of 256 levels`},
		{"schema one level too deep", []byte(`{"tools": [{"name": "deep", "inputSchema": {"type": "object", "default": ` + strings.Repeat("[", MaxSchemaDepth) + strings.Repeat("]", MaxSchemaDepth) + `}}]}`),
			`s.json: tool "deep": /tools/0/inputSchema: schema nests deeper than the limit of 256 levels`},
		{"schema 10000 deep", []byte(deepSchema(10_000)),
			`s.json: tool "deep": /tools/0/inputSchema: schema nests deeper than the limit of 256 levels`},
		{"name after a deep schema", []byte(`{"tools": [{"inputSchema": ` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `, "name": "late"}]}`),
			`s.json: tool "late": /tools/0/inputSchema: schema nests deeper than the limit of 256 levels`},
		{"deep outside the tools", []byte(`{"server": ` + strings.Repeat(`{"a": `, 300) + `1` + strings.Repeat("}", 300) + `, "tools": []}`),
			`s.json: /server/a/a: nests deeper than the limit of 256 levels`},
		{"deep annotations", []byte(`{"tools": [{"name": "x", "annotations": ` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}]}`),
			`s.json: tool "x": /tools/0/annotations: nests deeper than the limit of 256 levels`},
		{"too many tools", []byte(`{"tools": [` + strings.Repeat(tool0+",", MaxTools) + tool0 + `]}`),
			fmt.Sprintf(`s.json: /tools: %d tools, over the limit of %d`, MaxTools+1, MaxTools)},
		{"file size", append([]byte(`{"tools": []}`), bytes.Repeat([]byte(" "), MaxSnapshotSize)...),
			fmt.Sprintf(`s.json: file is %d bytes, over the limit of %d MiB`, MaxSnapshotSize+13, MaxSnapshotSize>>20)},
		{"long name", []byte(`{"tools": [{"name": "` + strings.Repeat("n", MaxNameSize+1) + `", "inputSchema": {}}]}`),
			fmt.Sprintf(`s.json: /tools/0/name: name is %d bytes, over the limit of %d`, MaxNameSize+1, MaxNameSize)},
		{"long description", []byte(`{"tools": [{"name": "d", "description": "` + strings.Repeat("d", MaxDescriptionSize+1) + `", "inputSchema": {}}]}`),
			fmt.Sprintf(`s.json: tool "d": /tools/0/description: %d bytes, over the limit of 64 KiB`, MaxDescriptionSize+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, diags := LoadSnapshot("s.json", tt.in)
			if got := strs(diags); len(got) != 1 || got[0] != tt.want {
				t.Errorf("diagnostics:\n got %q\nwant %q", got, tt.want)
			}
			if s != nil {
				t.Error("snapshot returned with an error")
			}
		})
	}
	// Just under the depth limit loads.
	if _, diags := LoadSnapshot("s.json", []byte(deepSchema(127))); len(diags) > 0 {
		t.Errorf("127 levels (254 JSON levels): %v", diags)
	}
	tools := make([]string, MaxTools)
	for i := range tools {
		tools[i] = fmt.Sprintf(`{"name": "t%d", "inputSchema": {}}`, i)
	}
	if s, diags := LoadSnapshot("s.json", []byte(`{"tools": [`+strings.Join(tools, ",")+`]}`)); len(diags) > 0 || len(s.Tools) != MaxTools {
		t.Errorf("%d tools: %v", MaxTools, diags)
	}
	// A schema at the depth limit loads (one level more: the table above).
	atLimit := `{"tools": [{"name": "deep", "inputSchema": {"type": "object", "default": ` + strings.Repeat("[", MaxSchemaDepth-1) + strings.Repeat("]", MaxSchemaDepth-1) + `}}]}`
	if _, diags := LoadSnapshot("s.json", []byte(atLimit)); len(diags) > 0 {
		t.Errorf("a schema %d levels deep: %v", MaxSchemaDepth, diags)
	}
}

func TestPosition(t *testing.T) {
	data := []byte("ab\nçd\n")
	tests := []struct{ off, line, col int }{
		{0, 1, 1}, {1, 1, 2}, {3, 2, 1}, {5, 2, 2}, {7, 3, 1}, {99, 3, 1},
	}
	for _, tt := range tests {
		if l, c := position(data, tt.off); l != tt.line || c != tt.col {
			t.Errorf("position(%d) = %d:%d, want %d:%d", tt.off, l, c, tt.line, tt.col)
		}
	}
}

// TestLoadSnapshotRefusesRewrittenText: a string encoding/json would
// rewrite to U+FFFD (invalid UTF-8, a lone surrogate escape) is an error
// naming the tool and the pointer (issue 15 item 9), never a silent
// U+FFFD, and two names differing only there are not reported as
// duplicates.
func TestLoadSnapshotRefusesRewrittenText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`{"tools": [{"name": "a", "description": "caf` + "\xe9" + `", "inputSchema": {}}]}`,
			[]string{`s.json: tool "a": /tools/0/description: a string holds invalid UTF-8 (byte 0xe9 at offset 3 of the string); JSON text is UTF-8`}},
		{`{"tools": [{"name": "x` + "\xff" + `", "inputSchema": {}}, {"name": "x` + "\xfe" + `", "inputSchema": {}}]}`,
			[]string{
				`s.json: /tools/0/name: a string holds invalid UTF-8 (byte 0xff at offset 1 of the string); JSON text is UTF-8`,
				`s.json: /tools/1/name: a string holds invalid UTF-8 (byte 0xfe at offset 1 of the string); JSON text is UTF-8`,
			}},
		{`{"tools": [{"name": "b", "inputSchema": {"properties": {"q": {"enum": ["ok", "a\ud800b"]}}}}]}`,
			[]string{`s.json: tool "b": /tools/0/inputSchema/properties/q/enum/1: a string holds a lone UTF-16 surrogate escape \ud800 (it would become U+FFFD)`}},
		{`{"tools": [{"name": "c", "inputSchema": {"properties": {"k\udc00": {}}}}]}`,
			[]string{`s.json: tool "c": /tools/0/inputSchema/properties/k` + "\ufffd" + `: a key holds a lone UTF-16 surrogate escape \udc00 (it would become U+FFFD)`}},
		{`{"server": {"name": "s` + "\x80" + `"}, "tools": []}`,
			[]string{`s.json: /server/name: a string holds invalid UTF-8 (byte 0x80 at offset 1 of the string); JSON text is UTF-8`}},
		// A surrogate pair is a character, not an error.
		{`{"tools": [{"name": "d", "description": "\ud83d\ude00 \u00e9", "inputSchema": {}}]}`, nil},
	} {
		s, diags := LoadSnapshot("s.json", []byte(tc.in))
		if got := strs(diags); !slices.Equal(got, tc.want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if (s == nil) != (len(tc.want) > 0) {
			t.Errorf("%q: snapshot %v", tc.in, s)
		}
	}
}

func TestLoadSnapshotTaskSupport(t *testing.T) {
	in := `{"tools": [
	 {"name": "a", "inputSchema": {}},
	 {"name": "b", "inputSchema": {}, "execution": {"taskSupport": "optional"}},
	 {"name": "c", "inputSchema": {}, "execution": {"taskSupport": "required"}},
	 {"name": "d", "inputSchema": {}, "execution": {"taskSupport": "sometimes"}},
	 {"name": "e", "inputSchema": {}, "execution": "yes"},
	 {"name": "f", "inputSchema": {}, "execution": {}}]}`
	s, diags := LoadSnapshot("s.json", []byte(in))
	want := []string{
		`s.json: warning: tool "d": /tools/3/execution/taskSupport: unknown value "sometimes": treated as "required"`,
		`s.json: warning: tool "e": /tools/4/execution: not an object: treated as taskSupport "required"`,
	}
	if got := strs(diags); !slices.Equal(got, want) {
		t.Fatalf("diagnostics:\n got %q\nwant %q", got, want)
	}
	for i, ts := range []string{"", TaskOptional, TaskRequired, TaskRequired, TaskRequired, ""} {
		if s.Tools[i].TaskSupport != ts {
			t.Errorf("%s: TaskSupport %q, want %q", s.Tools[i].Name, s.Tools[i].TaskSupport, ts)
		}
	}
}

// A tool's icons and _meta are kept as the file has them, for the model to
// fingerprint; one of the wrong JSON type is ignored with a warning.
func TestLoadSnapshotIconsAndMeta(t *testing.T) {
	in := `{"tools": [
	 {"name": "a", "inputSchema": {}, "icons": [{"src": "https://x/a.png"}], "_meta": {"k": 1}},
	 {"name": "b", "inputSchema": {}, "icons": {"src": "https://x/b.png"}, "_meta": [1]},
	 {"name": "c", "inputSchema": {}, "icons": null, "_meta": null}]}`
	s, diags := LoadSnapshot("s.json", []byte(in))
	want := []string{
		`s.json: warning: tool "b": /tools/1/icons: not an array, ignored`,
		`s.json: warning: tool "b": /tools/1/_meta: not an object, ignored`,
	}
	if got := strs(diags); !slices.Equal(got, want) {
		t.Fatalf("diagnostics:\n got %q\nwant %q", got, want)
	}
	if a := s.Tools[0]; string(a.Icons) != `[{"src": "https://x/a.png"}]` || string(a.Meta) != `{"k": 1}` {
		t.Errorf("a: icons %s, _meta %s", a.Icons, a.Meta)
	}
	for _, tool := range s.Tools[1:] {
		if tool.Icons != nil || tool.Meta != nil {
			t.Errorf("%s: icons %s, _meta %s, want none", tool.Name, tool.Icons, tool.Meta)
		}
	}
}
