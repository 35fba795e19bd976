package ocp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
)

// Step names a stage of a call: what an [Observer] is told, and, after
// "ocp.", the name of the stage's audit event. Every call runs the stages
// in one fixed order, each passing or ending the call (a read skips
// StepConfirm and StepReauthorize), cheap checks before costly ones and
// the server last; docs/security-model.md lists them in that order and
// says what each checks.
type Step string

// The stages of a call.
const (
	// StepCatalogue: the tool is advertised, else unknown.
	StepCatalogue Step = "catalogue"
	// StepRights: the principal has a channel, the tool's tier and every
	// scope, else forbidden.
	StepRights Step = "rights"
	// StepArgs: the arguments are valid and forwardable, else invalid.
	StepArgs Step = "args"
	// StepACL: the resources render within bounds (else invalid) and the
	// ACL allows them (else forbidden).
	StepACL Step = "acl"
	// StepConfirm: a write waits for a peer's decision; anything but an
	// approval denies.
	StepConfirm Step = "confirm"
	// StepReauthorize: after approval, the rights and the ACL again, with
	// current rights (else forbidden), and the catalogue unchanged (else
	// denied).
	StepReauthorize Step = "reauthorize"
	// StepCall: the server call and the mapping of its result, failed or
	// outcome_unknown when it does not succeed.
	StepCall Step = "call"
)

// stage is one stage of a call: its Step, its audit event, whether only
// writes run it, the reasons it may end a call with, and whether its events
// carry the call's resources (once rendered). Its body is the method of
// call that [call.body] names.
type stage struct {
	step      Step
	event     string
	writes    bool
	reasons   []Reason
	resources bool
}

// stages is the pipeline: every call runs these stages in this order. It is
// the only place the order is written: docs/security-model.md and README.md
// show it between <!-- stages --> markers, and TestStagesAreDocumented
// holds them to it.
var stages = [...]stage{
	{StepCatalogue, "ocp.catalogue", false, []Reason{ReasonUnknown}, false},
	{StepRights, "ocp.rights", false, []Reason{ReasonForbidden}, false},
	{StepArgs, "ocp.args", false, []Reason{ReasonInvalid}, false},
	{StepACL, "ocp.acl", false, []Reason{ReasonInvalid, ReasonForbidden}, true},
	{StepConfirm, "ocp.confirm", true, []Reason{ReasonDenied}, false},
	{StepReauthorize, "ocp.reauthorize", true, []Reason{ReasonForbidden, ReasonDenied}, false},
	{StepCall, "ocp.call", false, []Reason{ReasonFailed, ReasonOutcomeUnknown}, false},
}

// body runs the body of stage s: it passes (true) or ends the call (false)
// through the recorder.
func (c *call) body(s Step) bool {
	switch s {
	case StepCatalogue:
		return c.catalogue()
	case StepRights:
		return c.rights()
	case StepArgs:
		return c.arguments()
	case StepACL:
		return c.acl()
	case StepConfirm:
		return c.confirm()
	case StepReauthorize:
		return c.reauthorize()
	case StepCall:
		return c.callServer()
	}
	return c.failAt(slog.LevelError, ReasonUnknown, textUnknown, fmt.Errorf("stage %q has no body", s))
}

// The audit events that are no stage's.
const (
	auditSync     = "ocp.sync"     // a catalogue sync
	auditDecision = "ocp.decision" // a peer's confirm decision, Pending's failures
	auditPanic    = "ocp.panic"    // a recovered panic (hook, caller, broker, observer)
)

// call is one call in flight: what its stages found so far, the stage in
// progress, and its recorder, which writes each stage's audit event and
// tells the Observer.
type call struct {
	g *serverGate // nil for a call routed to no server
	// audit and server are where the call's events go, and their "server"
	// attribute.
	audit  *slog.Logger
	server string
	ctx    context.Context // the call's: the caller's, or the Observer's
	sctx   context.Context // the stage in progress's
	obs    CallObserver    // nil: not observed
	stage  *stage          // in progress

	id   string
	p    Principal
	tool string // the requested name, as sent (it may name no tool)

	st        *catState
	gt        *gateTool
	raw       json.RawMessage // the arguments as sent
	typed     any             // a typed call's arguments, encoded by StepArgs
	args      any             // the typed arguments (nil: not needed)
	fwd       []byte          // what the server receives
	resources []string
	res       ActionResult
}

// newCall returns the call id of tool for p; a nil ctx is the background.
func newCall(ctx context.Context, audit *slog.Logger, server, id, tool string, p Principal) *call {
	if ctx == nil {
		ctx = context.Background()
	}
	return &call{audit: audit, server: server, ctx: ctx, sctx: ctx, id: id, p: p, tool: tool}
}

// run runs the stages of c on g and returns its result.
func (g *serverGate) run(c *call) ActionResult {
	c.g = g
	c.st = g.state.Load()
	if g.cfg.Observer != nil {
		c.observe(g.cfg.Observer)
	}
	for i := range stages {
		s := &stages[i]
		if s.writes && !c.gt.confirm {
			continue
		}
		c.begin(s)
		if !c.body(s.step) {
			break
		}
	}
	c.end()
	return c.res
}

// begin begins stage s: the Observer is told, and c.sctx is the stage's
// context.
func (c *call) begin(s *stage) {
	c.stage = s
	if c.obs == nil {
		return
	}
	ctx := c.ctx
	func() {
		defer c.recoverObserver("CallObserver.Step")
		if sctx := c.obs.Step(s.step); sctx != nil && sctx.Done() == ctx.Done() {
			ctx = sctx
		}
	}()
	c.sctx = ctx
}

// pass records that the stage in progress passed: its audit event, outcome
// "ok", with attrs. It returns true.
func (c *call) pass(attrs ...slog.Attr) bool {
	if c.audit.Enabled(c.ctx, slog.LevelInfo) {
		c.event(slog.LevelInfo, "ok", attrs)
	}
	return true
}

// fail ends the call in the stage in progress with reason r, the model's
// text, and the detail for the audit log only. It returns false.
func (c *call) fail(r Reason, text string, detail error, attrs ...slog.Attr) bool {
	return c.failAt(slog.LevelWarn, r, text, detail, attrs...)
}

// failAt is fail with an audit event of level: an error, where the Hub
// failed (a broker), rather than a refusal.
func (c *call) failAt(level slog.Level, r Reason, text string, detail error, attrs ...slog.Attr) bool {
	if detail != nil {
		attrs = append(attrs, slog.String("detail", detail.Error()))
	}
	c.event(level, string(r), attrs)
	c.res = ActionResult{ID: c.id, Reason: r, Error: text}
	return false
}

// failArgs ends the call with the argument refusal err (an
// *argengine.Refusal; any other error is one at the root by the schema):
// invalid, with its "pointer" and "rule" audited and told as refusal.go
// says. It returns false.
func (c *call) failArgs(err error) bool {
	var ae *argengine.Refusal
	if !errors.As(err, &ae) {
		ae = refusal("", argengine.RuleSchema, err)
	}
	return c.fail(ReasonInvalid, c.g.argText(ae), err, slog.String("pointer", ae.Pointer), slog.String("rule", string(ae.Rule)))
}

// failRef ends the call with r after the server was called or may have
// been: the model is told text and a reference, and the audit event (an
// error) holds the reference and the detail. It returns false.
func (c *call) failRef(r Reason, text, detail string, attrs ...slog.Attr) bool {
	ref := newRef()
	c.event(slog.LevelError, string(r), append(attrs, slog.String("ref", ref), slog.String("detail", detail)))
	c.res = ActionResult{ID: c.id, Reason: r, Error: text + " (ref " + ref + ")", Ref: ref}
	return false
}

// decided records how a write's confirm ended: its audit event, with the
// Outcome as its outcome, and the Observer's ConfirmEnded. An approval
// passes (true); any other outcome ends the call denied with text.
func (c *call) decided(o Outcome, text string, attrs ...slog.Attr) bool {
	if o == OutcomeApproved {
		c.event(slog.LevelInfo, string(o), attrs)
	} else {
		c.event(slog.LevelWarn, string(o), attrs)
	}
	if c.obs != nil {
		func() {
			defer c.recoverObserver("CallObserver.ConfirmEnded")
			c.obs.ConfirmEnded(o)
		}()
	}
	if o == OutcomeApproved {
		return true
	}
	c.res = ActionResult{ID: c.id, Reason: ReasonDenied, Error: text}
	return false
}

// event writes one audit event of the stage in progress. It is the one
// place that builds a call event's attributes: "call" (the request id),
// "tool" (the requested name), "principal", "tier", "peer" and "outcome",
// "server" unless the call's server is "" ([withServer]), then attrs, with
// the request id, the requested name, a "detail" and a "pointer" bounded,
// and for a stage that says so the call's "resources", bounded.
func (c *call) event(level slog.Level, outcome string, attrs []slog.Attr) {
	for i, a := range attrs {
		if (a.Key == "detail" || a.Key == "pointer") && a.Value.Kind() == slog.KindString {
			attrs[i].Value = slog.StringValue(boundText(a.Value.String()))
		}
	}
	if c.stage.resources && c.resources != nil {
		attrs = append(attrs, slog.Any("resources", boundList(c.resources)))
	}
	base := withServer(c.server,
		slog.String("call", boundText(c.id)),
		slog.String("tool", boundText(c.tool)),
		slog.String("principal", c.p.ID),
		slog.String("tier", c.p.Tier),
		slog.String("peer", c.p.Peer),
		slog.String("outcome", outcome),
	)
	c.audit.LogAttrs(c.ctx, level, c.stage.event, append(base, attrs...)...)
}

// observe begins the observation of c by o, which may replace c's context.
func (c *call) observe(o Observer) {
	info := CallInfo{Server: c.server}
	if c.gt != nil {
		info.Tool, info.Write = c.gt.desc.Name, c.gt.confirm
	}
	if c.st != nil {
		info.Catalogue = c.st.fp
	}
	defer c.recoverObserver("Observer.StartCall")
	ctx, obs := o.StartCall(c.ctx, info)
	if ctx != nil && ctx.Done() == c.ctx.Done() {
		c.ctx, c.sctx = ctx, ctx
	}
	c.obs = obs
}

// end ends the observation of c with its result's reason.
func (c *call) end() {
	if c.obs == nil {
		return
	}
	defer c.recoverObserver("CallObserver.End")
	c.obs.End(c.res.Reason)
	c.obs = nil
}

// recoverObserver, deferred, turns an observer's panic into an audit event
// and stops observing the call.
func (c *call) recoverObserver(what string) {
	if r := recover(); r != nil {
		c.obs = nil
		c.audit.LogAttrs(c.ctx, slog.LevelError, auditPanic, withServer(c.server, slog.String("in", what), slog.String("detail", boundText(fmt.Sprintf("panic in %s: %v", what, r))))...)
	}
}
