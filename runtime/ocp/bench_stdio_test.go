package ocp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/benchpair"
)

// benchStdioServerEnv, set in the environment of this package's test
// binary, makes it serve benchServer over stdio instead of running tests
// (see TestMain): the stdio benchmarks re-run the test binary as their
// server, so that no other program has to be built.
const benchStdioServerEnv = "OCP_BENCH_STDIO_SERVER"

// serveBenchStdio serves benchServer on stdin/stdout until stdin closes.
func serveBenchStdio() int {
	if err := benchServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "bench stdio server:", err)
		return 1
	}
	return 0
}

// stdioTransport starts a new bench server process (this test binary,
// re-run with benchStdioServerEnv) and talks to it over its stdin and
// stdout.
func stdioTransport(b *testing.B) *mcp.CommandTransport {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), benchStdioServerEnv+"=1")
	cmd.Stderr = os.Stderr
	return &mcp.CommandTransport{Command: cmd}
}

// benchGateStdio pairs a raw go-sdk call over stdio to one server process
// (a) with the gated call through a Client over stdio to another process of
// the same server (b), call by call, as gate-http does over HTTP.
func benchGateStdio(b *testing.B) {
	ctx := context.Background()
	cs, err := newClient().Connect(ctx, stdioTransport(b), &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	c, err := Connect(ctx, stdioTransport(b), ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	g := benchGate(b, c, nil)
	benchpair.Run(b, rawCall(b, cs), gateCall(b, g))
}
