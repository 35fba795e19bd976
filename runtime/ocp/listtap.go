package ocp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk's mcp.Tool has no execution member, so a listing reads each
// tool's execution.taskSupport from the raw tools/list result. Only a
// request whose context carries a [rawList] is tapped, and its rawList
// receives that request's response and nothing else.

// maxRawList bounds what a rawList keeps of the HTTP responses to one
// tools/list request (the go-sdk's bound on one server-sent event): a
// larger response fails the listing, since the tools' execution cannot be
// read.
const maxRawList = mcp.DefaultMaxEventSize

// rawList receives the raw response to one tools/list request.
type rawList struct {
	mu     sync.Mutex
	taken  bool            // read by the listing: later bytes are dropped
	result json.RawMessage // the response's result, once seen
	id     jsonrpc.ID      // HTTP: the request's id
	bodies []*rawBody      // HTTP: the bodies of the request's responses, as read
	size   int             // HTTP: the bytes kept in bodies
	over   bool            // HTTP: the bodies outgrew maxRawList
}

// rawBody is the body of one HTTP response to the request.
type rawBody struct {
	sse  bool // an event stream, else one JSON-RPC message
	data []byte
}

type rawListKey struct{}

// withRawList returns ctx carrying a new rawList: a tools/list request
// sent with it is tapped.
func withRawList(ctx context.Context) (context.Context, *rawList) {
	rl := &rawList{}
	return context.WithValue(ctx, rawListKey{}, rl), rl
}

func rawListOf(ctx context.Context) *rawList {
	rl, _ := ctx.Value(rawListKey{}).(*rawList)
	return rl
}

// taskSupport returns the execution.taskSupport of each tool the tapped
// response lists ("" when absent), and drops whatever the tap receives
// later. An execution that is not an object, or a taskSupport that is not
// a string, counts as a value MCP does not define: such a tool is not
// called.
func (rl *rawList) taskSupport() (map[string]string, error) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	rl.taken = true
	if rl.over {
		return nil, fmt.Errorf("the response is larger than %d bytes: the tools' execution cannot be read", maxRawList)
	}
	result := rl.result
	for _, b := range rl.bodies {
		if result != nil {
			break
		}
		result = b.result(rl.id)
	}
	if result == nil {
		return nil, errors.New("the raw result was not seen: the tools' execution cannot be read")
	}
	var res struct {
		Tools []struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(result, &res); err != nil {
		return nil, fmt.Errorf("the raw result: %w", err)
	}
	out := make(map[string]string, len(res.Tools))
	for _, t := range res.Tools {
		out[t.Name] = rawTaskSupport(t.Execution)
	}
	return out, nil
}

// rawTaskSupport reads execution.taskSupport from a tool's raw execution.
func rawTaskSupport(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var e map[string]json.RawMessage
	if json.Unmarshal(raw, &e) != nil {
		return "(execution is not an object)"
	}
	ts, ok := e["taskSupport"]
	if !ok || string(ts) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(ts, &s) != nil {
		return "(taskSupport is not a string)"
	}
	return s
}

// result returns the result of the response whose id is id in b, as the
// go-sdk reads it: b is one message, or an event stream whose events named
// "message" (or unnamed) each carry one in their data lines.
func (b *rawBody) result(id jsonrpc.ID) json.RawMessage {
	match := func(data []byte) json.RawMessage {
		msg, err := jsonrpc.DecodeMessage(data)
		if r, ok := msg.(*jsonrpc.Response); ok && err == nil && r.ID == id && r.Error == nil {
			return r.Result
		}
		return nil
	}
	if !b.sse {
		return match(b.data)
	}
	var name string
	var data []byte
	for line := range bytes.Lines(b.data) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 { // the end of an event
			if r := match(data); r != nil && (name == "" || name == "message") {
				return r
			}
			name, data = "", data[:0]
			continue
		}
		key, value, _ := bytes.Cut(line, []byte{':'})
		switch string(key) {
		case "event":
			name = strings.TrimSpace(string(value))
		case "data":
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimSpace(value)...)
		}
	}
	if r := match(data); r != nil && (name == "" || name == "message") {
		return r // the stream ended without closing its last event
	}
	return nil
}

// tapLists returns t with the tap installed: for Streamable HTTP in its
// HTTP client (the go-sdk's own connection must stay unwrapped: the
// session's revision and stream reach it through a method a wrapper cannot
// forward), for every other transport in its connection.
func tapLists(t mcp.Transport) mcp.Transport {
	st, ok := t.(*mcp.StreamableClientTransport)
	if !ok {
		return &tapTransport{Transport: t}
	}
	c := *st
	client := http.Client{}
	if st.HTTPClient != nil {
		client = *st.HTTPClient
	}
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	client.Transport = &tapRoundTripper{next: next}
	c.HTTPClient = &client
	return &c
}

// tapTransport taps the connections of a transport other than Streamable
// HTTP.
type tapTransport struct{ mcp.Transport }

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, pending: map[jsonrpc.ID]*rawList{}}, nil
}

// tapConn hands the response to a tapped tools/list request to its
// rawList.
type tapConn struct {
	mcp.Connection
	mu      sync.Mutex
	pending map[jsonrpc.ID]*rawList // tapped requests not answered yet
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "tools/list" && r.IsCall() {
		if rl := rawListOf(ctx); rl != nil {
			c.mu.Lock()
			for id, p := range c.pending { // requests no answer came to
				if p.isTaken() {
					delete(c.pending, id)
				}
			}
			c.pending[r.ID] = rl
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.mu.Lock()
		rl := c.pending[r.ID]
		delete(c.pending, r.ID)
		c.mu.Unlock()
		if rl != nil && r.Error == nil {
			rl.mu.Lock()
			if !rl.taken {
				rl.result = r.Result
			}
			rl.mu.Unlock()
		}
	}
	return msg, err
}

func (rl *rawList) isTaken() bool {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.taken
}

// tapRoundTripper taps the HTTP client of a Streamable HTTP transport: the
// bodies of the responses to a tapped tools/list request (its POST, and a
// GET that resumes its stream) are kept as the go-sdk reads them.
type tapRoundTripper struct{ next http.RoundTripper }

func (rt *tapRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	rl := rawListOf(r.Context())
	if rl == nil {
		return rt.next.RoundTrip(r)
	}
	if r.Method == http.MethodPost {
		// The request's id, from the body the go-sdk lets a transport read
		// again. A POST without one (a notification) is not tapped.
		id, ok := postedCallID(r)
		if !ok {
			return rt.next.RoundTrip(r)
		}
		rl.mu.Lock()
		rl.id = id
		rl.mu.Unlock()
	}
	resp, err := rt.next.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	b := &rawBody{sse: strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")}
	rl.mu.Lock()
	rl.bodies = append(rl.bodies, b)
	rl.mu.Unlock()
	resp.Body = &tapBody{ReadCloser: resp.Body, rl: rl, b: b}
	return resp, nil
}

// postedCallID returns the id of the JSON-RPC call r posts, read through
// r.GetBody (r's own body is left unread).
func postedCallID(r *http.Request) (jsonrpc.ID, bool) {
	if r.GetBody == nil {
		return jsonrpc.ID{}, false
	}
	body, err := r.GetBody()
	if err != nil {
		return jsonrpc.ID{}, false
	}
	defer body.Close()
	data, err := io.ReadAll(io.LimitReader(body, 1<<20)) // a tools/list request: a cursor at most
	if err != nil {
		return jsonrpc.ID{}, false
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.IsCall() {
		return req.ID, true
	}
	return jsonrpc.ID{}, false
}

// tapBody keeps what the go-sdk reads of a tapped response, up to
// maxRawList in all, until the listing takes it.
type tapBody struct {
	io.ReadCloser
	rl *rawList
	b  *rawBody
}

func (t *tapBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if n > 0 {
		rl := t.rl
		rl.mu.Lock()
		switch {
		case rl.taken || rl.over:
		case rl.size+n > maxRawList:
			rl.over, rl.bodies = true, nil
		default:
			t.b.data = append(t.b.data, p[:n]...)
			rl.size += n
		}
		rl.mu.Unlock()
	}
	return n, err
}
