package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/schemakw"
	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/impl"
	"github.com/ocpgen/ocpgen/internal/invisible"
	"github.com/ocpgen/ocpgen/internal/tmpl"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// Build makes the model of the package generated from a snapshot and an
// optional classification (nil: every tool is an unclassified write). The
// list holds warnings, and errors when the package cannot be generated; the
// package is nil when it holds an error.
//
// Every tool's policy is [ResolvePolicy]'s; a tool the classification does
// not list also gets a warning (code diag.CodeUnclassified) and is in
// Package.Unclassified. A tool that can only be called as an MCP task
// (execution.taskSupport "required") is left out, with a warning (code
// diag.CodeTaskRequired), and is in Package.TaskRequired; one whose task
// support is "optional" is generated and called synchronously. Templates are then bound to the arguments:
//
//   - Without a confirm prompt the prompt is
//     `Run write tool "<name>" with arguments <the arguments as JSON>`.
//   - A placeholder must name a top-level property of the input schema. A
//     resource placeholder must name a scalar (string, integer, number,
//     boolean, string enum) or an array of scalars (one resource per
//     element). An absent optional argument, a null, or an empty array fails
//     closed at run time: the gate cannot render the resource, and answers
//     forbidden.
func Build(s *load.Snapshot, c *load.Classification, pkgName string) (*Package, diag.List) {
	var diags diag.List
	if s == nil {
		return nil, diag.List{{Severity: diag.Error, Msg: "no snapshot"}}
	}
	if pkgName == "main" {
		return nil, diag.List{{Severity: diag.Error, File: s.File, Msg: "the generated package cannot be package main: Hub code imports it; name its directory (or -package) after the package"}}
	}
	if !isGoPackageName(pkgName) {
		return nil, diag.List{{Severity: diag.Error, File: s.File, Msg: fmt.Sprintf("%q is not a valid Go package name: name the output directory as a Go package, or set -package", pkgName)}}
	}
	p := &Package{Name: pkgName, Server: s.Server.Name}
	if s.Server.Version != "" {
		p.Server += " " + s.Server.Version
	}
	p.Inputs = append(p.Inputs, Input{File: baseName(s.File), Digest: s.Digest})
	entries := map[string]*load.Entry{}
	if c != nil {
		p.Inputs = append(p.Inputs, Input{File: baseName(c.File), Digest: c.Digest})
		p.Tiers = slices.Clone(c.Tiers)
		for _, e := range c.Tools {
			entries[e.Name] = e
		}
	} else if len(s.Tools) > 0 {
		diags = append(diags, diag.Diagnostic{Severity: diag.Warning, Code: diag.CodeNoClassification, File: s.File,
			Msg: "no classification file: every tool is a write at the default tier, and no tier is authorized"})
	}

	var tools []*load.Tool
	for _, t := range s.Tools {
		if hidden := invisibleRunes(t.Name); hidden != "" {
			diags = append(diags, diag.Diagnostic{Severity: diag.Warning, Code: diag.CodeInvisibleName, File: s.File, Tool: t.Name,
				Pointer: t.Pointer("name"),
				Msg:     "the name holds characters a reader cannot see (" + hidden + "): it can read as another tool's name; ocpgen init writes them as \\u escapes"})
		}
		if !impl.CallableWithoutTask(t.TaskSupport) {
			p.TaskRequired = append(p.TaskRequired, t.Name)
			diags = append(diags, diag.Diagnostic{Severity: diag.Warning, Code: diag.CodeTaskRequired, File: s.File, Tool: t.Name,
				Pointer: t.Pointer("execution", "taskSupport"),
				Msg:     `execution.taskSupport is "required": the tool can only be called as an MCP task, which the runtime's go-sdk client cannot do, so it is left out of the catalogue (never advertised, never confirmed)`})
			continue
		}
		tools = append(tools, t)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	sort.Strings(p.TaskRequired)
	cands := make([]candidate, len(tools))
	for i, t := range tools {
		mt := &Tool{Name: t.Name, Index: t.Index, Title: t.Title, Description: t.Description}
		p.Tools = append(p.Tools, mt)
		cands[i] = candidate{ident: Ident(t.Name), source: t.Name, out: &mt.GoName}
	}
	resolve(cands, map[string]bool{"Catalogue": true})

	nodes := 0 // sub-schemas mapped so far, against load.MaxSchemaNodes
	for i, t := range tools {
		mt := p.Tools[i]
		if c != nil && entries[t.Name] == nil {
			p.Unclassified = append(p.Unclassified, t.Name)
			diags = append(diags, diag.Diagnostic{Severity: diag.Warning, Code: diag.CodeUnclassified, File: c.File, Tool: t.Name,
				Msg: "not classified: it is a write at the default tier"})
		}
		diags = append(diags, buildTool(mt, t, s.File, c, &nodes)...)
		if nodes > load.MaxSchemaNodes {
			diags = append(diags, diag.Diagnostic{Severity: diag.Error, File: s.File, Tool: t.Name, Pointer: t.Pointer(),
				Msg: fmt.Sprintf("the snapshot's schemas hold more than the limit of %d sub-schemas in all; this tool reaches it", load.MaxSchemaNodes)})
			break
		}
	}
	if len(p.Tools) > 0 {
		diags = append(diags, diag.Diagnostic{Severity: diag.Warning, Code: diag.CodeRefusedEverywhere, File: s.File,
			Msg: `in every tool's arguments, whatever its schema allows, the gate refuses a string or key holding a lone surrogate escape ("\ud800"), and a number literal longer than 128 bytes, with an exponent beyond ±1000 or beyond float64's range (docs/generated-code.md, Fidelity)`})
	}
	if diags.Err() != nil {
		diags.Sort()
		return nil, diags
	}
	diags = append(diags, assignFiles(p)...)
	diags = append(diags, uniquePackageNames(p)...)
	for _, t := range p.Tools {
		for _, d := range t.Decls {
			var def string
			var doc *[]string
			switch x := d.(type) {
			case *Struct:
				def, doc = x.def, &x.Doc
			case *Enum:
				def, doc = x.def, &x.Doc
			case *Union:
				def, doc = x.def, &x.Doc
			}
			if def != "" {
				head := []string{fmt.Sprintf("%s is the schema's definition %q.", d.DeclName(), def)}
				if strings.HasPrefix(def, "#") {
					head = []string{fmt.Sprintf("%s is the schema at %q, which a $ref points to.", d.DeclName(), def)}
				}
				if len(*doc) > 0 {
					head = append(head, "")
				}
				*doc = append(head, *doc...)
			}
		}
	}
	for _, t := range p.Tools {
		describe(t.Args)
		if t.Result != nil {
			describe(t.Result)
		}
		// Types that already had a doc comment (definitions with a
		// description) still describe what they contain.
		for _, d := range t.Decls {
			switch x := d.(type) {
			case *Struct:
				describe(x)
			case *Union:
				describeUses(func(yield func(Type, string)) {
					for _, br := range x.Branches {
						yield(br.Type, x.Name+"."+br.GoName)
					}
				})
			}
		}
	}
	diags.Sort()
	if diags.Err() != nil {
		return nil, diags
	}
	p.Warnings = diags
	p.Digest = p.digest()
	return p, diags
}

func baseName(f string) string {
	return path.Base(filepath.ToSlash(f))
}

func isGoPackageName(s string) bool {
	if s == "" || s == "_" || !(isLower(s[0]) || isUpper(s[0]) || s[0] == '_') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLower(c) && !isUpper(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return !goKeywords[s]
}

var goKeywords = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true,
	"goto": true, "if": true, "import": true, "interface": true, "map": true, "package": true,
	"range": true, "return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true,
}

func buildTool(mt *Tool, t *load.Tool, snapFile string, c *load.Classification, nodes *int) diag.List {
	var diags diag.List
	canon := t.InputSchemaCanonical // the loader's
	mt.CanonicalSchema = canon
	var err error
	if mt.Fingerprint, err = schemaFingerprint(t); err != nil {
		return diag.List{{Severity: diag.Error, File: snapFile, Tool: t.Name, Pointer: t.Pointer("inputSchema"),
			Msg: fmt.Sprintf("input schema: %v (an MCP client reads schema numbers as float64)", err)}}
	}
	if err := resolvable(t, canon); err != nil {
		return diag.List{{Severity: diag.Error, File: snapFile, Tool: t.Name, Pointer: t.Pointer("inputSchema"),
			Msg: err.Error()}}
	}
	if t.OutputSchemaRaw != nil {
		// The gate validates structured results against it; a schema it
		// could not resolve leaves results unchecked, which is said.
		out := t.OutputSchemaCanonical // the loader's
		if resolvesLike(t.OutputSchemaRaw, t.OutputSchema, out, t.OutputSchemaKeysDistinct, false) == nil {
			mt.CanonicalOutputSchema = out
		} else {
			diags = append(diags, diag.Diagnostic{Severity: diag.Warning, File: snapFile, Tool: t.Name, Pointer: t.Pointer("outputSchema"),
				Msg: "output schema cannot be resolved, so the gate will not validate this tool's structured results"})
		}
	}
	if a := t.Annotations; a != nil {
		mt.Hints = Hints{Title: a.Title, ReadOnly: a.ReadOnlyHint, Destructive: a.DestructiveHint, Idempotent: a.IdempotentHint, OpenWorld: a.OpenWorldHint}
	}
	mt.TaskSupport = t.TaskSupport
	diags = append(diags, liveFingerprints(mt, t, snapFile)...)

	// Types.
	sb := &schemaBuilder{file: snapFile, tool: t.Name, root: t.InputSchema, rootRaw: t.InputSchemaRaw, building: map[*Struct]bool{}, total: nodes, input: true}
	mt.Args = sb.topLevel(t, "inputSchema", mt.GoName+"Args")
	mt.Args.Doc = []string{fmt.Sprintf("%sArgs are the arguments of the MCP tool %q.", mt.GoName, t.Name)}
	diags = append(diags, sb.refusals(t.Pointer("inputSchema"))...)
	if t.OutputSchema != nil {
		sb.root, sb.rootRaw, sb.input, sb.rawDoc, sb.rawDone = t.OutputSchema, t.OutputSchemaRaw, false, nil, false
		mt.Result = sb.topLevel(t, "outputSchema", mt.GoName+"Result")
		mt.Result.Doc = []string{fmt.Sprintf("%sResult is the structured result of the MCP tool %q, as its output schema describes it.", mt.GoName, t.Name)}
	}
	mt.Decls = sb.decls
	diags = append(diags, sb.warns...)

	// Policy.
	r := ResolvePolicy(t.Name, c)
	mt.Kind, mt.Classified, mt.Policy = r.Kind, r.Classified, r.Policy
	pol := &mt.Policy
	classFile := ""
	if c != nil {
		classFile = c.File
	}
	errAt := func(pos load.Pos, format string, args ...any) {
		diags = append(diags, diag.Diagnostic{Severity: diag.Error, File: classFile, Line: pos.Line, Col: pos.Col,
			Tool: t.Name, Msg: fmt.Sprintf(format, args...)})
	}

	// Resource template (the tool's name, escaped, when the classification
	// sets none: it parses to that one literal).
	pol.ResourceSegments = bindSegments(mt.Args, pol.Resource, "resource template", "resource", r.resourcePos, errAt, func(f *Field) (ocpimpl.BindMode, string) {
		if mode := bindMode(f.Type); mode != ocpimpl.BindText {
			return mode, ""
		}
		return 0, "names a property that is not a scalar (string, integer, number, boolean, string enum) or an array of scalars"
	})
	var arrays []string
	for _, sg := range pol.ResourceSegments {
		if sg.Mode == ocpimpl.BindEach || sg.Mode == ocpimpl.BindNullableEach {
			arrays = append(arrays, "{"+sg.Field.JSONName+"}")
		}
	}
	if len(arrays) > 1 {
		diags = append(diags, diag.Diagnostic{Severity: diag.Warning, File: classFile, Line: r.resourcePos.Line, Col: r.resourcePos.Col, Tool: t.Name,
			Msg: fmt.Sprintf("resource template has %d array placeholders (%s): a call renders the product of their lengths, and the gate refuses a call beyond its resource limit (ocp.Config.MaxResources) as invalid", len(arrays), strings.Join(arrays, ", "))})
	}

	// Confirm prompt.
	if pol.ConfirmPrompt == "" {
		pol.PromptSegments = []Segment{
			{Mode: ocpimpl.BindText, Text: fmt.Sprintf("Run %s tool %q with arguments ", mt.Kind, t.Name)},
			{Mode: ocpimpl.BindAll},
		}
	} else {
		pol.PromptSegments = bindSegments(mt.Args, pol.ConfirmPrompt, "confirm prompt", "confirm prompt", r.promptPos, errAt, func(*Field) (ocpimpl.BindMode, string) {
			return ocpimpl.BindJSON, ""
		})
	}
	return diags
}

// bindSegments parses a classification template, src, and binds each of
// its placeholders to the argument property it names, in the mode bind
// gives that property (or refuses it with the reason bind returns). A parse
// error is reported as "<what>: …", a placeholder's as "<placeholder>
// placeholder {name} …", both at pos; a placeholder that fails is left out.
func bindSegments(args *Struct, src, what, placeholder string, pos load.Pos, errAt func(load.Pos, string, ...any), bind func(*Field) (ocpimpl.BindMode, string)) []Segment {
	segs, err := tmpl.Parse(src)
	if err != nil {
		errAt(pos, "%s: %v", what, err)
	}
	var out []Segment
	for _, sg := range segs {
		if sg.Placeholder == "" {
			out = append(out, Segment{Mode: ocpimpl.BindText, Text: sg.Text})
			continue
		}
		f := args.field(sg.Placeholder)
		if f == nil {
			errAt(pos, "%s placeholder {%s} names no property of the input schema%s", placeholder, sg.Placeholder, args.propertyList())
			continue
		}
		mode, why := bind(f)
		if why != "" {
			errAt(pos, "%s placeholder {%s} %s", placeholder, sg.Placeholder, why)
			continue
		}
		out = append(out, Segment{Mode: mode, Field: f})
	}
	return out
}

// resolvable checks that the runtime can use a canonical input schema: the
// gate resolves every generated schema exactly so (ocp.NewGate), and a
// generated package whose gate cannot start would take every other tool down
// with it. A $ref to anything outside the schema fails here: ocpgen and the
// runtime never fetch a schema (no loader is given), so a remote $ref is
// never followed.
//
// The schema the runtime resolves is canon parsed. When no object of the
// input schema has two keys that encoding/json matches to the same field
// (the loader's t.InputSchemaKeysDistinct, else foldDistinct), that is the
// loaded schema, t.InputSchema, up to the bytes of "default" values, which
// only matter to a $ref that points into one, an error either way: the
// loaded schema is resolved as it is (Resolve does not change it), and
// canon is parsed only when that fails, so that the error says what the
// runtime would.
func resolvable(t *load.Tool, canon []byte) error {
	return resolvesLike(t.InputSchemaRaw, t.InputSchema, canon, t.InputSchemaKeysDistinct, true)
}

// schemaFingerprint is canon.SchemaFingerprint of t's canonical input
// schema. SchemaFingerprint writes it again with every number as its
// float64; when the loader's canonical writer found every number already
// written so (t.InputSchemaFloat64s), that gives the canonical schema back,
// and the fingerprint is its own (TestSchemaFingerprint).
func schemaFingerprint(t *load.Tool) (string, error) {
	if t.InputSchemaFloat64s {
		return canon.Fingerprint(t.InputSchemaCanonical), nil
	}
	return canon.SchemaFingerprint(t.InputSchemaCanonical)
}

// resolvesLike is resolvable for any schema: raw as loaded, s its parse,
// canon its canonical form and distinct the loader's report that no two
// keys of one schema object fill the same field (load.Tool's
// InputSchemaKeysDistinct); foldDistinct decides it when the loader does
// not know. The output schema takes the same path, so that it too is
// parsed once, not again from its canonical form.
//
// Under anyPattern (input schemas), a pattern Go's regexp cannot parse does
// not count: jsonschema-go compiles patterns with it when it resolves a
// schema, but the gate matches them with their ECMA-262 meaning
// (internal/ecmare), and a pattern with none it can match makes only its
// tool fail closed, with a warning (diag.CodePatternUntranslatable). Such
// patterns are replaced, in a parse of canon of the generator's own,
// before that parse is resolved. An output schema with one still does not
// resolve: the gate would not validate results against it.
func resolvesLike(raw []byte, s *jsonschema.Schema, canon []byte, distinct, anyPattern bool) error {
	if s != nil && (distinct || foldDistinct(raw)) {
		if resolvesTrivially(s) {
			return nil
		}
		if _, err := s.Resolve(nil); err == nil {
			return nil
		}
	}
	return resolveCanonical(canon, anyPattern)
}

// resolvesTrivially reports whether s.Resolve(nil) certainly succeeds,
// without it: s, a tree as parsed (no schema appears twice), has no nil
// sub-schema, no $id, $anchor, $dynamicAnchor, $dynamicRef or
// $vocabulary, nothing jsonschema-go's basic checks refuse, patterns that
// Go's regexp compiles (as Resolve compiles them), and only $refs to the
// root ("#") or to one of its $defs or definitions by a plain name
// ("#/$defs/Name": letters, digits, '_', '-', '.'). Resolve then finds no
// URI or anchor, resolves each such $ref to the root or the definition,
// and succeeds. TestResolvesTrivially compares it with Resolve.
func resolvesTrivially(s *jsonschema.Schema) bool {
	return trivialIn(s, s)
}

func trivialIn(root, s *jsonschema.Schema) bool {
	if s == nil || s.ID != "" || s.Anchor != "" || s.DynamicAnchor != "" || s.DynamicRef != "" ||
		s.Vocabulary != nil || len(s.PropertyOrder) > 0 || schemakw.HasUnknown(s) {
		return false
	}
	if s.Ref != "" && !localDefRef(root, s.Ref) {
		return false
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			return false
		}
	}
	for re := range s.PatternProperties {
		if _, err := regexp.Compile(re); err != nil {
			return false
		}
	}
	if !basicChecks(s) {
		return false
	}
	return schemakw.Children(s, false, func(c schemakw.Sub) bool { return trivialIn(root, c.Schema) })
}

// localDefRef reports whether ref is "#", or "#/$defs/Name" or
// "#/definitions/Name" with Name plain (letters, digits, '_', '-', '.')
// and a definition of root.
func localDefRef(root *jsonschema.Schema, ref string) bool {
	if ref == "#" {
		return true
	}
	var defs map[string]*jsonschema.Schema
	var name string
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		defs, name = root.Defs, ref[len("#/$defs/"):]
	case strings.HasPrefix(ref, "#/definitions/"):
		defs, name = root.Definitions, ref[len("#/definitions/"):]
	default:
		return false
	}
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isLower(c) && !isUpper(c) && !isDigit(c) && c != '_' && c != '-' && c != '.' {
			return false
		}
	}
	return defs[name] != nil
}

// resolveCanonical parses and resolves a canonical input schema as the
// runtime does; under anyPattern, the patterns Go's regexp cannot parse are
// replaced first (see resolvesLike).
func resolveCanonical(canon []byte, anyPattern bool) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(canon, &s); err != nil {
		return fmt.Errorf("input schema: %v", err)
	}
	if anyPattern {
		n := 0
		neutralisePatterns(&s, &n)
	}
	if _, err := s.Resolve(nil); err != nil {
		if strings.Contains(err.Error(), "cannot resolve remote schemas") {
			return fmt.Errorf("input schema refers to a schema outside itself, which is never fetched: %v", err)
		}
		return fmt.Errorf("input schema cannot be used to validate calls: %v", err)
	}
	return nil
}

// neutralisePatterns replaces, in s and every sub-schema, each pattern
// and patternProperties key that Go's regexp cannot parse by one it can
// (a pattern matching nothing, distinct per key: n counts them), so that
// resolving s checks everything else. s is the generator's own parse.
func neutralisePatterns(s *jsonschema.Schema, n *int) {
	if s == nil {
		return
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			s.Pattern = `[^\x00-\x{10FFFF}]`
		}
	}
	for _, re := range slices.Sorted(maps.Keys(s.PatternProperties)) {
		if _, err := regexp.Compile(re); err != nil {
			sub := s.PatternProperties[re]
			delete(s.PatternProperties, re)
			for {
				*n++
				k := fmt.Sprintf(`[^\x00-\x{10FFFF}]{%d}`, *n)
				if _, taken := s.PatternProperties[k]; !taken {
					s.PatternProperties[k] = sub
					break
				}
			}
		}
	}
	schemakw.Children(s, false, func(c schemakw.Sub) bool {
		neutralisePatterns(c.Schema, n)
		return true
	})
}

// escapeTemplate escapes literal braces for display as a template.
func escapeTemplate(s string) string {
	return templateEscaper.Replace(s)
}

var templateEscaper = strings.NewReplacer("{", "{{", "}", "}}")

// bindMode returns how a field renders as a resource placeholder,
// ocpimpl.BindText when it cannot.
func bindMode(t Type) ocpimpl.BindMode {
	switch x := t.(type) {
	case Scalar, *Enum:
		return ocpimpl.BindValue
	case Pointer:
		if IsScalar(x.Elem) {
			return ocpimpl.BindOptional
		}
	case Nullable:
		if IsScalar(x.Elem) {
			return ocpimpl.BindNullable
		}
		if s, ok := x.Elem.(Slice); ok && IsScalar(s.Elem) {
			return ocpimpl.BindNullableEach
		}
	case Slice:
		if IsScalar(x.Elem) {
			return ocpimpl.BindEach
		}
	}
	return ocpimpl.BindText
}

// field returns the field of a JSON property, nil if none.
func (s *Struct) field(jsonName string) *Field {
	for _, f := range s.Fields {
		if f.JSONName == jsonName {
			return f
		}
	}
	return nil
}

// propertyList is ` (properties: a, b)` or ` (it has none)`.
func (s *Struct) propertyList() string {
	if len(s.Fields) == 0 {
		return " (it has none)"
	}
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.JSONName
	}
	return " (properties: " + strings.Join(names, ", ") + ")"
}

// topLevel maps a tool's input or output schema to its top-level struct. A
// schema that is not an object gives a struct without fields and a warning;
// the runtime still validates every call against the schema.
func (b *schemaBuilder) topLevel(t *load.Tool, key, name string) *Struct {
	ptr := t.Pointer(key)
	b.rootPtr, b.prefix, b.defs, b.refs = ptr, name, map[string]mapped{}, nil
	s := b.root
	if s.Ref != "" {
		if r, reason := b.deref(s); reason == "" {
			s = r
		}
	}
	if len(s.AllOf) > 0 {
		if m, reason := b.mergeAllOf(s); reason == "" {
			s = m
		}
	}
	if !objectish(s) || len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		b.warn(ptr, "%s is not a plain object schema: %s has no fields", key, name)
		st := &Struct{Name: name, Pointer: ptr}
		b.decls = append(b.decls, st)
		return st
	}
	b.pendingRef = "#"
	return b.object(s, ptr, name, true)
}

// assignFiles names each tool's file: the tool's snake_case name, with
// "_tool" appended when the plain name would be special to the go command
// (a _test suffix, an OS or architecture suffix) or clash with doc.go or
// catalogue.go. File names are compared case-insensitively.
func assignFiles(p *Package) diag.List {
	used := map[string]bool{"doc.go": true, "catalogue.go": true}
	for _, t := range p.Tools {
		base := snake(t.GoName)
		if special(base) {
			base += "_tool"
		}
		f := base + ".go"
		if used[f] {
			f = base + "_" + shortHash(t.Name, 6) + ".go"
		}
		if used[f] {
			return diag.List{{Severity: diag.Error, Tool: t.Name, Msg: fmt.Sprintf("cannot choose a file name for the tool (%s is taken)", f)}}
		}
		used[f] = true
		t.File = f
	}
	return nil
}

var knownOS = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true,
	"hurd": true, "illumos": true, "ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true,
	"openbsd": true, "plan9": true, "solaris": true, "wasip1": true, "windows": true, "zos": true}

var knownArch = map[string]bool{"386": true, "amd64": true, "amd64p32": true, "arm": true, "armbe": true,
	"arm64": true, "arm64be": true, "loong64": true, "mips": true, "mipsle": true, "mips64": true,
	"mips64le": true, "mips64p32": true, "mips64p32le": true, "ppc": true, "ppc64": true, "ppc64le": true,
	"riscv": true, "riscv64": true, "s390": true, "s390x": true, "sparc": true, "sparc64": true, "wasm": true}

func special(base string) bool {
	parts := strings.Split(base, "_")
	last := parts[len(parts)-1]
	return base == "" || base == "doc" || base == "catalogue" || last == "test" || knownOS[last] || knownArch[last]
}

// uniquePackageNames makes every package-level identifier unique: tool
// variables first (they are the most visible), then named types, then enum
// constants. A clash is resolved by [resolve] with the tool name and JSON
// pointer (and value) as the source, so it does not depend on input order.
func uniquePackageNames(p *Package) diag.List {
	var cands []candidate
	reserved := map[string]bool{"Catalogue": true}
	for _, t := range p.Tools {
		cands = append(cands, candidate{ident: t.GoName, source: t.Name, rank: 0, out: &t.GoName})
	}
	for _, t := range p.Tools {
		for _, d := range t.Decls {
			switch x := d.(type) {
			case *Struct:
				rank := 2
				if x == t.Args || x == t.Result {
					rank = 1
				}
				cands = append(cands, candidate{ident: x.Name, source: t.Name + "#" + x.Pointer, rank: rank, out: &x.Name})
			case *Enum:
				cands = append(cands, candidate{ident: x.Name, source: t.Name + "#" + x.Name, rank: 2, out: &x.Name})
			case *Union:
				cands = append(cands, candidate{ident: x.Name, source: t.Name + "#" + x.Pointer, rank: 2, out: &x.Name})
			}
		}
	}
	resolve(cands, reserved)
	taken := map[string]bool{"Catalogue": true}
	for _, c := range cands {
		taken[*c.out] = true
	}
	var consts []candidate
	for _, t := range p.Tools {
		for _, d := range t.Decls {
			if e, ok := d.(*Enum); ok {
				for i := range e.Values {
					v := &e.Values[i]
					v.GoName = e.Name + v.GoName
					consts = append(consts, candidate{ident: v.GoName, source: t.Name + "#" + e.Name + "=" + v.Value, out: &v.GoName})
				}
			}
		}
	}
	resolve(consts, taken)
	return nil
}

// describe writes the doc comment of every nested named type reachable from
// st that has none, once names are final: "<Type> is the type of
// <Parent>.<Field>." (an element, a map value or an alternative of a union
// says so).
func describe(st *Struct) {
	type use struct {
		t     Type
		where string
	}
	var uses []use
	for _, f := range st.Fields {
		uses = append(uses, use{f.Type, st.Name + "." + f.GoName})
	}
	if st.Extra != nil {
		uses = append(uses, use{Map{st.Extra}, st.Name + "." + ExtraField})
	}
	describeUses(func(yield func(Type, string)) {
		for _, u := range uses {
			yield(u.t, u.where)
		}
	})
}

// describeUses describes the named types of each (type, where) pair.
func describeUses(each func(yield func(Type, string))) {
	each(func(ft Type, where string) {
		t, role := ft, "the type of"
		for {
			switch x := t.(type) {
			case Pointer:
				t = x.Elem
				continue
			case Nullable:
				t = x.Elem
				continue
			case Slice:
				t, role = x.Elem, "an element of"
				continue
			case Map:
				t, role = x.Elem, "a value of"
				continue
			}
			break
		}
		switch d := t.(type) {
		case *Struct:
			if d.Doc == nil {
				d.Doc = []string{fmt.Sprintf("%s is %s %s.", d.Name, role, where)}
				describe(d)
			}
		case *Enum:
			if d.Doc == nil {
				d.Doc = []string{fmt.Sprintf("%s is %s %s: one of the constants below.", d.Name, role, where)}
			}
		case *Union:
			if d.Doc == nil {
				d.Doc = []string{fmt.Sprintf("%s is %s %s.", d.Name, role, where)}
				describeUses(func(yield func(Type, string)) {
					for _, br := range d.Branches {
						yield(br.Type, d.Name+"."+br.GoName)
					}
				})
			}
		}
	})
}

// invisibleRunes lists the characters of name that invisible.Is reports,
// as "U+3164, U+034F", or "" when there are none.
func invisibleRunes(name string) string {
	var hidden []string
	for _, r := range name {
		if invisible.Is(r) {
			hidden = append(hidden, fmt.Sprintf("U+%04X", r))
		}
	}
	return strings.Join(hidden, ", ")
}

// liveFingerprints sets the fingerprints of t's icons and _meta, by which
// the gate compares them with the live tool's. One that cannot be taken
// (an icon that is not an object with a string src, a number beyond
// float64's range) is left out with a warning: the gate then audits the
// live tool's as drift.
func liveFingerprints(mt *Tool, t *load.Tool, snapFile string) diag.List {
	var diags diag.List
	for _, f := range []struct {
		key string
		raw []byte
		fp  func([]byte) (string, error)
		out *string
	}{
		{"icons", t.Icons, impl.IconsFingerprint, &mt.IconsFingerprint},
		{"_meta", t.Meta, impl.MetaFingerprint, &mt.MetaFingerprint},
	} {
		if f.raw == nil {
			continue
		}
		fp, err := f.fp(f.raw)
		if err != nil {
			diags = append(diags, diag.Diagnostic{Severity: diag.Warning, File: snapFile, Tool: t.Name, Pointer: t.Pointer(f.key),
				Msg: fmt.Sprintf("%v: left out of the descriptor, so the gate audits the live tool's %s as drift", err, f.key)})
			continue
		}
		*f.out = fp
	}
	return diags
}
