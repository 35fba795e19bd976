// Command hub is the example OCP Hub: it serves the ticket desk's MCP server
// over Streamable HTTP on 127.0.0.1, fronts it through the generated bridge
// (../ticketsocp) and the ocpgen runtime, and runs a scripted session,
// printing every OCP frame the Hub exchanges with the model and with a
// second connected peer (the user's phone, which answers confirms).
//
//	go run ./examples/tickets/hub
package main

import (
	"context"
	"fmt"
	"os"
	"time"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "hub:", err)
		os.Exit(1)
	}
}
