package ocp

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/benchpair"
)

// revisionCaller is a Client speaking revision to a fresh bench server
// that speaks only it: in memory, or over Streamable HTTP on 127.0.0.1
// (stateless under ProtocolVersion, which has no sessions).
func revisionCaller(b *testing.B, revision, transport string) *Client {
	b.Helper()
	ctx := context.Background()
	srv := benchServer(revision)
	var t mcp.Transport
	switch transport {
	case "inmem":
		ct, st := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(ctx, st, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ss.Wait() })
		t = ct
	case "http":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
			&mcp.StreamableHTTPOptions{Stateless: revision >= ProtocolVersion})}
		go hs.Serve(ln)
		b.Cleanup(func() { hs.Close() })
		t = &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String()}
	}
	c, err := Connect(ctx, t, ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if got := c.ProtocolVersion(); got != revision {
		b.Fatalf("connected in %s, want %s", got, revision)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

// BenchmarkRevision pairs a gated read through a Client speaking the
// previous revision (a, 2025-11-25) with one speaking the current one (b,
// 2026-07-28), call by call, each to its own bench server: in memory, and
// over Streamable HTTP (a stateful server for a, a stateless one for b).
// b/a is what the current revision costs a call: the SEP-2575 _meta of
// every request, and over HTTP a server session made for each request.
func BenchmarkRevision(b *testing.B) {
	for _, tr := range []string{"inmem", "http"} {
		b.Run(tr, func(b *testing.B) {
			ga := benchGate(b, revisionCaller(b, LegacyProtocolVersion, tr), nil)
			gb := benchGate(b, revisionCaller(b, ProtocolVersion, tr), nil)
			benchpair.Run(b, gateCall(b, ga), gateCall(b, gb))
		})
	}
}
