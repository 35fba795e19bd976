package tools

import ocprt "github.com/ocpgen/ocpgen/runtime"

// A tool literal in a hand-written file is not ocpgen's: ocptoolargs knows
// nothing of its arguments and reports no call of it.
var Handmade = &ocprt.Tool{Args: (*ReadFileArgs)(nil), Desc: ocprt.Descriptor{Name: "handmade"}}
