package argengine

import "github.com/ocpgen/ocpgen/runtime/ocpimpl"

// The generated-code names the engine's hand-written test types are made
// of, as generated argument structs embed them.
type (
	Read  = ocpimpl.Read
	Write = ocpimpl.Write
)
