package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/schemakw"
	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/ecmare"
	"github.com/ocpgen/ocpgen/internal/jsonptr"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// Type mapping rules. A JSON Schema becomes a Go type as follows. The rules
// are chosen so that every value the schema allows survives json.Unmarshal
// into the Go type and json.Marshal back unchanged (as a JSON value; the
// round-trip test in gen/roundtrip_test.go checks this over the corpus).
// Where no exact Go type exists the rule falls back to json.RawMessage,
// which is lossless (the value the caller sent is forwarded as is and the
// runtime validates it against the schema), with a warning naming the tool
// and the JSON pointer; each fallback below says why it is one.
//
//   - An object with properties becomes a named struct. The top level is
//     <Tool>Args (<Tool>Result for an outputSchema); a nested object is named
//     after its path: the parent type's name plus the field's name
//     (<Tool>ArgsFilter), plus "Item" for array elements and "Value" for map
//     values. A definition under $defs or definitions becomes one named type,
//     <Tool>Args<Definition> (<Tool>Result<Definition>), shared by every $ref
//     to it; recursive $refs (to a definition or "#") use it too, through a
//     pointer where the field would otherwise contain itself. A $ref that is
//     any other JSON pointer into the same schema ("#/properties/thoughtNumber",
//     "#/items/anyOf/0"; ~0, ~1 and percent escapes undone) maps to the type of
//     the schema it points to, in the same way: a scalar is its Go type, an
//     object or enum one named type, <Tool>Args<Pointer tokens> (properties
//     dropped: <Tool>ArgsWhere), shared by every $ref to that pointer. The
//     schema mapped in its own place gets its own, equal, type (a second
//     name for the same shape, never a different one).
//   - A $ref beside keywords that shape a value (not only annotations,
//     $defs or constraints such as minLength) is mapped as both: when the
//     definition and the siblings are plain objects, one struct merging
//     them as an allOf; otherwise the $ref's type, which holds every value
//     valid under the $ref, so every value valid under both (the runtime
//     checks the siblings).
//   - Additional properties. The gate forwards only the declared top-level
//     arguments, so <Tool>Args has only its declared fields whatever the
//     schema says (a warning, code diag.CodeUndeclaredArgument, says so
//     when additionalProperties is a schema or true). A nested object with
//     properties holds every key its schema allows: unless
//     additionalProperties is false (without patternProperties) it gets the
//     catch-all field AdditionalProperties map[string]T (T: the single
//     schema of additionalProperties or patternProperties, json.RawMessage
//     when it is absent or true or several apply) with its own
//     MarshalJSON/UnmarshalJSON, so the keys it does not declare (also
//     those of dependentSchemas, of an anyOf beside allOf, or allowed by
//     unevaluatedProperties) survive.
//   - A property whose name cannot be a struct tag (or is longer than
//     load.MaxNameSize) has no field, with a warning: the struct gets
//     AdditionalProperties map[string]json.RawMessage, which keeps its
//     value as sent, at the top level too.
//   - An object without properties whose additionalProperties (or single
//     patternProperties) is a schema becomes map[string]T; a free-form
//     object (no properties, open) becomes map[string]json.RawMessage; a
//     closed object without properties (additionalProperties: false, no
//     patternProperties) becomes an empty struct.
//   - A string enum (or a string const, or a oneOf/anyOf of string consts,
//     whose descriptions document the constants) becomes a named string
//     type with one constant per value, <Type><Value>. An integer enum
//     becomes a named int64 type with constants (<Type>1, <Type>Minus1). A
//     number or boolean enum keeps float64/bool and lists its values in the
//     doc comment. An enum mixing JSON types becomes a union (below) of one
//     enum per type.
//   - A const of a boolean or a number keeps bool/int64/float64 and says
//     "Always <value>." in the doc comment; a const null or a composite const
//     becomes json.RawMessage (fallback for the composite: Go has no
//     constant of that shape, and the runtime refuses any other value).
//   - string → string, with the format documented and never mapped: a
//     date-time stays a string so the timestamp is forwarded byte for byte
//     (time.Time would reformat it); a pattern is ECMA-262's, which the
//     gate matches in linear time (internal/ecmare), and one it cannot match
//     so is a warning (diag.CodePatternUntranslatable: the tool's calls
//     fail closed; generation goes on). integer → int64, or uint64 when format
//     is uint, uint8, uint16, uint32 or uint64 (never float64: values beyond
//     2^53 stay exact; values outside the Go type's range are refused by the
//     decoder, never rounded; uint64 needs a minimum ≥ 0 too, since a format
//     alone does not rule out negative values; the gate gives the decoder
//     1.0 and 1e2, integers in JSON Schema, as 1 and 100). number → float64 (a number with up to 15
//     significant digits re-encodes as the same number; one beyond float64's
//     precision makes the gate refuse the call, never alter it). boolean →
//     bool. The tool's integers whose bounds (compared exactly) do not
//     keep them within the Go type's range, and its float64 numbers, are
//     listed in one warning per tool and rule (diag.CodeIntegerRange,
//     diag.CodeNumberPrecision): a valid call with such a value is refused.
//   - An array with items becomes []T; without items, []json.RawMessage. A
//     tuple (prefixItems, or an items array) whose item schemas and the
//     rest's (items beside prefixItems, additionalItems beside an items
//     array; any value when absent) are all one schema becomes []T; any
//     other tuple becomes []json.RawMessage (a Go slice has one element
//     type; the runtime checks each item).
//   - allOf of objects is merged (properties and required; members that
//     only constrain are skipped), an object only when the parent or a
//     member has type "object"; a single-member allOf is its member; an
//     allOf of non-objects, of members that disagree on a property, or of
//     nested compositions becomes json.RawMessage (fallback: no single Go
//     type is their intersection).
//   - oneOf/anyOf: null alternatives make the result nullable; alternatives
//     that only add constraints (format, pattern, ...) to the parent's type
//     are that type (the runtime checks the constraints); one remaining
//     alternative is that alternative; several become a union: a named
//     struct with one pointer field per alternative (named after its title,
//     its $ref definition, else its JSON type, numbered when two share a
//     name), of which exactly one is set, with MarshalJSON/UnmarshalJSON.
//     Decoding takes the alternative the schema picks: the first, in schema
//     order, whose JSON kind matches, whose own schema (carried by the
//     Branch, self-contained with the definitions it reaches) the value
//     validates against, and into which it decodes strictly; an alternative
//     whose schema cannot stand alone (a "#" $ref) is picked by its required
//     properties instead. Every alternative type is itself lossless, so the
//     union is too, whichever alternative matches. A type
//     list ["string", "number", ...] is the same union, one alternative per
//     type. anyOf and oneOf together, or beside properties or items, become
//     json.RawMessage (fallback: the union of intersections has no Go
//     shape).
//   - {} / true / a schema without type or shape keywords accepts any value
//     and becomes json.RawMessage (exact, not a fallback). So does a schema
//     without type (or an enum or const) whose keywords are object or array
//     keywords: they constrain only objects or arrays, and a string, number
//     or null passes them. false accepts
//     nothing: such a property gets no field, so the strict decoder refuses
//     it (a warning when it is required: no call can succeed).
//   - A $ref that is not # or a JSON pointer (an anchor, "#node"; a
//     $dynamicRef), a recursive $ref whose definition is not an
//     object, an unknown type, an anyOf/oneOf of more than load.MaxEnumValues
//     alternatives and a schema too large to map become json.RawMessage
//     (fallbacks: there is no Go type to give). A $ref that does not resolve
//     at all (dangling, or to another document: ocpgen never fetches one)
//     is an error, since the runtime could not validate calls.
//   - An enum of more than load.MaxEnumValues values becomes its base type,
//     without constants, with a warning; the runtime checks the values.
//   - "default" is mentioned in the field's doc comment and never applied:
//     the server applies its own defaults, and an explicit value equal to
//     the zero value (false, 0, "") is still sent.
//
// Optionality ("required" of the parent, and null in the type):
//
//   - required, not nullable: T, no omitzero;
//   - required, nullable: *T (nil encodes null) for scalars, enums, unions
//     and structs; slices, maps and json.RawMessage as they are (nil encodes
//     null); no omitzero;
//   - optional, not nullable: *T for scalars, enums, unions and structs;
//     slices, maps and json.RawMessage as they are; all with omitzero, which
//     drops only an unset field and keeps an explicit [], {}, false, 0 or "";
//   - optional, nullable: ocpimpl.Nullable[T] with omitzero (absent, null or
//     a value); json.RawMessage as it is (json.RawMessage("null") is null).

// schemaBuilder maps the schemas of one tool.
type schemaBuilder struct {
	file string
	tool string
	// root is the schema that $refs resolve against; rootPtr its pointer;
	// rootRaw the JSON it was parsed from (nil if unknown).
	root    *jsonschema.Schema
	rootPtr string
	rootRaw []byte
	// prefix names definitions: <Tool>Args or <Tool>Result.
	prefix string
	// refs is the stack of $refs being resolved (recursion check).
	refs []string
	// defs holds the mapped definitions of root, by $ref.
	defs map[string]mapped
	// pendingRef is the $ref whose object schema is about to be mapped:
	// object registers its struct under it before mapping its fields, so
	// that a recursive $ref finds it.
	pendingRef string
	// building holds the structs whose fields are being mapped.
	building map[*Struct]bool
	decls    []Decl
	warns    diag.List
	// steps counts mapSchema calls, against maxSteps.
	steps int
	// total counts mapSchema calls over the whole snapshot, against
	// load.MaxSchemaNodes; nil counts nothing.
	total *int
	// input is true while the input schema is mapped: then the pointers
	// of the typed numbers a valid call can hold and the Go type cannot
	// are collected (intPtrs: integers beyond int64's or uint64's range;
	// numPtrs: float64s), for the tool's warnings.
	input            bool
	intPtrs, numPtrs []string
	// rawDoc is rootRaw decoded with json.Number, once, when a bound's
	// exact literal is needed (rawDone: decoded, or failed).
	rawDoc  any
	rawDone bool
}

// maxSteps bounds the work on one tool's schemas: non-recursive $refs can
// still expand exponentially in composite schemas, and the generator must
// not hang on a hostile snapshot.
const maxSteps = 100_000

func (b *schemaBuilder) warn(ptr, format string, args ...any) {
	b.warns = append(b.warns, diag.Diagnostic{
		Severity: diag.Warning, File: b.file, Tool: b.tool, Pointer: ptr,
		Msg: fmt.Sprintf(format, args...),
	})
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

// isTrueSchema reports whether s is the schema true: nil, or a schema that
// jsonschema-go marshals as true. It decides on the fields, without
// marshalling (the model asks it of every sub-schema, and marshalling a
// schema marshals its whole subtree); TestTrueFalseSchema checks it against
// the marshalled form, field by field.
func isTrueSchema(s *jsonschema.Schema) bool {
	if s == nil {
		return true
	}
	if len(s.PropertyOrder) > 0 {
		// Never set by parsing; left to the marshaller, which checks it.
		j := schemaJSON(s)
		return j == "true" || j == "{}"
	}
	return s.Not == nil && writesNothingButNot(s)
}

// isFalseSchema reports whether s is the schema false, which jsonschema-go
// parses (and marshals) as {"not": true}.
func isFalseSchema(s *jsonschema.Schema) bool {
	if s == nil {
		return false
	}
	if len(s.PropertyOrder) > 0 {
		return schemaJSON(s) == "false"
	}
	return s.Not != nil && writesNothingButNot(s) && isTrueSchema(s.Not)
}

// writesNothingButNot reports whether jsonschema-go's Schema.MarshalJSON
// writes no member of s other than "not", without an error: no other
// keyword is present (schemakw.Present: its omitempty rules, the
// properties map only when nil), no Extra key, and basicChecks passes
// (with all else empty, it fails only when both $defs and definitions are
// non-nil). PropertyOrder must be empty.
func writesNothingButNot(s *jsonschema.Schema) bool {
	if len(s.Extra) > 0 || !basicChecks(s) {
		return false
	}
	for _, k := range schemakw.All {
		if k.Name != "not" && schemakw.Present(k, s) {
			return false
		}
	}
	return true
}

// defRef resolves a local $ref, a JSON pointer into the root ("#/$defs/x",
// "#/definitions/x", "#/properties/thoughtNumber", "#/items/anyOf/0"), to
// the schema there, the name its type takes (the definition's name for
// $defs and definitions, else the pointer's tokens joined) and its pointer
// (relative to the root), or returns a reason: an anchor ("#node"), a
// pointer to where no schema is, or one that escapes the fragment syntax.
func (b *schemaBuilder) defRef(ref string) (*jsonschema.Schema, string, string, string) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, "", "", fmt.Sprintf("$ref %q is not mapped to a Go type (only # and JSON pointers into the same schema are)", ref)
	}
	tokens := strings.Split(ref[len("#/"):], "/")
	for i, t := range tokens {
		tokens[i] = jsonptr.UnescapeToken(unpercent(t))
	}
	t, ok := schemaAt(b.root, tokens)
	if !ok || t == nil {
		return nil, "", "", fmt.Sprintf("$ref %q cannot be resolved", ref)
	}
	var ptr strings.Builder
	for _, tok := range tokens {
		ptr.WriteString("/" + jsonptr.EscapeToken(tok))
	}
	name := strings.Join(tokens, " ")
	if len(tokens) == 2 && (tokens[0] == "$defs" || tokens[0] == "definitions") {
		name = tokens[1]
	} else if len(tokens) >= 2 && tokens[0] == "properties" {
		name = strings.Join(tokens[1:], " ")
	}
	return t, name, ptr.String(), ""
}

// unpercent undoes the URI percent-encoding a $ref fragment may use
// ("%25" for "%", "%22" for a quote); a malformed escape stays as is.
func unpercent(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				out.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		out.WriteByte(s[i])
	}
	return out.String()
}

// schemaAt walks the JSON pointer tokens from s through the keywords that
// hold schemas: a keyword holding one schema takes no more token, one
// holding a map or a list takes the key or the index next ("items" is a
// list when Items is nil). "dependencies" is not walked.
func schemaAt(s *jsonschema.Schema, tokens []string) (*jsonschema.Schema, bool) {
	for i := 0; i < len(tokens); i++ {
		if s == nil {
			return nil, false
		}
		k := schemakw.Lookup(tokens[i])
		if k == nil {
			return nil, false
		}
		more := i+1 < len(tokens)
		switch {
		case k.Kind == schemakw.SchemaMap && more:
			i++
			s = (*schemakw.Field[map[string]*jsonschema.Schema](k, s))[tokens[i]]
		case (k.Kind == schemakw.Schemas || k.Kind == schemakw.Items && s.Items == nil) && more:
			l := s.ItemsArray
			if k.Kind == schemakw.Schemas {
				l = *schemakw.Field[[]*jsonschema.Schema](k, s)
			}
			i++
			n, err := strconv.Atoi(tokens[i])
			if err != nil || n < 0 || n >= len(l) || strconv.Itoa(n) != tokens[i] {
				return nil, false
			}
			s = l[n]
		case k.Kind == schemakw.Schema || k.Kind == schemakw.Items:
			c := s.Items
			if k.Kind == schemakw.Schema {
				c = *schemakw.Field[*jsonschema.Schema](k, s)
			}
			if c == nil {
				return nil, false
			}
			s = c
		default:
			return nil, false
		}
	}
	return s, s != nil
}

// deref resolves a local $ref (see defRef), or returns a reason when it
// cannot.
func (b *schemaBuilder) deref(s *jsonschema.Schema) (*jsonschema.Schema, string) {
	if s.Ref == "#" {
		return b.root, ""
	}
	t, _, _, reason := b.defRef(s.Ref)
	if reason != "" {
		return nil, reason
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

// anyValue is the exact mapping of a schema that accepts any JSON value.
func anyValue() mapped { return raw("Any JSON value.") }

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
	if len(ts) == 1 && ts[0] == "null" && len(s.Properties) == 0 && s.Items == nil {
		return true
	}
	return s.Const != nil && *s.Const == nil
}

func objectish(s *jsonschema.Schema) bool {
	ts := typeList(s)
	return (len(ts) == 1 && ts[0] == "object") || (len(ts) == 0 && len(s.Properties) > 0)
}

// shapeless reports whether s only constrains a value (format, pattern,
// bounds, ...) and says nothing about its type or structure.
func shapeless(s *jsonschema.Schema) bool {
	return s != nil && s.Ref == "" && len(typeList(s)) == 0 && s.Const == nil && len(s.Enum) == 0 &&
		len(s.Properties) == 0 && s.AdditionalProperties == nil && len(s.PatternProperties) == 0 &&
		s.Items == nil && len(s.PrefixItems) == 0 && len(s.ItemsArray) == 0 &&
		len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && !isFalseSchema(s)
}

// mapSchema maps s (at JSON pointer ptr, relative to the tool object) to a
// Go type; name is the type name to use if s needs a named type.
func (b *schemaBuilder) mapSchema(s *jsonschema.Schema, ptr, name string) mapped {
	b.steps++
	if b.total != nil {
		if *b.total++; *b.total > load.MaxSchemaNodes {
			return raw("Any JSON value the schema accepts (snapshot too large to map).")
		}
	}
	if b.steps > maxSteps {
		if b.steps == maxSteps+1 {
			b.warn(ptr, "schema expands to more than %d sub-schemas: the rest are mapped to json.RawMessage", maxSteps)
		}
		return raw("Any JSON value the schema accepts (schema too large to map).")
	}
	if s == nil || isTrueSchema(s) {
		return anyValue()
	}
	if isFalseSchema(s) {
		return b.fallback(ptr, "schema false accepts no value")
	}
	if s.Ref != "" {
		if sib := refSiblings(s); sib != nil && !shapeless(sib) {
			return b.refBeside(s, sib, ptr, name)
		}
		m := b.mapRef(s, ptr)
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
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		return b.alternatives(s, ptr, name)
	}
	if s.Const != nil {
		return b.constant(s, ptr, name)
	}

	types := typeList(s)
	nullable := nullableExtra(s)
	if i := slices.Index(types, "null"); i >= 0 {
		nullable = true
		types = slices.Delete(types, i, i+1)
		if len(types) == 0 {
			return mapped{t: Raw{}, nullable: true, notes: []string{"Always null."}}
		}
	}
	if len(s.Enum) > load.MaxEnumValues {
		return b.longEnum(s, ptr, name)
	}
	if len(s.Enum) > 0 {
		et := enumTypes(s.Enum)
		if slices.Contains(s.Enum, nil) {
			nullable = true
		}
		if len(et) > 1 {
			// A mixed enum: one enum per JSON type, as a union.
			alts := make([]*jsonschema.Schema, len(et))
			for i, t := range et {
				alts[i] = &jsonschema.Schema{Type: t}
				for _, v := range s.Enum {
					if v != nil && enumTypes([]any{v})[0] == t {
						alts[i].Enum = append(alts[i].Enum, v)
					}
				}
			}
			m := b.union(alts, nil, ptr+"/enum", name)
			m.nullable = m.nullable || nullable
			return m
		}
		if len(types) == 0 {
			types = et
		}
	}
	switch len(types) {
	case 0:
		// Only type (or an enum or const, above) decides a shape: object
		// and array keywords apply to objects and arrays, and any other
		// value passes them.
		m := anyValue()
		if !shapeless(s) {
			m = raw("Any JSON value the schema accepts (it has no type: its object or array keywords constrain only objects and arrays; the runtime checks it).")
		}
		m.nullable = nullable
		return m
	case 1:
	default:
		alts := make([]*jsonschema.Schema, len(types))
		for i, t := range types {
			c := *s
			c.Type, c.Types = t, nil
			alts[i] = &c
		}
		m := b.union(alts, nil, ptr+"/type", name)
		m.nullable = m.nullable || nullable
		return m
	}
	m := b.mapTyped(s, types[0], ptr, name)
	m.nullable = m.nullable || nullable
	return m
}

// longEnum maps an enum of more than load.MaxEnumValues values: as its
// base type, without constants; the runtime checks every value.
func (b *schemaBuilder) longEnum(s *jsonschema.Schema, ptr, name string) mapped {
	b.warn(ptr+"/enum", "enum of %d values, over the limit of %d for Go constants: mapped to its base type (the runtime checks the values)", len(s.Enum), load.MaxEnumValues)
	c := *s
	c.Enum = nil
	if len(typeList(&c)) == 0 {
		ts := enumTypes(s.Enum)
		if slices.Contains(s.Enum, nil) {
			ts = append(ts, "null")
		}
		if len(ts) == 1 {
			c.Type = ts[0]
		} else {
			c.Types = ts
		}
	}
	m := b.mapSchema(&c, ptr, name)
	m.notes = append(m.notes, fmt.Sprintf("One of the %d values the schema lists (checked by the runtime).", len(s.Enum)))
	return m
}

// mapRef maps a $ref: each definition is mapped once, as a type named after
// it, and shared by every $ref to it.
func (b *schemaBuilder) mapRef(s *jsonschema.Schema, ptr string) mapped {
	if m, ok := b.defs[s.Ref]; ok {
		m.notes = slices.Clone(m.notes)
		return m
	}
	if slices.Contains(b.refs, s.Ref) {
		return b.fallback(ptr, fmt.Sprintf("recursive $ref %q to a schema that is not an object", s.Ref))
	}
	t, reason := b.deref(s)
	if reason != "" {
		return b.fallback(ptr, reason)
	}
	_, defName, defPtr, _ := b.defRef(s.Ref)
	name := b.prefix + Ident(defName)
	label := defName // what the doc comment calls the type: a definition's name, else the pointer
	switch {
	case s.Ref == "#":
		label, defPtr, name = "", "", b.prefix+Ident("")
	case !strings.HasPrefix(defPtr, "/$defs/") && !strings.HasPrefix(defPtr, "/definitions/") || strings.Count(defPtr, "/") != 2:
		label = "#" + defPtr
	}
	b.refs = append(b.refs, s.Ref)
	if objectish(t) && t.Ref == "" && len(t.AllOf) == 0 && len(t.AnyOf) == 0 && len(t.OneOf) == 0 {
		b.pendingRef = s.Ref
	}
	m := b.mapSchema(t, b.rootPtr+defPtr, name)
	b.pendingRef = ""
	b.refs = b.refs[:len(b.refs)-1]
	// The doc comment is written once names are final (see Build).
	doc := DocLines(t.Description)
	switch d := m.t.(type) {
	case *Struct:
		if d.Name == name && d.def == "" {
			d.def, d.Doc = label, doc
		}
	case *Enum:
		if d.Name == name && d.def == "" {
			d.def, d.Doc = label, doc
		}
	case *Union:
		if d.Name == name && d.def == "" {
			d.def, d.Doc = label, doc
		}
	}
	b.defs[s.Ref] = m
	return m
}

// refSiblings returns the keywords beside a $ref that can constrain a
// value, as a schema without the $ref, or nil when there are none: the
// annotations (title, description, default, examples, $comment,
// deprecated, readOnly, writeOnly), $schema, $defs and definitions, and
// the keywords jsonschema-go keeps in Extra (no validator reads them) are
// left out.
func refSiblings(s *jsonschema.Schema) *jsonschema.Schema {
	c := *s
	c.Ref, c.Schema, c.Comment, c.Defs, c.Definitions = "", "", "", nil, nil
	c.Title, c.Description, c.Default, c.Examples = "", "", nil, nil
	c.Deprecated, c.ReadOnly, c.WriteOnly, c.Extra = false, false, false, nil
	if isTrueSchema(&c) {
		return nil
	}
	return &c
}

// refBeside maps a $ref beside keywords that constrain the shape (sib,
// refSiblings' result): a value must be valid under both. When both are
// plain objects they are merged as an allOf (properties and required of
// both); otherwise the $ref's type holds every value valid under the $ref,
// and so every value valid under both (the runtime checks the siblings).
func (b *schemaBuilder) refBeside(s, sib *jsonschema.Schema, ptr, name string) mapped {
	if t, reason := b.deref(s); reason == "" && plainObject(t) && plainObject(sib) {
		c := *sib
		c.AllOf = []*jsonschema.Schema{{Ref: s.Ref}}
		if merged, reason := b.mergeAllOf(&c); reason == "" {
			m := b.mapSchema(merged, ptr, name)
			m.notes = append(m.notes, fmt.Sprintf("The properties of the $ref %q and of its siblings.", s.Ref))
			return m
		}
	}
	m := b.mapRef(s, ptr)
	if nullableExtra(s) {
		m.nullable = true
	}
	m.notes = append(m.notes, "The keywords beside the schema's $ref add constraints, which the runtime checks.")
	return m
}

// plainObject reports whether s is an object schema without a $ref or a
// composition: one mergeAllOf can merge.
func plainObject(s *jsonschema.Schema) bool {
	return s != nil && objectish(s) && s.Ref == "" && len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0
}

// alternatives maps a oneOf or anyOf.
func (b *schemaBuilder) alternatives(s *jsonschema.Schema, ptr, name string) mapped {
	if len(s.AnyOf) > 0 && len(s.OneOf) > 0 {
		return b.fallback(ptr, "anyOf and oneOf together")
	}
	key, alts := "/anyOf", s.AnyOf
	if len(s.OneOf) > 0 {
		key, alts = "/oneOf", s.OneOf
	}
	if len(alts) > load.MaxEnumValues {
		return b.fallback(ptr+key, fmt.Sprintf("%d alternatives, over the limit of %d", len(alts), load.MaxEnumValues))
	}
	parentTypes := typeList(s)
	nullOK := len(parentTypes) == 0 || slices.Contains(parentTypes, "null") || nullableExtra(s)
	var rest []*jsonschema.Schema
	var idx []int
	null := false
	for i, a := range alts {
		if a != nil && isNullSchema(a) {
			null = nullOK
			continue
		}
		if a != nil && a.Ref != "" {
			if t, reason := b.deref(a); reason == "" && isNullSchema(t) {
				null = nullOK
				continue
			}
		}
		rest = append(rest, a)
		idx = append(idx, i)
	}
	// Alternatives that only constrain the parent's type: the parent's type.
	if len(rest) > 0 {
		all := true
		for _, a := range rest {
			all = all && shapeless(a)
		}
		if all {
			c := *s
			c.AnyOf, c.OneOf = nil, nil
			m := b.mapSchema(&c, ptr, name)
			m.notes = append(m.notes, "The schema's "+key[1:]+" adds constraints, which the runtime checks.")
			m.nullable = m.nullable || null
			return m
		}
	}
	if len(s.Properties) > 0 || s.Items != nil || len(s.PrefixItems) > 0 || s.Const != nil || len(s.Enum) > 0 {
		return b.fallback(ptr+key, key[1:]+" beside properties, items, const or enum")
	}
	switch len(rest) {
	case 0:
		if null {
			return mapped{t: Raw{}, nullable: true, notes: []string{"Always null."}}
		}
		return b.fallback(ptr+key, "no alternative")
	case 1:
		m := b.mapSchema(rest[0], fmt.Sprintf("%s%s/%d", ptr, key, idx[0]), name)
		m.nullable = m.nullable || null
		return m
	}
	// Alternatives that are all string constants: an enum.
	if vals, docs, ok := constStrings(rest); ok {
		m := b.enum(vals, docs, false, name)
		m.nullable = null
		return m
	}
	ptrs := make([]string, len(rest))
	for i := range rest {
		ptrs[i] = fmt.Sprintf("%s%s/%d", ptr, key, idx[i])
	}
	m := b.union(rest, ptrs, ptr+key, name)
	m.nullable = m.nullable || null
	return m
}

// constStrings returns the values of alternatives that are each one string
// constant (const, or a one-value enum), with their descriptions.
func constStrings(alts []*jsonschema.Schema) ([]string, map[string][]string, bool) {
	var vals []string
	docs := map[string][]string{}
	for _, a := range alts {
		if a == nil || a.Ref != "" || len(a.Properties) > 0 {
			return nil, nil, false
		}
		var v any
		switch {
		case a.Const != nil:
			v = *a.Const
		case len(a.Enum) == 1:
			v = a.Enum[0]
		default:
			return nil, nil, false
		}
		str, ok := v.(string)
		if !ok {
			return nil, nil, false
		}
		vals = append(vals, str)
		if d := DocLines(a.Description); len(d) > 0 {
			docs[str] = d
		}
	}
	return vals, docs, true
}

// kindWord names a union alternative by its schema's JSON type.
func (b *schemaBuilder) kindWord(s *jsonschema.Schema) string {
	if s == nil || isTrueSchema(s) {
		return "Any"
	}
	if s.Title != "" {
		return Ident(s.Title)
	}
	if s.Ref != "" {
		if _, name, _, reason := b.defRef(s.Ref); reason == "" {
			return Ident(name)
		}
	}
	ts := typeList(s)
	if i := slices.Index(ts, "null"); i >= 0 && len(ts) > 1 {
		ts = slices.Delete(ts, i, i+1)
	}
	if len(ts) == 0 {
		switch {
		case s.Const != nil:
			ts = enumTypes([]any{*s.Const})
		case len(s.Enum) > 0:
			ts = enumTypes(s.Enum)
		case len(s.Properties) > 0:
			ts = []string{"object"}
		case s.Items != nil:
			ts = []string{"array"}
		}
	}
	if len(ts) != 1 {
		return "Value"
	}
	return Ident(ts[0])
}

// union declares a union type with one alternative per schema. ptrs are
// the alternatives' pointers (nil: ptr/<index>).
func (b *schemaBuilder) union(alts []*jsonschema.Schema, ptrs []string, ptr, name string) mapped {
	u := &Union{Name: name, Pointer: ptr}
	b.decls = append(b.decls, u)
	words := make([]string, len(alts))
	count := map[string]int{}
	for i, a := range alts {
		words[i] = b.kindWord(a)
		count[words[i]]++
	}
	seen := map[string]int{}
	cands := make([]candidate, len(alts))
	u.Branches = make([]*Branch, len(alts))
	for i := range alts {
		w := words[i]
		if count[w] > 1 {
			seen[w]++
			w = fmt.Sprintf("%s%d", w, seen[w])
		}
		u.Branches[i] = &Branch{}
		cands[i] = candidate{ident: w, source: fmt.Sprint(i), out: &u.Branches[i].GoName}
	}
	resolve(cands, map[string]bool{"MarshalJSON": true, "UnmarshalJSON": true, "OCPBranches": true})
	var m mapped
	for i, a := range alts {
		br := u.Branches[i]
		p := fmt.Sprintf("%s/%d", ptr, i)
		if ptrs != nil {
			p = ptrs[i]
		}
		bm := b.mapSchema(a, p, name+br.GoName)
		m.nullable = m.nullable || bm.nullable
		br.Type = bm.t
		if a != nil {
			br.Doc = DocLines(a.Description)
		}
		br.Doc = appendNote(br.Doc, bm.notes...)
		br.Schema = b.branchSchema(a)
		if st, ok := bm.t.(*Struct); ok && br.Schema == nil {
			for _, f := range st.Fields {
				if f.Required {
					br.Required = append(br.Required, f.JSONName)
				}
			}
		}
	}
	return mapped{t: u, nullable: m.nullable}
}

// checkPatterns warns about the root schema's patterns (patternWarnings).
func (b *schemaBuilder) checkPatterns() {
	b.warns = append(b.warns, patternWarnings(b.file, b.tool, b.root, b.rootRaw, b.rootPtr)...)
}

// patternWarnings are the warnings (code diag.CodePatternUntranslatable)
// about every pattern of root (pattern, and the keys of
// patternProperties), at pointer ptr, that the gate cannot match with its
// ECMA-262 meaning in linear time: those internal/ecmare's Compile refuses
// (lookaround, back-references, syntax ECMA-262 refuses), with its reason.
// At run time the gate refuses every call of such a tool (fail closed);
// generation goes on.
//
// src is the JSON root was parsed from, or nil: a schema whose JSON holds
// neither the word pattern (in any case: encoding/json matches keys to
// fields so) nor a \u escape (which could spell it) holds no string with
// it, so its encoding has none, and it has no pattern to check.
func patternWarnings(file, tool string, root *jsonschema.Schema, src []byte, ptr string) diag.List {
	if src != nil && !mayHoldPattern(src) {
		return nil
	}
	// What is walked is root's JSON encoding (jsonschema-go's MarshalJSON),
	// read on the schemas themselves: the keys that encoding has, in
	// sorted order. An encoding that fails has nothing to walk.
	if root == nil || !encodes(root) {
		return nil
	}
	w := &patternWalker{file: file, tool: tool}
	w.schema(root, ptr)
	return w.out
}

// patternWalker walks a schema's JSON encoding for patternWarnings.
type patternWalker struct {
	file, tool string
	out        diag.List
}

func (w *patternWalker) check(p, ptr string) {
	if _, err := ecmare.Compile(p); err != nil {
		w.out = append(w.out, patternDiag(w.file, w.tool, ptr, err))
	}
}

// patternDiag is the warning about the pattern at ptr that ecmare.Compile
// refused with err.
func patternDiag(file, tool, ptr string, err error) diag.Diagnostic {
	return diag.Diagnostic{Severity: diag.Warning, Code: diag.CodePatternUntranslatable,
		File: file, Tool: tool, Pointer: ptr,
		Msg: fmt.Sprintf("%s: the gate refuses every call of this tool (fail closed); generation goes on", err)}
}

// any walks a JSON value decoded into an any (an Extra member): in every
// object, a string "pattern" and the keys of an object
// "patternProperties" are checked, and "const", "enum", "default" and
// "examples" are values, not schemas.
func (w *patternWalker) any(v any, ptr string) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) { // deterministic order
			e := x[k]
			p := ptr + "/" + jsonptr.EscapeToken(k)
			switch k {
			case "const", "enum", "default", "examples":
				continue // values, not schemas
			case "pattern":
				if ps, ok := e.(string); ok {
					w.check(ps, p)
					continue
				}
			case "patternProperties":
				if m, ok := e.(map[string]any); ok {
					for _, re := range slices.Sorted(maps.Keys(m)) {
						w.check(re, p+"/"+jsonptr.EscapeToken(re))
					}
				}
			}
			w.any(e, p)
		}
	case []any:
		for i, e := range x {
			w.any(e, fmt.Sprintf("%s/%d", ptr, i))
		}
	}
}

// schema walks the encoding of s, as any walks it decoded: of its
// members, only sub-schemas, pattern, patternProperties and Extra can hold
// what any checks (the others are strings, numbers, booleans, arrays of
// strings, or values it skips). The members come in the order of their
// keys: the sub-schemas' (schemakw.Children, sorted) merged with pattern
// and Extra's, which are no keywords (encodes has checked).
func (w *patternWalker) schema(s *jsonschema.Schema, ptr string) {
	if s == nil {
		return // null
	}
	if schemakw.HasUnknown(s) {
		// A keyword schemakw cannot read: walk the encoding itself.
		var v any
		if raw, err := json.Marshal(s); err == nil && json.Unmarshal(raw, &v) == nil {
			w.any(v, ptr)
		}
		return
	}
	var rest []string // the keys of the members that hold no sub-schema, sorted
	if s.Pattern != "" {
		rest = append(rest, "pattern")
	}
	for k := range s.Extra {
		rest = append(rest, k)
	}
	slices.Sort(rest)
	walkRest := func(before string) {
		for len(rest) > 0 && (before == "" || rest[0] < before) {
			p := ptr + "/" + jsonptr.EscapeToken(rest[0])
			if rest[0] == "pattern" {
				w.check(s.Pattern, p)
			} else {
				w.any(s.Extra[rest[0]], p)
			}
			rest = rest[1:]
		}
	}
	var last *schemakw.Keyword
	schemakw.Children(s, true, func(c schemakw.Sub) bool {
		k := c.Keyword
		p := ptr + "/" + jsonptr.EscapeToken(k.Name)
		if k != last {
			walkRest(k.Name)
			last = k
			if k.Name == "patternProperties" {
				for _, re := range slices.Sorted(maps.Keys(s.PatternProperties)) {
					w.check(re, p+"/"+jsonptr.EscapeToken(re))
				}
			}
		}
		switch {
		case k.Kind == schemakw.SchemaMap || k.Kind == schemakw.Dependencies:
			// A map of schemas: any's rules apply to its keys too.
			p += "/" + jsonptr.EscapeToken(c.Key)
			switch c.Key {
			case "const", "enum", "default", "examples":
				return true
			case "patternProperties":
				// A schema encoded as an object: its keys are checked.
				if keys := schemakw.Encoded(c.Schema); c.Schema != nil && !isBoolEncoding(c.Schema, keys) {
					for _, re := range keys {
						w.check(re, p+"/"+jsonptr.EscapeToken(re))
					}
				}
			}
		case c.Index >= 0:
			p = fmt.Sprintf("%s/%d", p, c.Index)
		}
		w.schema(c.Schema, p)
		return true
	})
	walkRest("")
}

// isBoolEncoding reports whether s (non-nil, with schemakw.Encoded keys) is
// encoded as true or false: {} and {"not": true} are.
func isBoolEncoding(s *jsonschema.Schema, keys []string) bool {
	return len(keys) == 0 || (len(keys) == 1 && keys[0] == "not" && len(schemakw.Encoded(s.Not)) == 0)
}

// basicChecks reports whether s passes jsonschema-go's basic checks
// (Schema.basicChecks, not exported), which MarshalJSON makes at every
// schema: at most one of Type and Types, of Defs and Definitions, of
// Items and ItemsArray; no key both in DependencySchemas and
// DependencyStrings; no repeated name in PropertyOrder.
func basicChecks(s *jsonschema.Schema) bool {
	if (s.Type != "" && s.Types != nil) || (s.Defs != nil && s.Definitions != nil) || (s.Items != nil && s.ItemsArray != nil) {
		return false
	}
	for k := range s.DependencySchemas {
		if _, both := s.DependencyStrings[k]; both {
			return false
		}
	}
	for i, p := range s.PropertyOrder {
		if slices.Contains(s.PropertyOrder[:i], p) {
			return false
		}
	}
	return true
}

// encodes reports whether json.Marshal(s) succeeds: jsonschema-go's
// MarshalJSON refuses, at any depth, what its basic checks refuse, and an
// Extra key that is also a keyword; encoding/json refuses an infinite or
// NaN number.
func encodes(s *jsonschema.Schema) bool {
	if s == nil {
		return true
	}
	if schemakw.HasUnknown(s) {
		_, err := json.Marshal(s)
		return err == nil
	}
	if !basicChecks(s) {
		return false
	}
	for _, k := range schemakw.OfKind(schemakw.Number) {
		if f := *schemakw.Field[*float64](k, s); f != nil && (math.IsInf(*f, 0) || math.IsNaN(*f)) {
			return false
		}
	}
	for k, v := range s.Extra {
		if schemakw.Lookup(k) != nil || !finite(v) {
			return false
		}
	}
	for _, k := range schemakw.OfKind(schemakw.Value) {
		if v := *schemakw.Field[*any](k, s); v != nil && !finite(*v) {
			return false
		}
	}
	for _, k := range schemakw.OfKind(schemakw.Values) {
		for _, v := range *schemakw.Field[[]any](k, s) {
			if !finite(v) {
				return false
			}
		}
	}
	for _, k := range schemakw.OfKind(schemakw.Raw) {
		if v := *schemakw.Field[json.RawMessage](k, s); len(v) > 0 && !json.Valid(v) {
			return false
		}
	}
	return schemakw.Children(s, false, func(c schemakw.Sub) bool { return encodes(c.Schema) })
}

// finite reports whether the decoded JSON value v holds no infinite or NaN
// number.
func finite(v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case map[string]any:
		for _, e := range x {
			if !finite(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !finite(e) {
				return false
			}
		}
	}
	return true
}

// PatternDiagnostics is patternWarnings for a tool's input schema: a
// warning (code diag.CodePatternUntranslatable) naming the tool and the
// pointer of each pattern the gate cannot match, with internal/ecmare's
// reason.
func PatternDiagnostics(file string, t *load.Tool) diag.List {
	return patternWarnings(file, t.Name, t.InputSchema, t.InputSchemaRaw, t.Pointer("inputSchema"))
}

// mayHoldPattern reports whether the JSON src holds the word "pattern", in
// any ASCII case, or a \u escape.
func mayHoldPattern(src []byte) bool {
	if bytes.Contains(src, []byte(`\u`)) {
		return true
	}
	const word = "pattern"
	for i := 0; i+len(word) <= len(src); i++ {
		j := 0
		for j < len(word) && src[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// branchSchema is a union alternative's schema as self-contained canonical
// JSON: the alternative, with the root's $schema, and with the $defs or
// definitions it refers to, directly or through each other. It is nil when
// a $ref points anywhere else (the root included) or the schema does not
// encode.
func (b *schemaBuilder) branchSchema(a *jsonschema.Schema) []byte {
	if a == nil {
		return []byte("true")
	}
	doc, ok := decodeSchema(a)
	if !ok {
		return nil
	}
	if b.root.Schema != "" {
		doc["$schema"] = b.root.Schema
	}
	added := map[string]map[string]any{}
	for refs := schemaRefs(doc, nil); len(refs) > 0; {
		r := refs[len(refs)-1]
		refs = refs[:len(refs)-1]
		d, name, ptr, reason := b.defRef(r)
		if reason != "" || r == "#" || d == nil {
			return nil
		}
		// Only a definition can be carried along under its own name; an
		// alternative that points anywhere else cannot stand alone.
		var key string
		switch {
		case strings.Count(ptr, "/") != 2:
			return nil
		case strings.HasPrefix(ptr, "/$defs/"):
			key = "$defs"
		case strings.HasPrefix(ptr, "/definitions/"):
			key = "definitions"
		default:
			return nil
		}
		if _, done := added[key][name]; done {
			continue
		}
		dv, ok := decodeSchema(d)
		if !ok {
			return nil
		}
		if added[key] == nil {
			added[key] = map[string]any{}
		}
		added[key][name] = dv
		refs = schemaRefs(dv, refs)
	}
	for k, v := range added {
		doc[k] = v
	}
	c, err := canon.JSON(doc)
	if err != nil {
		return nil
	}
	return c
}

// decodeSchema is s as a decoded JSON object.
func decodeSchema(s *jsonschema.Schema) (map[string]any, bool) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, false
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil || doc == nil {
		return nil, false // a boolean schema marshals as true or false
	}
	return doc, true
}

// schemaRefs appends every "$ref" string in a decoded schema to refs.
func schemaRefs(v any, refs []string) []string {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" {
				refs = append(refs, s)
				continue
			}
			refs = schemaRefs(e, refs)
		}
	case []any:
		for _, e := range x {
			refs = schemaRefs(e, refs)
		}
	}
	return refs
}

// refusals are the warnings about the typed numbers of the input schema
// (collected while it was mapped) that a valid call can hold and their Go
// type cannot, so that the gate refuses the call: one per rule for the
// tool, at ptr (its input schema), listing their pointers.
func (b *schemaBuilder) refusals(ptr string) diag.List {
	var out diag.List
	add := func(code diag.Code, ptrs []string, what string) {
		if len(ptrs) == 0 {
			return
		}
		ptrs = slices.Compact(slices.Sorted(slices.Values(ptrs)))
		out = append(out, diag.Diagnostic{Severity: diag.Warning, Code: code, File: b.file, Tool: b.tool, Pointer: ptr,
			Msg: fmt.Sprintf("%s, so a valid call with such a value is refused (docs/generated-code.md, Fidelity): %s", what, strings.Join(ptrs, ", "))})
	}
	add(diag.CodeIntegerRange, b.intPtrs, "integers typed int64 (uint64) whose schema has no bounds within that range")
	add(diag.CodeNumberPrecision, b.numPtrs, "numbers typed float64, which holds neither a literal beyond its precision (0.1000000000000000055) nor one beyond its range")
	return out
}

// constant maps a const.
func (b *schemaBuilder) constant(s *jsonschema.Schema, ptr, name string) mapped {
	j, _ := json.Marshal(*s.Const)
	switch v := (*s.Const).(type) {
	case string:
		return b.enum([]string{v}, nil, false, name)
	case bool:
		return mapped{t: Scalar{Bool}, notes: []string{"Always " + string(j) + "."}}
	case float64:
		t := Scalar{Float64}
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 && (slices.Contains(typeList(s), "integer") || !slices.Contains(typeList(s), "number")) {
			t = Scalar{Int64}
		} else if b.input {
			b.numPtrs = append(b.numPtrs, ptr)
		}
		return mapped{t: t, notes: []string{"Always " + string(j) + "."}}
	case nil:
		return mapped{t: Raw{}, nullable: true, notes: []string{"Always null."}}
	}
	m := b.fallback(ptr+"/const", "const of an object or array")
	m.notes = append(m.notes, "Always "+string(j)+".")
	return m
}

// nullableExtra reports the OpenAPI 3.0 form "nullable": true.
func nullableExtra(s *jsonschema.Schema) bool {
	v, ok := s.Extra["nullable"].(bool)
	return ok && v
}

// enumTypes returns the JSON types of enum values, "null" left out:
// "integer" when every number is integral, else "number".
func enumTypes(vs []any) []string {
	set := map[string]bool{}
	for _, v := range vs {
		switch x := v.(type) {
		case string:
			set["string"] = true
		case bool:
			set["boolean"] = true
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				set["integer"] = true
			} else {
				set["number"] = true
			}
		case json.Number, int, int64:
			set["number"] = true
		case nil:
		case []any:
			set["array"] = true
		default:
			set["object"] = true
		}
	}
	if set["integer"] && set["number"] {
		delete(set, "integer")
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
			for _, v := range s.Enum {
				switch x := v.(type) {
				case string:
					vals = append(vals, x)
				case nil:
				default:
					return b.fallback(ptr+"/enum", "enum value of another type than the schema's")
				}
			}
			return b.enum(vals, nil, false, name)
		}
		m.t = Scalar{String}
		if s.Format != "" {
			// The format is free text from the snapshot: one line, sanitised.
			m.notes = append(m.notes, fmt.Sprintf("Format: %s (kept as sent).", strings.Join(DocLines(s.Format), " ")))
		}
	case "integer":
		m.t = Scalar{Int64}
		switch s.Format {
		case "uint", "uint8", "uint16", "uint32", "uint64":
			// Only when the schema itself rules out negative values: a
			// format is an annotation, and uint64 would refuse -1.
			if (s.Minimum != nil && *s.Minimum >= 0) || (s.ExclusiveMinimum != nil && *s.ExclusiveMinimum >= -1) {
				m.t = Scalar{Uint64}
			}
		}
		if len(s.Enum) == 0 && b.input && !b.boundsFit(s, ptr, m.t == Scalar{Uint64}) {
			b.intPtrs = append(b.intPtrs, ptr)
		}
		if len(s.Enum) > 0 {
			var ints []int64
			for _, v := range s.Enum {
				if x, ok := v.(float64); ok && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
					ints = append(ints, int64(x))
				} else if v != nil {
					return b.fallback(ptr+"/enum", "enum value that is not an integer")
				}
			}
			return b.intEnum(ints, name)
		}
	case "number":
		m.t = Scalar{Float64}
		m.notes = enumNote(s.Enum)
		if b.input {
			b.numPtrs = append(b.numPtrs, ptr)
		}
	case "boolean":
		m.t = Scalar{Bool}
		m.notes = enumNote(s.Enum)
	case "array":
		tuple := slices.Concat(s.PrefixItems, s.ItemsArray)
		switch {
		case len(tuple) > 0:
			// The items past the tuple take the rest's schema (items beside
			// prefixItems, additionalItems beside an items array), any value
			// when it is absent: []T only when all of them are T's.
			rest := s.Items
			if len(s.ItemsArray) > 0 {
				rest = s.AdditionalItems
			}
			same := true
			for _, t := range tuple[1:] {
				same = same && schemaJSON(t) == schemaJSON(tuple[0])
			}
			if !isFalseSchema(rest) && schemaJSON(rest) != schemaJSON(tuple[0]) {
				same = false
			}
			if !same {
				m.t = Slice{Raw{}}
				m.notes = []string{"Items are kept as sent: the tuple's item schemas differ (the runtime checks each)."}
				break
			}
			key := "/prefixItems/0"
			if len(s.ItemsArray) > 0 {
				key = "/items/0"
			}
			e := b.mapSchema(tuple[0], ptr+key, name+"Item")
			m.t = Slice{elemType(e)}
			m.notes = e.notes
		case s.Items == nil:
			m.t = Slice{Raw{}}
		default:
			e := b.mapSchema(s.Items, ptr+"/items", name+"Item")
			m.t = Slice{elemType(e)}
			m.notes = e.notes
		}
	case "object":
		switch {
		case len(s.Properties) > 0 || (isFalseSchema(s.AdditionalProperties) && len(s.PatternProperties) == 0):
			// A closed object whose patternProperties admit keys is a map
			// (below), not an empty struct that would refuse every key.
			m.t = b.object(s, ptr, name, false)
		case len(s.PatternProperties) > 0 || (s.AdditionalProperties != nil && !isTrueSchema(s.AdditionalProperties)):
			e, notes := b.extra(s, ptr, name)
			m.t = Map{e}
			m.notes = notes
		default:
			m.t = Map{Raw{}}
			m.notes = []string{"Any JSON object."}
		}
	default:
		return b.fallback(ptr+"/type", fmt.Sprintf("unknown type %q", typ))
	}
	return m
}

// Powers of two that bound int64 and uint64: every integer of [-2^63,
// 2^63) is an int64, every one of [0, 2^64) a uint64.
var (
	two63 = new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 63))
	two64 = new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 64))
	one   = big.NewRat(1, 1)
)

// boundsFit reports whether the bounds of an integer schema s (at ptr)
// keep every valid value within the Go type's range: int64, or uint64 when
// unsigned (whose lower bound, ≥ 0 or > -1, the mapping has checked). Both
// a lower and an upper bound are needed, each compared exactly: a bound
// near the limits is read from the schema's own literal (its float64 may
// round across them: 9223372036854775807 is 2^63 as a float64).
func (b *schemaBuilder) boundsFit(s *jsonschema.Schema, ptr string, unsigned bool) bool {
	lo, hi := new(big.Rat).Neg(two63), new(big.Rat).Sub(two63, one) // the allowed range, inclusive
	if unsigned {
		lo, hi = new(big.Rat), new(big.Rat).Sub(two64, one)
	}
	upper := false
	if v := b.bound(s.Maximum, ptr, "maximum"); v != nil {
		upper = upper || v.Cmp(hi) <= 0
	}
	if v := b.bound(s.ExclusiveMaximum, ptr, "exclusiveMaximum"); v != nil {
		upper = upper || v.Cmp(new(big.Rat).Add(hi, one)) <= 0
	}
	lower := unsigned
	if v := b.bound(s.Minimum, ptr, "minimum"); v != nil {
		lower = lower || v.Cmp(lo) >= 0
	}
	if v := b.bound(s.ExclusiveMinimum, ptr, "exclusiveMinimum"); v != nil {
		lower = lower || v.Cmp(new(big.Rat).Sub(lo, one)) >= 0
	}
	return lower && upper
}

// bound is the exact value of a numeric keyword of the schema at ptr
// whose float64 is f (nil: absent). Far from int64's and uint64's limits
// the float64 decides as the literal would; near them the literal of
// rootRaw at ptr/key is read, when it is there and is that float64 (a
// schema mapped in another's place, a merged allOf, has its own numbers);
// else the float64 stands.
func (b *schemaBuilder) bound(f *float64, ptr, key string) *big.Rat {
	if f == nil || math.IsInf(*f, 0) || math.IsNaN(*f) {
		return nil
	}
	v := new(big.Rat).SetFloat64(*f)
	if math.Abs(*f) < 1<<62 || !strings.HasPrefix(ptr, b.rootPtr) {
		return v
	}
	if !b.rawDone {
		b.rawDone = true
		if b.rootRaw != nil {
			d := json.NewDecoder(bytes.NewReader(b.rootRaw))
			d.UseNumber()
			if d.Decode(&b.rawDoc) != nil {
				b.rawDoc = nil
			}
		}
	}
	cur := b.rawDoc
	rel := ptr[len(b.rootPtr):] + "/" + jsonptr.EscapeToken(key)
	for _, tok := range strings.Split(rel[1:], "/") {
		switch x := cur.(type) {
		case map[string]any:
			cur = x[jsonptr.UnescapeToken(tok)]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return v
			}
			cur = x[i]
		default:
			return v
		}
	}
	n, ok := cur.(json.Number)
	if !ok {
		return v
	}
	if lf, err := strconv.ParseFloat(string(n), 64); err != nil || lf != *f {
		return v
	}
	if exact, ok := new(big.Rat).SetString(string(n)); ok {
		return exact
	}
	return v
}

// extra maps the values of an object's additional properties: the single
// schema of additionalProperties or patternProperties, else any value.
func (b *schemaBuilder) extra(s *jsonschema.Schema, ptr, name string) (Type, []string) {
	var notes []string
	var sources []*jsonschema.Schema
	var srcPtr []string
	pats := make([]string, 0, len(s.PatternProperties))
	for p := range s.PatternProperties {
		pats = append(pats, p)
	}
	sort.Strings(pats)
	for _, p := range pats {
		sources = append(sources, s.PatternProperties[p])
		srcPtr = append(srcPtr, ptr+"/patternProperties/"+jsonptr.EscapeToken(p))
		notes = append(notes, fmt.Sprintf("Keys matching %q are checked by the runtime against their schema.", p))
	}
	if ap := s.AdditionalProperties; ap != nil && !isFalseSchema(ap) && !(len(pats) > 0 && isTrueSchema(ap)) {
		sources = append(sources, ap)
		srcPtr = append(srcPtr, ptr+"/additionalProperties")
	} else if ap == nil {
		// Open: keys matching no pattern take any value.
		sources = append(sources, nil)
		srcPtr = append(srcPtr, ptr)
	}
	if len(sources) != 1 {
		return Raw{}, append(notes, "Values are kept as sent: several schemas apply to them.")
	}
	e := b.mapSchema(sources[0], srcPtr[0], name+"Value")
	return elemType(e), append(notes, e.notes...)
}

// elemType is the Go type of an array element or map value: a nullable
// scalar, enum, union or struct element becomes a pointer.
func elemType(e mapped) Type {
	if !e.nullable {
		return e.t
	}
	switch e.t.(type) {
	case Scalar, *Enum, *Struct, *Union:
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

// enum declares a named string type with one constant per value, in the
// schema's order (a repeated value once, where it first appears).
func (b *schemaBuilder) enum(vals []string, docs map[string][]string, null bool, name string) mapped {
	e := &Enum{Name: name, Kind: String}
	seen := map[string]bool{}
	var cands []candidate
	for _, v := range vals {
		if seen[v] {
			continue
		}
		seen[v] = true
		e.Values = append(e.Values, EnumValue{Value: v, Doc: docs[v]})
	}
	for i := range e.Values {
		v := &e.Values[i]
		cands = append(cands, candidate{ident: identPart(v.Value), source: v.Value, out: &v.GoName})
	}
	resolve(cands, nil)
	b.decls = append(b.decls, e)
	return mapped{t: e, nullable: null}
}

// intEnum declares a named int64 type with one constant per value,
// <Type>1, <Type>Minus1, in the schema's order (a repeated value once).
func (b *schemaBuilder) intEnum(vals []int64, name string) mapped {
	e := &Enum{Name: name, Kind: Int64}
	seen := map[int64]bool{}
	for _, v := range vals {
		if seen[v] {
			continue
		}
		seen[v] = true
		part := fmt.Sprint(v)
		if v < 0 {
			part = fmt.Sprint("Minus", -v)
		}
		e.Values = append(e.Values, EnumValue{GoName: part, Int: v, Value: fmt.Sprint(v)})
	}
	b.decls = append(b.decls, e)
	return mapped{t: e}
}

// allOfMember returns an allOf member, its $ref followed, or a reason.
func (b *schemaBuilder) allOfMember(sub *jsonschema.Schema) (*jsonschema.Schema, string) {
	if sub == nil {
		return nil, "empty allOf member"
	}
	if sub.Ref != "" {
		return b.deref(sub)
	}
	return sub, ""
}

// mergeAllOf merges an allOf of objects into one object schema.
func (b *schemaBuilder) mergeAllOf(s *jsonschema.Schema) (*jsonschema.Schema, string) {
	m := *s
	m.AllOf = nil
	if len(s.AllOf) == 1 && len(typeList(s)) == 0 && len(s.Properties) == 0 && s.Ref == "" {
		sub, reason := b.allOfMember(s.AllOf[0])
		if reason != "" {
			return nil, reason
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
	// The merge is an object only when a member or the parent says so
	// (type "object"): object keywords alone do not make a value one.
	typed := len(typeList(s)) > 0
	m.Properties = map[string]*jsonschema.Schema{}
	for k, v := range s.Properties {
		m.Properties[k] = v
	}
	m.Required = slices.Clone(s.Required)
	for _, sub := range s.AllOf {
		sub, reason := b.allOfMember(sub)
		if reason != "" {
			return nil, reason
		}
		if shapeless(sub) || isTrueSchema(sub) {
			continue // only constraints, which the runtime checks
		}
		if !objectish(sub) || len(sub.AllOf) > 0 || len(sub.AnyOf) > 0 || len(sub.OneOf) > 0 {
			return nil, "allOf of a non-object (or nested composition)"
		}
		typed = typed || len(typeList(sub)) > 0
		for k, v := range sub.Properties {
			if prev, ok := m.Properties[k]; ok && schemaJSON(prev) != schemaJSON(v) {
				return nil, fmt.Sprintf("allOf members disagree on property %q", k)
			}
			m.Properties[k] = v
		}
		m.Required = append(m.Required, sub.Required...)
		if isFalseSchema(sub.AdditionalProperties) && len(sub.PatternProperties) == 0 {
			// Closed: every key is one of the member's properties, all of
			// them fields of the merge. (A member's patternProperties are
			// not merged: its keys stay open.)
			m.AdditionalProperties = sub.AdditionalProperties
		}
	}
	m.Type, m.Types = "", nil
	if typed {
		m.Type = "object"
	}
	return &m, ""
}

// object declares the struct of an object schema; top is true for the
// tool's Args or Result.
func (b *schemaBuilder) object(s *jsonschema.Schema, ptr, name string, top bool) *Struct {
	st := &Struct{Name: name, Pointer: ptr}
	b.decls = append(b.decls, st)
	if b.pendingRef != "" {
		b.defs[b.pendingRef] = mapped{t: st}
		b.pendingRef = ""
	}
	b.building[st] = true
	defer delete(b.building, st)
	if top {
		b.checkPatterns()
	}
	// A nested object takes every key its schema allows: only
	// additionalProperties false (without patternProperties) limits the
	// keys to the declared properties. The top level forwards only the
	// declared properties, whatever the schema says.
	open := !isFalseSchema(s.AdditionalProperties) || len(s.PatternProperties) > 0
	if top && len(s.Properties) > 0 && ((s.AdditionalProperties != nil && !isFalseSchema(s.AdditionalProperties)) || len(s.PatternProperties) > 0) {
		b.warns = append(b.warns, diag.Diagnostic{Severity: diag.Warning, Code: diag.CodeUndeclaredArgument, File: b.file, Tool: b.tool,
			Pointer: ptr + "/additionalProperties",
			Msg:     "additional properties are not forwarded: only the declared properties are accepted"})
	}
	props := make([]string, 0, len(s.Properties))
	leftOut := false // a declared property without a field, kept in the catch-all
	for k := range s.Properties {
		if len(k) > load.MaxNameSize {
			b.warn(ptr+"/properties", "property name is %d bytes, over the limit of %d for a Go field: the property has none, and its value is kept as sent in %s", len(k), load.MaxNameSize, ExtraField)
			leftOut = true
			continue
		}
		if !jsonscan.IsValidTagName(k) {
			b.warn(ptr+"/properties/"+jsonptr.EscapeToken(k), "property name cannot be a JSON struct tag: the property has no field, and its value is kept as sent in %s", ExtraField)
			leftOut = true
			continue
		}
		if isFalseSchema(s.Properties[k]) {
			if slices.Contains(s.Required, k) {
				b.warn(ptr+"/properties/"+jsonptr.EscapeToken(k), "required property with schema false: no call can succeed")
			}
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
		m := b.mapSchema(ps, ptr+"/properties/"+jsonptr.EscapeToken(p), name+f.GoName)
		f.Nullable = m.nullable
		t := m.t
		if inner, ok := t.(*Struct); ok && b.building[inner] {
			// A recursive field: through a pointer, or the type would
			// contain itself.
			t = Pointer{t}
			if !f.Required && m.nullable {
				t = Nullable{t}
			}
			f.Type, f.OmitZero = t, !f.Required
		} else {
			f.Type, f.OmitZero = fieldType(t, f.Required, m.nullable)
		}
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
			if c, err := canon.JSON([]byte(ps.Default)); err == nil {
				f.Doc = appendNote(f.Doc, DocLines("Default (applied by the server when the property is absent): "+string(c)+".")...)
			}
		}
	}
	switch {
	case leftOut:
		// The properties without a field have their own schemas: their
		// values, and any other the schema allows, are kept as sent.
		st.Extra = Raw{}
		st.ExtraDoc = []string{"AdditionalProperties holds the properties that have no field (their names cannot be Go struct tags, or are too long), and any other the schema allows, as sent."}
		if top {
			st.ExtraDoc = []string{"AdditionalProperties holds the declared properties that have no field (their names cannot be Go struct tags, or are too long), as sent."}
		}
	case open && !top:
		st.Extra, st.ExtraDoc = b.extra(s, ptr, name)
		st.ExtraDoc = append([]string{"AdditionalProperties holds the properties the schema does not declare."}, st.ExtraDoc...)
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
// has or may have (the markers, the catch-all field, encoding/json's,
// fmt's and ocpimpl.WithExtra's methods, and OCPResources and
// OCPConfirmPrompt, the names of Args methods of earlier versions): a
// property that would map to one gets the
// suffix "_", whether or not the struct has the field or method, so that
// names do not change when the schema gains one or the generator changes.
var reservedFields = map[string]bool{
	"Read": true, "Write": true, "OCPResources": true, "OCPConfirmPrompt": true,
	"MarshalJSON": true, "UnmarshalJSON": true, "String": true, ExtraField: true, "OCPWithExtra": true,
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
