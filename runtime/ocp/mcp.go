package ocp

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/canon"
)

// Server is the fronted MCP server as a [Gate] uses it. [*Client] is the
// implementation over a go-sdk client session; tests use spies.
type Server interface {
	// CallTool calls one tool. The gate calls it only after every check has
	// passed, with the re-marshalled typed arguments and nothing else. It is
	// for the gate alone: a call from Hub code reaches the server without
	// the gate, and `ocpgen vet` reports it.
	CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error)
	// WatchTools makes fn the receiver of the server's complete tool list:
	// fn is called at once with the current list (nil while nothing may
	// be called), then after every change (on connect, after every
	// notifications/tools/list_changed) and with nil whenever nothing may
	// be called (a listing failed, the session ended, the server was
	// closed). A listing with no tools is an empty, non-nil list: nil is no
	// listing, and the gate does not report its tools as removed by the
	// server. Calls of fn are serialized. [NewGate] calls it; a Server
	// serves one gate and refuses a second watcher.
	WatchTools(fn func(live []LiveTool)) error
}

// LiveTool is one tool of the server's current tools/list.
type LiveTool struct {
	// Name is the MCP tool name.
	Name string
	// Fingerprint is the fingerprint of the canonical JSON of the input
	// schema the server lists now ([SchemaFingerprint]). A tool whose
	// fingerprint is not the generated one is withdrawn.
	Fingerprint string
	// Title, Description, Hints (the annotations, their title included),
	// OutputFingerprint (the fingerprint of the output schema, as for the
	// input schema; "" without one), Icons (the JSON of the icons array)
	// and Meta (the JSON of the _meta object; nil without them) are what
	// the server lists now. A difference from the snapshot is audited at
	// every sync, not acted on: the model is shown the generated texts, but
	// a changed description is how a rug pull starts.
	Title, Description string
	Hints              ServerHints
	OutputFingerprint  string
	Icons, Meta        json.RawMessage
	// TaskSupport is the tool's execution.taskSupport as listed now (""
	// when absent). A tool listed as needing a task ("required", or a value
	// MCP does not define) is withdrawn: the gate calls no tool as a task,
	// and a write must not be approved only to fail. Another value than the
	// snapshot's is audited.
	TaskSupport string
}

// SchemaFingerprint returns the fingerprint of a tool's input or output
// schema, as a [LiveTool] carries it and a generated descriptor holds it:
// schema may be JSON bytes ([]byte or json.RawMessage) or any value
// encoding/json can marshal (such as the map[string]any a go-sdk client
// decodes an inputSchema into). Every number counts as the float64 it
// decodes to; a number beyond float64's range, or bytes that are not one
// JSON value, are an error.
func SchemaFingerprint(schema any) (string, error) { return canon.SchemaFingerprint(schema) }

// protocolReporter is a [Server] that reports the MCP revision of its
// session with the server, as [*Client] does; a gate puts it in its sync
// audit events and [SyncInfo].
type protocolReporter interface{ ProtocolVersion() string }

// protocolOf is the revision srv reports for the listing live ("" for no
// listing, or a Server that does not report one).
func protocolOf(srv Server, live []LiveTool) string {
	if pr, ok := srv.(protocolReporter); ok && live != nil {
		return pr.ProtocolVersion()
	}
	return ""
}
