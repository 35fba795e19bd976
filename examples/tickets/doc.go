// Package tickets is ocpgen's bundled example: an MCP server for a support
// ticket desk (./server), its snapshot (tickets.tools.json), the Hub's
// classification of its tools (tickets.ocp.yaml), the bridge package that
// go generate makes from the two (./ticketsocp), and a Hub that runs a
// scripted session through the gate and prints the OCP frames (./hub).
//
// Regenerate with go generate ./examples/tickets: the first line re-records
// the snapshot from the server over stdio, the second regenerates the bridge.
package tickets

//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen-snapshot -command "go run github.com/ocpgen/ocpgen/examples/tickets/server/cmd/tickets-server" -o tickets.tools.json
//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen generate -snapshot tickets.tools.json -classify tickets.ocp.yaml -package ticketsocp -out ticketsocp
