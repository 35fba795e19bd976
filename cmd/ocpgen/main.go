// Command ocpgen generates, from a snapshot of an MCP server's tools/list and
// a classification file, a Go package that lets an OCP Hub offer the server's
// tools behind its own authorization and confirm gate.
//
// Usage:
//
//	ocpgen snapshot (-url URL | -command "PROG ARGS...") [-header "Name: value"]... [-timeout D] -o FILE
//	ocpgen init -snapshot S [-o FILE] [-force]
//	ocpgen generate -snapshot S [-classify C] [-package P] -out DIR
//	ocpgen check -snapshot S [-classify C] [-package P] -out DIR [-strict]
//	ocpgen diff OLD NEW [-classify-old C1 -classify-new C2] [-format text|markdown|json] [-fail-on LEVELS]
//	ocpgen diff -git-base REF -snapshot S [-classify C] [-format ...] [-fail-on LEVELS]
//	ocpgen vet [packages]
//	ocpgen version
//
// Exit status: 0 on success, 1 on an input error, 2 on a usage error.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
