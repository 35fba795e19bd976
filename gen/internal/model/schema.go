package model

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/runtime"
)

// Type mapping rules. A JSON Schema becomes a Go type as follows; every rule
// that loses precision says so with a warning naming the tool and the JSON
// pointer, and falls back to json.RawMessage, which is lossless: the value
// the caller sent is forwarded as is, and the runtime validates it against
// the schema.
//
//   - An object with properties becomes a named struct. The top level is
//     <Tool>Args (<Tool>Result for an outputSchema); a nested object is named
//     after its path: the parent type's name plus the field's name
//     (<Tool>ArgsFilter), plus "Item" for array elements and "Value" for map
//     values. Only declared properties become fields: the gate rejects
//     undeclared top-level arguments, and the strict decoder rejects
//     undeclared nested ones.
//   - An object without properties whose additionalProperties is a schema
//     becomes map[string]T; a free-form object (no properties, open) becomes
//     map[string]json.RawMessage; a closed object without properties
//     (additionalProperties: false) becomes an empty struct.
//   - A string enum (or a string const) becomes a named string type with one
//     constant per value, <Type><Value>. An enum of other JSON types keeps
//     its base Go type and lists its values in the doc comment; an enum
//     mixing JSON types becomes json.RawMessage.
//   - string → string (formats are documented, not mapped); integer → int64,
//     or uint64 when format is uint, uint8, uint16, uint32 or uint64;
//     number → float64; boolean → bool.
//   - An array with items becomes []T; without items, []json.RawMessage;
//     a tuple (prefixItems or an items array) becomes json.RawMessage.
//   - A $ref into #/$defs or #/definitions is resolved (the referencing
//     description wins); a recursive $ref, or one that cannot be resolved,
//     becomes json.RawMessage.
//   - allOf of objects is merged (properties and required); a single-member
//     allOf is its member; any other allOf becomes json.RawMessage.
//   - anyOf/oneOf of one schema and {"type":"null"} is that schema, nullable;
//     any other anyOf/oneOf becomes json.RawMessage.
//   - {} / true / no type, a multi-type union other than [T, "null"], a
//     const of a non-string, and anything else unsupported become
//     json.RawMessage.
//   - "default" is mentioned in the field's doc comment and never applied:
//     the server applies its own defaults.
//
// Optionality ("required" of the parent, and null in the type):
//
//   - required, not nullable: T, no omitzero;
//   - required, nullable: *T (nil encodes null) for scalars, enums and
//     structs; slices, maps and json.RawMessage as they are (nil encodes
//     null); no omitzero;
//   - optional, not nullable: *T for scalars, enums and structs; slices,
//     maps and json.RawMessage as they are; all with omitzero, which drops
//     only an unset field and keeps an explicit [], {}, false, 0 or "";
//   - optional, nullable: runtime.Nullable[T] with omitzero (absent, null or
//     a value); json.RawMessage as it is (json.RawMessage("null") is null).

// schemaBuilder maps the schemas of one tool.
type schemaBuilder struct {
	file string
	tool string
	// root is the schema that $refs resolve against.
	root *jsonschema.Schema
	// refs is the stack of $refs being resolved (recursion check).
	refs  []string
	decls []Decl
	warns diag.List
	// steps counts mapSchema calls, against maxSteps.
	steps int
}

// maxSteps bounds the work on one tool's schemas: non-recursive $refs can
// still expand exponentially (a definition using another one twice, and so
// on), and the generator must not hang on a hostile snapshot.
const maxSteps = 100_000

func (b *schemaBuilder) warn(ptr, format string, args ...any) {
	b.warns = append(b.warns, diag.Diagnostic{
		Severity: diag.Warning, File: b.file, Tool: b.tool, Pointer: ptr,
		Msg: fmt.Sprintf(format, args...),
	})
}

// escapePointer escapes a JSON pointer token (RFC 6901).
func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func schemaJSON(s *jsonschema.Schema) string {
	if s == nil {
		return "true"
	}
	b, err := json.Marshal(s)
	if err != nil {
		return ""
	}
	return string(b)
}

func isTrueSchema(s *jsonschema.Schema) bool  { return s == nil || schemaJSON(s) == "true" }
func isFalseSchema(s *jsonschema.Schema) bool { return s != nil && schemaJSON(s) == "false" }

// deref resolves a $ref into the root's $defs or definitions. It returns the
// target and the ref pushed on the stack (pop with b.refs = b.refs[:n]), or
// a reason when it cannot.
func (b *schemaBuilder) deref(s *jsonschema.Schema) (*jsonschema.Schema, string) {
	ref := s.Ref
	if slices.Contains(b.refs, ref) {
		return nil, fmt.Sprintf("recursive $ref %q", ref)
	}
	if ref == "#" {
		return nil, `recursive $ref "#"`
	}
	var defs map[string]*jsonschema.Schema
	var name string
	switch {
	case strings.HasPrefix(ref, "#/$defs/"):
		defs, name = b.root.Defs, ref[len("#/$defs/"):]
	case strings.HasPrefix(ref, "#/definitions/"):
		defs, name = b.root.Definitions, ref[len("#/definitions/"):]
	default:
		return nil, fmt.Sprintf("$ref %q cannot be resolved (only #/$defs/… and #/definitions/… are)", ref)
	}
	name = strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
	t, ok := defs[name]
	if !ok || t == nil || strings.Contains(name, "/") {
		return nil, fmt.Sprintf("$ref %q cannot be resolved", ref)
	}
	return t, ""
}

// mapped is the result of mapping one schema.
type mapped struct {
	t        Type
	nullable bool
	// notes are extra doc lines for the field (fallback reasons, enum values).
	notes []string
}

func raw(note string) mapped { return mapped{t: Raw{}, notes: []string{note}} }

// fallback warns and returns json.RawMessage.
func (b *schemaBuilder) fallback(ptr, reason string) mapped {
	b.warn(ptr, "%s: mapped to json.RawMessage (kept exactly as sent)", reason)
	return raw("Any JSON value the schema accepts (" + reason + ").")
}

func typeList(s *jsonschema.Schema) []string {
	if s.Type != "" {
		return []string{s.Type}
	}
	return slices.Clone(s.Types)
}

func isNullSchema(s *jsonschema.Schema) bool {
	ts := typeList(s)
	return len(ts) == 1 && ts[0] == "null" && len(s.Properties) == 0 && s.Items == nil
}

func objectish(s *jsonschema.Schema) bool {
	ts := typeList(s)
	return (len(ts) == 1 && ts[0] == "object") || (len(ts) == 0 && len(s.Properties) > 0)
}

// mapSchema maps s (at JSON pointer ptr, relative to the tool object) to a
// Go type; name is the type name to use if s needs a named type.
func (b *schemaBuilder) mapSchema(s *jsonschema.Schema, ptr, name string) mapped {
	b.steps++
	if b.steps > maxSteps {
		if b.steps == maxSteps+1 {
			b.warn(ptr, "schema expands to more than %d sub-schemas: the rest are mapped to json.RawMessage", maxSteps)
		}
		return raw("Any JSON value the schema accepts (schema too large to map).")
	}
	if s == nil || isTrueSchema(s) {
		return b.fallback(ptr, "schema accepts any value")
	}
	if s.Ref != "" {
		t, reason := b.deref(s)
		if reason != "" {
			return b.fallback(ptr, reason)
		}
		b.refs = append(b.refs, s.Ref)
		m := b.mapSchema(t, ptr, name)
		b.refs = b.refs[:len(b.refs)-1]
		if nullableExtra(s) {
			m.nullable = true
		}
		return m
	}
	if len(s.AllOf) > 0 {
		merged, reason := b.mergeAllOf(s)
		if reason != "" {
			return b.fallback(ptr+"/allOf", reason)
		}
		return b.mapSchema(merged, ptr, name)
	}
	if alts := slices.Concat(s.AnyOf, s.OneOf); len(alts) > 0 {
		key := "/anyOf"
		if len(s.OneOf) > 0 {
			key = "/oneOf"
		}
		var rest []*jsonschema.Schema
		null := false
		for _, a := range alts {
			if a != nil && isNullSchema(a) {
				null = true
			} else {
				rest = append(rest, a)
			}
		}
		if len(rest) != 1 || len(typeList(s)) > 0 || len(s.Properties) > 0 || (len(s.AnyOf) > 0 && len(s.OneOf) > 0) {
			return b.fallback(ptr+key, "anyOf/oneOf is not supported")
		}
		m := b.mapSchema(rest[0], fmt.Sprintf("%s%s/%d", ptr, key, slices.Index(alts, rest[0])), name)
		m.nullable = m.nullable || null
		return m
	}
	if s.Const != nil {
		if str, ok := (*s.Const).(string); ok {
			return b.enum([]string{str}, false, name)
		}
		return b.fallback(ptr+"/const", "const of a non-string value")
	}

	types := typeList(s)
	nullable := nullableExtra(s)
	if i := slices.Index(types, "null"); i >= 0 {
		nullable = true
		types = slices.Delete(types, i, i+1)
	}
	if len(types) == 0 {
		switch {
		case len(s.Properties) > 0 || s.AdditionalProperties != nil:
			types = []string{"object"}
		case s.Items != nil:
			types = []string{"array"}
		case len(s.Enum) > 0:
			types = enumTypes(s.Enum)
		}
	}
	switch len(types) {
	case 0:
		return b.fallback(ptr, "schema has no type")
	case 1:
	default:
		return b.fallback(ptr+"/type", fmt.Sprintf("multi-type union %v", types))
	}
	m := b.mapTyped(s, types[0], ptr, name)
	m.nullable = m.nullable || nullable
	return m
}

// nullableExtra reports the OpenAPI 3.0 form "nullable": true.
func nullableExtra(s *jsonschema.Schema) bool {
	v, ok := s.Extra["nullable"].(bool)
	return ok && v
}

// enumTypes returns the JSON types of enum values, "null" left out.
func enumTypes(vs []any) []string {
	set := map[string]bool{}
	for _, v := range vs {
		switch v.(type) {
		case string:
			set["string"] = true
		case bool:
			set["boolean"] = true
		case float64, json.Number, int, int64:
			set["number"] = true
		case nil:
		default:
			set["object"] = true
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (b *schemaBuilder) mapTyped(s *jsonschema.Schema, typ, ptr, name string) mapped {
	var m mapped
	switch typ {
	case "string":
		if len(s.Enum) > 0 {
			var vals []string
			null := false
			for _, v := range s.Enum {
				switch x := v.(type) {
				case string:
					vals = append(vals, x)
				case nil:
					null = true
				default:
					return b.fallback(ptr+"/enum", "enum mixes JSON types")
				}
			}
			return b.enum(vals, null, name)
		}
		m.t = Scalar{String}
		if s.Format != "" {
			m.notes = append(m.notes, fmt.Sprintf("Format: %s.", s.Format))
		}
	case "integer":
		m.t = Scalar{Int64}
		switch s.Format {
		case "uint", "uint8", "uint16", "uint32", "uint64":
			m.t = Scalar{Uint64}
		}
		m.notes = enumNote(s.Enum)
	case "number":
		m.t = Scalar{Float64}
		m.notes = enumNote(s.Enum)
	case "boolean":
		m.t = Scalar{Bool}
		m.notes = enumNote(s.Enum)
	case "array":
		switch {
		case len(s.PrefixItems) > 0 || len(s.ItemsArray) > 0:
			return b.fallback(ptr, "tuple arrays are not supported")
		case s.Items == nil:
			m.t = Slice{Raw{}}
		default:
			e := b.mapSchema(s.Items, ptr+"/items", name+"Item")
			m.t = Slice{elemType(e)}
			m.notes = e.notes
		}
	case "object":
		switch {
		case len(s.Properties) > 0 || isFalseSchema(s.AdditionalProperties):
			st := b.object(s, ptr, name)
			m.t = st
		case s.AdditionalProperties != nil && !isTrueSchema(s.AdditionalProperties):
			e := b.mapSchema(s.AdditionalProperties, ptr+"/additionalProperties", name+"Value")
			m.t = Map{elemType(e)}
			m.notes = e.notes
		default:
			m.t = Map{Raw{}}
			m.notes = []string{"Any JSON object."}
		}
	case "null":
		return b.fallback(ptr, "type null")
	default:
		return b.fallback(ptr+"/type", fmt.Sprintf("unknown type %q", typ))
	}
	return m
}

// elemType is the Go type of an array element or map value: a nullable
// scalar, enum or struct element becomes a pointer.
func elemType(e mapped) Type {
	if !e.nullable {
		return e.t
	}
	switch e.t.(type) {
	case Scalar, *Enum, *Struct:
		return Pointer{e.t}
	}
	return e.t
}

func enumNote(vs []any) []string {
	if len(vs) == 0 {
		return nil
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		j, _ := json.Marshal(v)
		parts[i] = string(j)
	}
	return []string{"One of: " + strings.Join(parts, ", ") + "."}
}

// enum declares a named string type with one constant per value.
func (b *schemaBuilder) enum(vals []string, null bool, name string) mapped {
	e := &Enum{Name: name}
	seen := map[string]bool{}
	var cands []candidate
	for _, v := range vals {
		if seen[v] {
			continue
		}
		seen[v] = true
		e.Values = append(e.Values, EnumValue{Value: v})
	}
	sort.Slice(e.Values, func(i, j int) bool { return e.Values[i].Value < e.Values[j].Value })
	for i := range e.Values {
		v := &e.Values[i]
		cands = append(cands, candidate{ident: identPart(v.Value), source: v.Value, out: &v.GoName})
	}
	resolve(cands, nil)
	b.decls = append(b.decls, e)
	return mapped{t: e, nullable: null}
}

// mergeAllOf merges an allOf of objects into one object schema.
func (b *schemaBuilder) mergeAllOf(s *jsonschema.Schema) (*jsonschema.Schema, string) {
	m := *s
	m.AllOf = nil
	if len(s.AllOf) == 1 && len(typeList(s)) == 0 && len(s.Properties) == 0 && s.Ref == "" {
		sub := s.AllOf[0]
		if sub == nil {
			return nil, "empty allOf member"
		}
		if sub.Ref != "" {
			t, reason := b.deref(sub)
			if reason != "" {
				return nil, reason
			}
			sub = t
		}
		c := *sub
		if s.Description != "" {
			c.Description = s.Description
		}
		if s.Default != nil {
			c.Default = s.Default
		}
		return &c, ""
	}
	if len(typeList(s)) > 0 && !objectish(s) {
		return nil, "allOf of a non-object"
	}
	m.Type, m.Types = "object", nil
	m.Properties = map[string]*jsonschema.Schema{}
	for k, v := range s.Properties {
		m.Properties[k] = v
	}
	m.Required = slices.Clone(s.Required)
	for _, sub := range s.AllOf {
		if sub == nil {
			return nil, "empty allOf member"
		}
		if sub.Ref != "" {
			t, reason := b.deref(sub)
			if reason != "" {
				return nil, reason
			}
			sub = t
		}
		if !objectish(sub) || len(sub.AllOf) > 0 || len(sub.AnyOf) > 0 || len(sub.OneOf) > 0 {
			return nil, "allOf of a non-object (or nested composition)"
		}
		for k, v := range sub.Properties {
			if prev, ok := m.Properties[k]; ok && schemaJSON(prev) != schemaJSON(v) {
				return nil, fmt.Sprintf("allOf members disagree on property %q", k)
			}
			m.Properties[k] = v
		}
		m.Required = append(m.Required, sub.Required...)
		if isFalseSchema(sub.AdditionalProperties) {
			m.AdditionalProperties = sub.AdditionalProperties
		}
	}
	return &m, ""
}

// object declares the struct of an object schema.
func (b *schemaBuilder) object(s *jsonschema.Schema, ptr, name string) *Struct {
	st := &Struct{Name: name, Pointer: ptr}
	b.decls = append(b.decls, st)
	if s.AdditionalProperties != nil && !isFalseSchema(s.AdditionalProperties) && len(s.Properties) > 0 {
		b.warn(ptr+"/additionalProperties", "additionalProperties is ignored: only the declared properties are accepted")
	}
	props := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		if !validTagName(k) {
			msg := "property name cannot be a JSON struct tag: the property is left out, and calls that set it are refused"
			if slices.Contains(s.Required, k) {
				msg += "; it is required, so no call can succeed"
			}
			b.warn(ptr+"/properties/"+escapePointer(k), "%s", msg)
			continue
		}
		props = append(props, k)
	}
	sort.Strings(props)
	st.Fields = make([]*Field, len(props))
	cands := make([]candidate, len(props))
	for i, p := range props {
		st.Fields[i] = &Field{JSONName: p}
		cands[i] = candidate{ident: Ident(p), source: p, out: &st.Fields[i].GoName}
	}
	resolve(cands, reservedFields)
	for i, p := range props {
		f := st.Fields[i]
		ps := s.Properties[p]
		f.Required = slices.Contains(s.Required, p)
		m := b.mapSchema(ps, ptr+"/properties/"+escapePointer(p), name+f.GoName)
		f.Nullable = m.nullable
		f.Type, f.OmitZero = fieldType(m.t, f.Required, m.nullable)
		f.Tag = p
		if p == "-" {
			f.Tag = "-," // a bare "-" would mean "never encode"
		}
		if f.OmitZero {
			if p != "-" {
				f.Tag += ","
			}
			f.Tag += "omitzero"
		}
		if ps != nil {
			f.Doc = DocLines(ps.Description)
			if ps.Ref != "" && ps.Description == "" {
				if t, reason := b.deref(ps); reason == "" {
					f.Doc = DocLines(t.Description)
				}
			}
		}
		f.Doc = appendNote(f.Doc, m.notes...)
		if ps != nil && ps.Default != nil {
			if c, err := runtime.CanonicalJSON([]byte(ps.Default)); err == nil {
				f.Doc = appendNote(f.Doc, DocLines("Default (applied by the server): "+string(c)+".")...)
			}
		}
	}
	return st
}

// appendNote adds notes to doc lines as a separate paragraph.
func appendNote(doc []string, notes ...string) []string {
	if len(notes) == 0 {
		return doc
	}
	if len(doc) > 0 {
		doc = append(doc, "")
	}
	return append(doc, notes...)
}

// reservedFields are the method and field names an argument struct already
// has (the markers, the Args methods and encoding/json's and fmt's methods):
// a property that would map to one gets the suffix "_".
var reservedFields = map[string]bool{
	"Read": true, "Write": true, "OCPResources": true, "OCPConfirmPrompt": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "String": true,
}

// fieldType applies the optionality rules.
func fieldType(t Type, required, nullable bool) (Type, bool) {
	nilable := false
	switch t.(type) {
	case Raw, Slice, Map:
		nilable = true
	}
	switch {
	case required && !nullable:
		return t, false
	case required && nullable:
		if nilable {
			return t, false
		}
		return Pointer{t}, false
	case !nullable:
		if nilable {
			return t, true
		}
		return Pointer{t}, true
	default:
		if _, ok := t.(Raw); ok {
			return t, true
		}
		return Nullable{t}, true
	}
}

// validTagName reports whether encoding/json accepts name as a struct tag
// name (its isValidTag): otherwise it would silently use the Go field name.
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
