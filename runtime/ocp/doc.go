// Package ocp is what a Hub uses to offer the tools of an MCP server through
// a package that ocpgen generated. It enforces, on every call, the rules of
// the OCP MCP profile: catalogue membership, schema validation, tier ×
// scopes × resource authorization, the confirm gate for writes (the server
// is not called before the confirm resolves; expiry denies), forwarding of
// schema arguments only, and redaction of server errors.
//
// A Hub connects to the server with [Dial] (or [Connect]), builds a [Gate]
// over the [Client] and the generated package's Catalogue with [NewGate]
// (or over several servers with [NewMux]: the same Gate), and then answers
// the model's action.request frames with [Gate.Dispatch] and its own typed
// calls with [Gate.Call]; every call runs the stages of [Step]. The gate
// owns the whole confirm surface: [Gate.Subscribe] and [Gate.Pending] tell
// the Hub which confirms to show its peers, and [Gate.Resolve] takes a
// peer's decision.
//
// The generated package itself is data, built from package ocpimpl, which
// only generated code imports; this package re-exports the few names of it
// that Hub code needs ([ReadArgs], [WriteArgs], [Nullable], [Descriptor],
// [Catalogue]).
package ocp
