package ocpimpl

import "github.com/ocpgen/ocpgen/internal/impl"

// The read and write markers of generated argument structs.
type (
	// Kind says whether a tool is a read or a write, as the Hub's
	// classification file decides.
	Kind = impl.Kind
	// Read is embedded by the generated argument struct of every tool
	// classified as a read; it gives a pointer to the struct the
	// [ReadArgs] method set.
	Read = impl.Read
	// Write is embedded by the generated argument struct of every tool
	// classified as a write (or not classified at all); it gives a pointer
	// to the struct the [WriteArgs] method set.
	Write = impl.Write
	// ReadArgs is satisfied only by pointers to the arguments of tools
	// classified as reads.
	ReadArgs = impl.ReadArgs
	// WriteArgs is satisfied only by pointers to the arguments of tools
	// classified as writes (including unclassified tools).
	WriteArgs = impl.WriteArgs
)

// The two kinds.
const (
	KindRead  = impl.KindRead
	KindWrite = impl.KindWrite
)
