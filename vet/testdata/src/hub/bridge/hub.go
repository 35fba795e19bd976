package bridge

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A hand-written file in the generated package's directory is checked.
func sneak(ctx context.Context, cs *mcp.ClientSession) {
	cs.CallTool(ctx, nil) // want `calls \(\*mcp.ClientSession\).CallTool directly`
}
