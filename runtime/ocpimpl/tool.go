package ocpimpl

import "github.com/ocpgen/ocpgen/internal/impl"

// The tool data of a generated package.
type (
	// Tool is one generated tool: its argument type and its descriptor.
	Tool = impl.Tool
	// Descriptor describes one generated tool.
	Descriptor = impl.Descriptor
	// Policy is a tool's authorization data, resolved by the generator.
	Policy = impl.Policy
	// Template is a resource or confirm-prompt template that the generator
	// parsed and bound to the tool's argument fields.
	Template = impl.Template
	// Segment is one part of a [Template].
	Segment = impl.Segment
	// BindMode says how a template segment is rendered.
	BindMode = impl.BindMode
	// ServerHints are the annotations the MCP server sent for a tool, kept
	// for display and review only.
	ServerHints = impl.ServerHints
	// Catalogue is the set of tools generated from one snapshot and
	// classification, with the digest of their policy.
	Catalogue = impl.Catalogue
)

// The bind modes (see [BindMode]).
const (
	BindText         = impl.BindText
	BindValue        = impl.BindValue
	BindOptional     = impl.BindOptional
	BindNullable     = impl.BindNullable
	BindEach         = impl.BindEach
	BindNullableEach = impl.BindNullableEach
	BindJSON         = impl.BindJSON
	BindAll          = impl.BindAll
)

// NewCatalogue returns the catalogue of the given tools, with the ordered
// tiers (lowest first) of the classification and the policy digest the
// generator computed over both. It panics on a duplicate tool name, and on
// a tool whose Args is not a nil pointer to an argument struct with the
// policy's marker, which the generator never emits.
func NewCatalogue(digest string, tiers []string, tools ...*Tool) *Catalogue {
	return impl.NewCatalogue(digest, tiers, tools...)
}
