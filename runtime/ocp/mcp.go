package ocp

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// server. Calls of fn are serialized; the gate reads the tools and
	// changes none of them. [NewGate] calls it; a Server serves one gate
	// and refuses a second watcher.
	WatchTools(fn func(live []LiveTool)) error
}

// LiveTool is one tool of the server's current tools/list.
type LiveTool struct {
	// Tool is the tool as the server lists it now. Required. A tool whose
	// input schema is not the generated one (compared as canonical JSON,
	// every keyword and annotation included) is withdrawn. Its title,
	// description, annotations, output schema, icons and _meta are compared
	// with the snapshot at every sync: a difference is audited, not acted
	// on, since the model is shown the generated texts, but a changed
	// description is how a rug pull starts.
	Tool *mcp.Tool
	// TaskSupport is the tool's execution.taskSupport as listed now (""
	// when absent), which mcp.Tool does not hold. A tool listed as needing
	// a task ("required", or a value MCP does not define) is withdrawn: the
	// gate calls no tool as a task, and a write must not be approved only
	// to fail. Another value than the snapshot's is audited.
	TaskSupport string
}

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
