package ocp

import (
	"context"
	"encoding/json"
	"log/slog"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/argshapes"
	"github.com/ocpgen/ocpgen/internal/heapmeter"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// The arguments of the tools of the shapes of internal/argshapes: a read
// and a write whose one property "v" has the shape's Go type.
type (
	heapRead[T any] struct {
		Read `json:"-"`
		V    T `json:"v"`
	}
	heapWrite[T any] struct {
		Write `json:"-"`
		V     T `json:"v"`
	}
	heapObject struct {
		A *int64 `json:"a,omitzero"`
	}
	// heapUnion is the union the generator writes for the schema of
	// union-numbers.
	heapUnion struct {
		Array  *[]int64
		String *string
	}
	// heapExtra is the struct the generator writes for the shape
	// wide-extra.
	heapExtra struct {
		S                    *string          `json:"s,omitzero"`
		AdditionalProperties map[string]int64 `json:"-"`
	}
)

func (u *heapUnion) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Array, ocpimpl.JSONArray, `{"items":{"type":"integer"},"type":"array"}`),
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"type":"string"}`),
	}
}

func (u heapUnion) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("heapUnion", u.OCPBranches()...)
}

func (u *heapUnion) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("heapUnion", b, u.OCPBranches()...)
}

func (v heapExtra) MarshalJSON() ([]byte, error) {
	type plain heapExtra
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

func (v *heapExtra) UnmarshalJSON(b []byte) error {
	type plain heapExtra
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties, "s")
}

func (*heapExtra) OCPWithExtra() {}

// heapArgs are the read's and the write's argument types of each shape.
var heapArgs = map[string][2]any{
	"tiny-numbers":     {(*heapRead[[]int64])(nil), (*heapWrite[[]int64])(nil)},
	"union-numbers":    {(*heapRead[heapUnion])(nil), (*heapWrite[heapUnion])(nil)},
	"shared-ref":       {(*heapRead[[]int64])(nil), (*heapWrite[[]int64])(nil)},
	"integral-numbers": {(*heapRead[[]int64])(nil), (*heapWrite[[]int64])(nil)},
	"nulls":            {(*heapRead[[]*int64])(nil), (*heapWrite[[]*int64])(nil)},
	"tiny-strings":     {(*heapRead[[]string])(nil), (*heapWrite[[]string])(nil)},
	"tiny-objects":     {(*heapRead[[]heapObject])(nil), (*heapWrite[[]heapObject])(nil)},
	"deep":             {(*heapRead[json.RawMessage])(nil), (*heapWrite[json.RawMessage])(nil)},
	"deep-members":     {(*heapRead[json.RawMessage])(nil), (*heapWrite[json.RawMessage])(nil)},
	"long-string":      {(*heapRead[string])(nil), (*heapWrite[string])(nil)},
	"escaped-string":   {(*heapRead[string])(nil), (*heapWrite[string])(nil)},
	"html-string":      {(*heapRead[string])(nil), (*heapWrite[string])(nil)},
	"invisible-string": {(*heapRead[string])(nil), (*heapWrite[string])(nil)},
	"wide-object":      {(*heapRead[map[string]int64])(nil), (*heapWrite[map[string]int64])(nil)},
	"escaped-names":    {(*heapRead[map[string]int64])(nil), (*heapWrite[map[string]int64])(nil)},
	"wide-extra":       {(*heapRead[heapExtra])(nil), (*heapWrite[heapExtra])(nil)},
	"escaped-strings":  {(*heapRead[[]string])(nil), (*heapWrite[[]string])(nil)},
	"big-numbers":      {(*heapRead[json.RawMessage])(nil), (*heapWrite[json.RawMessage])(nil)},
}

// heapGate is a gate of one shape's read ("read") and write ("write"),
// whose server answers at once, and whose writes a peer approves as soon as
// they are announced. mod, if not nil, changes its Config.
func heapGate(tb testing.TB, s argshapes.Shape, mark func(Step), mod func(*Config)) *Gate {
	tb.Helper()
	types, ok := heapArgs[s.Name]
	if !ok {
		tb.Fatalf("shape %s has no argument types here", s.Name)
	}
	read := &Tool{Args: types[0], Desc: mustDesc(Descriptor{Name: "read", InputSchema: s.InputSchema(),
		Policy: Policy{Kind: ocpimpl.KindRead, Classified: true, Tier: "member", Resource: tpl("r"), Failure: "no"}})}
	write := &Tool{Args: types[1], Desc: mustDesc(Descriptor{Name: "write", InputSchema: s.InputSchema(),
		Policy: Policy{Kind: ocpimpl.KindWrite, Classified: true, Tier: "member", Resource: tpl("w"), Failure: "no", ConfirmTTL: time.Minute}})}
	return heapGateOf(tb, NewCatalogue(testTiers, read, write), mark, mod)
}

// heapGateOf is heapGate of the tools of cat.
func heapGateOf(tb testing.TB, cat *Catalogue, mark func(Step), mod func(*Config)) *Gate {
	tb.Helper()
	broker := newMemoryBroker()
	cfg := Config{Catalogue: cat, ACL: AllowAllResources, Broker: waitMarks{broker, mark}, Audit: slog.New(slog.DiscardHandler),
		Server: nopCaller{res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}}}
	if mark != nil {
		cfg.Observer = stepMarks(mark)
	}
	if mod != nil {
		mod(&cfg)
	}
	g, err := NewGate(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(autoApprove(g, broker))
	g.one().syncCatalogue(liveOf(cat))
	return g
}

// waitMarks is a MemoryBroker that calls mark("wait") when a write's
// confirm begins to wait: what is live then is what a write holds while it
// waits for a decision.
type waitMarks struct {
	*memoryBroker
	mark func(Step)
}

func (b waitMarks) Request(ctx context.Context, p PendingConfirm) (Decision, error) {
	if b.mark != nil {
		b.mark("wait")
	}
	return b.memoryBroker.Request(ctx, p)
}

// stepMarks is an Observer that calls mark at the beginning of every step
// and at the end of every call ("end").
type stepMarks func(Step)

func (m stepMarks) StartCall(ctx context.Context, _ CallInfo) (context.Context, CallObserver) {
	return ctx, m
}
func (stepMarks) Synced(SyncInfo)               {}
func (m stepMarks) Step(s Step) context.Context { m(s); return nil }
func (stepMarks) ConfirmEnded(Outcome)          {}
func (m stepMarks) End(Reason)                  { m("end") }

// heapCall bounds the peak live heap of one call of tool with args on g,
// built with heapGate and the marks of *m (heapMarks), above what the
// caller holds, and returns the live heap while a write's confirm waited
// (held). The call must succeed, or be refused by a bound of the arguments
// (refused is then true).
func heapCall(tb testing.TB, g *Gate, m **heapmeter.Meter, tool string, args []byte) (peak, held uint64, refused bool) {
	tb.Helper()
	req := ActionRequest{ID: "h", Tool: tool, Args: args}
	*m = heapmeter.Start()
	res := g.Dispatch(context.Background(), alice, req)
	if !res.OK && (res.Reason != ReasonInvalid || !strings.Contains(res.Error, `rule "value-count"`) && !strings.Contains(res.Error, `rule "forwarded-size"`)) {
		tb.Fatalf("%s: %+v", tool, res)
	}
	runtime.KeepAlive(res)
	for _, p := range (*m).Phases() {
		if p.Name == string(StepConfirm) {
			held = p.Live // the confirm step up to the wait
		}
	}
	return (*m).Peak(), held, !res.OK
}

// heapMarks returns the marks of a heapGate: each ends the step in progress
// on *m, named after it ("before" the first).
func heapMarks(m **heapmeter.Meter) func(Step) {
	cur := Step("before")
	return func(next Step) {
		(*m).Mark(string(cur))
		cur = next
		if next == "end" {
			cur = "before"
		}
	}
}

// The metrics of BenchmarkWorstInput/args-heap, per byte of input: the bound
// on the peak live heap of a read's call (read-peak-B/B) and a write's
// (write-peak-B/B), approved at once, each a gate's Dispatch (default
// Config) with a server that answers at once; the live heap while the
// write's confirm waits (write-held-B/B); and the bound of json.Unmarshal
// of the same arguments into an any (json-any-B/B), measured the same way;
// and the arguments' size (args-MiB) and the larger of the calls' bounds
// (peak-MiB). A shape refused by a bound of the arguments reports refused=1
// (its peaks are the refusal's). The shapes at 4 MiB, and the dense ones
// also at the bound of values ("-at-bound"), the string of U+00AD at the
// bound of forwarded bytes; and the dense shapes next to a small argument
// that a resource template reads, at the bound of values
// ("-template-reads", benchTypedCallHeap). The bound is
// internal/heapmeter's: a forced collection at every step boundary of the
// call (through an Observer), and for each step the live heap at its start
// plus what it allocates, above the live heap before the call.
func benchArgsHeap(b *testing.B) {
	for _, s := range argshapes.All {
		name, raw := s.Name, s.Args(defaultMaxArgsBytes, math.MaxInt)
		b.Run(name, func(b *testing.B) { benchCallHeap(b, s, raw) })
		switch {
		case s.Dense():
			// The most of the shape the bound of values takes.
			raw := s.Args(defaultMaxArgsBytes, defaultMaxArgsValues)
			b.Run(name+"-at-bound", func(b *testing.B) { benchCallHeap(b, s, raw) })
		case s.Name == "invisible-string":
			// The most of it the bound of forwarded bytes takes: a third.
			raw := s.Args(defaultMaxArgsBytes/3, math.MaxInt)
			b.Run(name+"-at-bound", func(b *testing.B) { benchCallHeap(b, s, raw) })
		}
		if types, ok := heapArgsK[s.Name]; ok {
			raw := withKey(s, defaultMaxArgsBytes, defaultMaxArgsValues)
			b.Run(name+"-template-reads", func(b *testing.B) { benchTypedCallHeap(b, s, types, raw) })
		}
	}
}

// benchTypedCallHeap is benchCallHeap of the tools whose resource
// templates read an argument (typedHeapTools): a read and a write that
// read a small "k" next to the shape (read-peak-B/B, write-peak-B/B), and
// for an array of scalars a read that reads the array, refused as more
// than Config.MaxResources resources (array-peak-B/B).
func benchTypedCallHeap(b *testing.B, s argshapes.Shape, types [3]any, raw []byte) {
	var m *heapmeter.Meter
	tools := typedHeapTools(s, types)
	g := heapGateOf(b, NewCatalogue(testTiers, tools...), heapMarks(&m), nil)
	peaks := map[string]uint64{}
	for b.Loop() {
		for _, tool := range tools {
			p, _ := heapDispatch(b, g, &m, tool.Desc.Name, raw)
			peaks[tool.Desc.Name] = max(peaks[tool.Desc.Name], p)
		}
	}
	n := float64(len(raw))
	b.ReportMetric(n/(1<<20), "args-MiB")
	b.ReportMetric(float64(peaks["reads-k"])/n, "read-peak-B/B")
	b.ReportMetric(float64(peaks["writes-k"])/n, "write-peak-B/B")
	if p, ok := peaks["reads-v"]; ok {
		b.ReportMetric(float64(p)/n, "array-peak-B/B")
	}
}

func benchCallHeap(b *testing.B, s argshapes.Shape, raw []byte) {
	var m *heapmeter.Meter
	g := heapGate(b, s, heapMarks(&m), nil)
	var read, write, held, js uint64
	var refused bool
	for b.Loop() {
		r, _, _ := heapCall(b, g, &m, "read", raw)
		w, h, ref := heapCall(b, g, &m, "write", raw)
		read, write, held, refused = max(read, r), max(write, w), max(held, h), ref
		jm := heapmeter.Start()
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			b.Fatal(err)
		}
		jm.Mark("json")
		runtime.KeepAlive(v)
		js = max(js, jm.Peak())
	}
	n := float64(len(raw))
	b.ReportMetric(n/(1<<20), "args-MiB")
	b.ReportMetric(float64(read)/n, "read-peak-B/B")
	b.ReportMetric(float64(write)/n, "write-peak-B/B")
	b.ReportMetric(float64(held)/n, "write-held-B/B")
	b.ReportMetric(float64(js)/n, "json-any-B/B")
	b.ReportMetric(float64(max(read, write))/(1<<20), "peak-MiB")
	if refused {
		b.ReportMetric(1, "refused")
	}
}
