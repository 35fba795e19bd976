// Command ocpgen-vet runs ocpgen's vet checks:
//
//   - ocpbypass reports calls to the go-sdk's (*mcp.ClientSession).CallTool
//     made outside ocpgen's runtime and the packages ocpgen generates: such
//     a call reaches the MCP server without the Hub's authorization and
//     confirm gate;
//   - ocptoolargs reports typed calls of a generated tool with another
//     tool's arguments (X.Call(ctx, gate, p, YArgs{})), which the gate
//     refuses.
//
// Use it as a vet tool or on its own:
//
//	go install github.com/ocpgen/ocpgen/cmd/ocpgen-vet
//	go vet -vettool=$(which ocpgen-vet) ./...
//	ocpgen-vet ./...
//
// "ocpgen vet ./..." runs the same checks.
package main

import (
	"golang.org/x/tools/go/analysis/multichecker"

	"github.com/ocpgen/ocpgen/vet"
)

func main() { multichecker.Main(vet.Analyzer, vet.ToolArgs) }
