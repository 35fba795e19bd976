// Package ocpotel gives an ocp gate OpenTelemetry traces and metrics: it
// implements [ocp.Observer], which the Hub sets as ocp.Config.Observer.
// Package ocp itself imports nothing of OpenTelemetry; a Hub that does not
// import this package does not build it.
//
// # Traces
//
// Every gated call ([ocp.Gate.Dispatch], [ocp.Gate.Call]) is one span,
// "ocp.dispatch", a child of the span in the caller's context if any, with
// a child span for each part the call reaches, in order: "ocp.check" (the
// stages catalogue, rights, args and acl, which take microseconds), for a
// write "ocp.confirm" (the wait for a peer's decision, with
// ocp.confirm.outcome once the broker answered) and "ocp.reauthorize", and
// "ocp.call" (the server call, of kind client, and its result). Each child
// has ocp.step (the [ocp.Step] that ended it: "args" on an ocp.check span
// means the arguments were refused) and ocp.outcome; the call span has
// ocp.outcome. A failed call, or one whose
// outcome is unknown, has status Error on its span and its last child,
// with the outcome as the description; refusals are not errors. The gate's
// hooks (the ACL, the broker, Reauthorize, the server's CallTool) receive
// the context of their step's span, so their own spans nest under it.
//
// No trace context reaches the MCP server: the span is in the context
// passed to [ocp.Server.CallTool], never in the request. The [ocp.Client]
// sends a tools/call with the name and the arguments and nothing else
// (params._meta is stripped), and it injects no headers. (An HTTP client
// of the Hub's own in the transport that injects trace headers would send
// them: give the transport a plain one.)
//
// # Metrics
//
//   - ocp.gate.calls (counter): calls by ocp.tool, ocp.write and
//     ocp.outcome, which is "ok" or the call's [ocp.Reason] ("unknown",
//     "forbidden", "invalid", "denied", "failed", "outcome_unknown").
//   - ocp.gate.call.duration (histogram, s): the whole call, by the same
//     attributes.
//   - ocp.gate.step.duration (histogram, s): each step, by ocp.tool,
//     ocp.step and ocp.outcome (a step that did not end the call is "ok").
//   - ocp.gate.confirms (counter): the confirms that ended, by ocp.tool and
//     ocp.confirm.outcome ("approved", "denied", "expired" or "cancelled":
//     the call's ocp.outcome is "denied" for the last three alike). A
//     confirm the broker failed on is not counted here; its call ends
//     "denied" in step "confirm".
//   - ocp.gate.confirms.pending (up-down counter): the confirms this gate is
//     waiting on now, by ocp.tool.
//   - ocp.gate.syncs (counter): catalogue syncs, by ocp.changed (the
//     advertised set changed).
//   - ocp.gate.sync.tools (counter): the tools each sync found out of step
//     with the generated catalogue, by ocp.drift: "server_only" (listed,
//     never generated: not callable), "schema_changed" (withdrawn),
//     "task_required" (now needs a task: withdrawn), "removed" (no longer
//     listed) and "metadata" (title, description, annotations, output
//     schema, icons, _meta or execution.taskSupport changed: audited).
//   - ocp.gate.tools.advertised (gauge): the tools advertised after the last
//     sync.
//
// The call span and every measurement also carry ocp.gate when
// [Options.Gate] is set.
//
// # What telemetry never carries
//
// Attributes carry only the generated tool's name (a call that names no
// tool of the gate has no ocp.tool: the requested name is the model's
// text), read or write, the step, the outcome (and a confirm's), the
// gate's name and, on the call span, the catalogue fingerprint. Never an argument value, the
// confirm prompt, the rendered resources, the principal, the peer, the
// call's id, or any error text (a server's error stays in the audit log,
// which the result's reference points to); the spans have no events. The
// gate does not pass those to an [ocp.Observer] at all, so no option here
// can add them.
package ocpotel

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/ocpgen/ocpgen/runtime/ocpotel"

// Attribute keys.
const (
	KeyGate      = attribute.Key("ocp.gate")      // Options.Gate
	KeyServer    = attribute.Key("ocp.server")    // the server's name in a Gate of ocp.NewMux
	KeyTool      = attribute.Key("ocp.tool")      // the generated tool's name
	KeyWrite     = attribute.Key("ocp.write")     // the tool is a write
	KeyStep      = attribute.Key("ocp.step")      // an ocp.Step
	KeyOutcome   = attribute.Key("ocp.outcome")   // "ok" or an ocp.Reason
	KeyCatalogue = attribute.Key("ocp.catalogue") // the catalogue fingerprint (spans only)
	KeyChanged   = attribute.Key("ocp.changed")   // a sync changed the advertised set
	KeyDrift     = attribute.Key("ocp.drift")     // what a sync found out of step
	// KeyConfirm is how a write's confirm ended: an ocp.Outcome
	// ("approved", "denied", "expired", "cancelled").
	KeyConfirm = attribute.Key("ocp.confirm.outcome")
)

// OutcomeOK is the ocp.outcome of a call or step that did not fail.
const OutcomeOK = "ok"

// Options configure [New].
type Options struct {
	// TracerProvider makes the tracer. Nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the meter. Nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Gate, if set, names the gate on every span and measurement
	// (attribute ocp.gate), for a Hub with several gates.
	Gate string
}

// durationBounds are the histogram buckets, in seconds: the gate's own
// steps take microseconds, a server call milliseconds, a confirm minutes.
var durationBounds = []float64{
	0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005,
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
	1, 2.5, 5, 10, 30, 60, 120, 300,
}

// durationHistogram makes a histogram of durations, in seconds, with the
// buckets durationBounds.
func durationHistogram(m metric.Meter, name, desc string) (metric.Float64Histogram, error) {
	return m.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
		metric.WithExplicitBucketBoundaries(durationBounds...))
}

// New returns an [ocp.Observer] that records the gate's traces and metrics
// with opts' providers. Its error is the meter's, for an instrument it
// could not make.
func New(opts Options) (ocp.Observer, error) {
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	o := &observer{tracer: tp.Tracer(ScopeName), tools: map[toolKey]*toolAttrs{}}
	if opts.Gate != "" {
		o.gate = []attribute.KeyValue{KeyGate.String(opts.Gate)}
	}
	m := mp.Meter(ScopeName)
	var err, e error
	o.calls, e = m.Int64Counter("ocp.gate.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Gated calls, by tool and outcome."))
	err = errors.Join(err, e)
	o.callDur, e = durationHistogram(m, "ocp.gate.call.duration", "Duration of gated calls, confirm wait included.")
	err = errors.Join(err, e)
	o.stepDur, e = durationHistogram(m, "ocp.gate.step.duration", "Duration of each step of a gated call.")
	err = errors.Join(err, e)
	o.confirms, e = m.Int64Counter("ocp.gate.confirms", metric.WithUnit("{confirm}"),
		metric.WithDescription("Confirms that ended, by how they ended."))
	err = errors.Join(err, e)
	o.pending, e = m.Int64UpDownCounter("ocp.gate.confirms.pending", metric.WithUnit("{confirm}"),
		metric.WithDescription("Confirms the gate is waiting on."))
	err = errors.Join(err, e)
	o.syncs, e = m.Int64Counter("ocp.gate.syncs", metric.WithUnit("{sync}"),
		metric.WithDescription("Catalogue syncs."))
	err = errors.Join(err, e)
	o.syncTools, e = m.Int64Counter("ocp.gate.sync.tools", metric.WithUnit("{tool}"),
		metric.WithDescription("Tools a catalogue sync found out of step with the generated catalogue."))
	err = errors.Join(err, e)
	o.advertised, e = m.Int64Gauge("ocp.gate.tools.advertised", metric.WithUnit("{tool}"),
		metric.WithDescription("Tools advertised after the last catalogue sync."))
	err = errors.Join(err, e)
	if err != nil {
		return nil, err
	}
	return o, nil
}

// toolKey names a tool of one gate: one Observer may serve every gate of an
// Gate of ocp.NewMux, whose servers may share generated names.
type toolKey struct{ server, tool string }

type observer struct {
	tracer trace.Tracer
	gate   []attribute.KeyValue // ocp.gate, or nothing

	calls, syncs, syncTools metric.Int64Counter
	confirms                metric.Int64Counter
	callDur, stepDur        metric.Float64Histogram
	pending                 metric.Int64UpDownCounter
	advertised              metric.Int64Gauge

	mu    sync.RWMutex
	tools map[toolKey]*toolAttrs // by server and generated tool name ("" for none)
}

// The outcomes, as indices of the precomputed attribute sets.
var outcomes = [...]string{
	OutcomeOK,
	string(ocp.ReasonUnknown),
	string(ocp.ReasonForbidden),
	string(ocp.ReasonInvalid),
	string(ocp.ReasonDenied),
	string(ocp.ReasonFailed),
	string(ocp.ReasonOutcomeUnknown),
	"other", // a Reason this package does not know yet
}

func outcomeIndex(r ocp.Reason) int {
	if r == "" {
		return 0
	}
	for i, o := range outcomes[1 : len(outcomes)-1] {
		if string(r) == o {
			return i + 1
		}
	}
	return len(outcomes) - 1
}

// The confirm outcomes, as indices of the precomputed attribute sets.
var confirmOutcomes = [...]string{
	string(ocp.OutcomeApproved),
	string(ocp.OutcomeDenied),
	string(ocp.OutcomeExpired),
	string(ocp.OutcomeCancelled),
	"other", // an Outcome this package does not know yet
}

func confirmIndex(o ocp.Outcome) int {
	for i, x := range confirmOutcomes[:len(confirmOutcomes)-1] {
		if string(o) == x {
			return i
		}
	}
	return len(confirmOutcomes) - 1
}

// isError reports whether outcome index out is an error of the call (the
// server failed, or its outcome is unknown) rather than a refusal: the span
// status is then Error, with the outcome as its description.
func isError(out int) bool {
	return outcomes[out] == string(ocp.ReasonFailed) || outcomes[out] == string(ocp.ReasonOutcomeUnknown)
}

// The steps, as indices of the precomputed attribute sets.
var steps = [...]ocp.Step{ocp.StepCatalogue, ocp.StepRights, ocp.StepArgs, ocp.StepACL, ocp.StepConfirm, ocp.StepReauthorize, ocp.StepCall}

// spanOf is the span of each step, as an index in spanNames: the gate's
// first four steps share one span (their durations are still apart in
// ocp.gate.step.duration).
var spanOf = [len(steps)]int{0, 0, 0, 0, 1, 2, 3}

// spanNames are the names of the step spans.
var spanNames = [...]string{"ocp.check", "ocp.confirm", "ocp.reauthorize", "ocp.call"}

func stepIndex(s ocp.Step) int {
	for i, x := range steps {
		if x == s {
			return i
		}
	}
	return -1
}

// toolAttrs are one tool's attribute sets, made once and used by every
// measurement of its calls.
type toolAttrs struct {
	span     []attribute.KeyValue // ocp.tool, ocp.write, ocp.gate
	start    atomic.Pointer[startOpts]
	call     [len(outcomes)][]metric.AddOption
	callDur  [len(outcomes)][]metric.RecordOption
	stepDur  [len(steps)][len(outcomes)][]metric.RecordOption
	pending  []metric.AddOption
	confirms [len(confirmOutcomes)][]metric.AddOption
	confirm  [len(confirmOutcomes)][]attribute.KeyValue // ocp.confirm.outcome
	outcomes [len(outcomes)][]attribute.KeyValue        // ocp.outcome
	// ended are a step span's attributes as step i ends it with outcome o.
	ended [len(steps)][len(outcomes)][]attribute.KeyValue
}

// startOpts are the options of a call span, for one catalogue.
type startOpts struct {
	catalogue string
	opts      []trace.SpanStartOption
}

// startOptions returns the options of a call span under catalogue fp.
func (ta *toolAttrs) startOptions(fp string) []trace.SpanStartOption {
	if so := ta.start.Load(); so != nil && so.catalogue == fp {
		return so.opts
	}
	attrs := ta.span
	if fp != "" {
		attrs = append(attrs[:len(attrs):len(attrs)], KeyCatalogue.String(fp))
	}
	so := &startOpts{catalogue: fp, opts: []trace.SpanStartOption{trace.WithAttributes(attrs...)}}
	ta.start.Store(so)
	return so.opts
}

// serverStart are the options of a server step's span.
var serverStart = []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}

func (o *observer) toolAttrs(info ocp.CallInfo) *toolAttrs {
	key := toolKey{info.Server, info.Tool}
	o.mu.RLock()
	ta := o.tools[key]
	o.mu.RUnlock()
	if ta != nil {
		return ta
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if ta = o.tools[key]; ta != nil {
		return ta
	}
	base := append([]attribute.KeyValue(nil), o.gate...)
	if info.Server != "" {
		base = append(base, KeyServer.String(info.Server))
	}
	if info.Tool != "" {
		base = append(base, KeyTool.String(info.Tool), KeyWrite.Bool(info.Write))
	}
	set := func(kvs ...attribute.KeyValue) metric.MeasurementOption {
		return metric.WithAttributeSet(attribute.NewSet(append(append([]attribute.KeyValue(nil), base...), kvs...)...))
	}
	ta = &toolAttrs{span: base}
	for i, out := range outcomes {
		kv := KeyOutcome.String(out)
		ta.outcomes[i] = []attribute.KeyValue{kv}
		opt := set(kv)
		ta.call[i] = []metric.AddOption{opt}
		ta.callDur[i] = []metric.RecordOption{opt}
		for j, s := range steps {
			ta.stepDur[j][i] = []metric.RecordOption{set(KeyStep.String(string(s)), kv)}
			ta.ended[j][i] = []attribute.KeyValue{KeyStep.String(string(s)), kv}
		}
	}
	ta.pending = []metric.AddOption{set()}
	for i, o := range confirmOutcomes {
		kv := KeyConfirm.String(o)
		ta.confirm[i] = []attribute.KeyValue{kv}
		ta.confirms[i] = []metric.AddOption{set(kv)}
	}
	o.tools[key] = ta
	return ta
}

// StartCall implements [ocp.Observer].
func (o *observer) StartCall(ctx context.Context, info ocp.CallInfo) (context.Context, ocp.CallObserver) {
	ta := o.toolAttrs(info)
	ctx, span := o.tracer.Start(ctx, "ocp.dispatch", ta.startOptions(info.Catalogue)...)
	return ctx, &callObs{o: o, ta: ta, ctx: ctx, span: span, start: time.Now(), step: -1}
}

// syncOpts are the attributes of a sync's measurement: kvs, the gate's
// name and the server's.
func (o *observer) syncOpts(server string, kvs ...attribute.KeyValue) metric.MeasurementOption {
	kvs = append(kvs, o.gate...)
	if server != "" {
		kvs = append(kvs, KeyServer.String(server))
	}
	return metric.WithAttributeSet(attribute.NewSet(kvs...))
}

// Synced implements [ocp.Observer].
func (o *observer) Synced(s ocp.SyncInfo) {
	ctx := context.Background()
	o.syncs.Add(ctx, 1, o.syncOpts(s.Server, KeyChanged.Bool(s.Changed)))
	for _, d := range []struct {
		kind string
		n    int
	}{{"server_only", s.ServerOnly}, {"schema_changed", s.Withdrawn}, {"task_required", s.TaskRequired}, {"removed", s.Removed}, {"metadata", s.Drift}} {
		if d.n > 0 {
			o.syncTools.Add(ctx, int64(d.n), o.syncOpts(s.Server, KeyDrift.String(d.kind)))
		}
	}
	o.advertised.Record(ctx, int64(s.Advertised), o.syncOpts(s.Server))
}

// callObs is one call's observation, called from one goroutine as
// [ocp.CallObserver] says. The gate calls End once (runtime/ocp's observer
// tests hold it to that), but ocpotel is public and a wrapping or tee
// observer may call it twice: ended makes a second End record nothing.
type callObs struct {
	o     *observer
	ta    *toolAttrs
	ctx   context.Context // the call span's
	span  trace.Span
	start time.Time

	step      int       // the step in progress, as an index in steps; -1 for none
	stepStart time.Time // when it began
	stepSpan  trace.Span
	stepCtx   context.Context // stepSpan's

	ended bool // End was called
}

// Step implements [ocp.CallObserver].
func (c *callObs) Step(s ocp.Step) context.Context {
	now := time.Now()
	i := stepIndex(s)
	if c.step >= 0 && i >= 0 && spanOf[c.step] == spanOf[i] {
		// The same span goes on (ocp.check).
		c.endStep(now, 0, false)
		c.step, c.stepStart = i, now
		return c.stepCtx
	}
	c.endStep(now, 0, true)
	if i < 0 {
		return c.ctx // a step this package does not know: not recorded
	}
	var opts []trace.SpanStartOption
	if s == ocp.StepCall {
		opts = serverStart
	}
	c.stepCtx, c.stepSpan = c.o.tracer.Start(c.ctx, spanNames[spanOf[i]], opts...)
	c.step, c.stepStart = i, now
	if s == ocp.StepConfirm {
		c.o.pending.Add(c.stepCtx, 1, c.ta.pending...)
	}
	return c.stepCtx
}

// endStep ends the step in progress, if any, with outcome index out, and
// its span if endSpan.
func (c *callObs) endStep(now time.Time, out int, endSpan bool) {
	if c.step < 0 {
		return
	}
	i := c.step
	c.step = -1
	if steps[i] == ocp.StepConfirm {
		c.o.pending.Add(c.ctx, -1, c.ta.pending...)
	}
	c.o.stepDur.Record(c.ctx, now.Sub(c.stepStart).Seconds(), c.ta.stepDur[i][out]...)
	if !endSpan {
		return
	}
	c.stepSpan.SetAttributes(c.ta.ended[i][out]...)
	if isError(out) {
		c.stepSpan.SetStatus(codes.Error, outcomes[out])
	}
	c.stepSpan.End()
	c.stepSpan, c.stepCtx = nil, nil
}

// ConfirmEnded implements [ocp.CallObserver].
func (c *callObs) ConfirmEnded(o ocp.Outcome) {
	i := confirmIndex(o)
	if c.step >= 0 && steps[c.step] == ocp.StepConfirm {
		c.stepSpan.SetAttributes(c.ta.confirm[i]...)
	}
	c.o.confirms.Add(c.ctx, 1, c.ta.confirms[i]...)
}

// End implements [ocp.CallObserver].
func (c *callObs) End(r ocp.Reason) {
	if c.ended {
		return
	}
	c.ended = true
	now := time.Now()
	out := outcomeIndex(r)
	c.endStep(now, out, true)
	c.o.calls.Add(c.ctx, 1, c.ta.call[out]...)
	c.o.callDur.Record(c.ctx, now.Sub(c.start).Seconds(), c.ta.callDur[out]...)
	c.span.SetAttributes(c.ta.outcomes[out]...)
	if isError(out) {
		c.span.SetStatus(codes.Error, outcomes[out])
	}
	c.span.End()
}

var _ ocp.CallObserver = (*callObs)(nil)
