// Package model is the generator's Go-free intermediate model: the package,
// its tools, their policies and their argument and result types, with every
// name already chosen and every decision (optionality, fallbacks, policy
// defaults) already made. The emitter only prints it.
package model

import (
	"slices"
	"time"

	"github.com/ocpgen/ocpgen/runtime/ocpimpl"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
)

// Package is one generated Go package.
type Package struct {
	// Name is the Go package name.
	Name string
	// Tiers are the classification's tiers, lowest first (nil without a
	// classification: then no tier is ever authorized).
	Tiers []string
	// Server names the server the snapshot was taken from ("" if unknown).
	Server string
	// Inputs are the input files (snapshot first), by base name.
	Inputs []Input
	// Tools are sorted by MCP name.
	Tools []*Tool
	// Unclassified are the MCP names of the tools a classification file
	// does not list, sorted (none without a classification file: then
	// every tool is unclassified, which a warning says once).
	Unclassified []string
	// TaskRequired are the MCP names of the snapshot's tools that declare
	// execution.taskSupport "required", sorted. They are left out of the
	// package (each with a warning, code diag.CodeTaskRequired): the
	// runtime's go-sdk client cannot call a tool as a task, so such a tool
	// would be advertised and confirmed, then always fail.
	TaskRequired []string
	// Warnings are the diagnostics of severity Warning.
	Warnings diag.List
	// Digest is the digest of the package's compiled policy: impl.Digest
	// of Tiers and every tool's Descriptor. The gate recomputes it and
	// refuses a catalogue whose tools no longer match it.
	Digest string
}

// Input is one input file.
type Input struct {
	// File is the file's base name (no directory: output must not depend on
	// where the generator ran).
	File string
	// Digest is "sha256:<hex>" of the file's bytes.
	Digest string
}

// Kind is a tool's access: read or write.
type Kind uint8

// The two kinds.
const (
	Read Kind = iota + 1
	Write
)

// String returns "read" or "write".
func (k Kind) String() string {
	if k == Read {
		return "read"
	}
	return "write"
}

// Tool is one generated tool.
type Tool struct {
	// Name is the MCP tool name.
	Name string
	// GoName is the tool's identifier: the variable holding its descriptor
	// is GoName, its argument type GoName+"Args".
	GoName string
	// File is the name of the generated file holding the tool.
	File string
	// Index is the tool's position in the snapshot's tools array.
	Index       int
	Title       string
	Description string
	Kind        Kind
	// Classified is false for a tool the classification does not list.
	Classified bool
	Policy     Policy
	// Args is the argument struct (always set; it may have no fields).
	Args *Struct
	// Result is the struct of the tool's outputSchema, nil without one.
	Result *Struct
	// Decls are all named types of the tool (Args, Result and their nested
	// structs and enums), in emission order.
	Decls []Decl
	// CanonicalSchema is the canonical JSON of the input schema.
	CanonicalSchema []byte
	// Fingerprint is "sha256:<hex>" of CanonicalSchema.
	Fingerprint string
	// CanonicalOutputSchema is the canonical JSON of the output schema, nil
	// without one, or when it does not resolve (then a warning says the
	// gate cannot validate results).
	CanonicalOutputSchema []byte
	// Hints are the server's annotations (not trusted).
	Hints Hints
	// TaskSupport is the tool's execution.taskSupport: "", "forbidden" or
	// "optional" (a tool that needs a task is not generated).
	TaskSupport string
	// IconsFingerprint and MetaFingerprint are impl.IconsFingerprint of the
	// tool's icons and impl.MetaFingerprint of its _meta, "" without them.
	// The gate audits a live tool whose icons or _meta differ.
	IconsFingerprint, MetaFingerprint string
}

// Hints are the server's tool annotations; nil (or "") means absent.
type Hints struct {
	Title                                        string
	ReadOnly, Destructive, Idempotent, OpenWorld *bool
}

// Policy is a tool's authorization data, every default applied.
type Policy struct {
	Tier   string
	Scopes []string
	// Resource is the resource template's text: the classification's, or
	// the tool's name escaped as a template when it sets none, so the ACL
	// always has a resource to check.
	Resource string
	// ResourceSegments are Resource parsed and bound to the argument
	// fields, in template order: what the generated code holds and the gate
	// renders.
	ResourceSegments []Segment
	// ConfirmPrompt is the classification's confirm prompt template ("" when
	// the default prompt is used, and for reads).
	ConfirmPrompt string
	// PromptSegments are the confirm prompt parsed and bound to the
	// argument fields (the default prompt's when ConfirmPrompt is ""); the
	// generated code holds them for writes.
	PromptSegments []Segment
	// ConfirmTTL is how long a write's confirm waits (0 for reads).
	ConfirmTTL time.Duration
	// Failure is the safe failure text.
	Failure string
}

// Segment is one part of a bound template: literal text (Mode
// ocpimpl.BindText), a placeholder bound to a top-level field of the tool's
// arguments, rendered as Mode says, or (Mode ocpimpl.BindAll) the whole
// arguments, as the default prompt shows them. The modes are the runtime's,
// so the emitter prints them as they are.
type Segment struct {
	Mode  ocpimpl.BindMode
	Text  string
	Field *Field
}

// Decl is a named type declaration: *Struct, *Enum or *Union.
type Decl interface {
	Type
	// DeclName returns the Go type name.
	DeclName() string
}

// Type is a field's Go type: *Struct, *Enum, *Union, Scalar, Raw, Slice,
// Map, Pointer or Nullable.
type Type interface{ isType() }

// Struct is a named struct type.
type Struct struct {
	Name string
	// Doc is the doc comment, one line per element.
	Doc []string
	// Fields are sorted by JSON name.
	Fields []*Field
	// Pointer is the schema location ("/inputSchema/properties/x").
	Pointer string
	// Extra is the type of the values of additional properties, nil when
	// the struct takes only its declared properties. A struct with Extra
	// has the field AdditionalProperties map[string]Extra and its own
	// MarshalJSON and UnmarshalJSON.
	Extra Type
	// ExtraDoc documents the AdditionalProperties field.
	ExtraDoc []string
	// def is the $defs/definitions name the type was made from ("" if none).
	def string
}

// ExtraField is the Go name of the catch-all field of a struct with Extra.
const ExtraField = "AdditionalProperties"

// Field is a struct field.
type Field struct {
	GoName   string
	JSONName string
	Doc      []string
	Type     Type
	// Required is true when the property is in the schema's "required".
	Required bool
	// Nullable is true when the schema allows null.
	Nullable bool
	// OmitZero is true when the tag has the json option omitzero.
	OmitZero bool
	// Tag is the json struct tag value ("name,omitzero").
	Tag string
}

// Enum is a named string (or int64) type with one constant per value.
type Enum struct {
	Name string
	Doc  []string
	// Kind is String or Int64.
	Kind   ScalarKind
	Values []EnumValue
	// def is the $defs/definitions name the type was made from ("" if none).
	def string
}

// EnumValue is one constant of an Enum.
type EnumValue struct {
	GoName string
	// Value is the string value (Kind String).
	Value string
	// Int is the integer value (Kind Int64).
	Int int64
	// Doc is the value's description, from a oneOf of consts.
	Doc []string
}

// Union is a named struct type for a oneOf, an anyOf or a list of types:
// one pointer field per alternative, of which exactly one is set. Its
// MarshalJSON encodes that one; its UnmarshalJSON picks the alternative the
// schema picks: the first, in schema order, whose JSON kind matches, against
// whose schema the value validates and into which it decodes strictly.
type Union struct {
	Name     string
	Doc      []string
	Branches []*Branch
	// Pointer is the schema location of the oneOf, anyOf or type list.
	Pointer string
	// def is the $defs/definitions name the type was made from ("" if none).
	def string
}

// Branch is one alternative of a Union.
type Branch struct {
	GoName string
	// Type is the alternative's Go type; the field is a pointer to it.
	Type Type
	// Schema is the alternative's schema as self-contained canonical JSON
	// (with the root's definitions when it refers to them), which the
	// runtime validates a value against to pick the alternative; nil when
	// it cannot be made self-contained (a $ref to the root or elsewhere).
	Schema []byte
	// Required are the JSON names of an object alternative's required
	// properties: what picks it when Schema is nil.
	Required []string
	// Doc documents the field.
	Doc []string
}

// ScalarKind is a Go basic type.
type ScalarKind uint8

// The scalar kinds.
const (
	String ScalarKind = iota + 1
	Int64
	Uint64
	Float64
	Bool
)

// Scalar is a Go basic type.
type Scalar struct{ Kind ScalarKind }

// Raw is json.RawMessage: the lossless fallback for schemas with no exact Go
// type. The value goes to the server exactly as the caller sent it; the
// runtime validates it against the schema.
type Raw struct{}

// Slice is []Elem.
type Slice struct{ Elem Type }

// Map is map[string]Elem.
type Map struct{ Elem Type }

// Pointer is *Elem.
type Pointer struct{ Elem Type }

// Nullable is ocpimpl.Nullable[Elem].
type Nullable struct{ Elem Type }

func (*Struct) isType()  {}
func (*Enum) isType()    {}
func (*Union) isType()   {}
func (Scalar) isType()   {}
func (Raw) isType()      {}
func (Slice) isType()    {}
func (Map) isType()      {}
func (Pointer) isType()  {}
func (Nullable) isType() {}

// DeclName returns the struct's type name.
func (s *Struct) DeclName() string { return s.Name }

// DeclName returns the enum's type name.
func (e *Enum) DeclName() string { return e.Name }

// DeclName returns the union's type name.
func (u *Union) DeclName() string { return u.Name }

// JSONKinds returns the JSON kinds a value of t can encode as ("string",
// "number", "boolean", "array", "object"; all of them and "null" for Raw).
func JSONKinds(t Type) []string {
	switch x := t.(type) {
	case *Struct, Map:
		return []string{"object"}
	case Slice:
		return []string{"array"}
	case *Enum:
		if x.Kind == Int64 {
			return []string{"number"}
		}
		return []string{"string"}
	case Scalar:
		switch x.Kind {
		case String:
			return []string{"string"}
		case Bool:
			return []string{"boolean"}
		}
		return []string{"number"}
	case Pointer:
		return JSONKinds(x.Elem)
	case Nullable:
		return JSONKinds(x.Elem)
	case *Union:
		var out []string
		for _, b := range x.Branches {
			for _, k := range JSONKinds(b.Type) {
				if !slices.Contains(out, k) {
					out = append(out, k)
				}
			}
		}
		return out
	}
	return []string{"string", "number", "boolean", "array", "object", "null"}
}

// IsScalar reports whether t may be a resource placeholder value: a scalar
// or an enum.
func IsScalar(t Type) bool {
	switch t.(type) {
	case Scalar, *Enum:
		return true
	}
	return false
}
