// Command ocpgen-vet runs ocpgen's vet check, ocpbypass: it reports calls
// to the go-sdk's (*mcp.ClientSession).CallTool, and to the gate's own view
// of the server (ocp.Server.CallTool, (*ocp.Client).CallTool), made outside
// ocpgen's runtime and the packages ocpgen generates: such a call reaches
// the MCP server without the Hub's authorization and confirm gate.
//
// Use it as a vet tool or on its own:
//
//	go install github.com/ocpgen/ocpgen/cmd/ocpgen-vet
//	go vet -vettool=$(which ocpgen-vet) ./...
//	ocpgen-vet ./...
//
// "ocpgen vet ./..." runs the same check.
package main

import (
	"golang.org/x/tools/go/analysis/singlechecker"

	"github.com/ocpgen/ocpgen/vet"
)

func main() { singlechecker.Main(vet.Analyzer) }
