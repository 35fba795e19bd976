package ocp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// spyTool is one tool of a spy server.
type spyTool struct {
	// Name is the tool name.
	Name string
	// Schema is the raw JSON of the input schema (must have "type":"object").
	Schema string
	// Result is returned by a call; nil returns a text "ok" result.
	Result *mcp.CallToolResult
	// Err, if set, is returned by the handler (a JSON-RPC error on the wire).
	Err error
	// Do, if set, is the handler after the call is recorded (Result and
	// Err are then unused).
	Do mcp.ToolHandler
}

// spyCall is one tools/call the spy server handled.
type spyCall struct {
	Tool string
	// Args are exactly the bytes of params.arguments the server received.
	Args json.RawMessage
}

// spy is an in-process go-sdk MCP server that records every tools/call's
// raw arguments and every raw JSON-RPC message it receives, and can send the
// client arbitrary requests. Gate tests reuse it.
type spy struct {
	Server  *mcp.Server
	Session *mcp.ServerSession

	mu       sync.Mutex
	calls    []spyCall
	wire     []json.RawMessage // messages from the client, in order
	failList bool
	listHook func(*mcp.ListToolsResult)
	conn     *recordingConn
}

// newSpyServer starts a spy server with the given tools (opts may be nil) and
// returns it with the client side of an in-memory transport, to be used
// once. The server session is closed when the test ends.
func newSpyServer(t testing.TB, opts *mcp.ServerOptions, tools ...spyTool) (*spy, mcp.Transport) {
	t.Helper()
	s := &spy{Server: mcp.NewServer(&mcp.Implementation{Name: "spy", Version: "1"}, opts)}
	s.Server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			s.mu.Lock()
			fail, hook := s.failList, s.listHook
			s.mu.Unlock()
			if method != "tools/list" {
				return next(ctx, method, req)
			}
			if fail {
				return nil, errors.New("spy: tools/list failing on purpose")
			}
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && hook != nil {
				hook(lr)
			}
			return res, err
		}
	})
	for _, tool := range tools {
		s.AddTool(tool)
	}
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := s.Server.Connect(context.Background(), &recordingTransport{inner: serverT, spy: s}, nil)
	if err != nil {
		t.Fatalf("spy server connect: %v", err)
	}
	s.Session = ss
	t.Cleanup(func() {
		_ = ss.Close()
		_ = ss.Wait()
	})
	return s, clientT
}

// AddTool adds (or replaces) a tool; connected clients get list_changed.
func (s *spy) AddTool(tool spyTool) {
	s.Server.AddTool(&mcp.Tool{Name: tool.Name, InputSchema: json.RawMessage(tool.Schema)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.mu.Lock()
			s.calls = append(s.calls, spyCall{Tool: req.Params.Name, Args: bytes.Clone(req.Params.Arguments)})
			s.mu.Unlock()
			if tool.Do != nil {
				return tool.Do(ctx, req)
			}
			if tool.Err != nil {
				return nil, tool.Err
			}
			if tool.Result != nil {
				return tool.Result, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
}

// FailList makes tools/list fail (or succeed again).
func (s *spy) FailList(fail bool) {
	s.mu.Lock()
	s.failList = fail
	s.mu.Unlock()
}

// ListHook sets a function that may rewrite every tools/list page before it
// is sent (to list what a go-sdk server cannot, such as a duplicate name).
func (s *spy) ListHook(hook func(*mcp.ListToolsResult)) {
	s.mu.Lock()
	s.listHook = hook
	s.mu.Unlock()
}

// Calls returns the tools/call requests handled so far.
func (s *spy) Calls() []spyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]spyCall(nil), s.calls...)
}

// Wire returns every raw JSON-RPC message received from the client so far.
func (s *spy) Wire() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.wire...)
}

// WireParams returns the raw params of every request or notification with
// the given method received from the client so far.
func (s *spy) WireParams(t testing.TB, method string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, raw := range s.Wire() {
		var m struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("wire message %s: %v", raw, err)
		}
		if m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// Request sends the client a raw request as the server and returns the
// client's response, which the spy intercepts (the go-sdk server never sees
// it). It bypasses the go-sdk server's own checks, such as Elicit refusing
// to ask a client that declared no elicitation capability.
func (s *spy) Request(ctx context.Context, method string, params any) (*jsonrpc.Response, error) {
	return s.conn.request(ctx, method, params)
}

// recordingTransport wraps the server side of a transport to record what the
// server reads.
type recordingTransport struct {
	inner mcp.Transport
	spy   *spy
}

func (rt *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := rt.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	rc := &recordingConn{Connection: c, spy: rt.spy, pending: map[string]chan *jsonrpc.Response{}}
	rt.spy.mu.Lock()
	rt.spy.conn = rc
	rt.spy.mu.Unlock()
	return rc, nil
}

type recordingConn struct {
	mcp.Connection
	spy *spy

	mu      sync.Mutex
	next    int
	pending map[string]chan *jsonrpc.Response // spy-injected requests by id
}

func (rc *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := rc.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		raw, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			return nil, err
		}
		rc.spy.mu.Lock()
		rc.spy.wire = append(rc.spy.wire, raw)
		rc.spy.mu.Unlock()
		if resp, ok := msg.(*jsonrpc.Response); ok {
			if id, ok := resp.ID.Raw().(string); ok {
				rc.mu.Lock()
				ch := rc.pending[id]
				delete(rc.pending, id)
				rc.mu.Unlock()
				if ch != nil {
					ch <- resp
					continue // an answer to the spy, not to the server
				}
			}
		}
		return msg, nil
	}
}

func (rc *recordingConn) request(ctx context.Context, method string, params any) (*jsonrpc.Response, error) {
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	rc.mu.Lock()
	rc.next++
	idText := fmt.Sprintf("spy-%d", rc.next)
	ch := make(chan *jsonrpc.Response, 1)
	rc.pending[idText] = ch
	rc.mu.Unlock()
	id, err := jsonrpc.MakeID(idText)
	if err != nil {
		return nil, err
	}
	if err := rc.Connection.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: raw}); err != nil {
		return nil, err
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
