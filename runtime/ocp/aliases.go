package ocp

import "github.com/ocpgen/ocpgen/runtime/ocpimpl"

// The names of the generated-code package that Hub code uses. They are
// aliases: a generated package's types are these types.
type (
	// ReadArgs is satisfied only by pointers to the arguments of tools
	// classified as reads (&memoryocp.ReadGraphArgs{}). A Hub function
	// that must never write takes a ReadArgs (or a type parameter
	// constrained by it): passing a write's arguments does not compile,
	// and reclassifying a tool as a write breaks such code at compile time.
	ReadArgs = ocpimpl.ReadArgs
	// WriteArgs is satisfied only by pointers to the arguments of tools
	// classified as writes (every unclassified tool is one).
	WriteArgs = ocpimpl.WriteArgs
	// Nullable is an optional argument whose schema allows null: absent,
	// explicitly null, or a value. Build one with [Null] or [Value].
	Nullable[T any] = ocpimpl.Nullable[T]
	// Descriptor describes one generated tool, as the [ACL] hook sees it
	// (Descriptor.Write reports whether it is a write).
	Descriptor = ocpimpl.Descriptor
	// Catalogue is a generated package's set of tools (its Catalogue
	// variable), for [Config].
	Catalogue = ocpimpl.Catalogue
)

// Null returns a Nullable holding an explicit null: the argument is sent as
// null.
func Null[T any]() Nullable[T] { return ocpimpl.Null[T]() }

// Value returns a Nullable holding v.
func Value[T any](v T) Nullable[T] { return ocpimpl.Value(v) }
