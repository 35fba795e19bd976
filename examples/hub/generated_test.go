package main

import (
	"testing"

	"github.com/ocpgen/ocpgen/ocpgentest"
)

// TestGenerated fails when ticketsocp is stale: someone changed the snapshot
// or the classification and did not run go generate.
func TestGenerated(t *testing.T) {
	ocpgentest.Check(t, "tickets.tools.json", "tickets.ocp.yaml", "ticketsocp", ocpgentest.Strict())
}
