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

// The typed-call API that ocptoolargs checks.

type Args interface{ ocpKind() int }

type Read struct{}

func (Read) ocpKind() int { return 1 }

type Write struct{}

func (Write) ocpKind() int { return 2 }

type Descriptor struct{ Name string }

type Tool struct {
	Args Args
	Desc Descriptor
}

type Gate struct{}

type Principal struct{ ID string }

type ActionResult struct{ OK bool }

func (t *Tool) Call(ctx context.Context, g *Gate, p Principal, args Args) ActionResult {
	return ActionResult{}
}

func (g *Gate) Call(ctx context.Context, p Principal, args Args) ActionResult {
	return ActionResult{}
}
