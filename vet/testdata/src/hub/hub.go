// Package hub is a Hub that bypasses the gate in every way the analyzer
// knows, and calls look-alikes it must leave alone.
package hub

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

type conn struct {
	*mcp.ClientSession
}

type fake struct{}

func (fake) CallTool(ctx context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return nil, nil
}

func bypass(ctx context.Context, cs *mcp.ClientSession, c conn, ss *mcp.ServerSession) {
	cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_file"}) // want `calls \(\*mcp.ClientSession\).CallTool directly: this reaches the MCP server without the Hub's authorization and confirm gate`
	f := cs.CallTool                                           // want `takes the method value \(\*mcp.ClientSession\).CallTool`
	_ = f
	g := (*mcp.ClientSession).CallTool // want `takes the method expression`
	_ = g
	c.CallTool(ctx, nil)        // want `calls \(\*mcp.ClientSession\).CallTool directly`
	defer cs.CallTool(ctx, nil) // want `calls`
	go func() {
		(cs.CallTool)(ctx, nil) // want `CallTool directly`
	}()

	// Not the client session's CallTool.
	fake{}.CallTool(ctx, nil)
	ss.CallTool(ctx, nil)
	cs.Close()
}

// The gate's own view of the server, used from Hub code, bypasses the gate
// just the same.
func bypassClient(ctx context.Context, c *ocp.Client, s ocp.Server, w wrapped) {
	c.CallTool(ctx, "delete_file", nil) // want `calls \(\*ocp.Client\).CallTool directly`
	s.CallTool(ctx, "delete_file", nil) // want `calls ocp.Server.CallTool directly`
	f := c.CallTool                     // want `takes the method value \(\*ocp.Client\).CallTool`
	_ = f
	w.CallTool(ctx, "x", nil) // want `calls ocp.Server.CallTool directly`
}

type wrapped struct{ ocp.Server }
