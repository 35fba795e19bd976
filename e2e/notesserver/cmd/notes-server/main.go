// Command notes-server serves the end-to-end tests' note store
// (package notesserver) over stdio, for "ocpgen-snapshot -command" and the
// tests of each MCP revision: -protocol 2026-07-28 (a comma-separated
// list) makes it speak only those revisions.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/e2e/notesserver"
)

func main() {
	protocol := flag.String("protocol", "", "the MCP revisions to speak, comma-separated (default: every one the go-sdk speaks)")
	flag.Parse()
	var versions []string
	if *protocol != "" {
		versions = strings.Split(*protocol, ",")
		for _, v := range versions {
			if !slices.Contains(mcp.SupportedProtocolVersions(), v) {
				fmt.Fprintf(os.Stderr, "notes-server: -protocol: %q is not a revision the go-sdk speaks (%s)\n", v, strings.Join(mcp.SupportedProtocolVersions(), ", "))
				os.Exit(2)
			}
		}
	}
	srv, _ := notesserver.New(versions...)
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "notes-server:", err)
		os.Exit(1)
	}
}
