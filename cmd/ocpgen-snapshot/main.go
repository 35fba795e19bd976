// Command ocpgen-snapshot records an MCP server's tools/list into a
// canonical snapshot file (NAME.tools.json), the input of "ocpgen init" and
// "ocpgen generate".
//
// Usage:
//
//	ocpgen-snapshot (-url URL | -command "PROG ARGS...") [-header "Name: value"]... [-timeout D] [-q] -o FILE
//
// In a Hub module it is a tool of the module, run as "go tool
// ocpgen-snapshot". It is a program of its own, not a command of ocpgen, so
// that the generator, which runs on every go generate, does not link the
// MCP client and the network stack it needs.
//
// Exit status: 0 the snapshot is written, 2 trouble (a usage error, a
// server that cannot be listed, a tool list that generate would refuse, a
// file that cannot be written); nothing is written unless it succeeds.
package main

import (
	"io"
	"os"

	"github.com/ocpgen/ocpgen/internal/cli"
)

// prog is the command's name, in its usage and its messages.
const prog = "ocpgen-snapshot"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run executes the command line and returns the exit status.
func run(args []string, stderr io.Writer) int {
	return cli.Status(snapshot(args, stderr), stderr)
}
