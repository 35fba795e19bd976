package ocpimpl

// Kind says whether a tool is a read or a write, as the Hub's classification
// file decides. The MCP server's own annotations never set it.
type Kind uint8

const (
	// KindRead marks a tool the classification lists with access: read.
	KindRead Kind = iota + 1
	// KindWrite marks a tool listed with access: write, and every tool the
	// classification does not list.
	KindWrite
)

// String returns "read" or "write".
func (k Kind) String() string {
	switch k {
	case KindRead:
		return "read"
	case KindWrite:
		return "write"
	}
	return "invalid"
}

// Read is embedded by the generated argument struct of every tool classified
// as a read. It gives the struct the [ReadArgs] method set; nothing else can.
type Read struct{}

// Write is embedded by the generated argument struct of every tool classified
// as a write (or not classified at all). It gives the struct the [WriteArgs]
// method set; nothing else can.
type Write struct{}

func (Read) ocpKind() Kind  { return KindRead }
func (Read) ocpRead()       {}
func (Write) ocpKind() Kind { return KindWrite }
func (Write) ocpWrite()     {}

// Args is implemented by every generated argument struct. Its unexported
// method can only be obtained by embedding [Read] or [Write], so no
// hand-written type can pose as a tool's arguments.
type Args interface {
	ocpKind() Kind
}

// ReadArgs is satisfied only by the arguments of tools classified as reads.
// A Hub function that must never write takes a ReadArgs (or a type parameter
// constrained by it): passing a write's arguments does not compile, and
// reclassifying a tool as a write breaks such code at compile time.
type ReadArgs interface {
	Args
	ocpRead()
}

// WriteArgs is satisfied only by the arguments of tools classified as writes
// (including unclassified tools).
type WriteArgs interface {
	Args
	ocpWrite()
}
