// Package runtime stands for ocpgen's runtime: the one package that may
// call the server.
package runtime

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Call(ctx context.Context, cs *mcp.ClientSession, name string) error {
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
	return err
}
