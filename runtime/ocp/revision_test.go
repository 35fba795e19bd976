package ocp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// The MCP revisions the Hub speaks, over the transports it speaks them on:
// the tests of this file run each case against a go-sdk server that speaks
// that revision only, and record every byte the client sends it.

// revisions are the revisions of the tests: the current one and the
// previous one.
var revisions = []string{ProtocolVersion, LegacyProtocolVersion}

// The transports: "stdio" is newline-delimited JSON over a pair of pipes
// (the framing of mcp.StdioTransport and mcp.CommandTransport), "http" is
// Streamable HTTP, stateless under ProtocolVersion (the revision has no
// sessions; a stateful go-sdk handler refuses it) and stateful under the
// previous one.
var transports = []string{"stdio", "http"}

// revisionCase is one revision over one transport.
type revisionCase struct{ revision, transport string }

func (rc revisionCase) String() string { return rc.revision + "/" + rc.transport }

// revisionCases are every revision over every transport.
func revisionCases() []revisionCase {
	var out []revisionCase
	for _, r := range revisions {
		for _, tr := range transports {
			out = append(out, revisionCase{r, tr})
		}
	}
	return out
}

// onlyRevision returns a copy of opts (nil: none) for a server that speaks
// revision v only.
func onlyRevision(v string, opts *mcp.ServerOptions) *mcp.ServerOptions {
	var o mcp.ServerOptions
	if opts != nil {
		o = *opts
	}
	o.SupportedProtocolVersions = []string{v}
	return &o
}

// wireMsg is one JSON-RPC message the server received, as raw bytes, with
// the HTTP request headers it came with (nil over stdio; the pseudo-header
// ":method" holds the HTTP method). Over HTTP a request without a body (a
// GET, a DELETE) is recorded too, with no Raw bytes.
type wireMsg struct {
	Raw    []byte
	Header http.Header
}

// wireSpy is a spy server (its tools record their calls) speaking one
// revision over one transport, that records every message the client sends
// it, byte for byte, before the go-sdk reads it.
type wireSpy struct {
	*spy
	rc revisionCase

	mu   sync.Mutex
	msgs []wireMsg
}

// record keeps one received message.
func (w *wireSpy) record(raw []byte, h http.Header) {
	w.mu.Lock()
	w.msgs = append(w.msgs, wireMsg{Raw: bytes.Clone(raw), Header: h})
	w.mu.Unlock()
}

// Received returns every message received so far, in order.
func (w *wireSpy) Received() []wireMsg {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]wireMsg(nil), w.msgs...)
}

// startWireSpy starts a server with tools (opts may be nil) speaking only
// rc.revision over rc.transport. The dial func returns a fresh client
// transport to it each time (for Connect or Dial). Everything is closed
// when the test ends.
func startWireSpy(t testing.TB, rc revisionCase, opts *mcp.ServerOptions, tools ...spyTool) (*wireSpy, func(context.Context) (mcp.Transport, error)) {
	t.Helper()
	w := &wireSpy{spy: &spy{Server: mcp.NewServer(&mcp.Implementation{Name: "wire-spy", Version: "1"}, onlyRevision(rc.revision, opts))}, rc: rc}
	for _, tool := range tools {
		w.AddTool(tool)
	}
	switch rc.transport {
	case "stdio":
		var (
			mu       sync.Mutex
			sessions []*mcp.ServerSession
		)
		t.Cleanup(func() {
			mu.Lock()
			defer mu.Unlock()
			for _, ss := range sessions {
				_ = ss.Close()
			}
		})
		return w, func(ctx context.Context) (mcp.Transport, error) {
			toServer, fromClient := io.Pipe()
			toClient, fromServer := io.Pipe()
			rec := &lineRecorder{r: toServer, w: w}
			ss, err := w.Server.Connect(ctx, &mcp.IOTransport{Reader: rec, Writer: fromServer}, nil)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			sessions = append(sessions, ss)
			mu.Unlock()
			return &mcp.IOTransport{Reader: toClient, Writer: fromClient}, nil
		}
	case "http":
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return w.Server },
			&mcp.StreamableHTTPOptions{Stateless: rc.revision >= ProtocolVersion})
		ts := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(rw, err.Error(), http.StatusBadRequest)
				return
			}
			hdr := r.Header.Clone()
			hdr.Set(":method", r.Method) // not a header: how the request was sent
			w.record(body, hdr)
			r.Body = io.NopCloser(bytes.NewReader(body))
			h.ServeHTTP(rw, r)
		}))
		t.Cleanup(ts.Close)
		return w, func(context.Context) (mcp.Transport, error) {
			return &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil
		}
	}
	t.Fatalf("unknown transport %q", rc.transport)
	return nil, nil
}

// lineRecorder is the server's end of a stdio pipe: it records each line
// (one message) as the server reads it.
type lineRecorder struct {
	r    io.ReadCloser
	w    *wireSpy
	once sync.Once
	br   *bufio.Reader
	buf  []byte // read from br, not yet returned
}

func (l *lineRecorder) Read(p []byte) (int, error) {
	l.once.Do(func() { l.br = bufio.NewReader(l.r) })
	if len(l.buf) == 0 {
		line, err := l.br.ReadBytes('\n')
		if len(line) > 0 {
			l.w.record(bytes.TrimRight(line, "\n"), nil)
			l.buf = line
		}
		if len(line) == 0 {
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}

func (l *lineRecorder) Close() error { return l.r.Close() }

// connectWire connects a Client (opts) to a new wire spy for rc, closed
// when the test ends.
func connectWire(t *testing.T, rc revisionCase, sopts *mcp.ServerOptions, copts ClientOptions, tools ...spyTool) (*wireSpy, *Client) {
	t.Helper()
	w, dial := startWireSpy(t, rc, sopts, tools...)
	c, err := Dial(t.Context(), dial, copts)
	if err != nil {
		t.Fatalf("%v: Dial: %v", rc, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return w, c
}

// parsedMsg is a received message, parsed.
type parsedMsg struct {
	Method string                     `json:"method"`
	ID     json.RawMessage            `json:"id"`
	Params map[string]json.RawMessage `json:"params"`
	raw    wireMsg
}

// parsed returns the received messages that are requests or
// notifications (responses to the server's own requests are left out).
func (w *wireSpy) parsed(t testing.TB) []parsedMsg {
	t.Helper()
	var out []parsedMsg
	for _, m := range w.Received() {
		if len(m.Raw) == 0 {
			continue
		}
		var p parsedMsg
		if err := json.Unmarshal(m.Raw, &p); err != nil {
			t.Fatalf("received %s: %v", m.Raw, err)
		}
		if p.Method == "" {
			continue
		}
		p.raw = m
		out = append(out, p)
	}
	return out
}

// The tools of the revision tests: a read and a write, each with an
// argument the schema mirrors into an HTTP header (x-mcp-header).

// RegionLookupArgs are the arguments of region_lookup.
type RegionLookupArgs struct {
	Read   `json:"-"`
	Region string  `json:"region"`
	Shard  *int64  `json:"shard,omitzero"`
	Q      *string `json:"q,omitzero"`
}

var RegionLookup = &Tool{Args: (*RegionLookupArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "region_lookup",
	Description: "Look a key up in a region.",
	InputSchema: `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"shard":{"type":"integer","x-mcp-header":"Shard"},"q":{"type":"string"}},"required":["region"],"additionalProperties":false}`,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor", Scopes: []string{"memory.read"},
		Resource: tpl("region/{region}"), Failure: "Could not look it up.",
	},
})}

// RegionMoveArgs are the arguments of region_move.
type RegionMoveArgs struct {
	Write  `json:"-"`
	Region string `json:"region"`
	To     string `json:"to"`
}

var RegionMove = &Tool{Args: (*RegionMoveArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "region_move",
	Description: "Move a region's data to another region.",
	InputSchema: `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"to":{"type":"string"}},"required":["region","to"],"additionalProperties":false}`,
	Policy: Policy{
		Kind: ocpimpl.KindWrite, Classified: true, Tier: "member", Scopes: []string{"memory.write"},
		Resource: tpl("region/{region}"), ConfirmPrompt: tpl("Move {region} to {to}?"), ConfirmTTL: 2 * time.Minute,
		Failure: "Could not move the region.",
	},
})}

var regionCatalogue = NewCatalogue(testTiers, RegionLookup, RegionMove)

// Principals of the revision tests. Their identities, channels and scopes
// are canaries: no byte the server receives may hold one.
var (
	canaryUser  = Principal{ID: "u-canary-5150", Tier: "member", Scopes: []string{"memory.read", "memory.write", "scope-canary-4242"}, Peer: "chan-canary-8086"}
	canaryPhone = Principal{ID: "u-canary-5150", Tier: "member", Scopes: []string{"memory.read", "memory.write", "scope-canary-4242"}, Peer: "phone-canary-6502"}
)

// revGate is a gate over a Client over a wire spy, with a memory broker
// whose confirms canaryPhone approves (when approve is set).
type revGate struct {
	w      *wireSpy
	c      *Client
	g      *Gate
	broker *memoryBroker
	audit  *syncBuffer
	obs    *recObserver

	mu   sync.Mutex
	advs []ToolsAdvertise
}

// newRevGate builds a revGate for rc over regionCatalogue; the server lists
// tools (none given: the catalogue's tools, with the generated schemas).
func newRevGate(t *testing.T, rc revisionCase, sopts *mcp.ServerOptions, copts ClientOptions, approve bool, tools ...spyTool) *revGate {
	t.Helper()
	if len(tools) == 0 {
		tools = spyToolsOf(regionCatalogue)
	}
	r := &revGate{broker: newMemoryBroker(), audit: &syncBuffer{}, obs: &recObserver{}}
	audit := slog.New(slog.NewJSONHandler(r.audit, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if copts.Audit == nil {
		copts.Audit = audit
	}
	r.w, r.c = connectWire(t, rc, sopts, copts, tools...)
	g, err := NewGate(Config{
		Catalogue: regionCatalogue,
		Server:    r.c,
		ACL:       AllowAllResources,
		Broker:    r.broker,
		Audit:     audit,
		Observer:  r.obs,
		Advertise: func(a ToolsAdvertise) {
			r.mu.Lock()
			r.advs = append(r.advs, a)
			r.mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	r.g = g
	if approve {
		stop := r.broker.Subscribe(func(req ConfirmRequest) {
			if err := g.Resolve(context.Background(), canaryPhone, ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); err != nil {
				t.Errorf("approve: %v", err)
			}
		})
		t.Cleanup(stop)
	}
	return r
}

// advertised returns the names in the latest advertisement.
func (r *revGate) advertised() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.advs) == 0 {
		return nil
	}
	var names []string
	for _, d := range r.advs[len(r.advs)-1].Tools {
		names = append(names, d.Name)
	}
	return names
}

// waitAdvertised waits until the latest advertisement is exactly want.
func (r *revGate) waitAdvertised(t *testing.T, what string, want ...string) {
	t.Helper()
	slices.Sort(want)
	deadline := time.After(hangGuard)
	for {
		got := r.advertised()
		slices.Sort(got)
		if slices.Equal(got, want) {
			return
		}
		select {
		case <-deadline:
			t.Fatalf("waited %v for %s: advertised %v, want %v", hangGuard, what, got, want)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// syncs returns what the observer was told of every sync so far.
func (r *revGate) syncs() []SyncInfo {
	r.obs.mu.Lock()
	defer r.obs.mu.Unlock()
	return slices.Clone(r.obs.syncs)
}

// Item 1: the Client negotiates the current revision with a server that
// speaks it and the previous one otherwise, over stdio and Streamable HTTP,
// and the negotiated revision is in the connection's audit event, the
// gate's sync events and SyncInfo.
func TestClientNegotiatesEachRevision(t *testing.T) {
	noLeaksAfter(t)
	for _, rc := range revisionCases() {
		t.Run(rc.String(), func(t *testing.T) {
			r := newRevGate(t, rc, nil, ClientOptions{}, false)
			r.waitAdvertised(t, "the catalogue", "region_lookup", "region_move")
			if got := r.c.ProtocolVersion(); got != rc.revision {
				t.Errorf("ProtocolVersion() = %q, want %q", got, rc.revision)
			}
			conn := r.audit.events(t, "mcp connected")
			if len(conn) != 1 || conn[0]["protocol"] != rc.revision {
				t.Errorf("mcp connected events = %v, want one with protocol %s", conn, rc.revision)
			}
			syncs := r.syncs()
			if len(syncs) == 0 || syncs[len(syncs)-1].Protocol != rc.revision {
				t.Errorf("SyncInfo = %+v, want Protocol %s", syncs, rc.revision)
			}
			ev := r.audit.events(t, "ocp.sync")
			if len(ev) == 0 || ev[len(ev)-1]["protocol"] != rc.revision {
				t.Errorf("sync events = %v, want protocol %s", ev, rc.revision)
			}
			// What the server was told: the revision of each request.
			var told []string
			for _, m := range r.w.parsed(t) {
				switch m.Method {
				case "initialize":
					var v string
					_ = json.Unmarshal(m.Params["protocolVersion"], &v)
					told = append(told, "initialize "+v)
				case "tools/list":
					told = append(told, "tools/list "+metaVersion(m))
				}
			}
			want := []string{"tools/list " + rc.revision}
			if rc.revision < ProtocolVersion {
				want = []string{"initialize " + rc.revision, "tools/list "}
			}
			if !slices.Equal(told, want) {
				t.Errorf("the server was told %q, want %q", told, want)
			}

			// Closed: the catalogue is withdrawn, and no revision reported.
			if err := r.c.Close(); err != nil {
				t.Fatal(err)
			}
			if syncs := r.syncs(); syncs[len(syncs)-1].Protocol != "" {
				t.Errorf("after Close SyncInfo = %+v, want no Protocol", syncs[len(syncs)-1])
			}
			if got := r.c.ProtocolVersion(); got != "" {
				t.Errorf("after Close ProtocolVersion() = %q", got)
			}
		})
	}
}

// metaVersion is the revision a request's _meta names ("" for none).
func metaVersion(m parsedMsg) string {
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(m.Params["_meta"], &meta)
	var v string
	_ = json.Unmarshal(meta[mcp.MetaKeyProtocolVersion], &v)
	return v
}

// A revision the Hub does not know (a server that answers the handshake
// with one) is refused at connect, before anything is listed or called.
func TestClientRefusesARevisionItDoesNotSpeak(t *testing.T) {
	noLeaksAfter(t)
	old := spokenVersions
	spokenVersions = slices.DeleteFunc(slices.Clone(old), func(v string) bool { return v == "2024-11-05" })
	t.Cleanup(func() { spokenVersions = old })
	w, dial := startWireSpy(t, revisionCase{"2024-11-05", "stdio"}, nil, spyTool{Name: "a", Schema: spyObjSchema})
	_, err := Dial(t.Context(), dial, ClientOptions{})
	if err == nil || !strings.Contains(err.Error(), "protocol version 2024-11-05") {
		t.Fatalf("Dial: %v, want a refusal naming 2024-11-05", err)
	}
	for _, m := range w.parsed(t) {
		if m.Method == "tools/list" || m.Method == "tools/call" {
			t.Errorf("the server received %s", m.raw.Raw)
		}
	}
}

// hubMeta is the _meta every request carries under ProtocolVersion: the
// Hub's revision, client info and capabilities (none), and the log level
// when one is set; canonical JSON (keys sorted).
func hubMeta(level mcp.LoggingLevel) string {
	m := map[string]any{
		mcp.MetaKeyClientCapabilities: map[string]any{},
		mcp.MetaKeyClientInfo:         map[string]any{"name": "ocpgen-hub", "version": "0.0.0"},
		mcp.MetaKeyProtocolVersion:    ProtocolVersion,
	}
	if level != "" {
		m[mcp.MetaKeyLogLevel] = level
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// canonical is raw re-encoded with sorted keys.
func canonical(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

type ctxCanaryKey struct{}

// Item 2: under each revision and over each transport, through the gate,
// the server receives the call's schema arguments, exactly, and the
// protocol's own fields describing the Hub: under ProtocolVersion the
// SEP-2575 _meta on every request (and nothing else in it), under the
// previous revision no _meta at all. No byte of any request, header
// included, holds the principal, its channel or scopes, the approver, the
// action request's id or a value of the caller's context.
func TestServerReceivesOnlyTheHubsFields(t *testing.T) {
	noLeaksAfter(t)
	canaries := []string{canaryUser.ID, canaryUser.Peer, canaryPhone.Peer, "scope-canary-4242", "memory.read", "memory.write", "member", "req-canary-1337", "req-canary-1338", "ctx-canary-2718"}
	for _, rc := range revisionCases() {
		for _, level := range []mcp.LoggingLevel{"", "warning"} {
			t.Run(fmt.Sprintf("%v/log=%s", rc, level), func(t *testing.T) {
				r := newRevGate(t, rc, nil, ClientOptions{LogLevel: level}, true)
				r.waitAdvertised(t, "the catalogue", "region_lookup", "region_move")
				ctx := context.WithValue(t.Context(), ctxCanaryKey{}, "ctx-canary-2718")
				readArgs := `{"region":"eu-west-1","shard":42,"q":"who"}`
				if res := r.g.Dispatch(ctx, canaryUser, ActionRequest{ID: "req-canary-1337", Tool: "region_lookup", Args: json.RawMessage(readArgs)}); !res.OK {
					t.Fatalf("read: %+v", res)
				}
				writeArgs := `{"region":"eu-west-1","to":"us-east-2"}`
				if res := r.g.Dispatch(ctx, canaryUser, ActionRequest{ID: "req-canary-1338", Tool: "region_move", Args: json.RawMessage(writeArgs)}); !res.OK {
					t.Fatalf("write: %+v", res)
				}
				if err := r.c.Close(); err != nil {
					t.Fatal(err)
				}
				checkHubFieldsOnly(t, r.w, level, map[string]string{"region_lookup": readArgs, "region_move": writeArgs}, canaries)
			})
		}
	}
}

// checkHubFieldsOnly asserts what TestServerReceivesOnlyTheHubsFields says
// of everything w received; calls are the arguments each tool must have
// been called with, once.
func checkHubFieldsOnly(t *testing.T, w *wireSpy, level mcp.LoggingLevel, calls map[string]string, canaries []string) {
	t.Helper()
	current := w.rc.revision >= ProtocolVersion
	var methods []string
	called := map[string]int{}
	for _, m := range w.parsed(t) {
		raw := m.raw.Raw
		if m.Method == "notifications/cancelled" {
			// Close cancels the subscriptions/listen call; whether the
			// notice arrives before the server's end is not the point.
			if keys := slices.Sorted(maps.Keys(m.Params)); !slices.Equal(keys, []string{"reason", "requestId"}) {
				t.Errorf("notifications/cancelled holds %q: %s", keys, raw)
			}
		} else {
			methods = append(methods, m.Method)
		}
		meta, hasMeta := m.Params["_meta"]
		switch {
		case strings.HasPrefix(m.Method, "notifications/"):
			if hasMeta {
				t.Errorf("a notification carries _meta: %s", raw)
			}
		case current || m.Method == "server/discover":
			// Under the previous revision, server/discover is the probe
			// for the current one, and carries its fields.
			if got := canonical(t, meta); got != hubMeta(level) {
				t.Errorf("%s: _meta %s, want %s", m.Method, got, hubMeta(level))
			}
		case hasMeta:
			t.Errorf("%s under %s carries _meta: %s", m.Method, w.rc.revision, raw)
		}
		switch m.Method {
		case "initialize":
			want := `{"capabilities":{},"clientInfo":{"name":"ocpgen-hub","version":"0.0.0"},"protocolVersion":"` + w.rc.revision + `"}`
			if got := canonical(t, raw[bytes.Index(raw, []byte(`"params":`))+len(`"params":`):len(raw)-1]); got != want {
				t.Errorf("initialize params %s, want %s", got, want)
			}
		case "tools/call":
			var name string
			_ = json.Unmarshal(m.Params["name"], &name)
			called[name]++
			keys := slices.Sorted(maps.Keys(m.Params))
			want := []string{"arguments", "name"}
			if current {
				want = []string{"_meta", "arguments", "name"}
			}
			if !slices.Equal(keys, want) {
				t.Errorf("tools/call params hold %q, want %q: %s", keys, want, raw)
			}
			if got := string(m.Params["arguments"]); got != calls[name] {
				t.Errorf("%s was called with arguments %s, want exactly %s", name, got, calls[name])
			}
		}
		for _, c := range canaries {
			if bytes.Contains(raw, []byte(c)) {
				t.Errorf("the server received %q: %s", c, raw)
			}
		}
	}
	for name, args := range calls {
		if called[name] != 1 {
			t.Errorf("%s called %d times, want once with %s", name, called[name], args)
		}
	}
	slices.Sort(methods)
	want := []string{"server/discover", "subscriptions/listen", "tools/call", "tools/call", "tools/list"}
	if !current {
		want = []string{"initialize", "notifications/initialized", "server/discover", "tools/call", "tools/call", "tools/list"}
		if level != "" {
			want = append(want, "logging/setLevel")
			slices.Sort(want)
		}
	}
	if !slices.Equal(methods, want) {
		t.Errorf("the server received %q, want %q", methods, want)
	}
	if w.rc.transport == "http" {
		checkHubHeadersOnly(t, w, calls, canaries)
	}
}

// checkHubHeadersOnly asserts the HTTP headers of every request w
// received: Go's own (Accept, Content-Type, ...) and the protocol's
// (Mcp-*), each with the value the revision says, and nothing else.
func checkHubHeadersOnly(t *testing.T, w *wireSpy, calls map[string]string, canaries []string) {
	t.Helper()
	current := w.rc.revision >= ProtocolVersion
	for _, m := range w.Received() {
		h := m.Header
		var msg parsedMsg
		if len(m.Raw) > 0 {
			_ = json.Unmarshal(m.Raw, &msg)
		}
		want := map[string]string{} // the Mcp-* headers, and their values
		switch {
		case msg.Method == "server/discover" || (current && msg.Method != ""):
			want["Mcp-Protocol-Version"] = ProtocolVersion
			want["Mcp-Method"] = msg.Method
		case msg.Method == "initialize":
		default: // the previous revision, once initialized: its session
			want["Mcp-Protocol-Version"] = w.rc.revision
			want["Mcp-Session-Id"] = h.Get("Mcp-Session-Id")
		}
		if current && msg.Method == "tools/call" {
			var name string
			_ = json.Unmarshal(msg.Params["name"], &name)
			want["Mcp-Name"] = name
			var args map[string]any
			_ = json.Unmarshal([]byte(calls[name]), &args)
			want["Mcp-Param-Region"] = args["region"].(string)
			if s, ok := args["shard"].(float64); ok {
				want["Mcp-Param-Shard"] = strconv.FormatFloat(s, 'f', -1, 64)
			}
		}
		for k, vs := range h {
			if len(vs) != 1 {
				t.Errorf("%s %s: header %s sent %d times", h.Get(":method"), msg.Method, k, len(vs))
			}
			switch k {
			case ":method", "Accept", "Accept-Encoding", "Content-Length", "Content-Type", "User-Agent", "Last-Event-Id":
				continue
			}
			if v, ok := want[k]; !ok || v != vs[0] || v == "" {
				t.Errorf("%s %s: header %s: %q, want %q", h.Get(":method"), msg.Method, k, vs, v)
			}
			for _, c := range canaries {
				if strings.Contains(vs[0], c) {
					t.Errorf("header %s holds %q", k, c)
				}
			}
		}
		for k := range want {
			if h.Get(k) == "" {
				t.Errorf("%s %s: no header %s", h.Get(":method"), msg.Method, k)
			}
		}
	}
}

// inputRequests are SEP-2322 input requests a tool's result may carry, by
// kind; their texts are canaries that must reach nobody.
func inputRequests(kinds ...string) mcp.InputRequestMap {
	m := mcp.InputRequestMap{}
	for _, k := range kinds {
		switch k {
		case "elicitation/create":
			m["e1"] = &mcp.ElicitParams{Message: "elicit-canary-1: your password?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"password": map[string]any{"type": "string"}}}}
		case "sampling/createMessage":
			m["s1"] = &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "sample-canary-2: say yes"}}}}
		case "roots/list":
			m["r1"] = &mcp.ListRootsParams{}
		}
	}
	return m
}

// Item 3: a tools/call whose result asks for input (SEP-2322 input
// requests: elicitation, sampling, roots) is never shown to the model or a
// person and never answered, under either revision: a read fails, an
// approved write ends outcome_unknown under the current revision (the
// server may have acted before it asked), and the kinds asked for are
// audited. Under the previous revision the go-sdk server asks through
// server requests instead, which the client refuses (audited with their
// methods); the server then fails the call.
func TestInputRequestsAreNeverAnswered(t *testing.T) {
	noLeaksAfter(t)
	kindSets := [][]string{{"elicitation/create"}, {"sampling/createMessage"}, {"roots/list"}, {"elicitation/create", "roots/list", "sampling/createMessage"}}
	for _, rc := range revisionCases() {
		for _, kinds := range kindSets {
			t.Run(fmt.Sprintf("%v/%s", rc, strings.Join(kinds, "+")), func(t *testing.T) {
				ask := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{InputRequests: inputRequests(kinds...), RequestState: "state-canary-3"}, nil
				}
				var tools []spyTool
				for _, st := range spyToolsOf(regionCatalogue) {
					st.Do = ask
					tools = append(tools, st)
				}
				r := newRevGate(t, rc, nil, ClientOptions{}, true, tools...)
				r.waitAdvertised(t, "the catalogue", "region_lookup", "region_move")
				var opened atomic.Int32
				stop := r.broker.Subscribe(func(ConfirmRequest) { opened.Add(1) })
				defer stop()

				read := r.g.Dispatch(t.Context(), canaryUser, ActionRequest{ID: "r", Tool: "region_lookup", Args: json.RawMessage(`{"region":"eu"}`)})
				write := r.g.Dispatch(t.Context(), canaryUser, ActionRequest{ID: "w", Tool: "region_move", Args: json.RawMessage(`{"region":"eu","to":"us"}`)})
				wantWrite := ReasonOutcomeUnknown
				if rc.revision < ProtocolVersion {
					wantWrite = ReasonFailed
				}
				if read.OK || read.Reason != ReasonFailed || !strings.HasPrefix(read.Error, RegionLookup.Desc.Policy.Failure+" (ref ") {
					t.Errorf("read: %+v, want failed with the tool's failure text", read)
				}
				if write.OK || write.Reason != wantWrite {
					t.Errorf("write: %+v, want %s", write, wantWrite)
				}
				if wantWrite == ReasonOutcomeUnknown && !strings.HasPrefix(write.Error, textInputRequired) {
					t.Errorf("write: %q, want the input-required text", write.Error)
				}
				for _, res := range []ActionResult{read, write} {
					b, _ := json.Marshal(res)
					for _, c := range []string{"canary", "password", "say yes"} {
						if bytes.Contains(b, []byte(c)) {
							t.Errorf("the result tells the model %q: %s", c, b)
						}
					}
				}
				// The only confirm a person saw is the write's own.
				if n := opened.Load(); n != 1 {
					t.Errorf("%d confirms opened, want the write's only", n)
				}
				// Never answered: no call was sent again with responses, and
				// nothing the client sent holds an answer or the server's state.
				for _, m := range r.w.parsed(t) {
					for _, c := range []string{"inputResponses", "requestState", "state-canary-3"} {
						if bytes.Contains(m.raw.Raw, []byte(c)) {
							t.Errorf("the client sent %q: %s", c, m.raw.Raw)
						}
					}
				}
				if n := len(r.w.Calls()); n != 2 {
					t.Errorf("the server handled %d calls, want 2 (one each, never retried)", n)
				}
				checkInputAudit(t, r, rc, kinds)
			})
		}
	}
}

// checkInputAudit asserts the audit of TestInputRequestsAreNeverAnswered:
// under the current revision each call's event names the kinds asked for.
// Under the previous one the go-sdk server asks for elicitation only of a
// client that declared the capability, so that one fails in the server
// (the call's event holds the server's error, which names it), and sends
// the others as requests, which the client refuses and audits with their
// methods; it gives up at the first refusal, so of several kinds some may
// never be sent.
func checkInputAudit(t *testing.T, r *revGate, rc revisionCase, kinds []string) {
	t.Helper()
	var ends []map[string]any
	for _, ev := range r.audit.events(t, "ocp.call") {
		if ev["outcome"] != "ok" {
			ends = append(ends, ev)
		}
	}
	if len(ends) != 2 {
		t.Fatalf("%d failed call events, want 2: %v", len(ends), ends)
	}
	if rc.revision >= ProtocolVersion {
		for _, ev := range ends {
			got, _ := json.Marshal(ev["input_requests"])
			want, _ := json.Marshal(kinds)
			if string(got) != string(want) {
				t.Errorf("%s: input_requests %s, want %s", ev["tool"], got, want)
			}
		}
		return
	}
	var refused []string
	for _, ev := range r.audit.events(t, "mcp server request refused") {
		refused = append(refused, ev["method"].(string))
	}
	slices.Sort(refused)
	switch k := kinds[0]; {
	case len(kinds) > 1:
		for _, m := range refused {
			if m == "elicitation/create" || !slices.Contains(kinds, m) {
				t.Errorf("refusal of %s audited, asked for %q", m, kinds)
			}
		}
	case k == "elicitation/create":
		for _, ev := range ends {
			if d, _ := ev["detail"].(string); !strings.Contains(d, "elicitation") || len(refused) != 0 {
				t.Errorf("%s: detail %q, refusals %q; want the server's error naming elicitation, and no request", ev["tool"], d, refused)
			}
		}
	default:
		if want := []string{k, k}; !slices.Equal(refused, want) { // the read's and the write's
			t.Errorf("refusals audited %q, want %q", refused, want)
		}
	}
}

// spyToolOf is the spy tool of a catalogue tool, listed with schema ("":
// the generated one).
func spyToolOf(tool *Tool, schema string) spyTool {
	if schema == "" {
		schema = tool.Desc.InputSchema
	}
	return spyTool{Name: tool.Desc.Name, Schema: schema}
}

// The schemas region_move's server may list instead of the generated one:
// its x-mcp-header annotation renamed, and gone. Both change what travels
// in HTTP headers, and both are drift of the fingerprinted input schema.
const (
	moveHeaderRenamed = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Zone"},"to":{"type":"string"}},"required":["region","to"],"additionalProperties":false}`
	moveHeaderGone    = `{"type":"object","properties":{"region":{"type":"string"},"to":{"type":"string"}},"required":["region","to"],"additionalProperties":false}`
)

// Item 4 (and the drift of item 5): under the current revision list
// changes arrive through subscriptions/listen (the periodic re-list is
// off here), and the gate re-advertises: a tool added, removed, and
// changed mid-session, where the change is the tool's x-mcp-header
// annotation, renamed or dropped: the tool is withdrawn, as for any change
// of its input schema, until the server lists the generated schema again.
func TestCatalogueChangesUnderCurrentRevision(t *testing.T) {
	noLeaksAfter(t)
	for _, tr := range transports {
		rc := revisionCase{ProtocolVersion, tr}
		t.Run(rc.String(), func(t *testing.T) {
			r := newRevGate(t, rc, nil, ClientOptions{RelistEvery: -1}, true, spyToolOf(RegionLookup, ""))
			r.waitAdvertised(t, "the first catalogue", "region_lookup")

			r.w.AddTool(spyToolOf(RegionMove, ""))
			r.waitAdvertised(t, "region_move, added", "region_lookup", "region_move")
			r.w.Server.RemoveTools("region_lookup")
			r.waitAdvertised(t, "region_lookup's removal", "region_move")
			for _, schema := range []string{moveHeaderRenamed, moveHeaderGone} {
				r.w.AddTool(spyToolOf(RegionMove, schema))
				r.waitAdvertised(t, "region_move withdrawn")
				ev := r.audit.events(t, "ocp.sync")
				if w, _ := json.Marshal(ev[len(ev)-1]["schema_changed_withdrawn"]); string(w) != `["region_move"]` {
					t.Errorf("the sync says %s withdrawn, want region_move", w)
				}
				r.w.AddTool(spyToolOf(RegionMove, ""))
				r.waitAdvertised(t, "region_move back", "region_move")
			}
			if res := r.g.Dispatch(t.Context(), canaryUser, ActionRequest{ID: "w", Tool: "region_move", Args: json.RawMessage(`{"region":"eu","to":"us"}`)}); !res.OK {
				t.Errorf("the write after the changes: %+v", res)
			}
			var listens []string
			for _, m := range r.w.parsed(t) {
				if m.Method == "subscriptions/listen" {
					listens = append(listens, string(m.Params["notifications"]))
				}
			}
			if !slices.Equal(listens, []string{`{"toolsListChanged":true}`}) {
				t.Errorf("subscriptions/listen requests: %q, want one for tools/list_changed", listens)
			}
		})
	}
}

// Item 4: a list result's cache TTL (SEP-2549) never serves a listing
// older than the re-list period. The server says its lists stay fresh an
// hour and changes a tool without notice (it declares no listChanged);
// Resync, and the periodic re-list, still see the change at once.
func TestListCacheNeverOutlivesRelist(t *testing.T) {
	noLeaksAfter(t)
	sopts := &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}},
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs = int(time.Hour / time.Millisecond) },
	}
	for _, tr := range transports {
		rc := revisionCase{ProtocolVersion, tr}
		t.Run(rc.String()+"/resync", func(t *testing.T) {
			r := newRevGate(t, rc, sopts, ClientOptions{RelistEvery: -1}, false)
			r.waitAdvertised(t, "the catalogue", "region_lookup", "region_move")
			r.w.AddTool(spyToolOf(RegionMove, moveHeaderRenamed)) // no notification
			if err := r.c.Resync(t.Context()); err != nil {
				t.Fatal(err)
			}
			if got := r.advertised(); !slices.Equal(got, []string{"region_lookup"}) {
				t.Errorf("after Resync advertised %v, want region_move withdrawn", got)
			}
		})
		t.Run(rc.String()+"/relist", func(t *testing.T) {
			r := newRevGate(t, rc, sopts, ClientOptions{RelistEvery: 10 * time.Millisecond}, false)
			r.waitAdvertised(t, "the catalogue", "region_lookup", "region_move")
			r.w.AddTool(spyToolOf(RegionMove, moveHeaderGone)) // no notification
			r.waitAdvertised(t, "region_move withdrawn by a re-list", "region_lookup")
		})
	}
}

// Item 5: a call whose argument the schema mirrors into an HTTP header
// (x-mcp-header) with a value no header can carry is refused as invalid,
// naming the rule and the pointer, before its confirm opens and before the
// server hears of it: under every revision and transport, so that a call's
// verdict does not depend on how the Hub reaches the server.
func TestHeaderValueRefusedBeforeTheConfirm(t *testing.T) {
	noLeaksAfter(t)
	for _, rc := range revisionCases() {
		t.Run(rc.String(), func(t *testing.T) {
			r := newRevGate(t, rc, nil, ClientOptions{}, true)
			r.waitAdvertised(t, "the catalogue", "region_lookup", "region_move")
			var opened atomic.Int32
			stop := r.broker.Subscribe(func(ConfirmRequest) { opened.Add(1) })
			defer stop()
			long := strings.Repeat("a", argengine.MaxParamHeaderBytes+1)
			for _, c := range []struct{ tool, args, pointer string }{
				{"region_move", `{"region":"` + long + `","to":"us"}`, "/region"},
				{"region_lookup", `{"region":"eu","shard":9007199254740992}`, "/shard"},
				{"region_lookup", `{"region":"eu","shard":-1e16}`, "/shard"},
			} {
				res := r.g.Dispatch(t.Context(), canaryUser, ActionRequest{ID: "h", Tool: c.tool, Args: json.RawMessage(c.args)})
				if res.OK || res.Reason != ReasonInvalid || res.Error != r.g.one().ruleText(argengine.RuleParamHeader, c.pointer) {
					t.Errorf("%s %.60s: %+v, want invalid by %s at %s", c.tool, c.args, res, argengine.RuleParamHeader, c.pointer)
				}
			}
			if n := opened.Load(); n != 0 {
				t.Errorf("%d confirms opened", n)
			}
			if calls := r.w.Calls(); len(calls) != 0 {
				t.Errorf("the server was called %d times", len(calls))
			}
			refusals := 0
			for _, ev := range r.audit.events(t, "ocp.args") {
				if ev["rule"] == string(argengine.RuleParamHeader) {
					refusals++
				}
			}
			if refusals != 3 {
				t.Errorf("%d refusals by %s audited, want 3", refusals, argengine.RuleParamHeader)
			}
			// The longest value a header may carry goes through, in the
			// header too on Streamable HTTP under the current revision.
			ok := strings.Repeat("a", argengine.MaxParamHeaderBytes)
			if res := r.g.Dispatch(t.Context(), canaryUser, ActionRequest{ID: "ok", Tool: "region_move", Args: json.RawMessage(`{"region":"` + ok + `","to":"us"}`)}); !res.OK {
				t.Errorf("a value of %d bytes: %+v", len(ok), res)
			}
		})
	}
}
