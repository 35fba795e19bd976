package ocp

import (
	"context"
	"fmt"
	"log/slog"
)

// Observer watches a gate for telemetry: the steps of every call and every
// catalogue sync. Set it as [Config.Observer]; package
// github.com/ocpgen/ocpgen/runtime/ocpotel implements it with
// OpenTelemetry, and this package imports nothing of it.
//
// An observer is told what a call is (the tool, read or write, the
// catalogue), which step it is in and how it ended: never the arguments,
// the prompt, the resources, the principal or any error text. It must be
// safe for concurrent use and should not block: it runs on the calling
// goroutine at every step boundary. A panic in it is recovered and audited
// ([AuditPanic]); the call goes on, unobserved from there.
type Observer interface {
	// StartCall is called when a call begins, with the caller's context.
	// The context it returns is the one the gate uses from then on (for
	// the audit log and for what the steps return); it must be derived
	// from ctx, keeping its values and its cancellation (as
	// trace.ContextWithSpan does): one whose Done differs from ctx's is
	// ignored, so that an observer cannot make the gate miss a caller's
	// cancellation. Nil keeps ctx. The CallObserver receives the call's
	// steps; nil observes nothing more.
	StartCall(ctx context.Context, info CallInfo) (context.Context, CallObserver)
	// Synced is called after every catalogue sync (see [Server.WatchTools]),
	// serialized, before Config.Advertise.
	Synced(SyncInfo)
}

// CallObserver receives the steps of one call, in order, from one
// goroutine: Step for each step the call begins, then End once.
type CallObserver interface {
	// Step is called when the call begins step s, which ends the previous
	// step, if any, as passed. The context it returns is the one the gate
	// passes to the step's hooks (the ACL, the broker, Config.Reauthorize,
	// the server's CallTool); it must be derived from the one StartCall
	// returned, as that one from the caller's (else it is ignored). Nil
	// keeps that one.
	Step(s Step) context.Context
	// End is called once, when the call ends, with its reason ("" when it
	// is ok). The step in progress ended with it: a refusal, denial or
	// failure is always that of the last step begun.
	End(r Reason)
}

// ConfirmObserver is implemented by a [CallObserver] that wants to know how
// a write's confirm ended, which the call's [Reason] does not say: the model
// is told "denied" whether a peer denied, nobody decided in time, or the
// wait was cancelled. The gate calls ConfirmEnded once per confirm that the
// broker answered, from the call's goroutine, during [StepConfirm] (before
// the next Step or End), with the outcome the gate acted on: an approval
// that arrived after the call was voided is [OutcomeCancelled]. It is not
// called when the broker failed (the call ends denied in StepConfirm).
type ConfirmObserver interface {
	ConfirmEnded(o Outcome)
}

// CallInfo is what an [Observer] is told of a call as it begins.
type CallInfo struct {
	// Server is the gate's server name in a [Mux] ("" for a gate of its
	// own), so that one Observer can serve every gate of a Mux.
	Server string
	// Tool is the generated tool the call names, or "" when it names none
	// of this gate's tools (the requested name is the model's text, and
	// is not passed on).
	Tool string
	// Write says whether Tool is a write (it waits for a confirm).
	Write bool
	// Catalogue is the fingerprint of the advertised catalogue, or ""
	// before the first sync.
	Catalogue string
}

// Step names a step of a call, in the order of [Gate.Dispatch]; a read
// has no StepConfirm nor StepReauthorize.
type Step string

// The steps of a call.
const (
	// StepAuthorize: the tool is advertised, and the principal has a
	// channel, the tier and the scopes (steps 1–2).
	StepAuthorize Step = "authorize"
	// StepArgs: the arguments match the schema and decode strictly (step 3).
	StepArgs Step = "args"
	// StepACL: the resources are rendered and the ACL allows them (step 3).
	StepACL Step = "acl"
	// StepConfirm: the wait for a peer's decision on a write (step 4).
	StepConfirm Step = "confirm"
	// StepReauthorize: a write's rights checked again after approval,
	// and the catalogue unchanged (step 5).
	StepReauthorize Step = "reauthorize"
	// StepServer: the server call and the mapping of its result (steps 6–7).
	StepServer Step = "server"
)

// SyncInfo is what an [Observer] is told of a catalogue sync: counts, not
// the names (a server's tool names are its text).
type SyncInfo struct {
	// Server is the gate's server name in a [Mux] ("" for a gate of its
	// own).
	Server string
	// Catalogue is the fingerprint of the advertised set after the sync.
	Catalogue string
	// Changed says whether the advertised set changed (confirms pending
	// under the old one are then denied).
	Changed bool
	// Advertised counts the tools advertised.
	Advertised int
	// ServerOnly counts the tools the server lists that were not generated
	// (not callable).
	ServerOnly int
	// Withdrawn counts the generated tools whose input schema changed (or
	// that the server lists twice): withdrawn.
	Withdrawn int
	// Removed counts the generated tools the server no longer lists.
	Removed int
	// Drift counts the generated tools the server lists whose title,
	// description, annotations or output schema differ from the snapshot:
	// audited, and served unless withdrawn.
	Drift int
	// Protocol is the MCP revision of the session the tool list came from,
	// as the Server reports it ([Client.ProtocolVersion]); "" for no
	// listing, or a Server that does not report one.
	Protocol string
}

// observe begins the observation of c (Config.Observer is set) and its
// first step, and returns the step's context.
func (c *call) observe(st *catState, gt *gateTool, first Step) context.Context {
	info := CallInfo{Server: c.g.server}
	if gt != nil {
		info.Tool, info.Write = gt.desc.Name, gt.confirm
	}
	if st != nil {
		info.Catalogue = st.fp
	}
	func() {
		defer c.recoverObserver("Observer.StartCall")
		cctx, obs := c.g.cfg.Observer.StartCall(c.ctx, info)
		if cctx != nil && cctx.Done() == c.ctx.Done() {
			c.ctx = cctx
		}
		c.obs = obs
	}()
	return c.step(c.ctx, first)
}

// step marks the beginning of step s and returns the context for it: ctx
// itself when nothing observes the call.
func (c *call) step(ctx context.Context, s Step) context.Context {
	if c.obs == nil {
		return ctx
	}
	return c.nextStep(s)
}

func (c *call) nextStep(s Step) (ctx context.Context) {
	ctx = c.ctx
	defer c.recoverObserver("CallObserver.Step")
	if sctx := c.obs.Step(s); sctx != nil && sctx.Done() == ctx.Done() {
		ctx = sctx
	}
	return ctx
}

// end ends the observation of c with the result's reason.
func (c *call) end(res ActionResult) {
	if c.obs == nil {
		return
	}
	defer c.recoverObserver("CallObserver.End")
	c.obs.End(res.Reason)
	c.obs = nil
}

// confirmEnded tells the call's observer, if it is a [ConfirmObserver],
// how the confirm ended.
func (c *call) confirmEnded(o Outcome) {
	co, ok := c.obs.(ConfirmObserver)
	if !ok {
		return
	}
	defer c.recoverObserver("ConfirmObserver.ConfirmEnded")
	co.ConfirmEnded(o)
}

// recoverObserver, deferred, turns an observer's panic into an audit event
// and stops observing the call.
func (c *call) recoverObserver(what string) {
	if r := recover(); r != nil {
		c.obs = nil
		c.g.audit.LogAttrs(c.ctx, slog.LevelError, AuditPanic, c.g.withServer(slog.String("in", what), slog.String("detail", boundText(fmt.Sprintf("panic in %s: %v", what, r))))...)
	}
}

// observeRefusal observes a call refused before its dispatch (a typed call
// with arguments of no tool, or that do not encode): one step s, which
// ends with r.
func (g *Gate) observeRefusal(c *call, gt *gateTool, s Step, r Reason) {
	if g.cfg.Observer == nil {
		return
	}
	c.observe(g.state.Load(), gt, s)
	c.end(ActionResult{Reason: r})
}

// observeSync tells the observer of a sync.
func (g *Gate) observeSync(info SyncInfo) {
	_ = g.protect(context.Background(), "Observer.Synced", func() error { g.cfg.Observer.Synced(info); return nil })
}
