package ocpotel_test

// Benchmarks of the observer's cost: the same gated call without and with
// an ocpotel observer, in the same run. Nothing here asserts a time.
//
//	go test -run XXX -bench . -benchmem -count 6 ./runtime/ocpotel
//
// BenchmarkPaired alternates the two gates call by call (internal/benchpair)
// and reports on/off (b/a, and med-b/a for the medians), the figure to
// quote; BenchmarkGate reports each one's allocations.

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/ocpgen/ocpgen/examples/tickets/server"
	"github.com/ocpgen/ocpgen/examples/tickets/ticketsocp"
	"github.com/ocpgen/ocpgen/internal/benchpair"
	"github.com/ocpgen/ocpgen/runtime/ocp"
	"github.com/ocpgen/ocpgen/runtime/ocpotel"
)

// discardExporter is a span exporter that drops every batch: the SDK's
// whole cost (sampling, recording, the batch processor) without I/O.
type discardExporter struct{}

func (discardExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return nil }
func (discardExporter) Shutdown(context.Context) error                             { return nil }

// sdkProviders are what a Hub exporting everything would run: every span
// sampled and batched, every measurement aggregated.
func sdkProviders(b *testing.B) (trace.TracerProvider, metric.MeterProvider) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithBatcher(discardExporter{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		ctx := context.Background()
		_ = tp.Shutdown(ctx)
		_ = mp.Shutdown(ctx)
	})
	return tp, mp
}

// nopServer answers every call at once with the same result.
type nopServer struct{ watch func([]ocp.LiveTool) }

var nopResult = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"tickets":[]}`}}}

func (s *nopServer) WatchTools(fn func([]ocp.LiveTool)) error { s.watch = fn; fn(nil); return nil }

func (s *nopServer) CallTool(context.Context, string, json.RawMessage) (*mcp.CallToolResult, error) {
	return nopResult, nil
}

// benchServer returns the server of a benchmarked gate: the ticket desk
// over go-sdk in-memory transports, or (nop) an answer at once, which
// leaves the gate's own cost.
func benchServer(b *testing.B, nop bool) ocp.Server {
	if nop {
		return &nopServer{}
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.New(server.NewDesk()).Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, err := ocp.Connect(ctx, ct, ocp.ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(); ss.Wait() })
	return c
}

// benchGate returns a gate over the ticket desk's catalogue with an
// auto-approving peer, observed by obs (nil: not observed).
func benchGate(b *testing.B, srv ocp.Server, obs ocp.Observer) *ocp.Gate {
	b.Helper()
	g, err := ocp.NewGate(ocp.Config{
		Catalogue: ticketsocp.Catalogue, Server: srv, ACL: ocp.AllowAllResources,
		Broker: ocp.NewMemoryBroker(), Audit: slog.New(slog.DiscardHandler), Observer: obs,
	})
	if err != nil {
		b.Fatal(err)
	}
	if n, ok := srv.(*nopServer); ok {
		n.watch(liveTools(b))
	}
	b.Cleanup(g.Subscribe(func(r ocp.ConfirmRequest) {
		_ = g.Resolve(context.Background(), phone, ocp.ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest})
	}, nil))
	return g
}

// The benchmarked calls: a read and a write, with small arguments.
var (
	benchRead  = req("bench", "list_tickets", `{"status":"open","limit":10}`)
	benchWrite = req("bench", "create_ticket", `{"title":"Printer on 3rd floor jams","priority":"high","tags":["hardware"]}`)
)

func dispatcher(b *testing.B, g *ocp.Gate, r ocp.ActionRequest) func() {
	ctx := context.Background()
	return func() {
		if res := g.Dispatch(ctx, alice, r); !res.OK {
			b.Fatalf("dispatch: %+v", res)
		}
	}
}

type variant struct {
	name string
	nop  bool
	r    ocp.ActionRequest
}

var variants = []variant{
	{"read-nop", true, benchRead},
	{"write-nop", true, benchWrite},
	{"read-inmem", false, benchRead},
	{"write-inmem", false, benchWrite},
}

func newObserver(b *testing.B, sdk bool) ocp.Observer {
	opts := ocpotel.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}
	if sdk {
		opts.TracerProvider, opts.MeterProvider = sdkProviders(b)
	}
	obs, err := ocpotel.New(opts)
	if err != nil {
		b.Fatal(err)
	}
	return obs
}

// BenchmarkPaired: a is the gate without an observer, b the same gate with
// ocpotel over the SDK ("sdk") or over OpenTelemetry's no-op providers
// ("noop": the hook's and this package's own bookkeeping), each over its
// own server, one call each per iteration.
func BenchmarkPaired(b *testing.B) {
	for _, v := range variants {
		for _, sdk := range []bool{true, false} {
			name := v.name + "/noop"
			if sdk {
				name = v.name + "/sdk"
			}
			b.Run(name, func(b *testing.B) {
				off := dispatcher(b, benchGate(b, benchServer(b, v.nop), nil), v.r)
				on := dispatcher(b, benchGate(b, benchServer(b, v.nop), newObserver(b, sdk)), v.r)
				benchpair.Run(b, off, on)
			})
		}
	}
}

// BenchmarkGate measures each gate alone, for its allocations.
func BenchmarkGate(b *testing.B) {
	for _, v := range variants {
		for _, mode := range []string{"off", "noop", "sdk"} {
			b.Run(v.name+"/"+mode, func(b *testing.B) {
				var obs ocp.Observer
				if mode != "off" {
					obs = newObserver(b, mode == "sdk")
				}
				call := dispatcher(b, benchGate(b, benchServer(b, v.nop), obs), v.r)
				call()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					call()
				}
			})
		}
	}
}
