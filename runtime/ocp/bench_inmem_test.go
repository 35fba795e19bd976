package ocp

// Bisecting benchmarks for the in-memory per-call path: where the time
// between BenchmarkCall/raw-inmem and BenchmarkCall/gate-inmem goes.
//
// This machine is noisy (2 CPUs shared with other jobs), so a benchmark
// that runs a variant for a second and then the baseline for a second
// mostly measures the load in between. Each benchmark here instead
// alternates the baseline (a) and the variant (b) call by call in one loop
// (internal/benchpair) and reports both means and their ratio (a-ns/op,
// b-ns/op, b/a), and the medians' (med-b/a): load then falls on both
// alike. Run with, for example,
//
//	go test -run XXX -bench 'Inmem' -count 6 ./runtime/ocp
//
// Findings (go-sdk v1.8.0; BENCHMARKS.md §1 has the figures): the Client
// costs nothing measurable over a plain session once the gate skips its
// json.Valid; the gate's cost in place is not its hot-loop cost. Right after a
// go-sdk round trip its work runs about 5x slower than in the hot loop of
// BenchmarkCall/gate-nop, and running the same code once before takes most
// of that back (BenchmarkInmemWarm): it is the number of distinct code
// lines the gate runs through (about 500 of 64 bytes), which the go-sdk's
// own code evicts. BenchmarkInmemEvict measured, in one round, the go-sdk
// call after the gate slowed by about 7%; a later round at a higher load did
// not reproduce it. The garbage and GC cycles of the go-sdk are the same on
// both sides.

import (
	"context"
	"encoding/json"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"reflect"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/benchpair"
)

// sessionCaller is a Server over a plain go-sdk session, called as the raw
// benchmark calls it.
type sessionCaller struct {
	noWatch
	cs *mcp.ClientSession
}

func (s sessionCaller) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	return s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// inmemCaller connects a Client to a fresh bench server.
func inmemCaller(b *testing.B) *Client {
	b.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := benchServer().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, err := Connect(ctx, ct, ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(); ss.Wait() })
	return c
}

func callerSession(b *testing.B, c *Client) *mcp.ClientSession {
	b.Helper()
	cs, err := c.current()
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

// rawCall is benchRaw's call: the same tool and argument bytes.
func rawCall(b *testing.B, cs *mcp.ClientSession) func() {
	ctx := context.Background()
	return func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_nodes", Arguments: benchReadArgs})
		if err != nil || res.IsError {
			b.Fatalf("raw call: %v %+v", err, res)
		}
	}
}

func callerCall(b *testing.B, c Server) func() {
	ctx := context.Background()
	return func() {
		res, err := c.CallTool(ctx, "search_nodes", benchReadArgs)
		if err != nil || res.IsError {
			b.Fatalf("call: %v %+v", err, res)
		}
	}
}

// gateCall is benchDispatch's call.
func gateCall(b *testing.B, g *Gate) func() {
	ctx := context.Background()
	req := ActionRequest{ID: "bench", Tool: "search_nodes", Args: benchReadArgs}
	return func() {
		if res := g.Dispatch(ctx, benchPrincipal, req); !res.OK {
			b.Fatalf("dispatch: %+v", res)
		}
	}
}

// BenchmarkInmemPaired: a is always a raw call on a plain session (as
// BenchmarkCall/raw-inmem), b the variant named, each over its own server.
func BenchmarkInmemPaired(b *testing.B) {
	// Sanity: two plain sessions (b/a should be 1).
	b.Run("raw", func(b *testing.B) {
		benchpair.Run(b, rawCall(b, inmemSession(b)), rawCall(b, inmemSession(b)))
	})
	// The Client's session (its client options, receiving
	// middleware, worker and watcher goroutines), called directly.
	b.Run("raw-callersession", func(b *testing.B) {
		benchpair.Run(b, rawCall(b, inmemSession(b)), rawCall(b, callerSession(b, inmemCaller(b))))
	})
	// Client.CallTool, without the gate.
	b.Run("caller", func(b *testing.B) {
		benchpair.Run(b, rawCall(b, inmemSession(b)), callerCall(b, inmemCaller(b)))
	})
	// The gate over a plain session: no Client.
	b.Run("gate-rawsession", func(b *testing.B) {
		benchpair.Run(b, rawCall(b, inmemSession(b)), gateCall(b, benchGate(b, sessionCaller{cs: inmemSession(b)}, nil)))
	})
	// The gate over a Client (as BenchmarkCall/gate-inmem).
	b.Run("gate", func(b *testing.B) {
		benchpair.Run(b, rawCall(b, inmemSession(b)), gateCall(b, inmemGate(b)))
	})
	// The same over Streamable HTTP on 127.0.0.1, each with its own server
	// (as BenchmarkCall/raw-http and gate-http).
	b.Run("gate-http", func(b *testing.B) {
		ctx := context.Background()
		cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: httpServer(b)}, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		c, err := Connect(ctx, &mcp.StreamableClientTransport{Endpoint: httpServer(b)}, ClientOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		g := benchGate(b, c, nil)
		benchpair.Run(b, rawCall(b, cs), gateCall(b, g))
	})
	// The same over stdio, each with its own server process (this test
	// binary re-run as the bench server, see bench_stdio_test.go).
	b.Run("gate-stdio", benchGateStdio)
}

// BenchmarkInmemSame pairs calls over one Client's session and
// server: a is the session's own CallTool, b the layer named above it.
func BenchmarkInmemSame(b *testing.B) {
	b.Run("caller", func(b *testing.B) {
		c := inmemCaller(b)
		benchpair.Run(b, rawCall(b, callerSession(b, c)), callerCall(b, c))
	})
	b.Run("gate", func(b *testing.B) {
		c := inmemCaller(b)
		g := benchGate(b, c, nil)
		benchpair.Run(b, rawCall(b, callerSession(b, c)), gateCall(b, g))
	})
}

// timedCaller records when the wrapped call starts and ends.
type timedCaller struct {
	noWatch
	c          Server
	start, end *time.Time
}

func (t timedCaller) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	*t.start = time.Now()
	res, err := t.c.CallTool(ctx, name, args)
	*t.end = time.Now()
	return res, err
}

// BenchmarkInmemSplit is gate-rawsession of BenchmarkInmemPaired with the
// gate's call split: pre-ns/op is Dispatch before the caller is called
// (steps 1–3), in-ns/op the session's call made by the gate (compare with
// a-ns/op), post-ns/op Dispatch after it returns (step 7).
func BenchmarkInmemSplit(b *testing.B) {
	var (
		start, end    time.Time
		pre, in, post time.Duration
		n             int
	)
	gc := gateCall(b, benchGate(b, timedCaller{c: sessionCaller{cs: inmemSession(b)}, start: &start, end: &end}, nil))
	benchpair.Run(b, rawCall(b, inmemSession(b)), func() {
		t0 := time.Now()
		gc()
		t1 := time.Now()
		pre += start.Sub(t0)
		in += end.Sub(start)
		post += t1.Sub(end)
		n++
	})
	b.ReportMetric(float64(pre)/float64(n), "pre-ns/op")
	b.ReportMetric(float64(in)/float64(n), "in-ns/op")
	b.ReportMetric(float64(post)/float64(n), "post-ns/op")
}

// BenchmarkInmemAfterRaw times one piece of the gate's work right after a
// raw call on a plain session, that is with the caches, the GC and the
// scheduler as a real round trip leaves them: x1-ns/op is the piece, x2-ns/op
// the same piece run again at once (warm), assist-ns/op the GC mark assist
// time of all goroutines per iteration and gc/op the GC cycles per
// iteration. ns/op includes the raw call. Compare x1 with the same piece in
// a hot loop (BenchmarkArgs, BenchmarkCall/gate-nop).
func BenchmarkInmemAfterRaw(b *testing.B) {
	nop := nopCaller{res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"entities":[{"name":"Ada Lovelace","entityType":"person"}]}`}}}}
	g := benchGate(b, nop, nil)
	gt := g.one().tools["search_nodes"]
	ctx := context.Background()
	args, _, err := gt.args.Check(benchReadArgs, gt.argsRead)
	if err != nil {
		b.Fatal(err)
	}
	// The parse and the validation of the engine's Check, by its's validator
	// compiled from the same schema.
	schema, err := argengine.CompileSchema([]byte(gt.desc.InputSchema))
	if err != nil {
		b.Fatal(err)
	}
	// The typed decode and re-encoding of Check, as encoding/json does
	// them into a new value of the argument struct.
	typ := gt.typ
	parts := []struct {
		name string
		f    func()
	}{
		{"nothing", func() {}},
		{"tape+validate", func() {
			if err := schema.ValidateJSON(benchReadArgs); err != nil {
				b.Fatal(err)
			}
		}},
		{"decode+marshal", func() {
			p := reflect.New(typ).Interface()
			if err := json.Unmarshal(benchReadArgs, p); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}},
		{"check", func() {
			if _, _, err := gt.args.Check(benchReadArgs, gt.argsRead); err != nil {
				b.Fatal(err)
			}
		}},
		{"authorize", func() {
			if _, err := g.one().authorize(ctx, benchPrincipal, gt, args); err != nil {
				b.Fatal(err)
			}
		}},
		{"gate-nop", gateCall(b, g)},
	}
	for _, p := range parts {
		b.Run(p.name, func(b *testing.B) {
			raw := rawCall(b, inmemSession(b))
			sample := []metrics.Sample{{Name: "/cpu/classes/gc/mark/assist:cpu-seconds"}, {Name: "/gc/cycles/total:gc-cycles"}}
			metrics.Read(sample)
			a0, c0 := sample[0].Value.Float64(), sample[1].Value.Uint64()
			var t1, t2 time.Duration
			var n int
			for b.Loop() {
				raw()
				t0 := time.Now()
				p.f()
				ta := time.Now()
				p.f()
				t1 += ta.Sub(t0)
				t2 += time.Since(ta)
				n++
			}
			metrics.Read(sample)
			b.ReportMetric(float64(t1)/float64(n), "x1-ns/op")
			b.ReportMetric(float64(t2)/float64(n), "x2-ns/op")
			b.ReportMetric((sample[0].Value.Float64()-a0)*1e9/float64(n), "assist-ns/op")
			b.ReportMetric(float64(sample[1].Value.Uint64()-c0)/float64(n), "gc/op")
		})
	}
}

// BenchmarkInmemEvict runs a raw call (a), then something not timed, then a
// raw call on another session (b): what the something costs the go-sdk
// call after it. med-b/a is the ratio of the medians.
func BenchmarkInmemEvict(b *testing.B) {
	nop := nopCaller{res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"entities":[{"name":"Ada Lovelace","entityType":"person"}]}`}}}}
	mem := make([]byte, 128<<10)
	for _, v := range []struct {
		name string
		f    func(b *testing.B) func()
	}{
		{"nothing", func(*testing.B) func() { return func() {} }},
		// The gate's whole work, with a caller that answers at once.
		{"gate-nop", func(b *testing.B) func() { return gateCall(b, benchGate(b, nop, nil)) }},
		// About the gate's time in place, spent without touching memory.
		{"wait-20us", func(*testing.B) func() {
			return func() {
				for t0 := time.Now(); time.Since(t0) < 20*time.Microsecond; {
				}
			}
		}},
		// Twice the gate's data and code lines, written as data.
		{"write-128KiB", func(*testing.B) func() {
			return func() {
				for i := 0; i < len(mem); i += 64 {
					mem[i]++
				}
			}
		}},
	} {
		b.Run(v.name, func(bb *testing.B) {
			between := v.f(bb)
			benchpair.Between(bb, rawCall(bb, inmemSession(bb)), between, rawCall(bb, inmemSession(bb)))
		})
	}
}

// BenchmarkInmemWarm times gate-nop (median, med-ns) right after a raw
// call (cold), after the same gate ran once more in between (warm-same),
// after another gate over the same catalogue ran in between (warm-other:
// the same code, other per-tool data), and in a loop without raw calls
// (hot). What warm-same takes back from cold is what the go-sdk call
// evicted; what warm-other takes back of it is the code's share.
func BenchmarkInmemWarm(b *testing.B) {
	nop := nopCaller{res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"entities":[{"name":"Ada Lovelace","entityType":"person"}]}`}}}}
	g1 := gateCall(b, benchGate(b, nop, nil))
	g2 := gateCall(b, benchGate(b, nop, nil))
	for _, v := range []struct {
		name   string
		raw    bool
		before func()
	}{
		{"hot", false, func() {}},
		{"cold", true, func() {}},
		{"warm-same", true, g1},
		{"warm-other", true, g2},
	} {
		b.Run(v.name, func(b *testing.B) {
			raw := rawCall(b, inmemSession(b))
			d := make([]time.Duration, 0, 1<<14)
			for b.Loop() {
				if v.raw {
					raw()
				}
				v.before()
				t0 := time.Now()
				g1()
				d = append(d, time.Since(t0))
			}
			b.ReportMetric(float64(benchpair.Median(d)), "med-ns")
		})
	}
}
