package ocp

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// At every revision the go-sdk speaks, against a server that speaks only
// that one, the client connects in it, and a tools/call carries the tool's
// name and its arguments, plus under the current revision the _meta that
// describes the Hub, and nothing else.
func TestToolsCallCarriesOnlyTheArgumentsAtEveryVersion(t *testing.T) {
	noLeaksAfter(t)
	for _, v := range mcp.SupportedProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			srv, c, syncs := connectSpy(t, onlyRevision(v, nil), ClientOptions{}, spyTool{Name: "a", Schema: spyObjSchema})
			syncs.until(t, "a")
			if got := c.ProtocolVersion(); got != v {
				t.Fatalf("connected in %s, want %s", got, v)
			}
			if _, err := c.CallTool(t.Context(), "a", json.RawMessage(`{"q":"x"}`)); err != nil {
				t.Fatal(err)
			}
			wire := srv.WireParams(t, "tools/call")
			if len(wire) != 1 {
				t.Fatalf("%d tools/call received", len(wire))
			}
			var p map[string]json.RawMessage
			if err := json.Unmarshal(wire[0], &p); err != nil {
				t.Fatal(err)
			}
			keys := slices.Sorted(maps.Keys(p))
			want := []string{"arguments", "name"}
			if v >= ProtocolVersion {
				want = []string{"_meta", "arguments", "name"}
				if got := canonical(t, p["_meta"]); got != hubMeta("") {
					t.Errorf("_meta %s, want %s", got, hubMeta(""))
				}
			}
			if !slices.Equal(keys, want) || string(p["name"]) != `"a"` || string(p["arguments"]) != `{"q":"x"}` {
				t.Errorf("at %s the server received %s", v, wire[0])
			}
		})
	}
}

// hubMetaOnly decides the _meta of every request the client sends,
// whatever put it there: under the current revision only the keys that
// describe the Hub (and the log level), under an older one none, and on a
// notification none. (A session of the current revision is one only the
// go-sdk makes: TestServerReceivesOnlyTheHubsFields sends through one.)
func TestHubMetaOnly(t *testing.T) {
	foreign := func() mcp.Meta {
		return mcp.Meta{
			mcp.MetaKeyProtocolVersion:    ProtocolVersion,
			mcp.MetaKeyClientInfo:         map[string]any{"name": "ocpgen-hub"},
			mcp.MetaKeyClientCapabilities: map[string]any{},
			"progressToken":               "tok",
			"traceparent":                 "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
			"principal":                   "u-alice",
		}
	}
	for _, tc := range []struct {
		method string
		level  mcp.LoggingLevel
		want   []string // the keys left; nil: no _meta
	}{
		{"server/discover", "", []string{mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo, mcp.MetaKeyProtocolVersion}},
		{"server/discover", "error", []string{mcp.MetaKeyClientCapabilities, mcp.MetaKeyClientInfo, mcp.MetaKeyLogLevel, mcp.MetaKeyProtocolVersion}},
		// A request of a session that has no revision (an older one's
		// handshake, here a session the test made) carries none.
		{"tools/call", "", nil},
		{"notifications/cancelled", "error", nil},
	} {
		c := &Client{level: tc.level}
		p := &mcp.CallToolParams{Meta: foreign(), Name: "a"}
		var seen mcp.Meta
		h := c.hubMetaOnly(func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
			seen = req.GetParams().GetMeta()
			return nil, nil
		})
		if _, err := h(t.Context(), tc.method, &mcp.ClientRequest[*mcp.CallToolParams]{Session: &mcp.ClientSession{}, Params: p}); err != nil {
			t.Fatal(err)
		}
		var got []string
		if seen != nil {
			got = slices.Sorted(maps.Keys(seen))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s (level %q): _meta keys %q, want %q", tc.method, tc.level, got, tc.want)
		}
		if tc.level != "" && seen != nil && seen[mcp.MetaKeyLogLevel] != tc.level {
			t.Errorf("%s: log level %v, want %s", tc.method, seen[mcp.MetaKeyLogLevel], tc.level)
		}
	}
}
