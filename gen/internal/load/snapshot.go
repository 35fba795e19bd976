package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/par"
)

// Limits on the inputs. Input over a limit is refused with an error that
// names the limit (and the tool and JSON pointer, where there is one), except
// MaxEnumValues, which degrades with a warning. Each is many times what any
// real server we know of needs: the corpus's largest snapshot is 411 KB, with
// 118 tools, schemas 6 levels deep, descriptions of 2 KB and enums of 32
// values. They bound the time and memory one generation takes on a hostile
// snapshot (a few seconds and a few hundred MB at most); docs/security-model.md
// lists them.
const (
	// MaxSnapshotSize is the largest snapshot file accepted, in bytes.
	MaxSnapshotSize = 16 << 20
	// MaxTools is the largest number of tools in one snapshot.
	MaxTools = 10_000
	// MaxSchemaDepth is how deep JSON objects and arrays may nest inside one
	// inputSchema or outputSchema. It is checked on the raw bytes before
	// anything is parsed, so a hostile schema cannot exhaust the stack, and
	// the error names the tool even when the file nests too deep to parse.
	MaxSchemaDepth = 256
	// MaxNameSize is the longest tool name, in bytes. The model leaves out,
	// with a warning, a property whose name is longer (calls that set it are
	// refused).
	MaxNameSize = 256
	// MaxDescriptionSize is the longest tool description or title, in bytes:
	// a Hub advertises it to models on every connection.
	MaxDescriptionSize = 64 << 10
	// MaxSchemaNodes is the most sub-schemas a snapshot's schemas may hold
	// in all: the loader counts their JSON objects, and the model counts
	// what it maps (each property, item, alternative and $ref use counts
	// one). It bounds the time parsing and mapping take and the size of the
	// generated package. The error names the tool where it is reached.
	MaxSchemaNodes = 250_000
	// MaxEnumValues is the most values an enum may have and still become Go
	// constants; a longer enum becomes its base type, with a warning, and the
	// runtime still checks every value against the schema.
	MaxEnumValues = 1000
	// MaxClassificationSize is the largest classification file accepted, in
	// bytes.
	MaxClassificationSize = 8 << 20
)

// topLevelKeys are the keys a snapshot file (or a raw tools/list result) may
// have; any other key is reported as a warning.
var topLevelKeys = []string{"_meta", "nextCursor", "server", "source", "tools"}

// LoadSnapshot parses a snapshot file, {"server": {"name", "version"},
// "source": ..., "tools": [...MCP Tool objects...]}, or a raw tools/list
// result, {"tools": [...], "nextCursor"?: ...}. Tools come back sorted by
// name.
//
// Every diagnostic names the file and, where it can, the tool and a JSON
// pointer from the file's root ("/tools/3/inputSchema"); a JSON syntax error
// has a line and column instead. The list may hold warnings only; when it
// holds an error the returned snapshot is nil.
func LoadSnapshot(file string, data []byte) (*Snapshot, diag.List) {
	l := &snapLoader{file: file}
	s := l.load(data)
	if l.diags.Err() != nil {
		return nil, l.diags
	}
	return s, l.diags
}

type snapLoader struct {
	file  string
	diags diag.List
	// parsed holds the schemas parsed ahead, in parallel, by parseAhead,
	// keyed by the address of their raw bytes (slices of one buffer).
	parsed map[*byte]parsedSchema
}

type parsedSchema struct {
	s   *jsonschema.Schema
	err error
	// canon is the schema's canonical JSON (canon.Append),
	// float64s what the writer reported: every number written as its
	// float64.
	canon    []byte
	float64s bool
	// decoded is set when decodeSchema read the schema: it refuses, in
	// each schema object, a repeated keyword and a key that matches one
	// only up to case (Tool.InputSchemaKeysDistinct).
	decoded bool
}

func (l *snapLoader) add(sev diag.Severity, tool, ptr, format string, args ...any) {
	l.diags = append(l.diags, diag.Diagnostic{
		Severity: sev, File: l.file, Tool: tool, Pointer: ptr,
		Msg: fmt.Sprintf(format, args...),
	})
}

func (l *snapLoader) errorf(tool, ptr, format string, args ...any) {
	l.add(diag.Error, tool, ptr, format, args...)
}

func (l *snapLoader) load(data []byte) *Snapshot {
	if len(data) > MaxSnapshotSize {
		l.errorf("", "", "file is %d bytes, over the limit of %d MiB", len(data), MaxSnapshotSize>>20)
		return nil
	}
	// Nesting first, on the raw bytes: a schema too deep to map is refused
	// naming its tool, even one too deep for encoding/json to parse.
	if tool, member, name, ok := tooDeep(data, MaxSchemaDepth); ok {
		switch {
		case tool < 0:
			l.errorf("", member, "nests deeper than the limit of %d levels", MaxSchemaDepth)
		case member == "inputSchema" || member == "outputSchema":
			l.errorf(name, toolPointer(tool, member), "schema nests deeper than the limit of %d levels", MaxSchemaDepth)
		default:
			l.errorf(name, toolPointer(tool, member), "nests deeper than the limit of %d levels", MaxSchemaDepth)
		}
		return nil
	}
	// Then the syntax of the whole file: encoding/json reports the offset,
	// which becomes a line and column.
	if !json.Valid(data) {
		var whole json.RawMessage
		l.syntaxError(data, json.Unmarshal(data, &whole))
		return nil
	}
	if firstByte(data) != '{' {
		l.errorf("", "", "the top level must be a JSON object with a \"tools\" array")
		return nil
	}
	// The file is valid JSON from here on: it is split into members and
	// elements without being checked again. The copy keeps the raw schemas
	// (slices of it) from sharing the caller's buffer.
	data = bytes.Clone(data)
	keys, vals := members(data)
	top := make(map[string]json.RawMessage, len(keys))
	for i, k := range keys {
		top[k] = vals[i]
	}
	if k, ok := firstRepeated(keys); ok {
		l.errorf("", pointer(k), "duplicate key at the top level")
		return nil
	}
	s := &Snapshot{File: l.file}
	for _, k := range sortedKeys(top) {
		if !slices.Contains(topLevelKeys, k) {
			l.add(diag.Warning, "", pointer(k), "unknown top-level key, ignored")
		}
	}
	for _, k := range []string{"server", "source"} {
		if tokens, key, why := badText(top[k]); why != "" {
			what := "string"
			if key {
				what = "key"
			}
			l.errorf("", pointer(append([]string{k}, tokens...)...), "a %s holds %s", what, why)
			return nil
		}
	}
	l.server(top["server"], s)
	if raw, ok := top["source"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &s.Source); err != nil || firstByte(raw) != '"' {
			l.errorf("", "/source", "must be a string")
		}
	}
	if raw, ok := top["nextCursor"]; ok && !isNull(raw) {
		var cursor string
		if firstByte(raw) != '"' || json.Unmarshal(raw, &cursor) != nil {
			l.errorf("", "/nextCursor", "must be a string")
		} else if cursor != "" {
			l.add(diag.Warning, "", "/nextCursor",
				"this is one page of a paged tools/list: tools on other pages are missing and will not be callable")
		}
	}

	rawTools, ok := top["tools"]
	if !ok {
		l.errorf("", "", "the top level has no \"tools\" array")
		return nil
	}
	if firstByte(rawTools) != '[' {
		l.errorf("", "/tools", "must be an array of tools")
		return nil
	}
	items := elements(rawTools)
	if len(items) > MaxTools {
		l.errorf("", "/tools", "%d tools, over the limit of %d", len(items), MaxTools)
		return nil
	}
	l.parseAhead(items)
	first := make(map[string]int, len(items)) // tool name → index
	var raws []json.RawMessage                // the raw object of each of s.Tools
	objects := 0                              // JSON objects in all schemas, against MaxSchemaNodes
	for i, raw := range items {
		t := l.tool(i, raw)
		if t == nil {
			continue
		}
		if objects += countObjects(t.InputSchemaRaw) + countObjects(t.OutputSchemaRaw); objects > MaxSchemaNodes {
			l.errorf(t.Name, t.Pointer(), "the snapshot's schemas hold more than the limit of %d sub-schemas in all; this tool reaches it", MaxSchemaNodes)
			return nil
		}
		if j, dup := first[t.Name]; dup {
			l.errorf(t.Name, toolPointer(i, "name"), "duplicate tool name (also %s)", toolPointer(j, "name"))
			continue
		}
		first[t.Name] = i
		s.Tools = append(s.Tools, t)
		raws = append(raws, raw)
	}
	if l.diags.Err() != nil {
		return nil
	}
	order := make([]int, len(s.Tools))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(s.Tools[a].Name, s.Tools[b].Name) })
	sortedTools := make([]*Tool, len(order))
	sortedRaws := make([]json.RawMessage, len(order))
	for i, j := range order {
		sortedTools[i], sortedRaws[i] = s.Tools[j], raws[j]
	}
	s.Tools = sortedTools
	s.Digest = contentDigest(s.Server, sortedTools, sortedRaws)
	return s
}

// contentDigest is the snapshot's [Snapshot.Digest]: "sha256:<hex>" of the
// canonical JSON (canon.JSON) of {"server": ..., "tools": [...]},
// the tools sorted by name. It is what generation reads, and nothing else:
// not "source" (which says how, and on which machine, the snapshot was
// made), not the file's formatting, key order or tool order.
//
// The canonical JSON is assembled, not made again from the whole: each
// tool object is written by the canonical writer with the schemas'
// canonical forms as the loader made them (a tool object has one
// "inputSchema" and one "outputSchema" at most: the loader refuses a
// repeated key). Canonical JSON of canonical JSON is itself, so these are
// the bytes canon.JSON gives for the whole (TestContentDigest compares
// them).
func contentDigest(server ServerInfo, tools []*Tool, raws []json.RawMessage) string {
	srv, _ := json.Marshal(server) // a struct of two strings cannot fail
	b := make([]byte, 0, 1024)
	b = append(b, `{"server":`...)
	b, _ = canon.Append(b, srv)
	b = append(b, `,"tools":[`...)
	for i, raw := range raws {
		if i > 0 {
			b = append(b, ',')
		}
		t := tools[i]
		b = canon.AppendObject(b, raw, func(dst, key []byte) ([]byte, bool) {
			switch {
			case string(key) == "inputSchema" && t.InputSchemaCanonical != nil:
				return append(dst, t.InputSchemaCanonical...), true
			case string(key) == "outputSchema" && t.OutputSchemaCanonical != nil:
				return append(dst, t.OutputSchemaCanonical...), true
			}
			return dst, false
		})
	}
	b = append(b, "]}"...)
	return canon.Fingerprint(b)
}

// syntaxError reports a JSON syntax error at its line and column.
func (l *snapLoader) syntaxError(data []byte, err error) {
	d := diag.Diagnostic{Severity: diag.Error, File: l.file, Msg: "invalid JSON: " + err.Error()}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, including the offending one.
		off := int(se.Offset) - 1
		if se.Offset >= int64(len(data)) && strings.Contains(se.Error(), "unexpected end") {
			off = len(data)
		}
		d.Line, d.Col = position(data, off)
		if strings.Contains(se.Error(), "exceeded max depth") {
			d.Msg = "invalid JSON: nested more than 10000 levels deep"
		}
	}
	l.diags = append(l.diags, d)
}

func (l *snapLoader) server(raw json.RawMessage, s *Snapshot) {
	if isNull(raw) {
		return
	}
	var m map[string]json.RawMessage
	if firstByte(raw) != '{' || json.Unmarshal(raw, &m) != nil {
		l.errorf("", "/server", "must be an object with a name and a version")
		return
	}
	for _, k := range []string{"name", "version"} {
		v, ok := m[k]
		if !ok || isNull(v) {
			continue
		}
		var str string
		if firstByte(v) != '"' || json.Unmarshal(v, &str) != nil {
			l.errorf("", pointer("server", k), "must be a string")
			continue
		}
		if k == "name" {
			s.Server.Name = str
		} else {
			s.Server.Version = str
		}
	}
}

// tool loads the tool at index i, or returns nil after reporting why not.
func (l *snapLoader) tool(i int, raw json.RawMessage) *Tool {
	if firstByte(raw) != '{' {
		l.errorf("", toolPointer(i), "a tool must be a JSON object")
		return nil
	}
	keys, vals := members(raw)
	m := make(map[string]json.RawMessage, len(keys))
	for j, k := range keys {
		m[k] = vals[j]
	}
	if k, ok := firstRepeated(keys); ok {
		l.errorf("", toolPointer(i, k), "duplicate key in the tool object")
		return nil
	}
	if tokens, key, why := badText(raw); why != "" {
		name := ""
		if nr, ok := m["name"]; ok && firstByte(nr) == '"' && badString(nr) == "" {
			_ = json.Unmarshal(nr, &name)
		}
		what := "string"
		if key {
			what = "key"
		}
		l.errorf(name, toolPointer(i, tokens...), "a %s holds %s", what, why)
		return nil
	}
	t := &Tool{Index: i}
	nameRaw, ok := m["name"]
	if !ok {
		l.errorf("", toolPointer(i), "tool has no name")
		return nil
	}
	if firstByte(nameRaw) != '"' || json.Unmarshal(nameRaw, &t.Name) != nil {
		l.errorf("", toolPointer(i, "name"), "name must be a string")
		return nil
	}
	if t.Name == "" {
		l.errorf("", toolPointer(i, "name"), "name is empty")
		return nil
	}
	if len(t.Name) > MaxNameSize {
		l.errorf("", toolPointer(i, "name"), "name is %d bytes, over the limit of %d", len(t.Name), MaxNameSize)
		return nil
	}
	errs := len(l.diags.Errors())
	t.Title = l.optString(t, m, "title")
	t.Description = l.optString(t, m, "description")
	for key, v := range map[string]string{"title": t.Title, "description": t.Description} {
		if len(v) > MaxDescriptionSize {
			l.errorf(t.Name, t.Pointer(key), "%d bytes, over the limit of %d KiB", len(v), MaxDescriptionSize>>10)
		}
	}

	in, ok := m["inputSchema"]
	if !ok || isNull(in) {
		l.errorf(t.Name, t.Pointer(), "tool has no inputSchema (MCP requires an object schema)")
	} else {
		t.InputSchemaRaw = in
		p := l.schema(t, "inputSchema", in)
		t.InputSchema, t.InputSchemaCanonical, t.InputSchemaFloat64s = p.s, p.canon, p.float64s
		t.InputSchemaKeysDistinct = p.decoded
	}
	if out, ok := m["outputSchema"]; ok && !isNull(out) {
		t.OutputSchemaRaw = out
		p := l.schema(t, "outputSchema", out)
		t.OutputSchema, t.OutputSchemaCanonical = p.s, p.canon
		t.OutputSchemaKeysDistinct = p.decoded
	}
	if a, ok := m["annotations"]; ok && !isNull(a) {
		var ann Annotations
		if firstByte(a) != '{' {
			l.add(diag.Warning, t.Name, t.Pointer("annotations"), "not an object, ignored")
		} else if err := json.Unmarshal(a, &ann); err != nil {
			l.add(diag.Warning, t.Name, t.Pointer("annotations"), "ignored: %v", err)
		} else {
			t.Annotations = &ann
		}
	}
	if e, ok := m["execution"]; ok && !isNull(e) {
		t.TaskSupport = l.taskSupport(t, e)
	}
	if ic, ok := m["icons"]; ok && !isNull(ic) {
		if firstByte(ic) != '[' {
			l.add(diag.Warning, t.Name, t.Pointer("icons"), "not an array, ignored")
		} else {
			t.Icons = ic
		}
	}
	if me, ok := m["_meta"]; ok && !isNull(me) {
		if firstByte(me) != '{' {
			l.add(diag.Warning, t.Name, t.Pointer("_meta"), "not an object, ignored")
		} else {
			t.Meta = me
		}
	}
	if len(l.diags.Errors()) > errs {
		return nil
	}
	return t
}

// taskSupport reads a tool's execution member, {"taskSupport": ...}. What
// it cannot read is a warning and counts as TaskRequired: such a tool is
// left out rather than called in a way its server may refuse.
func (l *snapLoader) taskSupport(t *Tool, raw json.RawMessage) string {
	if firstByte(raw) != '{' {
		l.add(diag.Warning, t.Name, t.Pointer("execution"), "not an object: treated as taskSupport \"required\"")
		return TaskRequired
	}
	var ts string
	keys, vals := members(raw)
	for i, k := range keys {
		if k != "taskSupport" {
			continue
		}
		v := vals[i]
		if isNull(v) {
			return ""
		}
		if firstByte(v) != '"' || json.Unmarshal(v, &ts) != nil {
			l.add(diag.Warning, t.Name, t.Pointer("execution", "taskSupport"), "not a string: treated as \"required\"")
			return TaskRequired
		}
	}
	switch ts {
	case "", TaskForbidden, TaskOptional, TaskRequired:
		return ts
	}
	l.add(diag.Warning, t.Name, t.Pointer("execution", "taskSupport"), "unknown value %q: treated as \"required\"", ts)
	return TaskRequired
}

// optString returns the optional string member key of a tool.
func (l *snapLoader) optString(t *Tool, m map[string]json.RawMessage, key string) string {
	raw, ok := m[key]
	if !ok || isNull(raw) {
		return ""
	}
	var s string
	if firstByte(raw) != '"' || json.Unmarshal(raw, &s) != nil {
		l.errorf(t.Name, t.Pointer(key), "must be a string")
	}
	return s
}

// schema checks and parses a tool's inputSchema or outputSchema, and
// returns it with its canonical JSON (nothing after an error). MCP
// requires both to be object schemas.
func (l *snapLoader) schema(t *Tool, key string, raw json.RawMessage) parsedSchema {
	ptr := t.Pointer(key)
	if firstByte(raw) != '{' {
		l.errorf(t.Name, ptr, "must be a JSON object (MCP requires an object schema)")
		return parsedSchema{}
	}
	// LoadSnapshot's first check (tooDeep) has refused a schema that nests
	// deeper than MaxSchemaDepth.
	if probe := typeMember(raw); len(probe) > 0 {
		var typ string
		if firstByte(probe) != '"' || json.Unmarshal(probe, &typ) != nil || typ != "object" {
			var typ bytes.Buffer
			if json.Compact(&typ, probe) != nil {
				typ.Reset()
				typ.Write(probe)
			}
			l.errorf(t.Name, t.Pointer(key, "type"), "must be \"object\", not %s (MCP requires an object schema)", typ.String())
			return parsedSchema{}
		}
	}
	p, ok := l.parsed[&raw[0]]
	if !ok {
		p = parseSchema(raw)
	}
	if p.err != nil {
		l.errorf(t.Name, ptr, "invalid JSON Schema: %v", p.err)
		return parsedSchema{}
	}
	return p
}

// parseSchema parses a schema as jsonschema-go does: with decodeSchema,
// or jsonschema-go itself for what decodeSchema leaves to it (every error
// among it). It also makes the schema's canonical JSON: raw is valid JSON
// (a value of the validated snapshot).
func parseSchema(raw []byte) parsedSchema {
	p := parsedSchema{}
	if s, ok := decodeSchema(raw); ok {
		p.s, p.decoded = s, true
	} else {
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			return parsedSchema{err: err}
		}
		p.s = &s
	}
	p.canon, p.float64s = canon.Append(make([]byte, 0, len(raw)), raw)
	p.canon = slices.Clip(p.canon)
	return p
}

// parseAhead parses the tools' input and output schemas (parseSchema), the
// largest part of loading, on all CPUs. It decides nothing: schema
// makes every check, in tool order, and takes the parse from here only for
// a schema that passes them (it parses one itself if it is missing). A
// schema that is not an object is left to schema.
func (l *snapLoader) parseAhead(items []json.RawMessage) {
	var raws [][]byte
	for _, item := range items {
		if firstByte(item) != '{' {
			continue
		}
		keys, vals := members(item)
		for i, k := range keys {
			if (k == "inputSchema" || k == "outputSchema") && firstByte(vals[i]) == '{' {
				raws = append(raws, vals[i])
			}
		}
	}
	if min(runtime.GOMAXPROCS(0), len(raws)) < 2 {
		return
	}
	results := make([]parsedSchema, len(raws))
	par.Each(len(raws), func(i int) { results[i] = parseSchema(raws[i]) })
	l.parsed = make(map[*byte]parsedSchema, len(raws))
	for i, raw := range raws {
		l.parsed[&raw[0]] = results[i]
	}
}

// typeMember returns the value of the schema object raw (valid JSON) that
// json.Unmarshal would put in a struct field tagged `json:"type"`: the last
// member whose key is "type" up to case folding (encoding/json matches keys
// to fields so), nil if none.
func typeMember(raw []byte) json.RawMessage {
	var v json.RawMessage
	keys, vals := members(raw)
	for i, k := range keys {
		if strings.EqualFold(k, "type") {
			v = vals[i]
		}
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
