package ocp

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// A second generated package, for a "chat" server: its read_graph shares a
// name (not a schema or a type) with testCatalogue's, and post_message is a
// write that needs a scope testCatalogue's principals lack.

// ChatReadGraphArgs are the arguments of chat's read_graph.
type ChatReadGraphArgs struct {
	Read    `json:"-"`
	Channel string `json:"channel"`
}

var ChatReadGraph = &Tool{Args: (*ChatReadGraphArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "read_graph",
	Description: "Read a channel's message graph.",
	InputSchema: `{"type":"object","properties":{"channel":{"type":"string"}},"required":["channel"]}`,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor", Scopes: []string{"chat.read"},
		Resource: tpl("chat/{channel}"), Failure: "Could not read the channel.",
	},
})}

// ChatPostMessageArgs are the arguments of chat's post_message.
type ChatPostMessageArgs struct {
	Write   `json:"-"`
	Channel string `json:"channel"`
	Text    string `json:"text"`
}

var ChatPostMessage = &Tool{Args: (*ChatPostMessageArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "post_message",
	Description: "Post a message.",
	InputSchema: `{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}},"required":["channel","text"]}`,
	Policy: Policy{
		Kind: ocpimpl.KindWrite, Classified: true, Tier: "member", Scopes: []string{"chat.write"},
		Resource: tpl("chat/{channel}"), ConfirmPrompt: tpl("Post {text} to {channel}?"), ConfirmTTL: 2 * time.Minute,
		Failure: "Could not post the message.",
	},
})}

var chatCatalogue = NewCatalogue(testTiers, ChatPostMessage, ChatReadGraph)

// quiet discards a test's audit events.
var quiet = slog.New(slog.DiscardHandler)

var (
	// chatter may use both catalogues; chatPhone is chatter on another
	// channel, and memOnly a peer with testCatalogue's rights only.
	chatter   = Principal{ID: "u-carol", Tier: "member", Scopes: []string{"memory.read", "memory.write", "chat.read", "chat.write"}, Peer: "model-carol"}
	chatPhone = Principal{ID: "u-carol", Tier: "member", Scopes: []string{"memory.read", "memory.write", "chat.read", "chat.write"}, Peer: "phone-carol"}
	memOnly   = Principal{ID: "u-dave", Tier: "member", Scopes: []string{"memory.read", "memory.write"}, Peer: "desk-dave"}
)

// spyToolsOf returns a spy server's tools for every tool of c, listed with
// the generated schemas.
func spyToolsOf(c *Catalogue) []spyTool {
	var out []spyTool
	for _, h := range c.Tools() {
		out = append(out, spyTool{Name: h.Desc.Name, Schema: h.Desc.InputSchema})
	}
	return out
}

// muxServerSpy starts an in-process go-sdk spy server serving every tool of
// c and connects a Client to it (closed when the test ends).
func muxServerSpy(t *testing.T, c *Catalogue) (*spy, *Client) {
	t.Helper()
	srv, ct := newSpyServer(t, nil, spyToolsOf(c)...)
	cl, err := Connect(t.Context(), ct, ClientOptions{})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return srv, cl
}

// advRecorder records a Mux's advertisements.
type advRecorder struct {
	mu   sync.Mutex
	advs []ToolsAdvertise
	ch   chan struct{}
}

func newAdvRecorder() *advRecorder { return &advRecorder{ch: make(chan struct{}, 1)} }

func (r *advRecorder) record(a ToolsAdvertise) {
	r.mu.Lock()
	r.advs = append(r.advs, a)
	r.mu.Unlock()
	select {
	case r.ch <- struct{}{}:
	default:
	}
}

func (r *advRecorder) all() []ToolsAdvertise {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.advs)
}

// until waits for an advertisement whose names are want, and returns how
// many had been recorded before it.
func (r *advRecorder) until(t *testing.T, want ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	for {
		for i, a := range r.all() {
			if slices.Equal(advNames(a), want) {
				return i
			}
		}
		select {
		case <-r.ch:
		case <-ctx.Done():
			t.Fatalf("no advertisement of %v came; got %v", want, r.all())
		}
	}
}

// untilAfter is until for advertisements after the first n.
func (r *advRecorder) untilAfter(t *testing.T, n int, want ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), hangGuard)
	defer cancel()
	for {
		all := r.all()
		for i := n; i < len(all); i++ {
			if slices.Equal(advNames(all[i]), want) {
				return i
			}
		}
		select {
		case <-r.ch:
		case <-ctx.Done():
			t.Fatalf("no advertisement of %v came after the first %d; got %v", want, n, all)
		}
	}
}

func advNames(a ToolsAdvertise) []string {
	out := []string{}
	for _, td := range a.Tools {
		out = append(out, td.Name)
	}
	return out
}

// muxConfirms collects the confirms a Mux's Subscribe announces.
type muxConfirms struct {
	opened chan ConfirmRequest
	mu     sync.Mutex
	ended  map[string]int
	seen   map[string]int
}

func subscribeMux(t *testing.T, m *Gate) *muxConfirms {
	c := &muxConfirms{opened: make(chan ConfirmRequest, 64), ended: map[string]int{}, seen: map[string]int{}}
	stop := m.Subscribe(func(r ConfirmRequest) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.seen[r.ID]++
		c.opened <- r
	}, func(e ConfirmEnded) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.ended[e.ID]++
	})
	t.Cleanup(stop)
	return c
}

func (c *muxConfirms) counts(id string) (opened, ended int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[id], c.ended[id]
}

func TestMuxRefusesNamesThatWouldCollide(t *testing.T) {
	broker := newMemoryBroker()
	srv := func(name, prefix string, rename map[string]string, c *Catalogue) MuxServer {
		// The server never lists a tool: every collision below is among
		// tools that are not advertised, and still refused.
		return MuxServer{Name: name, Prefix: prefix, Rename: rename, Config: Config{Catalogue: c, Server: &spyCaller{}, ACL: AllowAllResources}}
	}
	for _, tc := range []struct {
		name    string
		servers []MuxServer
		want    []string // all in the error
	}{
		{"the same tool name on two servers", []MuxServer{srv("mem", "", nil, testCatalogue), srv("chat", "", nil, chatCatalogue)},
			[]string{`servers "mem" and "chat" would both expose a tool named "read_graph"`, "Prefix or a Rename"}},
		{"the same catalogue twice", []MuxServer{srv("a", "", nil, testCatalogue), srv("b", "", nil, testCatalogue)},
			[]string{`"create_note"`, `"delete_entities"`, `"get_note"`, `"read_graph"`}},
		{"a prefix that makes a name another server has", []MuxServer{srv("mem", "", map[string]string{"read_graph": "chat_read_graph"}, testCatalogue), srv("chat", "chat_", nil, chatCatalogue)},
			[]string{`servers "mem" and "chat" would both expose a tool named "chat_read_graph" ("mem"'s tool "read_graph", "chat"'s tool "read_graph")`}},
		{"a rename onto another server's name", []MuxServer{srv("mem", "m_", nil, testCatalogue), srv("chat", "", map[string]string{"post_message": "m_create_note"}, chatCatalogue)},
			[]string{`servers "mem" and "chat" would both expose a tool named "m_create_note" ("mem"'s tool "create_note", "chat"'s tool "post_message")`}},
		{"a rename onto the server's own tool", []MuxServer{srv("mem", "", map[string]string{"read_graph": "get_note"}, testCatalogue)},
			[]string{`server "mem": tools "get_note" and "read_graph" would both be exposed as "get_note"`}},
		{"a rename of no tool", []MuxServer{srv("mem", "", map[string]string{"read_grahp": "x"}, testCatalogue)},
			[]string{`server "mem": Rename names "read_grahp", which is not a tool of its catalogue`}},
		{"an invalid prefix", []MuxServer{srv("mem", "git hub/", nil, testCatalogue)},
			[]string{`tool "read_graph" would be exposed as "git hub/read_graph", which is not a valid tool name`}},
		{"an invalid rename", []MuxServer{srv("mem", "", map[string]string{"read_graph": ""}, testCatalogue)},
			[]string{`tool "read_graph" would be exposed as "", which is not a valid tool name`}},
		{"a name too long", []MuxServer{srv("mem", strings.Repeat("p", 120), nil, testCatalogue)},
			[]string{"not a valid tool name (1 to 128 bytes"}},
		{"no servers", nil, []string{"Servers is empty"}},
		{"no server name", []MuxServer{srv("", "", nil, testCatalogue)}, []string{`server 0: name ""`}},
		{"two servers of one name", []MuxServer{srv("mem", "", nil, testCatalogue), srv("mem", "x_", nil, testCatalogue)}, []string{`two servers are named "mem"`}},
		{"a server's own Advertise", []MuxServer{func() MuxServer {
			s := srv("mem", "", nil, testCatalogue)
			s.Config.Advertise = func(ToolsAdvertise) {}
			return s
		}()}, []string{`server "mem": Config.Advertise is set`}},
		{"a server's own broker", []MuxServer{func() MuxServer {
			s := srv("mem", "", nil, testCatalogue)
			s.Config.Broker = newMemoryBroker()
			return s
		}()}, []string{`server "mem": Config.Broker is not MuxConfig.Broker`}},
		{"one Server for two entries", func() []MuxServer {
			a, b := srv("a", "", nil, testCatalogue), srv("b", "b_", nil, testCatalogue)
			b.Config.Server = a.Config.Server
			return []MuxServer{a, b}
		}(), []string{`servers "a" and "b" have the same Config.Server`}},
		{"a gate error", []MuxServer{func() MuxServer {
			s := srv("mem", "", nil, testCatalogue)
			s.Config.ACL = nil
			return s
		}()}, []string{`server "mem": ocp gate: Config.ACL is nil`}},
	} {
		m, err := NewMux(MuxConfig{Servers: tc.servers, Broker: broker})
		if err == nil || m != nil {
			t.Errorf("%s: NewMux succeeded", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, w)
			}
		}
	}

	// The operator's choices resolve them.
	for _, servers := range [][]MuxServer{
		{srv("mem", "", nil, testCatalogue), srv("chat", "chat_", nil, chatCatalogue)},
		{srv("mem", "", nil, testCatalogue), srv("chat", "", map[string]string{"read_graph": "read_channel"}, chatCatalogue)},
		{srv("a", "a.", nil, testCatalogue), srv("b", "b-", map[string]string{"read_graph": "read_graph"}, testCatalogue)},
	} {
		if _, err := NewMux(MuxConfig{Servers: servers, Broker: broker}); err != nil {
			t.Errorf("NewMux(%s, %s): %v", servers[0].Name, servers[1].Name, err)
		}
	}
}

// A refused configuration registers no gate with any server: the Hub can
// fix it and use the same clients.
func TestMuxRefusalRegistersNothing(t *testing.T) {
	_, mem := muxServerSpy(t, testCatalogue)
	_, chat := muxServerSpy(t, chatCatalogue)
	_, err := NewMux(MuxConfig{Broker: newMemoryBroker(), Servers: []MuxServer{
		{Name: "mem", Config: Config{Catalogue: testCatalogue, Server: mem, ACL: AllowAllResources, Audit: quiet}},
		{Name: "chat", Config: Config{Catalogue: chatCatalogue, Server: chat, ACL: AllowAllResources, Audit: quiet}},
	}})
	if err == nil {
		t.Fatal("NewMux accepted two read_graph")
	}
	if _, err := NewMux(MuxConfig{Broker: newMemoryBroker(), Servers: []MuxServer{
		{Name: "mem", Config: Config{Catalogue: testCatalogue, Server: mem, ACL: AllowAllResources, Audit: quiet}},
		{Name: "chat", Prefix: "chat_", Config: Config{Catalogue: chatCatalogue, Server: chat, ACL: AllowAllResources, Audit: quiet}},
	}}); err != nil {
		t.Fatalf("NewMux after the refusal, with the same clients: %v", err)
	}
}

// muxHarness is a Mux over two in-process go-sdk servers: "mem" serving
// testCatalogue unprefixed and "chat" serving chatCatalogue with the
// prefix chat_.
type muxHarness struct {
	m         *Gate
	mem, chat *spy
	memC      *Client
	chatC     *Client
	broker    *memoryBroker
	advs      *advRecorder
	audit     *syncBuffer // the gates' audit log
	muxAudit  *syncBuffer
	confirms  *muxConfirms
}

var muxAllTools = []string{"chat_post_message", "chat_read_graph", "create_note", "delete_entities", "get_note", "read_graph"}

func newMuxHarness(t *testing.T, mod func(*MuxConfig)) *muxHarness {
	t.Helper()
	h := &muxHarness{broker: newMemoryBroker(), advs: newAdvRecorder(), audit: &syncBuffer{}, muxAudit: &syncBuffer{}}
	h.mem, h.memC = muxServerSpy(t, testCatalogue)
	h.chat, h.chatC = muxServerSpy(t, chatCatalogue)
	audit := slog.New(slog.NewJSONHandler(h.audit, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := MuxConfig{
		Broker:    h.broker,
		Advertise: h.advs.record,
		Audit:     slog.New(slog.NewJSONHandler(h.muxAudit, nil)),
		Servers: []MuxServer{
			{Name: "mem", Config: Config{Catalogue: testCatalogue, Server: h.memC, ACL: AllowAllResources, Audit: audit}},
			{Name: "chat", Prefix: "chat_", Config: Config{Catalogue: chatCatalogue, Server: h.chatC, ACL: AllowAllResources, Audit: audit}},
		},
	}
	if mod != nil {
		mod(&cfg)
	}
	m, err := NewMux(cfg)
	if err != nil {
		t.Fatalf("NewMux: %v", err)
	}
	h.m = m
	h.confirms = subscribeMux(t, m)
	return h
}

func TestMuxRoutesByExposedNameWithTheOriginalName(t *testing.T) {
	noLeaksAfter(t)
	h := newMuxHarness(t, func(c *MuxConfig) {
		c.Servers[0].Rename = map[string]string{"get_note": "mem_note"}
	})
	want := []string{"chat_post_message", "chat_read_graph", "create_note", "delete_entities", "mem_note", "read_graph"}
	h.advs.until(t, want...)
	if got := advNames(h.m.Advertisement()); !slices.Equal(got, want) {
		t.Fatalf("Advertisement() = %v, want %v", got, want)
	}
	// The merged advertisement carries each server's own schemas.
	for _, td := range h.m.Advertisement().Tools {
		switch td.Name {
		case "read_graph":
			if string(td.Input) != ReadGraph.Desc.InputSchema || td.Write {
				t.Errorf("read_graph advertised as %+v", td)
			}
		case "chat_read_graph":
			if string(td.Input) != ChatReadGraph.Desc.InputSchema || td.Write {
				t.Errorf("chat_read_graph advertised as %+v", td)
			}
		case "chat_post_message":
			if !td.Write {
				t.Errorf("chat_post_message advertised as a read")
			}
		}
	}
	ctx := t.Context()

	// Exact bytes, to the right server, under the server's own name.
	res := h.m.Dispatch(ctx, chatter, req("1", "read_graph", `{"query":"x","limit":5}`))
	if !res.OK {
		t.Fatalf("read_graph: %+v", res)
	}
	res = h.m.Dispatch(ctx, chatter, req("2", "chat_read_graph", `{"channel":"ops"}`))
	if !res.OK {
		t.Fatalf("chat_read_graph: %+v", res)
	}
	res = h.m.Dispatch(ctx, chatter, req("3", "mem_note", `{"id":"n1"}`))
	if !res.OK {
		t.Fatalf("mem_note: %+v", res)
	}
	if got := h.mem.Calls(); len(got) != 2 || got[0].Tool != "read_graph" || string(got[0].Args) != `{"query":"x","limit":5}` ||
		got[1].Tool != "get_note" || string(got[1].Args) != `{"id":"n1"}` {
		t.Errorf("mem server calls = %+v", got)
	}
	if got := h.chat.Calls(); len(got) != 1 || got[0].Tool != "read_graph" || string(got[0].Args) != `{"channel":"ops"}` {
		t.Errorf("chat server calls = %+v", got)
	}

	// Names no server exposes, including the generated name of a renamed
	// tool, the server-side name of a prefixed one and the arguments of one
	// server sent to the other's tool.
	for _, r := range []ActionRequest{
		req("4", "get_note", `{"id":"n1"}`),
		req("5", "post_message", `{"channel":"ops","text":"hi"}`),
		req("6", "chat_delete_entities", `{"entityNames":["a"]}`),
	} {
		wantRefused(t, h.m.Dispatch(ctx, chatter, r), ReasonUnknown)
	}
	wantRefused(t, h.m.Dispatch(ctx, chatter, req("7", "chat_read_graph", `{"query":"x"}`)), ReasonInvalid)
	if len(h.mem.Calls()) != 2 || len(h.chat.Calls()) != 1 {
		t.Fatalf("a refused call reached a server: %+v %+v", h.mem.Calls(), h.chat.Calls())
	}
	if e := h.muxAudit.events(t, "ocp.catalogue"); len(e) != 3 || e[0]["tool"] != "get_note" || e[0]["outcome"] != "unknown" {
		t.Errorf("mux audit of unknown names: %v", e)
	}

	// Typed calls go by argument type.
	if res := h.m.Call(ctx, chatter, ChatReadGraphArgs{Channel: "dev"}); !res.OK {
		t.Fatalf("Call(ChatReadGraphArgs): %+v", res)
	}
	note := "n2"
	if res := h.m.Call(ctx, chatter, &GetNoteArgs{ID: &note}); !res.OK {
		t.Fatalf("Call(GetNoteArgs): %+v", res)
	}
	if got := h.chat.Calls(); len(got) != 2 || got[1].Tool != "read_graph" || string(got[1].Args) != `{"channel":"dev"}` {
		t.Errorf("chat server calls = %+v", got)
	}
	if got := h.mem.Calls(); len(got) != 3 || got[2].Tool != "get_note" || string(got[2].Args) != `{"id":"n2"}` {
		t.Errorf("mem server calls = %+v", got)
	}

	// Every step of a routed call is audited with the server's name and
	// the exposed tool name.
	var seen bool
	for _, e := range h.audit.events(t, "ocp.call") {
		if e["call"] == "2" {
			seen = true
			if e["server"] != "chat" || e["tool"] != "chat_read_graph" {
				t.Errorf("audit of the chat call: %v", e)
			}
		}
		if e["server"] == nil {
			t.Errorf("a gate event of a Mux without its server: %v", e)
		}
	}
	if !seen {
		t.Error("no audit event of the chat call")
	}
	for _, e := range h.audit.events(t, "ocp.sync") {
		if e["server"] != "mem" && e["server"] != "chat" {
			t.Errorf("sync event without its server: %v", e)
		}
	}
}

// The same generated package fronting two servers: the exposed names tell
// them apart, and a typed call, which cannot, is refused.
func TestMuxSamePackageTwice(t *testing.T) {
	noLeaksAfter(t)
	_, a := muxServerSpy(t, testCatalogue)
	bs, b := muxServerSpy(t, testCatalogue)
	audit := &syncBuffer{}
	m, err := NewMux(MuxConfig{Broker: newMemoryBroker(), Audit: slog.New(slog.NewJSONHandler(audit, nil)), Servers: []MuxServer{
		{Name: "work", Config: Config{Catalogue: testCatalogue, Server: a, ACL: AllowAllResources, Audit: quiet}},
		{Name: "home", Prefix: "home_", Config: Config{Catalogue: testCatalogue, Server: b, ACL: AllowAllResources, Audit: quiet}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	id := "n1"
	res := m.Call(t.Context(), chatter, GetNoteArgs{ID: &id})
	wantRefused(t, res, ReasonUnknown)
	if e := audit.events(t, "ocp.catalogue"); len(e) != 1 || !strings.Contains(e[0]["detail"].(string), "work, home") {
		t.Errorf("audit of the ambiguous typed call: %v", e)
	}
	if res := m.Server("home").Call(t.Context(), chatter, GetNoteArgs{ID: &id}); !res.OK {
		t.Fatalf("Gate(home).Call: %+v", res)
	}
	if c := bs.Calls(); len(c) != 1 || c[0].Tool != "get_note" {
		t.Errorf("home server calls = %+v", c)
	}
	if m.Server("nowhere") != nil || m.Server("") != nil {
		t.Error("Gate of an unknown server")
	}
	// A server's own gate sees only its tools, under their exposed names.
	if res := m.Server("work").Dispatch(t.Context(), chatter, req("h", "home_get_note", `{"id":"n1"}`)); res.Reason != ReasonUnknown {
		t.Errorf("the work gate dispatched home's tool: %+v", res)
	}
	if res := m.Server("home").Dispatch(t.Context(), chatter, req("h", "home_get_note", `{"id":"n1"}`)); !res.OK {
		t.Errorf("the home gate: %+v", res)
	}
}

// A Hub holds one type whether it fronts one server or several: the Gate of
// NewGate is the Gate of its one server ("").
func TestOneGateTypeForOneOrSeveralServers(t *testing.T) {
	h := newHarness(t, true, nil)
	if h.g.Server("") != h.g || h.g.Server("mem") != nil {
		t.Error("NewGate's Gate is not the Gate of its server \"\"")
	}
	hubRead := func(g *Gate) ActionResult {
		return g.Dispatch(t.Context(), alice, req("r", "read_graph", `{}`))
	}
	if res := hubRead(h.g); !res.OK {
		t.Fatalf("one server: %+v", res)
	}
	_, c := muxServerSpy(t, testCatalogue)
	m, err := NewMux(MuxConfig{Broker: newMemoryBroker(), Audit: quiet, Servers: []MuxServer{
		{Name: "mem", Config: Config{Catalogue: testCatalogue, Server: c, ACL: AllowAllResources, Audit: quiet}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res := hubRead(m); !res.OK {
		t.Fatalf("a Mux: %+v", res)
	}
}

// openWrite dispatches a write asynchronously and returns its confirm.
func (h *muxHarness) openWrite(t *testing.T, id, tool, args string) (<-chan ActionResult, ConfirmRequest) {
	t.Helper()
	out := make(chan ActionResult, 1)
	go func() { out <- h.m.Dispatch(context.Background(), chatter, req(id, tool, args)) }()
	return out, awaitConfirm(t, h.confirms.opened, out)
}

func TestMuxServerChangeTouchesOnlyItsOwnTools(t *testing.T) {
	noLeaksAfter(t)
	h := newMuxHarness(t, nil)
	h.advs.until(t, muxAllTools...)
	memFP := h.m.Server("mem").one().fingerprint()

	memRes, memReq := h.openWrite(t, "w-mem", "delete_entities", `{"entityNames":["a"]}`)
	chatRes, chatReq := h.openWrite(t, "w-chat", "chat_post_message", `{"channel":"ops","text":"hi"}`)
	if memReq.Server != "mem" || memReq.Tool != "delete_entities" || chatReq.Server != "chat" || chatReq.Tool != "chat_post_message" {
		t.Fatalf("confirms %+v and %+v", memReq, chatReq)
	}
	n := len(h.advs.all())

	// chat's post_message drifts: its schema changes on the server.
	h.chat.AddTool(spyTool{Name: "post_message", Schema: `{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"},"as":{"type":"string"}}}`})
	withdrawn := []string{"chat_read_graph", "create_note", "delete_entities", "get_note", "read_graph"}
	n = h.advs.untilAfter(t, n, withdrawn...) + 1

	// Only the chat confirm is voided.
	if r := awaitResult(t, chatRes); r.OK || r.Reason != ReasonDenied || r.Error != textCatalogue {
		t.Fatalf("the chat write after its tool drifted: %+v", r)
	}
	pending, err := h.m.Pending(t.Context())
	if err != nil || len(pending) != 1 || pending[0].ID != memReq.ID {
		t.Fatalf("Pending() = %+v, %v; want the mem confirm alone", pending, err)
	}
	if fp := h.m.Server("mem").one().fingerprint(); fp != memFP {
		t.Errorf("the mem catalogue changed with chat's: %s → %s", memFP, fp)
	}
	// The others keep serving, chat's unchanged tool included.
	if r := h.m.Dispatch(t.Context(), chatter, req("r1", "read_graph", `{}`)); !r.OK {
		t.Fatalf("mem read after chat drifted: %+v", r)
	}
	if r := h.m.Dispatch(t.Context(), chatter, req("r2", "chat_read_graph", `{"channel":"ops"}`)); !r.OK {
		t.Fatalf("chat read after its other tool drifted: %+v", r)
	}
	wantRefused(t, h.m.Dispatch(t.Context(), chatter, req("r3", "chat_post_message", `{"channel":"ops","text":"hi"}`)), ReasonUnknown)
	// The mem confirm is still good.
	if err := h.m.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: memReq.ID, Approve: true, Digest: memReq.Digest}); err != nil {
		t.Fatalf("approving the mem confirm: %v", err)
	}
	if r := awaitResult(t, memRes); !r.OK {
		t.Fatalf("the approved mem write: %+v", r)
	}

	// chat's server goes away: all of chat's tools are withdrawn, no
	// other.
	_ = h.chat.Session.Close()
	h.advs.untilAfter(t, n, "create_note", "delete_entities", "get_note", "read_graph")
	if r := h.m.Dispatch(t.Context(), chatter, req("r4", "get_note", `{"id":"n1"}`)); !r.OK {
		t.Fatalf("mem read after chat went away: %+v", r)
	}
	wantRefused(t, h.m.Dispatch(t.Context(), chatter, req("r5", "chat_read_graph", `{"channel":"ops"}`)), ReasonUnknown)

	// No advertisement ever lacked a mem tool.
	for i, a := range h.advs.all() {
		names := advNames(a)
		if i > 0 && !(slices.Contains(names, "read_graph") && slices.Contains(names, "delete_entities") && slices.Contains(names, "create_note") && slices.Contains(names, "get_note")) {
			t.Errorf("advertisement %d withdrew a mem tool: %v", i, names)
		}
	}
	if got := h.chat.Calls(); len(got) != 1 || got[0].Tool != "read_graph" {
		t.Errorf("chat server calls = %+v: the voided write ran", got)
	}
	if got := h.mem.Calls(); len(got) != 3 || got[1].Tool != "delete_entities" {
		t.Errorf("mem server calls = %+v", got)
	}
}

// Two Hubs' muxes (or two replicas with different names for the same
// server) sharing a broker: the same call of the same tool by the same
// principal gets a different digest on each server, and neither can decide
// the other's confirm.
func TestMuxDigestCoversTheServer(t *testing.T) {
	noLeaksAfter(t)
	broker := newMemoryBroker()
	mux := func(name string) *Gate {
		_, c := muxServerSpy(t, testCatalogue)
		m, err := NewMux(MuxConfig{Broker: broker, Audit: quiet, Servers: []MuxServer{{Name: name, Config: Config{Catalogue: testCatalogue, Server: c, ACL: AllowAllResources, Audit: quiet}}}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	east, west := mux("east"), mux("west")
	eastC, westC := subscribeMux(t, east), subscribeMux(t, west)
	if east.Server("east").one().fingerprint() != west.Server("west").one().fingerprint() {
		t.Fatal("the two servers' catalogues differ; the test needs them equal")
	}
	args := `{"entityNames":["a"]}`
	eastRes := make(chan ActionResult, 1)
	westRes := make(chan ActionResult, 1)
	go func() { eastRes <- east.Dispatch(context.Background(), chatter, req("e", "delete_entities", args)) }()
	er := awaitConfirm(t, eastC.opened, eastRes)
	go func() { westRes <- west.Dispatch(context.Background(), chatter, req("w", "delete_entities", args)) }()
	wr := awaitConfirm(t, westC.opened, westRes)
	if er.Digest == wr.Digest {
		t.Fatalf("two servers, one tool, the same arguments and principal: one digest %s", er.Digest)
	}
	if er.Server != "east" || wr.Server != "west" || er.Tool != "delete_entities" {
		t.Fatalf("confirms %+v, %+v", er, wr)
	}
	if want := confirmDigest("east", east.Server("east").one().policy, "delete_entities", "delete_entities", []byte(args), chatter, east.Server("east").one().fingerprint()); er.Digest != want {
		t.Errorf("east digest %s, want %s", er.Digest, want)
	}
	// Each mux sees only its own server's confirms.
	if p, err := east.Pending(t.Context()); err != nil || len(p) != 1 || p[0].ID != er.ID {
		t.Errorf("east Pending() = %+v, %v", p, err)
	}
	// West may not decide east's confirm, nor may a lone gate on the same
	// broker.
	if err := west.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: er.ID, Approve: true, Digest: er.Digest}); !errors.Is(err, ErrConfirmForbidden) {
		t.Errorf("west deciding east's confirm: %v, want ErrConfirmForbidden", err)
	}
	lone, err := NewGate(Config{Catalogue: testCatalogue, Server: &spyCaller{}, ACL: AllowAllResources, Broker: broker, Audit: quiet})
	if err != nil {
		t.Fatal(err)
	}
	lone.one().syncCatalogue(liveOf(testCatalogue))
	if err := lone.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: er.ID, Approve: true, Digest: er.Digest}); !errors.Is(err, ErrConfirmForbidden) {
		t.Errorf("a lone gate deciding east's confirm: %v, want ErrConfirmForbidden", err)
	}
	if err := east.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: er.ID, Approve: false, Digest: er.Digest}); err != nil {
		t.Fatal(err)
	}
	if err := west.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: wr.ID, Approve: false, Digest: wr.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, eastRes), ReasonDenied)
	wantRefused(t, awaitResult(t, westRes), ReasonDenied)
}

func TestMuxResolveGoesToTheOwner(t *testing.T) {
	noLeaksAfter(t)
	var mu sync.Mutex
	asked := map[string][]string{} // server → tools its Approver was asked about
	approver := func(server string) func(context.Context, Principal, ConfirmRequest) error {
		return func(_ context.Context, _ Principal, r ConfirmRequest) error {
			mu.Lock()
			asked[server] = append(asked[server], r.Tool)
			mu.Unlock()
			return nil
		}
	}
	h := newMuxHarness(t, func(c *MuxConfig) {
		c.Servers[0].Config.Approver = approver("mem")
		c.Servers[1].Config.Approver = approver("chat")
	})
	h.advs.until(t, muxAllTools...)
	ctx := t.Context()
	chatRes, chatReq := h.openWrite(t, "w-chat", "chat_post_message", `{"channel":"ops","text":"hi"}`)
	memRes, memReq := h.openWrite(t, "w-mem", "delete_entities", `{"entityNames":["a"]}`)

	// The chat gate's approver rule applies to the chat confirm: memOnly,
	// who could approve a mem write, lacks chat.write.
	if err := h.m.Resolve(ctx, memOnly, ConfirmDecision{ID: chatReq.ID, Approve: true, Digest: chatReq.Digest}); !errors.Is(err, ErrConfirmForbidden) {
		t.Fatalf("memOnly approving the chat write: %v, want ErrConfirmForbidden", err)
	}
	if err := h.m.Resolve(ctx, memOnly, ConfirmDecision{ID: memReq.ID, Approve: true, Digest: memReq.Digest}); err != nil {
		t.Fatalf("memOnly approving the mem write: %v", err)
	}
	if r := awaitResult(t, memRes); !r.OK {
		t.Fatalf("approved mem write: %+v", r)
	}
	// Refusals as a gate's.
	for _, tc := range []struct {
		peer Principal
		d    ConfirmDecision
		want error
	}{
		{chatter, ConfirmDecision{ID: chatReq.ID, Approve: true, Digest: chatReq.Digest}, ErrConfirmSelf},
		{Principal{ID: "x", Tier: "member"}, ConfirmDecision{ID: chatReq.ID, Approve: true, Digest: chatReq.Digest}, ErrConfirmSelf},
		{chatPhone, ConfirmDecision{ID: chatReq.ID, Approve: true, Digest: memReq.Digest}, ErrConfirmDigest},
		{chatPhone, ConfirmDecision{ID: "nope", Approve: true, Digest: chatReq.Digest}, ErrConfirmNotPending},
		{chatPhone, ConfirmDecision{ID: memReq.ID, Approve: true, Digest: memReq.Digest}, ErrConfirmNotPending},
	} {
		if err := h.m.Resolve(ctx, tc.peer, tc.d); !errors.Is(err, tc.want) {
			t.Errorf("Resolve(%s, %s) = %v, want %v", tc.peer.Peer, tc.d.ID, err, tc.want)
		}
	}
	if err := h.m.Resolve(ctx, chatPhone, ConfirmDecision{ID: chatReq.ID, Approve: true, Digest: chatReq.Digest}); err != nil {
		t.Fatalf("chatPhone approving the chat write: %v", err)
	}
	if r := awaitResult(t, chatRes); !r.OK {
		t.Fatalf("approved chat write: %+v", r)
	}
	if got := h.chat.Calls(); len(got) != 1 || got[0].Tool != "post_message" || string(got[0].Args) != `{"channel":"ops","text":"hi"}` {
		t.Errorf("chat server calls = %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	// (The requester's own channel reaches the approver hook too: the
	// broker refuses it after.)
	if len(asked["mem"]) == 0 || len(asked["chat"]) == 0 || slices.ContainsFunc(asked["mem"], func(s string) bool { return s != "delete_entities" }) ||
		slices.ContainsFunc(asked["chat"], func(s string) bool { return s != "chat_post_message" }) {
		t.Errorf("approvers asked: %v", asked)
	}
}

func TestMuxSubscribeDeliversEachConfirmOnce(t *testing.T) {
	noLeaksAfter(t)
	h := newMuxHarness(t, nil)
	h.advs.until(t, muxAllTools...)
	// A lone gate on the same broker, fronting no server of the mux.
	lone, err := NewGate(Config{Catalogue: testCatalogue, Server: &spyCaller{}, ACL: AllowAllResources, Broker: h.broker, Audit: quiet})
	if err != nil {
		t.Fatal(err)
	}
	lone.one().syncCatalogue(liveOf(testCatalogue))
	loneRes := make(chan ActionResult, 1)
	loneOpened := make(chan ConfirmRequest, 1)
	stop := h.broker.Subscribe(func(r ConfirmRequest) {
		if r.Server == "" {
			loneOpened <- r
		}
	})
	go func() {
		loneRes <- lone.Dispatch(context.Background(), chatter, req("lone", "create_note", `{"title":"t"}`))
	}()
	loneReq := awaitConfirm(t, loneOpened, loneRes)
	stop()

	var ids []string
	for _, w := range []struct{ tool, args string }{
		{"delete_entities", `{"entityNames":["a"]}`},
		{"chat_post_message", `{"channel":"ops","text":"hi"}`},
		{"create_note", `{"title":"x"}`},
	} {
		res, r := h.openWrite(t, "w", w.tool, w.args)
		ids = append(ids, r.ID)
		if err := h.m.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: r.ID, Approve: false, Digest: r.Digest}); err != nil {
			t.Fatal(err)
		}
		wantRefused(t, awaitResult(t, res), ReasonDenied)
	}
	// The broker delivers a confirm's events before its Request returns.
	for _, id := range ids {
		if o, e := h.confirms.counts(id); o != 1 || e != 1 {
			t.Errorf("confirm %s: opened %d times, ended %d times; want once each", id, o, e)
		}
	}
	if o, _ := h.confirms.counts(loneReq.ID); o != 0 {
		t.Errorf("the mux announced a confirm of a server it does not front")
	}
	if p, err := h.m.Pending(t.Context()); err != nil || len(p) != 0 {
		t.Errorf("mux Pending() = %+v, %v; want none (the lone gate's is not its)", p, err)
	}
	if err := lone.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: loneReq.ID, Approve: false, Digest: loneReq.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, loneRes), ReasonDenied)
}

// A panicking Advertise does not take a sync down.
func TestMuxAdvertisePanicIsContained(t *testing.T) {
	noLeaksAfter(t)
	audit := &syncBuffer{}
	_, c := muxServerSpy(t, testCatalogue)
	m, err := NewMux(MuxConfig{Broker: newMemoryBroker(), Audit: slog.New(slog.NewJSONHandler(audit, nil)),
		Advertise: func(ToolsAdvertise) { panic("hub bug") },
		Servers:   []MuxServer{{Name: "mem", Config: Config{Catalogue: testCatalogue, Server: c, ACL: AllowAllResources, Audit: quiet}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := advNames(m.Advertisement()); len(got) != 4 {
		t.Fatalf("advertisement %v", got)
	}
	if e := audit.events(t, "ocp.panic"); len(e) == 0 || e[0]["in"] != "MuxConfig.Advertise" {
		t.Errorf("panic audit %v", e)
	}
}

// Advertise may read the Mux's advertisement: it is the one handed over.
func TestMuxAdvertiseMayReadTheAdvertisement(t *testing.T) {
	noLeaksAfter(t)
	srv, c := muxServerSpy(t, testCatalogue)
	var mp atomic.Pointer[Gate]
	same := make(chan bool, 16)
	m, err := NewMux(MuxConfig{Broker: newMemoryBroker(), Audit: quiet,
		Advertise: func(a ToolsAdvertise) {
			if m := mp.Load(); m != nil {
				same <- slices.Equal(advNames(m.Advertisement()), advNames(a))
			}
		},
		Servers: []MuxServer{{Name: "mem", Config: Config{Catalogue: testCatalogue, Server: c, ACL: AllowAllResources, Audit: quiet}}}})
	if err != nil {
		t.Fatal(err)
	}
	mp.Store(m)
	srv.Server.RemoveTools("read_graph")
	select {
	case ok := <-same:
		if !ok {
			t.Error("Advertisement() inside Advertise differs from its argument")
		}
	case <-time.After(hangGuard):
		t.Fatal("no advertisement after a tool was removed (Advertise calling Advertisement deadlocks?)")
	}
}

// lookupCounter counts the broker's Lookups.
type lookupCounter struct {
	*memoryBroker
	n atomic.Int64
}

func (b *lookupCounter) Lookup(ctx context.Context, id string) (ConfirmRequest, error) {
	b.n.Add(1)
	return b.memoryBroker.Lookup(ctx, id)
}

// A decision through the Mux looks its confirm up once: the Mux routes by
// the confirm it looked up, and the owning gate decides on that one.
func TestMuxResolveLooksUpOnce(t *testing.T) {
	noLeaksAfter(t)
	var counter *lookupCounter
	h := newMuxHarness(t, func(c *MuxConfig) {
		counter = &lookupCounter{memoryBroker: c.Broker.(*memoryBroker)}
		c.Broker = counter
	})
	h.advs.until(t, muxAllTools...)
	res, req := h.openWrite(t, "w-chat", "chat_post_message", `{"channel":"ops","text":"hi"}`)
	before := counter.n.Load()
	if err := h.m.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); err != nil {
		t.Fatal(err)
	}
	if r := awaitResult(t, res); !r.OK {
		t.Fatalf("approved chat write: %+v", r)
	}
	if n := counter.n.Load() - before; n != 1 {
		t.Errorf("Mux.Resolve looked the confirm up %d times, want 1", n)
	}
}
