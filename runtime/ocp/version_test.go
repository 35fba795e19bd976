package ocp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// versionTransport is the client side of a transport whose server answers
// initialize with a protocol version of the test's choosing.
type versionTransport struct {
	inner   mcp.Transport
	version string
}

func (vt *versionTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := vt.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &versionConn{Connection: c, version: vt.version}, nil
}

type versionConn struct {
	mcp.Connection
	version string
}

func (vc *versionConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := vc.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && resp.Result != nil {
		var m map[string]any
		if json.Unmarshal(resp.Result, &m) == nil && m["protocolVersion"] != nil {
			m["protocolVersion"] = vc.version
			resp.Result, _ = json.Marshal(m)
		}
	}
	return msg, err
}

// Whatever protocol version the server answers with, a tools/call carries
// the tool's name and its arguments and nothing else (no _meta); a version
// that would make the go-sdk add client metadata to every request is
// refused at connect, before any call.
func TestToolsCallCarriesOnlyTheArgumentsAtEveryVersion(t *testing.T) {
	noLeaksAfter(t)
	for _, v := range mcp.SupportedProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			srv, ct := newSpyServer(t, nil, spyTool{Name: "a", Schema: spyObjSchema})
			c, err := Connect(t.Context(), &versionTransport{inner: ct, version: v}, ClientOptions{})
			if v > ProtocolVersion {
				if err == nil || !strings.Contains(err.Error(), "protocol version "+v) {
					t.Fatalf("connect at %s: %v, want a refusal", v, err)
				}
				for _, raw := range srv.Wire() {
					if strings.Contains(string(raw), `"tools/call"`) {
						t.Fatalf("a tools/call was sent: %s", raw)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("connect at %s: %v", v, err)
			}
			defer c.Close()
			if _, err := c.CallTool(t.Context(), "a", json.RawMessage(`{"q":"x"}`)); err != nil {
				t.Fatal(err)
			}
			var calls int
			for _, raw := range srv.Wire() {
				var m struct {
					Method string                     `json:"method"`
					Params map[string]json.RawMessage `json:"params"`
				}
				if json.Unmarshal(raw, &m) != nil || m.Method != "tools/call" {
					continue
				}
				calls++
				if len(m.Params) != 2 || string(m.Params["name"]) != `"a"` || string(m.Params["arguments"]) != `{"q":"x"}` {
					t.Errorf("at %s the server received %s", v, raw)
				}
			}
			if calls != 1 {
				t.Errorf("%d tools/call received", calls)
			}
		})
	}
}

// stripCallMeta takes _meta out of a tools/call whatever put it there.
func TestStripCallMeta(t *testing.T) {
	p := &mcp.CallToolParams{Meta: mcp.Meta{"io.modelcontextprotocol/clientInfo": "x"}, Name: "a"}
	var seen *mcp.CallToolParams
	h := stripCallMeta(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		seen = req.GetParams().(*mcp.CallToolParams)
		return nil, nil
	})
	if _, err := h(t.Context(), "tools/call", &mcp.ClientRequest[*mcp.CallToolParams]{Params: p}); err != nil {
		t.Fatal(err)
	}
	if seen == nil || seen.Meta != nil {
		t.Fatalf("sent %+v", seen)
	}
}
