package ocp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/internal/testwait"
)

// noLeaksAfter verifies, after every cleanup of the test has run, that the
// test left no goroutine behind. Call it first.
func noLeaksAfter(t *testing.T) {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
}

// syncSpy watches a Client's tool lists (Client.WatchTools) and hands every
// one to the test.
type syncSpy struct {
	ch chan []LiveTool
}

func newSyncSpy() *syncSpy { return &syncSpy{ch: make(chan []LiveTool, 64)} }

func (s *syncSpy) SyncCatalogue(live []LiveTool) { s.ch <- slices.Clone(live) }

// hangGuard bounds every wait of these tests for something the gate or
// the client does on its own (a sync, an audit record, a confirm): see
// testwait.Guard.
const hangGuard = testwait.Guard

// next returns the next sync.
func (s *syncSpy) next(t *testing.T) []LiveTool {
	t.Helper()
	return s.waitFor(t, "any sync", func([]LiveTool) bool { return true })
}

// until returns the first sync whose tool names are want (in any order).
func (s *syncSpy) until(t *testing.T, want ...string) []LiveTool {
	t.Helper()
	return s.waitFor(t, fmt.Sprintf("a sync of %q", want), func(live []LiveTool) bool { return sameNames(live, want) })
}

// waitFor returns the first sync that ok accepts, skipping the others. It
// fails the test, naming what and the last sync skipped, if none comes
// within hangGuard.
func (s *syncSpy) waitFor(t *testing.T, what string, ok func([]LiveTool) bool) []LiveTool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	skipped, last := 0, []string(nil)
	for {
		select {
		case live := <-s.ch:
			if ok(live) {
				return live
			}
			skipped, last = skipped+1, toolNames(live)
		case <-ctx.Done():
			t.Fatalf("waited %v for %s: none came (%d other syncs, the last %q)", hangGuard, what, skipped, last)
			return nil
		}
	}
}

func toolNames(live []LiveTool) []string {
	names := make([]string, len(live))
	for i, l := range live {
		names[i] = l.Tool.Name
	}
	return names
}

// none fails the test if a sync is pending.
func (s *syncSpy) none(t *testing.T) {
	t.Helper()
	select {
	case live := <-s.ch:
		t.Fatalf("unexpected sync %v", live)
	default:
	}
}

func sameNames(live []LiveTool, want []string) bool {
	got := toolNames(live)
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	return slices.Equal(got, want)
}

// auditSpy is a slog handler that records messages and signals each one.
type auditSpy struct {
	mu   sync.Mutex
	recs []slog.Record
	ch   chan slog.Record
}

func newAuditSpy() *auditSpy { return &auditSpy{ch: make(chan slog.Record, 256)} }

func (a *auditSpy) Enabled(context.Context, slog.Level) bool { return true }
func (a *auditSpy) Handle(_ context.Context, r slog.Record) error {
	a.mu.Lock()
	a.recs = append(a.recs, r.Clone())
	a.mu.Unlock()
	select {
	case a.ch <- r.Clone():
	default:
	}
	return nil
}
func (a *auditSpy) WithAttrs([]slog.Attr) slog.Handler { return a }
func (a *auditSpy) WithGroup(string) slog.Handler      { return a }

// waitFor returns the first record with message msg, waiting for it.
func (a *auditSpy) waitFor(t *testing.T, msg string) slog.Record {
	t.Helper()
	a.mu.Lock()
	for _, r := range a.recs {
		if r.Message == msg {
			a.mu.Unlock()
			return r
		}
	}
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	for {
		select {
		case r := <-a.ch:
			if r.Message == msg {
				return r
			}
		case <-ctx.Done():
			t.Fatalf("waited %v for the audit record %q: none came", hangGuard, msg)
		}
	}
}

func recordAttrs(r slog.Record) map[string]string {
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	return m
}

const spyObjSchema = `{"type":"object","properties":{"q":{"type":"string"}}}`

// connectSpy starts a spy server with tools and connects a Client to
// it, closed when the test ends.
func connectSpy(t *testing.T, sopts *mcp.ServerOptions, copts ClientOptions, tools ...spyTool) (*spy, *Client, *syncSpy) {
	t.Helper()
	srv, ct := newSpyServer(t, sopts, tools...)
	syncs := newSyncSpy()
	c, err := Connect(t.Context(), ct, copts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.WatchTools(syncs.SyncCatalogue); err != nil {
		t.Fatal(err)
	}
	return srv, c, syncs
}

// Under either revision the client declares no capability (no roots,
// sampling or elicitation): in the initialize request, or in the _meta of
// every request under the current revision.
func TestClientDeclaresNoCapabilities(t *testing.T) {
	noLeaksAfter(t)
	for _, v := range revisions {
		t.Run(v, func(t *testing.T) {
			srv, _, syncs := connectSpy(t, onlyRevision(v, nil), ClientOptions{}, spyTool{Name: "a", Schema: spyObjSchema})
			syncs.until(t, "a")

			ip := srv.Session.InitializeParams()
			if ip == nil || ip.Capabilities == nil {
				t.Fatal("server saw no client capabilities")
			}
			caps := ip.Capabilities
			if caps.Roots.ListChanged || caps.RootsV2 != nil || caps.Sampling != nil || caps.Elicitation != nil ||
				caps.Experimental != nil || caps.Extensions != nil {
				t.Errorf("client declared capabilities: %+v", caps)
			}
			if ip.ClientInfo == nil || ip.ClientInfo.Name != "ocpgen-hub" {
				t.Errorf("client info = %+v, want name ocpgen-hub", ip.ClientInfo)
			}
			if ip.ProtocolVersion != v {
				t.Errorf("protocol version = %q, want %q", ip.ProtocolVersion, v)
			}

			// And on the wire: the capabilities are exactly {}.
			var declared []json.RawMessage
			if v < ProtocolVersion {
				for _, raw := range srv.WireParams(t, "initialize") {
					var p map[string]json.RawMessage
					if err := json.Unmarshal(raw, &p); err != nil {
						t.Fatal(err)
					}
					declared = append(declared, p["capabilities"])
				}
			} else {
				for _, raw := range srv.WireParams(t, "tools/list") {
					var p struct {
						Meta map[string]json.RawMessage `json:"_meta"`
					}
					if err := json.Unmarshal(raw, &p); err != nil {
						t.Fatal(err)
					}
					declared = append(declared, p.Meta[mcp.MetaKeyClientCapabilities])
				}
			}
			if len(declared) != 1 || string(declared[0]) != "{}" {
				t.Errorf("capabilities on the wire = %s, want {} once", declared)
			}
		})
	}
}

// Whatever the server asks of the client (roots, sampling, elicitation,
// anything but ping) is refused with method-not-found and audited, under
// either revision. Under the current one the go-sdk server does not even
// send these requests; raw ones, as another server might send, are refused
// by the client itself.
func TestClientRefusesServerRequests(t *testing.T) {
	noLeaksAfter(t)
	for _, v := range revisions {
		t.Run(v, func(t *testing.T) {
			audit := newAuditSpy()
			srv, _, syncs := connectSpy(t, onlyRevision(v, nil), ClientOptions{Audit: slog.New(audit)}, spyTool{Name: "a", Schema: spyObjSchema})
			syncs.until(t, "a")
			ctx := t.Context()
			ss := srv.Session

			// Through the go-sdk server API.
			if res, err := ss.ListRoots(ctx, nil); err == nil {
				t.Errorf("roots/list answered: %+v", res)
			}
			if res, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{
				MaxTokens: 10,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}},
			}); err == nil {
				t.Errorf("sampling/createMessage answered: %+v", res)
			}
			if res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "password?", RequestedSchema: map[string]any{"type": "object"}}); err == nil {
				t.Errorf("elicitation/create answered: %+v", res)
			}

			// Raw, bypassing the go-sdk server's capability checks: the client
			// itself must refuse, with method-not-found.
			raw := []struct {
				method string
				params any
			}{
				{"roots/list", map[string]any{}},
				{"sampling/createMessage", map[string]any{"maxTokens": 10, "messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}},
				{"elicitation/create", map[string]any{"message": "password?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}},
				{"elicitation/create", map[string]any{"mode": "url", "message": "log in", "url": "https://example.com", "elicitationId": "e1"}},
			}
			for _, r := range raw {
				resp, err := srv.Request(ctx, r.method, r.params)
				if err != nil {
					t.Fatalf("%s: %v", r.method, err)
				}
				var we *jsonrpc.Error
				if !errors.As(resp.Error, &we) || we.Code != jsonrpc.CodeMethodNotFound {
					t.Errorf("%s: response error = %v, result = %s; want method-not-found", r.method, resp.Error, resp.Result)
				}
			}

			var refused []string
			audit.mu.Lock()
			for _, r := range audit.recs {
				if r.Message == "mcp server request refused" {
					refused = append(refused, recordAttrs(r)["method"])
				}
			}
			audit.mu.Unlock()
			slices.Sort(refused)
			want := []string{"elicitation/create", "elicitation/create", "roots/list", "sampling/createMessage"}
			if v < ProtocolVersion {
				// The go-sdk server sent roots/list and sampling through its
				// API too (it refused elicitation itself: no capability).
				want = []string{"elicitation/create", "elicitation/create", "roots/list", "roots/list", "sampling/createMessage", "sampling/createMessage"}
			}
			if !slices.Equal(refused, want) {
				t.Errorf("refusals audited = %v, want %v", refused, want)
			}
			// Ping is still answered: the session is healthy.
			if v < ProtocolVersion {
				if err := ss.Ping(ctx, nil); err != nil {
					t.Errorf("ping: %v", err)
				}
			}
			syncs.none(t)
		})
	}
}

// Server log messages go to the audit log, and nowhere else, under either
// revision: under the previous one the client asks for them with
// logging/setLevel, under the current one every request carries the level,
// and the server logs within a request.
func TestClientServerLogGoesToAudit(t *testing.T) {
	noLeaksAfter(t)
	for _, v := range revisions {
		t.Run(v, func(t *testing.T) {
			audit := newAuditSpy()
			logs := spyTool{Name: "a", Schema: spyObjSchema, Do: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "db", Data: "dial tcp 10.1.2.3:5432: refused"})
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, err
			}}
			srv, c, syncs := connectSpy(t, onlyRevision(v, nil), ClientOptions{Audit: slog.New(audit), LogLevel: "debug"}, logs)
			syncs.until(t, "a")
			setLevel := srv.WireParams(t, "logging/setLevel")
			if v < ProtocolVersion {
				if len(setLevel) != 1 || !bytes.Contains(setLevel[0], []byte(`"debug"`)) {
					t.Fatalf("logging/setLevel on the wire = %s", setLevel)
				}
				err := srv.Session.Log(t.Context(), &mcp.LoggingMessageParams{Level: "warning", Logger: "db", Data: "dial tcp 10.1.2.3:5432: refused"})
				if err != nil {
					t.Fatal(err)
				}
			} else {
				if len(setLevel) != 0 {
					t.Fatalf("logging/setLevel on the wire under %s: %s", v, setLevel)
				}
				res, err := c.CallTool(t.Context(), "a", json.RawMessage(`{}`))
				if err != nil || res.IsError {
					t.Fatalf("call: %+v, %v", res, err)
				}
				if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, "10.1.2.3") {
					t.Errorf("the log reached the result: %q", text)
				}
			}
			r := audit.waitFor(t, "mcp server log")
			a := recordAttrs(r)
			if r.Level != slog.LevelWarn || a["logger"] != "db" || a["mcp_level"] != "warning" || !strings.Contains(a["data"], "10.1.2.3") {
				t.Errorf("audit record = %v %v", r.Level, a)
			}
			syncs.none(t)
		})
	}
}

func TestClientPaginatesToolList(t *testing.T) {
	noLeaksAfter(t)
	var tools []spyTool
	var names []string
	for i := range 7 {
		name := fmt.Sprintf("t%d", i)
		names = append(names, name)
		tools = append(tools, spyTool{Name: name, Schema: fmt.Sprintf(`{"type":"object","description":"%d"}`, i)})
	}
	srv, _, syncs := connectSpy(t, &mcp.ServerOptions{PageSize: 2}, ClientOptions{}, tools...)
	live := syncs.next(t)
	if !sameNames(live, names) {
		t.Fatalf("synced %v, want %v", live, names)
	}
	for _, l := range live {
		i := strings.TrimPrefix(l.Tool.Name, "t")
		want := Fingerprint([]byte(`{"description":"` + i + `","type":"object"}`))
		if got := liveFP(t, l); got != want {
			t.Errorf("%s fingerprint %s, want %s", l.Tool.Name, got, want)
		}
	}
	if pages := srv.WireParams(t, "tools/list"); len(pages) != 4 {
		t.Errorf("%d tools/list requests, want 4 (pages of 2 for 7 tools)", len(pages))
	}
}

func TestClientResyncsOnToolListChanged(t *testing.T) {
	noLeaksAfter(t)
	srv, c, syncs := connectSpy(t, nil, ClientOptions{}, spyTool{Name: "a", Schema: spyObjSchema})
	syncs.until(t, "a")

	srv.AddTool(spyTool{Name: "b", Schema: spyObjSchema})
	syncs.until(t, "a", "b")

	// A burst of changes: syncs are serialised, so the last one is complete.
	for i := range 20 {
		srv.AddTool(spyTool{Name: fmt.Sprintf("c%d", i), Schema: spyObjSchema})
	}
	want := []string{"a", "b"}
	for i := range 20 {
		want = append(want, fmt.Sprintf("c%d", i))
	}
	syncs.until(t, want...)

	srv.Server.RemoveTools("a")
	syncs.until(t, want[1:]...)

	// A changed schema changes the fingerprint.
	srv.AddTool(spyTool{Name: "b", Schema: `{"type":"object","properties":{"q":{"type":"integer"}}}`})
	syncs.waitFor(t, "a sync with b's new fingerprint", func(live []LiveTool) bool {
		i := slices.IndexFunc(live, func(l LiveTool) bool { return l.Tool.Name == "b" })
		return i >= 0 && liveFP(t, live[i]) == Fingerprint([]byte(`{"properties":{"q":{"type":"integer"}},"type":"object"}`))
	})

	// Resync lists on demand.
	if err := c.Resync(t.Context()); err != nil {
		t.Fatal(err)
	}
	syncs.until(t, want[1:]...)
}

func TestClientListErrorWithdrawsCatalogue(t *testing.T) {
	noLeaksAfter(t)
	audit := newAuditSpy()
	srv, c, syncs := connectSpy(t, nil, ClientOptions{Audit: slog.New(audit)}, spyTool{Name: "a", Schema: spyObjSchema})
	syncs.until(t, "a")

	srv.FailList(true)
	srv.AddTool(spyTool{Name: "b", Schema: spyObjSchema}) // list_changed, then tools/list fails
	if live := syncs.next(t); len(live) != 0 {
		t.Fatalf("after a failed listing synced %v, want nothing", live)
	}
	audit.waitFor(t, "mcp tools/list failed; catalogue withdrawn")
	if err := c.Resync(t.Context()); err == nil {
		t.Error("Resync with failing tools/list: no error")
	}
	if live := syncs.next(t); len(live) != 0 {
		t.Fatalf("after a failed Resync synced %v, want nothing", live)
	}

	srv.FailList(false)
	if err := c.Resync(t.Context()); err != nil {
		t.Fatal(err)
	}
	syncs.until(t, "a", "b")
}

func TestClientCallToolSendsVerbatimArgs(t *testing.T) {
	noLeaksAfter(t)
	srv, c, syncs := connectSpy(t, nil, ClientOptions{}, spyTool{Name: "search", Schema: spyObjSchema},
		spyTool{Name: "broken", Schema: spyObjSchema, Err: errors.New("db at 10.0.0.7 down")},
		spyTool{Name: "iserr", Schema: spyObjSchema, Result: &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "nope"}}}})
	syncs.until(t, "search", "broken", "iserr")
	ctx := t.Context()

	args := json.RawMessage(`{"q":"<a&b> ü 日本 \u2028","n":1.0,"e":1e3,"big":12345678901234567890,"z":null,"o":{"k":[1,2.50]}}`)
	res, err := c.CallTool(ctx, "search", args)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "ok" || res.IsError {
		t.Errorf("result = %+v", res)
	}
	calls := srv.Calls()
	if len(calls) != 1 || calls[0].Tool != "search" || !bytes.Equal(calls[0].Args, args) {
		t.Fatalf("server got %+v, want args %s", calls, args)
	}

	// On the wire: params are exactly {name, arguments} and the _meta of
	// the current revision, which describes the Hub
	// (TestServerReceivesOnlyTheHubsFields).
	wire := srv.WireParams(t, "tools/call")
	if len(wire) != 1 {
		t.Fatalf("%d tools/call on the wire", len(wire))
	}
	var p map[string]json.RawMessage
	if err := json.Unmarshal(wire[0], &p); err != nil {
		t.Fatal(err)
	}
	if len(p) != 3 || string(p["name"]) != `"search"` || !bytes.Equal(p["arguments"], args) || canonical(t, p["_meta"]) != hubMeta("") {
		t.Errorf("tools/call params = %s", wire[0])
	}

	// Empty arguments are sent as {}.
	if _, err := c.CallTool(ctx, "search", nil); err != nil {
		t.Fatal(err)
	}
	if calls := srv.Calls(); len(calls) != 2 || string(calls[1].Args) != "{}" {
		t.Errorf("empty args sent as %s", calls[len(calls)-1].Args)
	}
	// Non-object arguments never reach the server.
	for _, bad := range []string{`[1]`, `"x"`, `{"a":`, `null`} {
		if _, err := c.CallTool(ctx, "search", json.RawMessage(bad)); err == nil {
			t.Errorf("args %s: no error", bad)
		}
	}
	if n := len(srv.Calls()); n != 2 {
		t.Errorf("%d calls reached the server, want 2", n)
	}

	// Errors and isError results come back unchanged, for the gate to map.
	if _, err := c.CallTool(ctx, "broken", args); err == nil || !strings.Contains(err.Error(), "10.0.0.7") {
		t.Errorf("handler error = %v, want the server's error", err)
	}
	if res, err := c.CallTool(ctx, "iserr", args); err != nil || !res.IsError {
		t.Errorf("isError result = %+v, %v", res, err)
	}
}

func TestClientFingerprintMatchesSnapshotBytes(t *testing.T) {
	noLeaksAfter(t)
	// What a snapshot file holds, byte for byte: unsorted keys, white space,
	// numbers in several forms, HTML characters and escapes.
	schema := `{
  "type": "object",
  "properties": {
    "s": {"type": "string", "description": "<b>&amp; \"ü\" \u00e9 日本 \u2028 \ud83d\ude00", "pattern": "^[<>&]+$"},
    "n": {"type": "number", "default": 1.0, "maximum": 1e3, "minimum": -0.5E-2, "multipleOf": 0.1},
    "big": {"type": "integer", "maximum": 12345678901234567890, "minimum": -9007199254740993},
    "e": {"enum": [1, 1.5, 100000000000000000000000, true, null, "x"]}
  },
  "required": ["s"],
  "additionalProperties": false
}`
	_, _, syncs := connectSpy(t, nil, ClientOptions{}, spyTool{Name: "weird", Schema: schema})
	live := syncs.until(t, "weird")

	canon, err := CanonicalJSON([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	// The generator fingerprints the exact canonical schema (which keeps
	// 12345678901234567890 and -9007199254740993) with SchemaFingerprint;
	// the live side, which the go-sdk gives float64s, gets the same.
	if !bytes.Contains(canon, []byte(`12345678901234567890`)) || !bytes.Contains(canon, []byte(`-9007199254740993`)) {
		t.Errorf("canonical form rounds numbers: %s", canon)
	}
	want, err := SchemaFingerprint(canon)
	if err != nil {
		t.Fatal(err)
	}
	if got := liveFP(t, live[0]); got != want {
		t.Errorf("live fingerprint %s != snapshot fingerprint %s (canonical %s)", got, want, canon)
	}
	// The canonical form is what the generator stores: no HTML escaping.
	if !bytes.Contains(canon, []byte(`"<b>&amp; \"ü\" é 日本`)) {
		t.Errorf("canonical form escapes: %s", canon)
	}
}

func TestClientSessionEndWithdrawsAndClose(t *testing.T) {
	noLeaksAfter(t)
	srv, c, syncs := connectSpy(t, nil, ClientOptions{}, spyTool{Name: "a", Schema: spyObjSchema})
	syncs.until(t, "a")

	// The server ends the session: everything is withdrawn.
	_ = srv.Session.Close()
	if live := syncs.next(t); len(live) != 0 {
		t.Fatalf("after the session ended synced %v", live)
	}
	if _, err := c.CallTool(t.Context(), "a", nil); !errors.Is(err, ErrNotConnected) {
		t.Errorf("CallTool after session end: %v, want ErrNotConnected", err)
	}
	if err := c.Resync(t.Context()); !errors.Is(err, ErrNotConnected) {
		t.Errorf("Resync after session end: %v, want ErrNotConnected", err)
	}

	_ = c.Close()
	if live := syncs.next(t); len(live) != 0 {
		t.Fatalf("Close synced %v", live)
	}
	if _, err := c.CallTool(t.Context(), "a", nil); !errors.Is(err, ErrClientClosed) {
		t.Errorf("CallTool after Close: %v, want ErrClientClosed", err)
	}
	if err := c.Resync(t.Context()); !errors.Is(err, ErrClientClosed) {
		t.Errorf("Resync after Close: %v, want ErrClientClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// A Client serves one gate: it hands its tool lists to one watcher, at once
// on WatchTools, and refuses a second, so no gate can hold a catalogue that
// stopped being kept in step with the server.
func TestClientServesOneGate(t *testing.T) {
	noLeaksAfter(t)
	_, c, syncs := connectSpy(t, nil, ClientOptions{}, spyTool{Name: "a", Schema: spyObjSchema})
	if live := syncs.next(t); len(live) != 1 || live[0].Tool.Name != "a" {
		t.Fatalf("first list = %+v", live)
	}
	if err := c.WatchTools(func([]LiveTool) {}); err == nil {
		t.Fatal("a second watcher was accepted")
	}
	if _, err := NewGate(Config{Catalogue: testCatalogue, Server: c, ACL: AllowAllResources, Broker: newMemoryBroker()}); err == nil || !strings.Contains(err.Error(), "already serves a gate") {
		t.Fatalf("NewGate on a Client that serves another: %v", err)
	}
}

// httpSpy is a Streamable HTTP MCP server on a fixed 127.0.0.1 address that
// can be stopped and started again, like a restarted server process.
type httpSpy struct {
	addr string
	srv  *http.Server
	mcp  *mcp.Server
	done chan struct{}
}

func startHTTPSpy(t *testing.T, addr string, tools ...string) *httpSpy {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s := &httpSpy{addr: ln.Addr().String(), mcp: mcp.NewServer(&mcp.Implementation{Name: "http-spy", Version: "1"}, nil), done: make(chan struct{})}
	for _, name := range tools {
		s.mcp.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(spyObjSchema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
	s.srv = &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s
}

// stop kills the server: connections dropped, sessions forgotten.
func (s *httpSpy) stop(t *testing.T) {
	_ = s.srv.Close()
	testwait.Closed(t, s.done, "the spy HTTP server to stop")
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
}

func TestClientReconnectsOverStreamableHTTP(t *testing.T) {
	noLeaksAfter(t)
	first := startHTTPSpy(t, "127.0.0.1:0", "a")
	addr := first.addr
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			first.stop(t)
		}
	})
	syncs := newSyncSpy()
	audit := newAuditSpy()
	c, err := Dial(t.Context(), func(context.Context) (mcp.Transport, error) {
		return &mcp.StreamableClientTransport{Endpoint: "http://" + addr, MaxRetries: -1}, nil
	}, ClientOptions{Audit: slog.New(audit)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.WatchTools(syncs.SyncCatalogue); err != nil {
		t.Fatal(err)
	}
	syncs.until(t, "a")
	res, err := c.CallTool(t.Context(), "a", nil)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "a" {
		t.Fatalf("call before restart: %+v, %v", res, err)
	}

	// The server dies: the catalogue is withdrawn and calls fail.
	first.stop(t)
	stopped = true
	if live := syncs.next(t); len(live) != 0 {
		t.Fatalf("after the server died synced %v", live)
	}
	if _, err := c.CallTool(t.Context(), "a", nil); err == nil {
		t.Error("call while the server is down: no error")
	}

	// It comes back with another catalogue: the client redials and syncs it.
	second := startHTTPSpy(t, addr, "a", "b")
	t.Cleanup(func() { second.stop(t) })
	syncs.until(t, "a", "b")
	res, err = c.CallTool(t.Context(), "b", nil)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "b" {
		t.Fatalf("call after restart: %+v, %v", res, err)
	}
	audit.waitFor(t, "mcp session ended; catalogue withdrawn")
}

func TestClientLeavesOutDuplicateTools(t *testing.T) {
	noLeaksAfter(t)
	audit := newAuditSpy()
	srv, c, syncs := connectSpy(t, nil, ClientOptions{Audit: slog.New(audit)},
		spyTool{Name: "a", Schema: spyObjSchema}, spyTool{Name: "b", Schema: spyObjSchema})
	syncs.until(t, "a", "b")

	// The server lists "a" twice with different schemas: which would a call
	// meet? Neither is callable.
	srv.ListHook(func(res *mcp.ListToolsResult) {
		res.Tools = append(res.Tools, &mcp.Tool{Name: "a", InputSchema: map[string]any{"type": "object", "properties": map[string]any{}}})
	})
	if err := c.Resync(t.Context()); err != nil {
		t.Fatal(err)
	}
	syncs.until(t, "b")
	if r := audit.waitFor(t, "mcp tool listed twice; left out"); recordAttrs(r)["tool"] != "a" {
		t.Errorf("audit = %v", recordAttrs(r))
	}
}

// TestClientCloseIsNoRemoval: a Client's Close withdraws the gate's
// catalogue without the gate reporting every tool as removed by the server
// (issue 29: a normal shutdown logged a WARN ocp.sync listing them all);
// a server that lists no tools still does make them "removed", at WARN.
func TestClientCloseIsNoRemoval(t *testing.T) {
	noLeaksAfter(t)
	_, cl := muxServerSpy(t, testCatalogue)
	audit := &syncBuffer{}
	g, err := NewGate(Config{Catalogue: testCatalogue, Server: cl, ACL: AllowAllResources, Broker: newMemoryBroker(),
		Audit: slog.New(slog.NewJSONHandler(audit, nil))})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(g.Advertisement().Tools); n != 0 {
		t.Errorf("after Close %d tools are advertised", n)
	}
	ev := audit.events(t, "ocp.sync")
	if len(ev) != 2 {
		t.Fatalf("want 2 syncs (the listing, the Close), got %v", ev)
	}
	if ev[0]["listed"] != true {
		t.Errorf("the first sync is a listing: %v", ev[0])
	}
	if got := fmt.Sprint(ev[1]["level"], " ", ev[1]["listed"], " ", ev[1]["removed"], " ", ev[1]["advertised"]); got != "INFO false [] []" {
		t.Errorf("Close's sync: level, listed, removed, advertised = %s; want INFO false [] []", got)
	}

	// A listing of no tools is a listing: not nil, and the gate reports
	// every generated tool removed.
	_, _, syncs := connectSpy(t, nil, ClientOptions{})
	if live := syncs.next(t); live == nil || len(live) != 0 {
		t.Errorf("a server with no tools synced %#v, want an empty, non-nil list", live)
	}
	h := newHarness(t, true, nil)
	h.g.one().syncCatalogue([]LiveTool{})
	last := h.audit.events(t, "ocp.sync")
	if got := last[len(last)-1]; got["level"] != "WARN" || got["listed"] != true || fmt.Sprint(got["removed"]) != "[create_note delete_entities get_note read_graph]" {
		t.Errorf("empty listing: sync %v", got)
	}
}
