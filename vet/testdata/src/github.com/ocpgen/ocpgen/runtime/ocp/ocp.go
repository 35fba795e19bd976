// Package ocp stands for ocpgen's Hub-facing runtime: the one package that
// may call the server, through its gate.
package ocp

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is the gate's view of the MCP server.
type Server interface {
	CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error)
}

// Client is the Server over a go-sdk session.
type Client struct{ cs *mcp.ClientSession }

func (c *Client) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	return c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// Gate calls its server only after its checks.
type Gate struct{ s Server }

func (g *Gate) call(ctx context.Context, name string) error {
	_, err := g.s.CallTool(ctx, name, nil)
	return err
}
