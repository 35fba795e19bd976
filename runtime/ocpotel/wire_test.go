package ocpotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/ocpgen/ocpgen/examples/tickets/server"
	"github.com/ocpgen/ocpgen/examples/tickets/ticketsocp"
	"github.com/ocpgen/ocpgen/runtime/ocp"
	"github.com/ocpgen/ocpgen/runtime/ocpotel"
)

// wireRequest is one HTTP request the MCP server received, as bytes.
type wireRequest struct {
	header http.Header
	body   []byte
}

type wireRecorder struct {
	mu   sync.Mutex
	reqs []wireRequest
}

func (w *wireRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		w.mu.Lock()
		w.reqs = append(w.reqs, wireRequest{header: r.Header.Clone(), body: body})
		w.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(rw, r)
	})
}

// injectingServer is the gate's Server, checking on the way that the
// context the gate hands CallTool does carry the server span: a propagator
// asked to inject it writes a traceparent. The Client then gets the same
// context, and must send none of it.
type injectingServer struct {
	*ocp.Client
	mu       sync.Mutex
	injected []propagation.MapCarrier
}

func (s *injectingServer) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	c := propagation.MapCarrier{}
	otel.GetTextMapPropagator().Inject(ctx, c)
	s.mu.Lock()
	s.injected = append(s.injected, c)
	s.mu.Unlock()
	return s.Client.CallTool(ctx, name, args)
}

// TestNoTraceContextReachesTheServer: with a real propagator installed
// globally, sampled spans and baggage in the context, the MCP server (the
// ticket desk over Streamable HTTP, stateful and so spoken to in the
// previous MCP revision, and stateless, in the current one) receives no
// trace context: no traceparent, tracestate or baggage header, and no trace
// id or baggage in any request body; a _meta holds only the keys of the
// current revision that describe the Hub. Every tools/call's params are
// exactly the name and the arguments (and that _meta).
func TestNoTraceContextReachesTheServer(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(fmt.Sprintf("stateless=%v", stateless), func(t *testing.T) { noTraceContextReachesTheServer(t, stateless) })
	}
}

// hubMetaKeys are the _meta keys of a request under the current revision.
var hubMetaKeys = []string{mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo, mcp.MetaKeyProtocolVersion}

func noTraceContextReachesTheServer(t *testing.T, stateless bool) {
	prev := otel.GetTextMapPropagator()
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	t.Cleanup(func() { otel.SetTextMapPropagator(prev) })
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(spans))
	prevTP := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prevTP) })

	rec := &wireRecorder{}
	mcpServer := server.New(server.NewDesk())
	hs := httptest.NewServer(rec.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, &mcp.StreamableHTTPOptions{Stateless: stateless})))
	defer hs.Close()
	ctx := context.Background()
	client, err := ocp.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL}, ocp.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	srv := &injectingServer{Client: client}
	obs, err := ocpotel.New(ocpotel.Options{}) // the global providers
	if err != nil {
		t.Fatal(err)
	}
	g, err := ocp.NewGate(ocp.Config{
		Catalogue: ticketsocp.Catalogue, Server: srv, ACL: ocp.AllowAllResources,
		Broker: ocp.NewMemoryBroker(), Audit: slog.New(slog.DiscardHandler), Observer: obs,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Subscribe(func(r ocp.ConfirmRequest) {
		go func() {
			_ = g.Resolve(context.Background(), phone, ocp.ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest})
		}()
	}, nil)()

	member, err := baggage.NewMember("tenant", "SECRET-baggage")
	if err != nil {
		t.Fatal(err)
	}
	bag, err := baggage.New(member)
	if err != nil {
		t.Fatal(err)
	}
	hubCtx, hubSpan := tp.Tracer("hub").Start(baggage.ContextWithBaggage(ctx, bag), "hub.request")
	traceID := hubSpan.SpanContext().TraceID().String()
	if res := g.Dispatch(hubCtx, alice, req("r", "list_tickets", `{"status":"open"}`)); !res.OK {
		t.Fatalf("read: %+v", res)
	}
	if res := g.Dispatch(hubCtx, alice, req("w", "create_ticket", `{"title":"Printer on fire"}`)); !res.OK {
		t.Fatalf("write: %+v", res)
	}
	hubSpan.End()

	// The context did carry the trace: injected, it is a traceparent of
	// the Hub's trace, and the server spans were recorded.
	srv.mu.Lock()
	injected := slices.Clone(srv.injected)
	srv.mu.Unlock()
	if len(injected) != 2 {
		t.Fatalf("%d server calls, want 2", len(injected))
	}
	for _, c := range injected {
		if !strings.Contains(c.Get("traceparent"), traceID) || !strings.Contains(c.Get("baggage"), "SECRET-baggage") {
			t.Fatalf("the server call's context does not carry the trace: %v", c)
		}
	}
	var serverSpans int
	for _, s := range spans.Ended() {
		if s.Name() == "ocp.call" && s.SpanContext().TraceID().String() == traceID && s.SpanKind() == trace.SpanKindClient {
			serverSpans++
		}
	}
	if serverSpans != 2 {
		t.Fatalf("%d server spans in the Hub's trace, want 2", serverSpans)
	}

	// None of it reached the server.
	rec.mu.Lock()
	reqs := slices.Clone(rec.reqs)
	rec.mu.Unlock()
	var toolCalls int
	for _, r := range reqs {
		for name, vals := range r.header {
			switch strings.ToLower(name) {
			case "traceparent", "tracestate", "baggage":
				t.Errorf("the server received header %s: %v", name, vals)
			}
			for _, v := range vals {
				if strings.Contains(v, traceID) || strings.Contains(v, secret) {
					t.Errorf("the server received header %s: %s", name, v)
				}
			}
		}
		for _, s := range []string{traceID, "traceparent", "tracestate", "baggage", secret} {
			if bytes.Contains(r.body, []byte(s)) {
				t.Errorf("the server received %q in %s", s, r.body)
			}
		}
		var m struct {
			Method string                     `json:"method"`
			Params map[string]json.RawMessage `json:"params"`
		}
		if len(r.body) == 0 || json.Unmarshal(r.body, &m) != nil {
			continue
		}
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(m.Params["_meta"], &meta)
		for k := range meta {
			if !slices.Contains(hubMetaKeys, k) {
				t.Errorf("the server received _meta key %q: %s", k, r.body)
			}
		}
		if m.Method != "tools/call" {
			continue
		}
		toolCalls++
		delete(m.Params, "_meta")
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range m.Params {
				if !yield(k) {
					return
				}
			}
		})
		if !slices.Equal(keys, []string{"arguments", "name"}) {
			t.Errorf("tools/call params have keys %v: %s", keys, r.body)
		}
	}
	if toolCalls != 2 {
		t.Fatalf("the server received %d tools/call requests, want 2", toolCalls)
	}
}

// The core runtime does not import OpenTelemetry: a Hub that does not use
// this package does not build it.
func TestCoreImportsNoOpenTelemetry(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}",
		"github.com/ocpgen/ocpgen/runtime/ocp", "github.com/ocpgen/ocpgen/runtime/ocpimpl").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/modelcontextprotocol/go-sdk/mcp") {
		t.Fatalf("go list gave no dependencies: %s", out)
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "go.opentelemetry.io/") {
			t.Errorf("the core runtime depends on %s", p)
		}
	}
}
