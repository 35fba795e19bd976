// Package suitecases reads the JSON Schema Test Suite's draft 2020-12 files
// (testdata/jsonschema-suite) and turns every test group into one tool of a
// snapshot: the group's schema S becomes the one required property "v" of
// the tool's input schema, and each test's data is sent as {"v": DATA}.
//
// The wrapping must not change what S means. At the root of a test group S
// is a schema resource of its own: its "#..." references (JSON pointers and
// anchors) and its $anchor and $dynamicAnchor names belong to it, and the
// dynamic scope of a $dynamicRef starts at it. Put under properties/v of a
// wrapper, an S without $id would instead be part of the wrapper's
// resource, and "#/$defs/x" or "#" would point into the wrapper. So an
// object S without $id is given one, "urn:ocpgen-suite:FILE:N" (RFC 8141;
// FILE the suite file's path, N the group's index), which makes S again a
// resource root whose every "#..." reference and anchor resolves inside
// it, exactly as at the root (JSON Schema 2020-12 core, §8.2.1 and §9.2).
// An S with its own $id is already such a resource and is kept unchanged,
// as is a boolean S (it has no references). The wrapper adds no anchor and
// no dynamic anchor, so a $dynamicRef's outermost match is S's, as before.
// The one difference is S's base URI, which the suite leaves to the
// harness (the retrieval URI): a reference that resolves against it to a
// document that S does not hold is a remote, and such a group is marked
// with it (see Group.Remote). That no verdict changes is checked by
// TestWrapKeepsVerdicts, with jsonschema-go as the reference.
//
// Every byte of S is kept: the $id is spliced in, nothing is re-encoded,
// so every number stays the literal the suite wrote.
package suitecases

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ocpgen/ocpgen/gen"
)

// Dir is the suite's directory, relative to the module root.
const Dir = "testdata/jsonschema-suite"

// TestsDir is the directory of the draft 2020-12 test files, relative to
// Dir.
const TestsDir = "tests/draft2020-12"

// Commit is the suite commit the files come from (see Dir/README.md).
const Commit = "44401e0c046704b476ec9d2e2fccdaee618f259d"

// MetaSchema is the URI of the draft 2020-12 meta-schema.
const MetaSchema = "https://json-schema.org/draft/2020-12/schema"

// Group is one test group of a suite file, and the tool made of it.
type Group struct {
	// File is the suite file's path under TestsDir ("ref.json",
	// "optional/bignum.json").
	File string
	// Index is the group's index in its file.
	Index int
	// Description is the group's description.
	Description string
	// Tool is the tool's name: the file's path without ".json", every
	// character other than a letter or digit made "_", then "_" and Index
	// ("ref_3", "optional_bignum_0", "if_then_else_2").
	Tool string
	// Schema is the group's schema, as the suite wrote it.
	Schema json.RawMessage
	// Input is the tool's input schema:
	// {"type":"object","properties":{"v":S'},"required":["v"]}, S' being
	// Schema with the $id the package doc describes.
	Input json.RawMessage
	// Remote, when not empty, is the URI of a document the schema refers
	// to (by $ref, $dynamicRef or $schema) that it does not hold: the
	// suite's remotes (http://localhost:1234/...) or the meta-schema. No
	// remote is resolved by the gate.
	Remote string
	// Tests are the group's tests, in the file's order.
	Tests []Test
}

// Test is one test of a group.
type Test struct {
	// Index is the test's index in its group.
	Index int
	// Description is the test's description.
	Description string
	// Data is the instance, as the suite wrote it.
	Data json.RawMessage
	// Valid is the suite's verdict.
	Valid bool
}

// Args returns the arguments of t's call: {"v": DATA}, DATA's bytes as the
// suite wrote them.
func (t Test) Args() json.RawMessage {
	return json.RawMessage(`{"v":` + string(t.Data) + `}`)
}

// Load reads every suite file under TestsDir of suite (a file system
// rooted at Dir), in lexical path order, and returns its groups.
func Load(suite fs.FS) ([]Group, error) {
	tests, err := fs.Sub(suite, TestsDir)
	if err != nil {
		return nil, err
	}
	var files []string
	err = fs.WalkDir(tests, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && path.Ext(p) == ".json" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var groups []Group
	names := map[string]string{}
	for _, file := range files {
		data, err := fs.ReadFile(tests, file)
		if err != nil {
			return nil, err
		}
		var raw []struct {
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Tests       []struct {
				Description string          `json:"description"`
				Data        json.RawMessage `json:"data"`
				Valid       *bool           `json:"valid"`
			} `json:"tests"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		seenGroup := map[string]bool{}
		for i, rg := range raw {
			g := Group{File: file, Index: i, Description: rg.Description, Tool: toolName(file, i), Schema: rg.Schema}
			if other, dup := names[g.Tool]; dup {
				return nil, fmt.Errorf("%s: group %d: tool name %q is also %s's", file, i, g.Tool, other)
			}
			names[g.Tool] = fmt.Sprintf("%s group %d", file, i)
			if seenGroup[g.Description] {
				return nil, fmt.Errorf("%s: group %d: description %q is not unique in its file", file, i, g.Description)
			}
			seenGroup[g.Description] = true
			if g.Input, g.Remote, err = wrap(file, i, rg.Schema); err != nil {
				return nil, fmt.Errorf("%s: group %d (%s): %v", file, i, g.Description, err)
			}
			seenTest := map[string]bool{}
			for j, rt := range rg.Tests {
				if rt.Valid == nil || rt.Data == nil {
					return nil, fmt.Errorf("%s: group %d: test %d has no data or no valid", file, i, j)
				}
				if seenTest[rt.Description] {
					return nil, fmt.Errorf("%s: group %d: test description %q is not unique in its group", file, i, rt.Description)
				}
				seenTest[rt.Description] = true
				g.Tests = append(g.Tests, Test{Index: j, Description: rt.Description, Data: rt.Data, Valid: *rt.Valid})
			}
			groups = append(groups, g)
		}
	}
	return groups, nil
}

// toolName is the name of the tool of group i of file.
func toolName(file string, i int) string {
	stem := strings.TrimSuffix(file, ".json")
	b := []byte(stem)
	for k, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			b[k] = '_'
		}
	}
	return string(b) + "_" + strconv.Itoa(i)
}

// ID returns the $id an object schema without one is given: see the
// package doc.
func ID(file string, i int) string {
	return "urn:ocpgen-suite:" + file + ":" + strconv.Itoa(i)
}

// wrap returns the input schema of group i of file and the remote it
// needs, if any.
func wrap(file string, i int, schema json.RawMessage) (json.RawMessage, string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(schema))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, "", err
	}
	s := bytes.TrimSpace(schema)
	base := ID(file, i)
	switch x := v.(type) {
	case bool:
		// No references, nothing to give an $id.
	case map[string]any:
		if id, ok := x["$id"].(string); ok {
			base = id
		} else {
			if _, ok := x["$id"]; ok {
				return nil, "", fmt.Errorf("$id is not a string")
			}
			id, _ := json.Marshal(base)
			rest := bytes.TrimSpace(s[1:])
			if rest[0] == '}' {
				s = []byte(`{"$id":` + string(id) + `}`)
			} else {
				s = []byte(`{"$id":` + string(id) + `,` + string(rest))
			}
		}
	default:
		return nil, "", fmt.Errorf("the schema is neither an object nor a boolean")
	}
	remote, err := needsRemote(v, base)
	if err != nil {
		return nil, "", err
	}
	return json.RawMessage(`{"type":"object","properties":{"v":` + string(s) + `},"required":["v"]}`), remote, nil
}

// Keywords of draft 2020-12 whose value is a schema, an array of schemas,
// or an object of schemas.
var (
	schemaKeywords = []string{"additionalProperties", "unevaluatedProperties", "items", "unevaluatedItems", "contains", "propertyNames", "not", "if", "then", "else", "contentSchema"}
	arrayKeywords  = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	mapKeywords    = []string{"$defs", "properties", "patternProperties", "dependentSchemas"}
)

// needsRemote returns the first document (in a walk of the schema's
// keywords) that a $ref, $dynamicRef or $schema of schema v, whose base URI
// is base, names and that v does not hold; "" when there is none.
func needsRemote(v any, base string) (string, error) {
	held := map[string]bool{}
	var uses []string
	var walk func(v any, base *url.URL) error
	walk = func(v any, base *url.URL) error {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if id, ok := m["$id"].(string); ok {
			u, err := base.Parse(id)
			if err != nil {
				return fmt.Errorf("$id %q: %v", id, err)
			}
			u.Fragment, u.RawFragment = "", ""
			base = u
			held[u.String()] = true
		}
		for _, k := range []string{"$ref", "$dynamicRef"} {
			if r, ok := m[k].(string); ok {
				u, err := base.Parse(r)
				if err != nil {
					return fmt.Errorf("%s %q: %v", k, r, err)
				}
				u.Fragment, u.RawFragment = "", ""
				uses = append(uses, u.String())
			}
		}
		if s, ok := m["$schema"].(string); ok && s != MetaSchema {
			uses = append(uses, s)
		}
		for _, k := range schemaKeywords {
			if err := walk(m[k], base); err != nil {
				return err
			}
		}
		for _, k := range arrayKeywords {
			a, _ := m[k].([]any)
			for _, e := range a {
				if err := walk(e, base); err != nil {
					return err
				}
			}
		}
		for _, k := range mapKeywords {
			o, _ := m[k].(map[string]any)
			keys := make([]string, 0, len(o))
			for key := range o {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			for _, key := range keys {
				if err := walk(o[key], base); err != nil {
					return err
				}
			}
		}
		return nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	held[u.String()] = true
	if err := walk(v, u); err != nil {
		return "", err
	}
	for _, r := range uses {
		if !held[r] {
			return r, nil
		}
	}
	return "", nil
}

// Server is the server identity of the snapshot.
var Server = gen.SnapshotServer{Name: "json-schema-test-suite", Version: Commit[:7]}

// Source is the snapshot's source.
const Source = "JSON Schema Test Suite " + Commit + ", " + TestsDir + " (wrapped by e2e/suite/internal/suitecases)"

// Inputs returns the snapshot file and the classification file of
// groups: one tool per group, a read (see Classification). A group whose
// tool the generator refuses (a remote reference, a pattern it cannot
// translate) is left out, and returned in left with the generator's
// diagnostics, which the classification file lists in a comment; the
// suite test counts its tests as not run. Any other error of the
// generator is returned.
func Inputs(groups []Group) (snapshot, classify []byte, left []Left, err error) {
	in := slices.Clone(groups)
	for {
		refused := map[string][]string{}
		snapshot, err = encodeSnapshot(in)
		if err == nil {
			classify = Classification(in, left)
			_, err = gen.Generate(gen.Input{SnapshotFile: SnapshotFile, Snapshot: snapshot, ClassifyFile: ClassifyFile, Classify: classify}, gen.Options{Package: Package})
		}
		if err == nil {
			return snapshot, classify, left, nil
		}
		var diags gen.Diagnostics
		if !errors.As(err, &diags) {
			return nil, nil, nil, err
		}
		for _, d := range diags {
			if d.Severity != gen.SeverityError {
				continue
			}
			if d.Tool == "" {
				return nil, nil, nil, err
			}
			refused[d.Tool] = append(refused[d.Tool], toolPointer(d.Pointer)+": "+d.Msg)
		}
		in = slices.DeleteFunc(in, func(g Group) bool {
			if why, ok := refused[g.Tool]; ok {
				left = append(left, Left{Tool: g.Tool, File: g.File, Index: g.Index, Diagnostics: why})
				return true
			}
			return false
		})
		sort.Slice(left, func(i, j int) bool { return left[i].Tool < left[j].Tool })
	}
}

// toolPointer returns ptr, a pointer into the snapshot
// ("/tools/3/inputSchema/..."), from the tool's object ("/inputSchema/..."):
// the tool's index is that of a snapshot that is not the one written.
func toolPointer(ptr string) string {
	rest, ok := strings.CutPrefix(ptr, "/tools/")
	if !ok {
		return ptr
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return rest[i:]
	}
	return ""
}

// Left is a group the generator refuses.
type Left struct {
	Tool  string
	File  string
	Index int
	// Diagnostics are the generator's errors: "POINTER: MESSAGE", the
	// pointer into the tool's object.
	Diagnostics []string
}

// encodeSnapshot returns the snapshot file of groups: one tool per group,
// its description the file and the group's description.
func encodeSnapshot(groups []Group) ([]byte, error) {
	tools := make([]json.RawMessage, len(groups))
	for i, g := range groups {
		name, _ := json.Marshal(g.Tool)
		desc, _ := json.Marshal(g.File + ": " + g.Description)
		tools[i] = json.RawMessage(`{"name":` + string(name) + `,"description":` + string(desc) + `,"inputSchema":` + string(g.Input) + `}`)
	}
	return gen.EncodeSnapshot(SnapshotFile, Server, Source, tools)
}

// Classification returns the classification file of groups: every tool a
// read at the visitor tier with the scope suite.read and no resource. The
// groups left out are listed in a comment.
func Classification(groups []Group, left []Left) []byte {
	var b strings.Builder
	b.WriteString(`# Generated by e2e/suite/internal/mksuite (go generate ./e2e/suite). DO NOT EDIT.
#
# Every tool of the suite is a read: a read takes the argument path of a
# write (parse, validate, decode, re-encode, forward) without the confirm,
# which does not touch the arguments, so the test needs no second peer.
`)
	if len(left) > 0 {
		b.WriteString("#\n# Left out, the generator refusing them:\n")
		for _, l := range left {
			for _, d := range l.Diagnostics {
				fmt.Fprintf(&b, "#   %s (%s group %d): %s\n", l.Tool, l.File, l.Index, strings.ReplaceAll(d, "\n", " "))
			}
		}
	}
	b.WriteString(`version: 1
tiers: [anonymous, visitor, member]
default: {tier: member, failure: "The suite server could not do that."}
tools:
`)
	for _, g := range groups {
		fmt.Fprintf(&b, "  %s: {access: read, tier: visitor, scopes: [suite.read]}\n", g.Tool)
	}
	return []byte(b.String())
}

// The files go generate writes in e2e/suite.
const (
	SnapshotFile = "suite.tools.json"
	ClassifyFile = "suite.ocp.yaml"
	// Package is the generated package's name, and its directory.
	Package = "suiteocp"
)
