package ocpotel_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/ocpgen/ocpgen/examples/tickets/ticketsocp"
	"github.com/ocpgen/ocpgen/internal/testwait"
	"github.com/ocpgen/ocpgen/runtime/ocp"
	"github.com/ocpgen/ocpgen/runtime/ocpotel"
)

// Everything secret in these tests contains this word, so one search of
// every attribute, event, name and status finds any leak.
const secret = "SECRET"

// forbiddenResource is a resource the ACL refuses (a ticket id has no room
// for the word); it is secret too.
const forbiddenResource = "tickets/T-666"

var (
	alice = ocp.Principal{ID: "alice-SECRET-id", Tier: "operator", Scopes: []string{"tickets.read", "tickets.write"}, Peer: "model-SECRET-peer"}
	phone = ocp.Principal{ID: "alice-SECRET-id", Tier: "operator", Scopes: []string{"tickets.read", "tickets.write"}, Peer: "phone-SECRET-peer"}
	guest = ocp.Principal{ID: "guest-SECRET-id", Tier: "visitor", Scopes: []string{"tickets.read"}, Peer: "guest-SECRET-peer"}
)

// fakeServer is an ocp.Server whose tool list the test sets and whose
// answers it chooses; it records the span of each call's context.
type fakeServer struct {
	mu      sync.Mutex
	watch   func([]ocp.LiveTool)
	respond func(name string) (*mcp.CallToolResult, error)
	spans   []trace.SpanContext
}

func (s *fakeServer) WatchTools(fn func([]ocp.LiveTool)) error {
	s.watch = fn
	fn(nil)
	return nil
}

func (s *fakeServer) CallTool(ctx context.Context, name string, _ json.RawMessage) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.spans = append(s.spans, trace.SpanContextFromContext(ctx))
	respond := s.respond
	s.mu.Unlock()
	if respond != nil {
		return respond(name)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"tickets":[]}`}}}, nil
}

func (s *fakeServer) setRespond(f func(string) (*mcp.CallToolResult, error)) {
	s.mu.Lock()
	s.respond = f
	s.mu.Unlock()
}

// liveTools is the server's list as the snapshot has it: no drift.
func liveTools(t testing.TB) []ocp.LiveTool {
	t.Helper()
	var out []ocp.LiveTool
	for _, h := range ticketsocp.Catalogue.Tools() {
		d := h.Desc
		lt := ocp.LiveTool{Tool: &mcp.Tool{Name: d.Name, InputSchema: json.RawMessage(d.InputSchema), Title: d.Title, Description: d.Description,
			Annotations: &mcp.ToolAnnotations{Title: d.Hints.Title, ReadOnlyHint: d.Hints.ReadOnly != nil && *d.Hints.ReadOnly,
				DestructiveHint: d.Hints.Destructive, IdempotentHint: d.Hints.Idempotent != nil && *d.Hints.Idempotent, OpenWorldHint: d.Hints.OpenWorld}},
			TaskSupport: d.TaskSupport}
		if d.OutputSchema != "" {
			lt.Tool.OutputSchema = json.RawMessage(d.OutputSchema)
		}
		out = append(out, lt)
	}
	return out
}

type env struct {
	gate   *ocp.Gate
	srv    *fakeServer
	tp     *sdktrace.TracerProvider
	spans  *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	audit  *bytes.Buffer
}

// newEnv returns a synced gate over the ticket desk's catalogue, observed
// by ocpotel into an in-memory span recorder and a manual metric reader.
func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, ocp.NewMemoryBroker())
}

// newEnvWith is newEnv with the gate's confirms on broker.
func newEnvWith(t *testing.T, broker ocp.ConfirmBroker) *env {
	t.Helper()
	e := &env{srv: &fakeServer{}, spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader(), audit: &bytes.Buffer{}}
	e.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(e.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader))
	obs, err := ocpotel.New(ocpotel.Options{TracerProvider: e.tp, MeterProvider: mp, Gate: "tickets"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	audit := slog.New(slog.NewJSONHandler(lockedWriter{&mu, e.audit}, nil))
	e.gate, err = ocp.NewGate(ocp.Config{
		Catalogue: ticketsocp.Catalogue,
		Server:    e.srv,
		ACL: ocp.ACL(func(_ context.Context, _ ocp.Principal, _ *ocp.Descriptor, rs []string) error {
			for _, r := range rs {
				if strings.Contains(r, secret) || r == forbiddenResource {
					return fmt.Errorf("%s is off limits", r)
				}
			}
			return nil
		}),
		Broker:   broker,
		Audit:    audit,
		Observer: obs,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.srv.watch(liveTools(t))
	return e
}

type lockedWriter struct {
	mu *sync.Mutex
	b  *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func req(id, tool, args string) ocp.ActionRequest {
	return ocp.ActionRequest{ID: id, Tool: tool, Args: json.RawMessage(args)}
}

// write dispatches a write and decides its confirm from phone, returning
// the pending gauge while the confirm waited and after the call.
func (e *env) write(t *testing.T, args string, approve bool) (ocp.ActionResult, int64, int64) {
	t.Helper()
	opened := make(chan ocp.ConfirmRequest, 1)
	stop := e.gate.Subscribe(func(r ocp.ConfirmRequest) { opened <- r }, nil)
	defer stop()
	done := make(chan ocp.ActionResult, 1)
	go func() {
		done <- e.gate.Dispatch(context.Background(), alice, req("w-SECRET-call-id", "create_ticket", args))
	}()
	var r ocp.ConfirmRequest
	select {
	case r = <-opened:
	case res := <-done: // the confirm was skipped: fail now, not at the guard
		t.Fatalf("the write returned before its confirm opened: ok %v, reason %q, output %s", res.OK, res.Reason, res.Output)
	case <-time.After(testwait.Guard):
		t.Fatalf("waited %v for the write's confirm to open: it never came", testwait.Guard)
	}
	during := e.pending(t, "create_ticket")
	if err := e.gate.Resolve(context.Background(), phone, ocp.ConfirmDecision{ID: r.ID, Approve: approve, Digest: r.Digest}); err != nil {
		t.Fatal(err)
	}
	res := testwait.Recv(t, done, "the write's result")
	return res, during, e.pending(t, "create_ticket")
}

func (e *env) collect(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := e.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

func findMetric(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

// attrKey renders a set as "k=v,k=v" in key order.
func attrKey(s attribute.Set) string {
	var parts []string
	for _, kv := range s.ToSlice() {
		parts = append(parts, string(kv.Key)+"="+kv.Value.Emit())
	}
	return strings.Join(parts, ",")
}

// sums returns an int64 sum's points by attributes.
func sums(t *testing.T, rm metricdata.ResourceMetrics, name string) map[string]int64 {
	t.Helper()
	m, ok := findMetric(rm, name)
	if !ok {
		return map[string]int64{}
	}
	var out = map[string]int64{}
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out[attrKey(p.Attributes)] = p.Value
		}
	case metricdata.Gauge[int64]:
		for _, p := range d.DataPoints {
			out[attrKey(p.Attributes)] = p.Value
		}
	default:
		t.Fatalf("%s is a %T", name, m.Data)
	}
	return out
}

// counts returns a histogram's counts by attributes.
func counts(t *testing.T, rm metricdata.ResourceMetrics, name string) map[string]uint64 {
	t.Helper()
	m, ok := findMetric(rm, name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	h, ok := m.Data.(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is a %T", name, m.Data)
	}
	out := map[string]uint64{}
	for _, p := range h.DataPoints {
		out[attrKey(p.Attributes)] = p.Count
	}
	return out
}

func (e *env) pending(t *testing.T, tool string) int64 {
	t.Helper()
	return sums(t, e.collect(t), "ocp.gate.confirms.pending")["ocp.gate=tickets,ocp.tool="+tool+",ocp.write=true"]
}

// call is one observed call: its root span and its step spans in order.
type call struct {
	root  sdktrace.ReadOnlySpan
	steps []sdktrace.ReadOnlySpan
}

// calls groups the ended spans into calls, in the order the calls began,
// checking that every step span is a child of its call's span.
// catalogue returns the fingerprint of the gate's advertised catalogue, as
// its last ocp.sync audit event gives it.
func (e *env) catalogue(t *testing.T) string {
	t.Helper()
	fp := ""
	for _, line := range strings.Split(strings.TrimSpace(e.audit.String()), "\n") {
		var ev struct{ Msg, Catalogue string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if ev.Msg == "ocp.sync" {
			fp = ev.Catalogue
		}
	}
	if fp == "" {
		t.Fatal("no catalogue sync audited")
	}
	return fp
}

func (e *env) calls(t *testing.T) []call {
	t.Helper()
	ended := e.spans.Ended()
	byID := map[trace.SpanID]*call{}
	var out []*call
	for _, s := range ended {
		if s.Name() == "ocp.dispatch" {
			c := &call{root: s}
			byID[s.SpanContext().SpanID()] = c
			out = append(out, c)
		}
	}
	for _, s := range ended {
		if s.Name() == "ocp.dispatch" || !strings.HasPrefix(s.Name(), "ocp.") {
			continue
		}
		c := byID[s.Parent().SpanID()]
		if c == nil || s.Parent().TraceID() != c.root.SpanContext().TraceID() {
			t.Fatalf("step span %s has no call span for a parent (parent %v)", s.Name(), s.Parent())
		}
		c.steps = append(c.steps, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].root.StartTime().Before(out[j].root.StartTime()) })
	res := make([]call, len(out))
	for i, c := range out {
		sort.SliceStable(c.steps, func(a, b int) bool { return c.steps[a].StartTime().Before(c.steps[b].StartTime()) })
		res[i] = *c
	}
	return res
}

func spanAttrs(s sdktrace.ReadOnlySpan) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes() {
		out[string(kv.Key)] = kv.Value.Emit()
	}
	return out
}

func (c call) stepNames() []string {
	var out []string
	for _, s := range c.steps {
		a := spanAttrs(s)
		out = append(out, s.Name()+"/"+a["ocp.step"]+"="+a["ocp.outcome"])
	}
	return out
}

// TestTracesAndMetrics runs every kind of call through an observed gate and
// checks the spans, their structure and attributes, the counters, the
// histograms and the pending gauge, and that nothing secret is in any of
// them.
func TestTracesAndMetrics(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	fp := e.catalogue(t)

	// A read, inside a span of the Hub's own: the call's span is its child.
	hubCtx, hubSpan := e.tp.Tracer("hub").Start(ctx, "hub.request")
	if res := e.gate.Dispatch(hubCtx, alice, req("r-SECRET-call-id", "list_tickets", `{"status":"open","limit":7}`)); !res.OK {
		t.Fatalf("read: %+v", res)
	}
	hubSpan.End()

	// A write approved, a write denied; the gauge counts each while it waits.
	res, during, after := e.write(t, `{"title":"SECRET title approved","tags":["SECRET-tag"]}`, true)
	if !res.OK || during != 1 || after != 0 {
		t.Fatalf("approved write: %+v, pending %d then %d, want 1 then 0", res, during, after)
	}
	res, during, after = e.write(t, `{"title":"SECRET title denied"}`, false)
	if res.Reason != ocp.ReasonDenied || during != 1 || after != 0 {
		t.Fatalf("denied write: %+v, pending %d then %d, want 1 then 0", res, during, after)
	}

	// Refusals: forbidden by rights and by the ACL, unknown, invalid.
	for _, tc := range []struct {
		p    ocp.Principal
		r    ocp.ActionRequest
		want ocp.Reason
	}{
		{guest, req("f-SECRET", "create_ticket", `{"title":"SECRET title forbidden"}`), ocp.ReasonForbidden},
		{alice, req("a-SECRET", "close_ticket", `{"id":"T-666"}`), ocp.ReasonForbidden},
		{alice, req("u-SECRET", "SECRET_unknown_tool", `{}`), ocp.ReasonUnknown},
		{alice, req("i-SECRET", "list_tickets", `{"status":"SECRET-invalid-value"}`), ocp.ReasonInvalid},
	} {
		if res := e.gate.Dispatch(ctx, tc.p, tc.r); res.Reason != tc.want {
			t.Fatalf("%s: %+v, want %s", tc.r.Tool, res, tc.want)
		}
	}

	// The server fails with a text, then does not answer.
	e.srv.setRespond(func(string) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "SECRET server error: db password hunter2"}}}, nil
	})
	if res := e.gate.Dispatch(ctx, alice, req("x-SECRET", "ticket_stats", `{}`)); res.Reason != ocp.ReasonFailed {
		t.Fatalf("failed: %+v", res)
	}
	e.srv.setRespond(func(string) (*mcp.CallToolResult, error) {
		return nil, errors.New("SECRET transport error: connection reset by 10.0.0.7")
	})
	if res := e.gate.Dispatch(ctx, alice, req("y-SECRET", "list_tickets", `{}`)); res.Reason != ocp.ReasonOutcomeUnknown {
		t.Fatalf("outcome unknown: %+v", res)
	}
	e.srv.setRespond(nil)
	// A typed call takes the same path.
	if res := e.gate.Call(ctx, alice, ticketsocp.ListTicketsArgs{}); !res.OK {
		t.Fatalf("typed read: %+v", res)
	}

	// The server drifts: one tool's description changes, one's schema,
	// one comes to need a task, one disappears, and one nobody generated
	// appears.
	live := liveTools(t)
	live = slices.DeleteFunc(live, func(l ocp.LiveTool) bool { return l.Tool.Name == "ticket_stats" })
	for i := range live {
		switch live[i].Tool.Name {
		case "create_ticket":
			live[i].Tool.Description = "SECRET: also mails the ticket to everyone"
		case "close_ticket":
			live[i].Tool.InputSchema = json.RawMessage(`{"type":"object","x-secret":"SECRET-widened"}`)
		case "escalate_ticket":
			live[i].TaskSupport = "required"
		}
	}
	e.srv.watch(append(live, ocp.LiveTool{Tool: &mcp.Tool{Name: "SECRET_server_only", InputSchema: json.RawMessage(`{"type":"object"}`)}}))
	drifted := e.catalogue(t)

	// The secrets did reach the gate: its audit log has the server's texts.
	for _, s := range []string{"db password hunter2", "connection reset by 10.0.0.7", forbiddenResource} {
		if !strings.Contains(e.audit.String(), s) {
			t.Errorf("the audit log lacks %q: the test did not exercise it", s)
		}
	}

	// Spans.
	calls := e.calls(t)
	type want struct {
		tool, write, outcome string
		steps                []string
	}
	// Steps catalogue, rights, args and acl share the span ocp.check; its
	// ocp.step is the one that ended it.
	check := "ocp.check/acl=ok"
	wants := []want{
		{"list_tickets", "false", "ok", []string{check, "ocp.call/call=ok"}},
		{"create_ticket", "true", "ok", []string{check, "ocp.confirm/confirm=ok", "ocp.reauthorize/reauthorize=ok", "ocp.call/call=ok"}},
		{"create_ticket", "true", "denied", []string{check, "ocp.confirm/confirm=denied"}},
		{"create_ticket", "true", "forbidden", []string{"ocp.check/rights=forbidden"}},
		{"close_ticket", "true", "forbidden", []string{"ocp.check/acl=forbidden"}},
		{"", "", "unknown", []string{"ocp.check/catalogue=unknown"}},
		{"list_tickets", "false", "invalid", []string{"ocp.check/args=invalid"}},
		{"ticket_stats", "false", "failed", []string{check, "ocp.call/call=failed"}},
		{"list_tickets", "false", "outcome_unknown", []string{check, "ocp.call/call=outcome_unknown"}},
		{"list_tickets", "false", "ok", []string{check, "ocp.call/call=ok"}},
	}
	if len(calls) != len(wants) {
		t.Fatalf("%d call spans, want %d", len(calls), len(wants))
	}
	for i, w := range wants {
		c := calls[i]
		a := spanAttrs(c.root)
		if a["ocp.tool"] != w.tool || a["ocp.write"] != w.write || a["ocp.outcome"] != w.outcome || a["ocp.gate"] != "tickets" || a["ocp.catalogue"] != fp {
			t.Errorf("call %d: attributes %v, want tool %q write %q outcome %q", i, a, w.tool, w.write, w.outcome)
		}
		if got := c.stepNames(); !slices.Equal(got, w.steps) {
			t.Errorf("call %d (%s): steps %v, want %v", i, w.tool, got, w.steps)
		}
		wantStatus := codes.Unset
		if w.outcome == "failed" || w.outcome == "outcome_unknown" {
			wantStatus = codes.Error
		}
		if st := c.root.Status(); st.Code != wantStatus || (wantStatus == codes.Error && st.Description != w.outcome) {
			t.Errorf("call %d: status %+v", i, st)
		}
		last := c.steps[len(c.steps)-1]
		if st := last.Status(); st.Code != wantStatus || (wantStatus == codes.Error && st.Description != w.outcome) {
			t.Errorf("call %d: last step's status %+v", i, st)
		}
		if last.Name() == "ocp.call" && last.SpanKind() != trace.SpanKindClient {
			t.Errorf("call %d: server span of kind %v", i, last.SpanKind())
		}
	}
	if p := calls[0].root.Parent(); p.SpanID() != hubSpan.SpanContext().SpanID() {
		t.Errorf("the call span's parent is %v, not the Hub's span", p)
	}
	if p := calls[1].root.Parent(); p.IsValid() {
		t.Errorf("a call without a span in its context has parent %v", p)
	}
	// The server's CallTool got the context of the server span.
	var serverSpans []trace.SpanContext
	for _, c := range calls {
		for _, s := range c.steps {
			if s.Name() == "ocp.call" {
				serverSpans = append(serverSpans, s.SpanContext())
			}
		}
	}
	e.srv.mu.Lock()
	got := slices.Clone(e.srv.spans)
	e.srv.mu.Unlock()
	if len(got) != len(serverSpans) {
		t.Fatalf("server called %d times, %d server spans", len(got), len(serverSpans))
	}
	for i := range got {
		if !got[i].Equal(serverSpans[i]) {
			t.Errorf("server call %d had span %v, want %v", i, got[i], serverSpans[i])
		}
	}

	// Metrics.
	rm := e.collect(t)
	base := "ocp.gate=tickets,"
	wantCalls := map[string]int64{
		base + "ocp.outcome=ok,ocp.tool=list_tickets,ocp.write=false":              2,
		base + "ocp.outcome=invalid,ocp.tool=list_tickets,ocp.write=false":         1,
		base + "ocp.outcome=outcome_unknown,ocp.tool=list_tickets,ocp.write=false": 1,
		base + "ocp.outcome=failed,ocp.tool=ticket_stats,ocp.write=false":          1,
		base + "ocp.outcome=ok,ocp.tool=create_ticket,ocp.write=true":              1,
		base + "ocp.outcome=denied,ocp.tool=create_ticket,ocp.write=true":          1,
		base + "ocp.outcome=forbidden,ocp.tool=create_ticket,ocp.write=true":       1,
		base + "ocp.outcome=forbidden,ocp.tool=close_ticket,ocp.write=true":        1,
		base + "ocp.outcome=unknown":                                               1,
	}
	if got := sums(t, rm, "ocp.gate.calls"); !mapsEqual(got, wantCalls) {
		t.Errorf("ocp.gate.calls = %v\nwant %v", got, wantCalls)
	}
	callDur := counts(t, rm, "ocp.gate.call.duration")
	for k, n := range wantCalls {
		if callDur[k] != uint64(n) {
			t.Errorf("ocp.gate.call.duration count for %s = %d, want %d", k, callDur[k], n)
		}
	}
	stepDur := counts(t, rm, "ocp.gate.step.duration")
	for k, n := range map[string]uint64{
		"ocp.outcome=ok,ocp.step=catalogue,ocp.tool=list_tickets,ocp.write=false":         4,
		"ocp.outcome=ok,ocp.step=rights,ocp.tool=list_tickets,ocp.write=false":            4,
		"ocp.outcome=ok,ocp.step=args,ocp.tool=list_tickets,ocp.write=false":              3,
		"ocp.outcome=invalid,ocp.step=args,ocp.tool=list_tickets,ocp.write=false":         1,
		"ocp.outcome=ok,ocp.step=call,ocp.tool=list_tickets,ocp.write=false":              2,
		"ocp.outcome=outcome_unknown,ocp.step=call,ocp.tool=list_tickets,ocp.write=false": 1,
		"ocp.outcome=failed,ocp.step=call,ocp.tool=ticket_stats,ocp.write=false":          1,
		"ocp.outcome=ok,ocp.step=confirm,ocp.tool=create_ticket,ocp.write=true":           1,
		"ocp.outcome=denied,ocp.step=confirm,ocp.tool=create_ticket,ocp.write=true":       1,
		"ocp.outcome=ok,ocp.step=reauthorize,ocp.tool=create_ticket,ocp.write=true":       1,
		"ocp.outcome=forbidden,ocp.step=rights,ocp.tool=create_ticket,ocp.write=true":     1,
		"ocp.outcome=forbidden,ocp.step=acl,ocp.tool=close_ticket,ocp.write=true":         1,
		"ocp.outcome=unknown,ocp.step=catalogue":                                          1,
	} {
		if got := stepDur[base+k]; got != n {
			t.Errorf("ocp.gate.step.duration count for %s = %d, want %d", k, got, n)
		}
	}
	if got := sums(t, rm, "ocp.gate.confirms.pending"); !mapsEqual(got, map[string]int64{base + "ocp.tool=create_ticket,ocp.write=true": 0}) {
		t.Errorf("ocp.gate.confirms.pending = %v", got)
	}
	if got, want := sums(t, rm, "ocp.gate.syncs"), map[string]int64{
		// NewGate's empty list, the first list, the drifted one.
		"ocp.changed=true,ocp.gate=tickets": 3,
	}; !mapsEqual(got, want) {
		t.Errorf("ocp.gate.syncs = %v, want %v", got, want)
	}
	if got, want := sums(t, rm, "ocp.gate.sync.tools"), map[string]int64{
		// NewGate's nil list is no listing, so it removed none; the drifted
		// one removed one, withdrew one as its schema changed and one as it
		// needs a task, found one server-only and two with new metadata
		// (a description, an execution).
		"ocp.drift=removed,ocp.gate=tickets":        1,
		"ocp.drift=schema_changed,ocp.gate=tickets": 1,
		"ocp.drift=task_required,ocp.gate=tickets":  1,
		"ocp.drift=server_only,ocp.gate=tickets":    1,
		"ocp.drift=metadata,ocp.gate=tickets":       2,
	}; !mapsEqual(got, want) {
		t.Errorf("ocp.gate.sync.tools = %v, want %v", got, want)
	}
	if got := sums(t, rm, "ocp.gate.tools.advertised"); !mapsEqual(got, map[string]int64{"ocp.gate=tickets": 2}) { // list_tickets, create_ticket
		t.Errorf("ocp.gate.tools.advertised = %v", got)
	}
	if drifted == fp {
		t.Error("the drifted catalogue has the same fingerprint")
	}

	// Nothing secret anywhere: span names, attributes, events, statuses,
	// links, and every metric point's attributes.
	for _, s := range e.spans.Ended() {
		var texts []string
		texts = append(texts, s.Name(), s.Status().Description)
		for _, kv := range s.Attributes() {
			texts = append(texts, string(kv.Key), kv.Value.Emit())
		}
		for _, ev := range s.Events() {
			texts = append(texts, ev.Name)
			for _, kv := range ev.Attributes {
				texts = append(texts, string(kv.Key), kv.Value.Emit())
			}
		}
		for _, l := range s.Links() {
			for _, kv := range l.Attributes {
				texts = append(texts, string(kv.Key), kv.Value.Emit())
			}
		}
		if strings.HasPrefix(s.Name(), "ocp.") && len(s.Events()) != 0 {
			t.Errorf("span %s has events %v", s.Name(), s.Events())
		}
		for _, x := range texts {
			if strings.Contains(x, secret) || strings.Contains(x, "T-666") || strings.Contains(x, "hunter2") || strings.Contains(x, "10.0.0.7") {
				t.Errorf("span %s carries %q", s.Name(), x)
			}
		}
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			b, err := json.Marshal(m.Data)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range []string{secret, "T-666", "hunter2", "10.0.0.7"} {
				if i := bytes.Index(b, []byte(x)); i >= 0 {
					t.Errorf("metric %s carries %q: …%s…", m.Name, x, b[max(0, i-80):min(len(b), i+40)])
				}
			}
		}
	}
}

func mapsEqual[V comparable](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A gate without spans to record (the global no-op providers) still works,
// and New with nil providers uses the global ones.
func TestNilProviders(t *testing.T) {
	obs, err := ocpotel.New(ocpotel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := &fakeServer{}
	g, err := ocp.NewGate(ocp.Config{Catalogue: ticketsocp.Catalogue, Server: srv, ACL: ocp.AllowAllResources, Broker: ocp.NewMemoryBroker(), Audit: slog.New(slog.DiscardHandler), Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	srv.watch(liveTools(t))
	if res := g.Dispatch(context.Background(), alice, req("r", "list_tickets", `{}`)); !res.OK {
		t.Fatalf("%+v", res)
	}
}

// A confirm that waits until its call's context ends is no longer pending.
func TestPendingEndsWithTheCall(t *testing.T) {
	e := newEnv(t)
	opened := make(chan struct{}, 1)
	defer e.gate.Subscribe(func(ocp.ConfirmRequest) { opened <- struct{}{} }, nil)()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan ocp.ActionResult, 1)
	go func() { done <- e.gate.Dispatch(ctx, alice, req("w", "create_ticket", `{"title":"t"}`)) }()
	select {
	case <-opened:
	case <-time.After(time.Minute): // a bound against a hang, not a threshold
		t.Fatal("no confirm opened")
	}
	if n := e.pending(t, "create_ticket"); n != 1 {
		t.Fatalf("pending = %d while waiting", n)
	}
	cancel()
	if res := testwait.Recv(t, done, "the cancelled write's result"); res.Reason != ocp.ReasonDenied {
		t.Fatalf("%+v", res)
	}
	if n := e.pending(t, "create_ticket"); n != 0 {
		t.Fatalf("pending = %d after the call", n)
	}
	if got := e.confirms(t); !mapsEqual(got, map[string]int64{"cancelled": 1}) {
		t.Fatalf("ocp.gate.confirms = %v, want one cancelled", got)
	}
}

// confirms returns ocp.gate.confirms of create_ticket by ocp.confirm.outcome.
func (e *env) confirms(t *testing.T) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	const prefix, suffix = "ocp.confirm.outcome=", ",ocp.gate=tickets,ocp.tool=create_ticket,ocp.write=true"
	for k, v := range sums(t, e.collect(t), "ocp.gate.confirms") {
		o, ok := strings.CutPrefix(k, prefix)
		if o, ok2 := strings.CutSuffix(o, suffix); ok && ok2 {
			out[o] = v
			continue
		}
		t.Fatalf("ocp.gate.confirms has a point %q", k)
	}
	return out
}

// fixedBroker answers every confirm at once, with outcome or err.
type fixedBroker struct {
	ocp.ConfirmBroker
	outcome ocp.Outcome
	err     error
}

func (b fixedBroker) Request(context.Context, ocp.PendingConfirm) (ocp.Decision, error) {
	if b.err != nil {
		return ocp.Decision{}, b.err
	}
	return ocp.Decision{Outcome: b.outcome, Peer: "phone", PrincipalID: "bob"}, nil
}

// How a confirm ended is on the confirm span and in ocp.gate.confirms,
// which tell apart the denials the call's outcome does not: denied,
// expired, cancelled. A broker failure is none of them.
func TestConfirmOutcomes(t *testing.T) {
	for _, tc := range []struct {
		outcome ocp.Outcome
		err     error
		reason  ocp.Reason
	}{
		{outcome: ocp.OutcomeApproved},
		{outcome: ocp.OutcomeDenied, reason: ocp.ReasonDenied},
		{outcome: ocp.OutcomeExpired, reason: ocp.ReasonDenied},
		{outcome: ocp.OutcomeCancelled, reason: ocp.ReasonDenied},
		{outcome: "SECRET-future-outcome", reason: ocp.ReasonDenied},
		{err: errors.New("SECRET broker down"), reason: ocp.ReasonDenied},
	} {
		e := newEnvWith(t, fixedBroker{ocp.NewMemoryBroker(), tc.outcome, tc.err})
		res := e.gate.Dispatch(context.Background(), alice, req("w", "create_ticket", `{"title":"t"}`))
		if res.Reason != tc.reason {
			t.Fatalf("%q: %+v, want reason %q", tc.outcome, res, tc.reason)
		}
		want, attr := map[string]int64{}, ""
		switch {
		case tc.err != nil:
		case tc.outcome == "SECRET-future-outcome":
			// The gate denies an outcome it does not know, and does not
			// pass it on.
		default:
			attr = string(tc.outcome)
			want[attr] = 1
		}
		if got := e.confirms(t); !mapsEqual(got, want) {
			t.Errorf("%q: ocp.gate.confirms = %v, want %v", tc.outcome, got, want)
		}
		calls := e.calls(t)
		if len(calls) != 1 || len(calls[0].steps) < 2 || calls[0].steps[1].Name() != "ocp.confirm" {
			t.Fatalf("%q: spans %+v", tc.outcome, calls)
		}
		got, ok := spanAttrs(calls[0].steps[1])["ocp.confirm.outcome"]
		if got != attr || ok != (attr != "") {
			t.Errorf("%q: the confirm span's ocp.confirm.outcome = %q (set %v), want %q", tc.outcome, got, ok, attr)
		}
	}

	// Through a real broker: a peer approves, then denies.
	e := newEnv(t)
	if res, _, _ := e.write(t, `{"title":"a"}`, true); !res.OK {
		t.Fatalf("approved: %+v", res)
	}
	if res, _, _ := e.write(t, `{"title":"d"}`, false); res.Reason != ocp.ReasonDenied {
		t.Fatalf("denied: %+v", res)
	}
	if got := e.confirms(t); !mapsEqual(got, map[string]int64{"approved": 1, "denied": 1}) {
		t.Fatalf("ocp.gate.confirms = %v, want one approved and one denied", got)
	}
}

// One observer serves every gate of a Mux: two servers of the same
// generated package are told apart by ocp.server, in spans and metrics.
func TestOneObserverForAMux(t *testing.T) {
	spans, reader := tracetest.NewSpanRecorder(), sdkmetric.NewManualReader()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	obs, err := ocpotel.New(ocpotel.Options{TracerProvider: tp, MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	if err != nil {
		t.Fatal(err)
	}
	east, west := &fakeServer{}, &fakeServer{}
	cfg := func(s ocp.Server) ocp.Config {
		return ocp.Config{Catalogue: ticketsocp.Catalogue, Server: s, ACL: ocp.AllowAllResources, Observer: obs, Audit: slog.New(slog.DiscardHandler)}
	}
	mux, err := ocp.NewMux(ocp.MuxConfig{
		Broker: ocp.NewMemoryBroker(),
		Audit:  slog.New(slog.DiscardHandler),
		Servers: []ocp.MuxServer{
			{Name: "east", Prefix: "east_", Config: cfg(east)},
			{Name: "west", Prefix: "west_", Config: cfg(west)},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	all := liveTools(t)
	var some []ocp.LiveTool // west lists every tool but one write
	for _, lt := range all {
		if lt.Tool.Name != "close_ticket" {
			some = append(some, lt)
		}
	}
	if len(some) != len(all)-1 {
		t.Fatalf("the ticket desk has no close_ticket: %v", all)
	}
	east.watch(all)
	west.watch(some)
	for i, tool := range []string{"east_list_tickets", "west_list_tickets"} {
		if res := mux.Dispatch(context.Background(), alice, req(fmt.Sprint(i), tool, `{}`)); !res.OK {
			t.Fatalf("%s: %+v", tool, res)
		}
	}

	var servers []string
	for _, s := range spans.Ended() {
		if s.Name() == "ocp.dispatch" {
			servers = append(servers, spanAttrs(s)["ocp.server"])
		}
	}
	if len(servers) != 2 || servers[0] != "east" || servers[1] != "west" {
		t.Fatalf("ocp.dispatch spans' ocp.server = %q, want [east west]", servers)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	adv := sums(t, rm, "ocp.gate.tools.advertised")
	if adv["ocp.server=east"] != int64(len(all)) || adv["ocp.server=west"] != int64(len(some)) {
		t.Fatalf("ocp.gate.tools.advertised = %v, want east %d and west %d", adv, len(all), len(some))
	}
}

// A second End (from a wrapping or tee observer that calls it twice)
// records nothing more: one call and one duration, of the first End.
func TestSecondEndRecordsNothing(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	obs, err := ocpotel.New(ocpotel.Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)), Gate: "tickets"})
	if err != nil {
		t.Fatal(err)
	}
	_, co := obs.StartCall(context.Background(), ocp.CallInfo{Tool: "list_tickets"})
	co.Step(ocp.StepCatalogue)
	co.End("")
	co.End(ocp.ReasonFailed)
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	calls := sums(t, rm, "ocp.gate.calls")
	var n int64
	for _, v := range calls {
		n += v
	}
	if n != 1 || len(calls) != 1 {
		t.Errorf("ocp.gate.calls = %v after End, End; want one call", calls)
	}
	durs := counts(t, rm, "ocp.gate.call.duration")
	var d uint64
	for _, v := range durs {
		d += v
	}
	if d != 1 {
		t.Errorf("ocp.gate.call.duration counts = %v after End, End; want one", durs)
	}
}
