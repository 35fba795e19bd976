package ocp

import "context"

// Observer watches a gate for telemetry: the stages of every call and every
// catalogue sync. Set it as [Config.Observer]; package
// github.com/ocpgen/ocpgen/runtime/ocpotel implements it with
// OpenTelemetry, and this package imports nothing of it.
//
// An observer is told what a call is (the tool, read or write, the
// catalogue), which stage it is in and how it ended: never the arguments,
// the prompt, the resources, the principal or any error text. It must be
// safe for concurrent use and should not block: it runs on the calling
// goroutine at every stage boundary. A panic in it is recovered and audited
// ("ocp.panic"); the call goes on, unobserved from there.
type Observer interface {
	// StartCall is called when a call begins, with the caller's context.
	// The context it returns is the one the gate uses from then on (for
	// the audit log and for what the stages return); it must be derived
	// from ctx, keeping its values and its cancellation (as
	// trace.ContextWithSpan does): one whose Done differs from ctx's is
	// ignored, so that an observer cannot make the gate miss a caller's
	// cancellation. Nil keeps ctx. The CallObserver receives the call's
	// stages; nil observes nothing more.
	StartCall(ctx context.Context, info CallInfo) (context.Context, CallObserver)
	// Synced is called after every catalogue sync (see [Server.WatchTools]),
	// serialized, before the Gate advertises.
	Synced(SyncInfo)
}

// CallObserver receives the stages of one call, in order, from one
// goroutine: Step for each stage the call begins, then End once.
type CallObserver interface {
	// Step is called when the call begins stage s, which ends the previous
	// stage, if any, as passed. The context it returns is the one the gate
	// passes to the stage's hooks (the ACL, the broker, Config.Reauthorize,
	// the server's CallTool); it must be derived from the one StartCall
	// returned, as that one from the caller's (else it is ignored). Nil
	// keeps that one.
	Step(s Step) context.Context
	// ConfirmEnded is called once per confirm the broker answered, during
	// StepConfirm, with how it ended, which the call's Reason does not
	// say (the model is told "denied" whether a peer denied, nobody
	// decided in time, or the wait was cancelled): the outcome the gate
	// acted on, so an approval that arrived after the call was voided is
	// OutcomeCancelled. It is not called when the broker failed (the call
	// ends denied in StepConfirm).
	ConfirmEnded(o Outcome)
	// End is called once, when the call ends, with its reason ("" when it
	// is ok). The stage in progress ended with it: a refusal, denial or
	// failure is always that of the last stage begun.
	End(r Reason)
}

// CallInfo is what an [Observer] is told of a call as it begins.
type CallInfo struct {
	// Server is the name of the call's server in a Gate of [NewMux] (""
	// for [NewGate]), so that one Observer can serve every server.
	Server string
	// Tool is the generated tool the call names, or "" when it names none
	// of the server's tools (the requested name is the model's text, and
	// is not passed on).
	Tool string
	// Write says whether Tool is a write (it waits for a confirm).
	Write bool
	// Catalogue is the fingerprint of the server's advertised catalogue,
	// or "" before its first sync.
	Catalogue string
}

// SyncInfo is what an [Observer] is told of a catalogue sync: counts, not
// the names (a server's tool names are its text).
type SyncInfo struct {
	// Server is the server's name in a Gate of [NewMux] ("" for
	// [NewGate]).
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
	// TaskRequired counts the generated tools the server now lists as
	// needing a task (execution.taskSupport "required", or a value MCP
	// does not define): withdrawn.
	TaskRequired int
	// Removed counts the generated tools the server no longer lists.
	Removed int
	// Drift counts the generated tools the server lists whose title,
	// description, annotations, output schema, icons, _meta or
	// execution.taskSupport differ from the snapshot: audited, and served
	// unless withdrawn.
	Drift int
	// Protocol is the MCP revision of the session the tool list came from,
	// as the Server reports it ([Client.ProtocolVersion]); "" for no
	// listing, or a Server that does not report one.
	Protocol string
}
