// Command hub is the example OCP Hub: it serves the ticket desk's MCP server
// over Streamable HTTP on 127.0.0.1, fronts it through the generated bridge
// (../ticketsocp) and the ocpgen runtime, and runs a scripted session,
// printing every OCP frame the Hub exchanges with the model and with a
// second connected peer (the user's phone, which answers confirms).
//
//	go run ./examples/tickets/hub
//
// With -serve, the Hub also serves the approval page (runtime/ocpweb) on
// 127.0.0.1, prints the address to open, and leaves to a person in that
// browser the decisions the phone would make (those of confirms with more
// than a few seconds to live): the session waits for them.
//
//	go run ./examples/tickets/hub -serve
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"
)

func main() {
	serve := flag.Bool("serve", false, "serve the approval page on 127.0.0.1 and wait for a person to decide the session's writes there")
	flag.Parse()
	var (
		ctx    context.Context
		cancel context.CancelFunc
		ready  func(string)
	)
	if *serve {
		// Each confirm that waits for a person expires after its ttl (2
		// minutes), so the session ends without one too.
		ctx, cancel = signal.NotifyContext(context.Background(), os.Interrupt)
		ready = func(url string) {
			fmt.Fprintf(os.Stderr, "hub: open %s in a browser to decide the session's writes as alice\n", url)
		}
	} else {
		ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	}
	defer cancel()
	if err := run(ctx, os.Stdout, ready); err != nil {
		fmt.Fprintln(os.Stderr, "hub:", err)
		os.Exit(1)
	}
}
