package impl

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
// as a read. It gives a pointer to the struct the [ReadArgs] method set;
// nothing else can.
//
// Each marker has one method, with a pointer receiver, so an argument struct
// has no methods and its pointer one promoted method. Each also holds a
// field named after the other marker's method: a struct that embeds both
// has neither method (the selector is ambiguous), so it satisfies neither
// ReadArgs nor WriteArgs. The field is a [0]func(), so argument structs are
// not comparable with == (like protobuf messages): whether a struct of
// fields is comparable would otherwise change with the schema (an array
// property makes it not).
type Read struct{ ocpWrite [0]func() }

// Write is embedded by the generated argument struct of every tool classified
// as a write (or not classified at all). It gives a pointer to the struct the
// [WriteArgs] method set; nothing else can.
type Write struct{ ocpRead [0]func() }

func (*Read) ocpRead()   {}
func (*Write) ocpWrite() {}

// ReadArgs is satisfied only by pointers to the arguments of tools classified
// as reads. A Hub function that must never write takes a ReadArgs (or a type
// parameter constrained by it): passing a write's arguments does not compile,
// and reclassifying a tool as a write breaks such code at compile time.
type ReadArgs interface {
	ocpRead()
}

// WriteArgs is satisfied only by pointers to the arguments of tools
// classified as writes (including unclassified tools).
type WriteArgs interface {
	ocpWrite()
}

// kindOfArgs returns the kind of the marker a's type carries, or 0 when it
// carries none.
func kindOfArgs(a any) Kind {
	switch a.(type) {
	case ReadArgs:
		return KindRead
	case WriteArgs:
		return KindWrite
	}
	return 0
}
