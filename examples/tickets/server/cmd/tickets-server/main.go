// Command tickets-server serves the example ticket desk over MCP: on stdio
// (the default, as go:generate's snapshot step runs it) or over Streamable
// HTTP with -http ADDR.
package main

import (
	"context"
	"flag"
	"log"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/examples/tickets/server"
)

func main() {
	addr := flag.String("http", "", "serve Streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	flag.Parse()
	s := server.New(server.NewDesk())
	if *addr == "" {
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			log.Fatal(err)
		}
		return
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	log.Printf("tickets MCP server on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}
