// Command notes-server serves the end-to-end tests' note store
// (package notesserver) over stdio, for "ocpgen snapshot -command".
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/e2e/notesserver"
)

func main() {
	srv, _ := notesserver.New()
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "notes-server:", err)
		os.Exit(1)
	}
}
