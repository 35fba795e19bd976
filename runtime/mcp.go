package runtime

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller calls one tool on the fronted MCP server. The gate calls it only
// after every check has passed, with the re-marshalled typed arguments and
// nothing else. [ClientCaller] is the implementation over a go-sdk client
// session; tests use spies.
type Caller interface {
	CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error)
}

// LiveTool is one tool of the server's current tools/list.
type LiveTool struct {
	// Name is the MCP tool name.
	Name string
	// Fingerprint is Fingerprint(CanonicalJSON(inputSchema)) of the schema
	// the server lists now.
	Fingerprint string
}

// CatalogueSyncer receives the server's complete tool list on connect and
// after every notifications/tools/list_changed. [Gate] implements it: it
// advertises the tools that are both generated and live with the generated
// fingerprint, and only those are callable.
type CatalogueSyncer interface {
	SyncCatalogue(live []LiveTool)
}
