// Package mcp is a stub of the go-sdk's mcp package: just what the
// analyzer's tests call.
package mcp

import "context"

type CallToolParams struct {
	Name      string
	Arguments any
}

type CallToolResult struct{}

type ClientSession struct{}

func (cs *ClientSession) CallTool(ctx context.Context, p *CallToolParams) (*CallToolResult, error) {
	return nil, nil
}

func (cs *ClientSession) Close() error { return nil }

// ServerSession has a CallTool-like method that is not the client's.
type ServerSession struct{}

func (ss *ServerSession) CallTool(ctx context.Context, p *CallToolParams) (*CallToolResult, error) {
	return nil, nil
}
