package main

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawTransport wraps a transport and keeps the raw result of every
// tools/list response, as the server sent it. The go-sdk decodes a tool's
// inputSchema into map[string]any, which rounds every number to a float64
// (9007199254740993 becomes 9007199254740992) and drops members mcp.Tool
// does not have (such as "execution"); a snapshot keeps what the server
// said, so it is made from these bytes.
type rawTransport struct {
	next mcp.Transport

	mu      sync.Mutex
	pending map[jsonrpc.ID]string // request id → method, for the calls we track
	lists   []json.RawMessage     // tools/list results, in the order they arrived
	version string                // the negotiated protocol version
}

func newRawTransport(next mcp.Transport) *rawTransport {
	return &rawTransport{next: next, pending: map[jsonrpc.ID]string{}}
}

func (t *rawTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.next.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rawConn{Connection: c, t: t}, nil
}

// takeList returns the oldest tools/list result not yet taken.
func (t *rawTransport) takeList() (json.RawMessage, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.lists) == 0 {
		return nil, false
	}
	r := t.lists[0]
	t.lists = t.lists[1:]
	return r, true
}

// protocolVersion is the version the server chose in its initialize result,
// "" before it.
func (t *rawTransport) protocolVersion() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.version
}

type rawConn struct {
	mcp.Connection
	t *rawTransport
}

func (c *rawConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() && (req.Method == "tools/list" || req.Method == "initialize") {
		c.t.mu.Lock()
		c.t.pending[req.ID] = req.Method
		c.t.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *rawConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.t.mu.Lock()
		method, tracked := c.t.pending[resp.ID]
		delete(c.t.pending, resp.ID)
		if tracked && resp.Error == nil {
			switch method {
			case "tools/list":
				c.t.lists = append(c.t.lists, append(json.RawMessage(nil), resp.Result...))
			case "initialize":
				var init struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if json.Unmarshal(resp.Result, &init) == nil {
					c.t.version = init.ProtocolVersion
				}
			}
		}
		c.t.mu.Unlock()
	}
	return msg, err
}

// protocolHeader sets the MCP-Protocol-Version header the go-sdk's
// Streamable HTTP connection sets itself when it is not wrapped: it learns
// the version through a hook a wrapper cannot forward.
type protocolHeader struct {
	version func() string
	next    http.RoundTripper
}

func (p protocolHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	if v := p.version(); v != "" && r.Header.Get("Mcp-Protocol-Version") == "" {
		r = r.Clone(r.Context())
		r.Header.Set("Mcp-Protocol-Version", v)
	}
	return p.next.RoundTrip(r)
}
