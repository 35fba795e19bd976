package ocp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/internal/syncbuf"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine/argref"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/internal/testwait"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
	"go.uber.org/goleak"
)

// spyCaller records every call the gate makes to the "server".
type spyCaller struct {
	noWatch
	mu      sync.Mutex
	calls   []callRecord
	respond func(name string, args json.RawMessage) (*mcp.CallToolResult, error)
}

type callRecord struct {
	Name string
	Args string
}

func (s *spyCaller) CallTool(_ context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.calls = append(s.calls, callRecord{name, string(args)})
	respond := s.respond
	s.mu.Unlock()
	if respond != nil {
		return respond(name, args)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
}

func (s *spyCaller) Calls() []callRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// syncBuffer is the audit log of a test's gate.
type syncBuffer struct{ syncbuf.Buffer }

// events returns the audit events with the given message.
func (s *syncBuffer) events(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if m["msg"] == msg {
			out = append(out, m)
		}
	}
	return out
}

type harness struct {
	g      *Gate
	spy    *spyCaller
	broker *memoryBroker
	audit  *syncBuffer

	mu   sync.Mutex
	advs []ToolsAdvertise
}

func (h *harness) advertisements() []ToolsAdvertise {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.advs)
}

// liveOf is the listing of a server that lists every tool of c as
// generated (its name and input schema).
func liveOf(c *Catalogue) []LiveTool {
	var out []LiveTool
	for _, t := range c.Tools() {
		out = append(out, listed(&t.Desc))
	}
	return out
}

// listed is the LiveTool of a server that lists d's name and input schema.
func listed(d *Descriptor) LiveTool {
	return LiveTool{Tool: &mcp.Tool{Name: d.Name, InputSchema: json.RawMessage(d.InputSchema)}}
}

// otherTool is a LiveTool named name whose input schema, tagged by tag, is
// no generated tool's.
func otherTool(name, tag string) LiveTool {
	return LiveTool{Tool: &mcp.Tool{Name: name, InputSchema: otherSchema(tag)}}
}

// otherSchema is an input schema, tagged by tag, that no generated tool has.
func otherSchema(tag string) json.RawMessage {
	return json.RawMessage(`{"type":"object","x-other":"` + tag + `"}`)
}

// newHarness returns a gate over testCatalogue with a spy caller, a memory
// broker and AllowAllResources, synced with a server that lists every tool
// unchanged, unless mod changes the config or sync is false.
func newHarness(t *testing.T, sync bool, mod func(*Config)) *harness {
	t.Helper()
	h := &harness{spy: &spyCaller{}, broker: newMemoryBroker(), audit: &syncBuffer{}}
	t.Cleanup(func() { checkStageOutcomes(t, h.audit) })
	cfg := Config{
		Catalogue: testCatalogue,
		Server:    h.spy,
		ACL:       AllowAllResources,
		Broker:    h.broker,
		Audit:     slog.New(slog.NewJSONHandler(h.audit, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Advertise: func(a ToolsAdvertise) {
			h.mu.Lock()
			h.advs = append(h.advs, a)
			h.mu.Unlock()
		},
	}
	if mod != nil {
		mod(&cfg)
	}
	g, err := NewGate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.g = g
	if sync {
		g.one().syncCatalogue(liveOf(testCatalogue))
	}
	return h
}

var (
	alice = Principal{ID: "u-alice-7f3e", Tier: "member", Scopes: []string{"memory.read", "memory.write"}, Peer: "model-chan-91c2"}
	// alicePhone is the same person on another connection: a peer that may
	// confirm her writes.
	alicePhone = Principal{ID: "u-alice-7f3e", Tier: "member", Scopes: []string{"memory.read", "memory.write"}, Peer: "phone-44aa"}
	bob        = Principal{ID: "u-bob", Tier: "operator", Scopes: []string{"memory.read", "memory.write"}, Peer: "desk-bob"}
)

// autoDecide makes peer decide every confirm as soon as it is announced.
func autoDecide(t *testing.T, h *harness, peer Principal, approve bool) (stop func()) {
	return h.broker.Subscribe(func(r ConfirmRequest) {
		if err := h.g.Resolve(context.Background(), peer, ConfirmDecision{ID: r.ID, Approve: approve, Digest: r.Digest}); err != nil {
			t.Errorf("auto decide: %v", err)
		}
	})
}

// announced returns a channel of the confirms announced from now on.
func announced(h *harness) (<-chan ConfirmRequest, func()) {
	ch := make(chan ConfirmRequest, 64)
	stop := h.broker.Subscribe(func(r ConfirmRequest) { ch <- r })
	return ch, stop
}

func dispatchAsync(h *harness, p Principal, req ActionRequest) chan ActionResult {
	out := make(chan ActionResult, 1)
	go func() { out <- h.g.Dispatch(context.Background(), p, req) }()
	return out
}

// awaitResult returns the result of an asynchronous call (see
// dispatchAsync).
func awaitResult(t *testing.T, ch <-chan ActionResult) ActionResult {
	t.Helper()
	return testwait.Recv(t, ch, "the result of the call")
}

// awaitConfirm returns the next announcement on ch (a confirm, or a gate's
// event) of the write whose result arrives on res. A write that returns
// without an announcement fails the test at once, with its result;
// otherwise its result stays on res.
func awaitConfirm[E any](t *testing.T, ch <-chan E, res chan ActionResult) E {
	t.Helper()
	timer := time.NewTimer(testwait.Guard)
	defer timer.Stop()
	select {
	case e := <-ch:
		return e
	case r := <-res:
		select {
		case e := <-ch: // announced, then ended (a short TTL) before this looked
			res <- r
			return e
		default:
		}
		t.Fatalf("the write returned without announcing a confirm: ok %v, reason %q, output %s", r.OK, r.Reason, r.Output)
	case <-timer.C:
		t.Fatalf("waited %v for a confirm to be announced: it never came", testwait.Guard)
	}
	panic("unreachable")
}

func req(id, tool, args string) ActionRequest {
	return ActionRequest{ID: id, Tool: tool, Args: json.RawMessage(args)}
}

func wantRefused(t *testing.T, res ActionResult, r Reason) {
	t.Helper()
	if res.OK || res.Reason != r || res.Error == "" || res.Output != nil {
		t.Fatalf("result = %+v, want refused with %q", res, r)
	}
}

func wantNoCalls(t *testing.T, h *harness) {
	t.Helper()
	if c := h.spy.Calls(); len(c) != 0 {
		t.Fatalf("server was called: %+v", c)
	}
}

func TestNewGateConfig(t *testing.T) {
	base := Config{Catalogue: testCatalogue, Server: &spyCaller{}, ACL: AllowAllResources, Broker: newMemoryBroker()}
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no catalogue", func(c *Config) { c.Catalogue = nil }, "Catalogue"},
		{"no caller", func(c *Config) { c.Server = nil }, "Server"},
		{"no ACL: no implicit allow-all", func(c *Config) { c.ACL = nil }, "AllowAllResources"},
		{"writes without a broker", func(c *Config) { c.Broker = nil }, "Broker"},
		{"bad schema", func(c *Config) {
			d := DeleteEntities.Desc
			d.Name, d.InputSchema = "bad", `{"type":"object","properties":{"x":{"$ref":"https://example.com/remote.json"}}}`
			c.Catalogue = NewCatalogue(testTiers, &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: d})
		}, `"bad"`},
		{"unknown policy tier", func(c *Config) {
			d := DeleteEntities.Desc
			d.Policy.Tier = "superuser"
			c.Catalogue = NewCatalogue(testTiers, &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: d})
		}, "superuser"},
	} {
		cfg := base
		tc.mod(&cfg)
		g, err := NewGate(cfg)
		if err == nil || g != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: gate %v, err %v; want error mentioning %q", tc.name, g, err, tc.want)
		}
	}
	// A catalogue of reads needs no broker.
	cfg := base
	cfg.Broker = nil
	cfg.Catalogue = NewCatalogue(testTiers, ReadGraph)
	if _, err := NewGate(cfg); err != nil {
		t.Errorf("reads only, no broker: %v", err)
	}
}

func TestNothingAdvertisedBeforeSync(t *testing.T) {
	h := newHarness(t, false, nil)
	if a := h.g.Advertisement(); len(a.Tools) != 0 {
		t.Fatalf("advertised before sync: %+v", a)
	}
	wantRefused(t, h.g.Dispatch(context.Background(), alice, req("1", "read_graph", `{}`)), ReasonUnknown)
	wantNoCalls(t, h)
	if h.g.one().fingerprint() != "" {
		t.Error("fingerprint before sync")
	}
}

func TestReadHappyPathForwardsExactlyTheArgs(t *testing.T) {
	h := newHarness(t, true, nil)
	res := h.g.Dispatch(context.Background(), alice, req("r1", "read_graph", `{"query":"x","limit":5}`))
	if !res.OK || res.ID != "r1" || string(res.Output) != `[{"type":"text","text":"done"}]` {
		t.Fatalf("result = %+v (%s)", res, res.Output)
	}
	calls := h.spy.Calls()
	if len(calls) != 1 || calls[0] != (callRecord{"read_graph", `{"query":"x","limit":5}`}) {
		t.Fatalf("calls = %+v", calls)
	}
	// One event per stage, each naming the call.
	for _, ev := range []string{"ocp.catalogue", "ocp.rights", "ocp.args", "ocp.acl", "ocp.call"} {
		e := h.audit.events(t, ev)
		if len(e) != 1 || e[0]["call"] != "r1" || e[0]["outcome"] != "ok" || e[0]["principal"] != alice.ID {
			t.Errorf("%s events = %v", ev, e)
		}
	}
	if e := h.audit.events(t, "ocp.confirm"); len(e) != 0 {
		t.Errorf("a read was confirmed: %v", e)
	}
}

func TestArgumentsInvalid(t *testing.T) {
	h := newHarness(t, true, nil)
	// Were a check to let a write through, the approval makes it reach the
	// spy at once (and fail the test) instead of waiting for expiry.
	stop := autoDecide(t, h, alicePhone, true)
	defer stop()
	for _, tc := range []struct{ name, tool, args string }{
		{"absent", "read_graph", ``},
		{"null", "read_graph", `null`},
		{"array", "read_graph", `[]`},
		{"string", "read_graph", `"x"`},
		{"not JSON", "read_graph", `{"query":`},
		{"trailing data", "read_graph", `{} {}`},
		{"undeclared key, even with additionalProperties:true", "read_graph", `{"query":"x","_meta":{"session":"s"}}`},
		{"undeclared principal smuggled", "delete_entities", `{"entityNames":["a"],"principal":"admin"}`},
		{"case-folded key", "delete_entities", `{"EntityNames":["a"]}`},
		{"both cases", "delete_entities", `{"entityNames":["a"],"EntityNames":["b"]}`},
		{"duplicate key", "delete_entities", `{"entityNames":["a"],"entityNames":["b"]}`},
		{"duplicate nested key", "create_note", `{"title":"t","meta":{"color":"red","color":"blue"}}`},
		{"nested undeclared key", "create_note", `{"title":"t","meta":{"color":"red","owner":"x"}}`},
		{"nested case-folded key", "create_note", `{"title":"t","meta":{"Color":"red"}}`},
		{"missing required", "delete_entities", `{}`},
		{"wrong type", "delete_entities", `{"entityNames":"a"}`},
		{"schema constraint", "read_graph", `{"limit":0}`},
		{"integer as float", "read_graph", `{"limit":1.5}`},
		{"precision lost", "read_graph", `{"minScore":0.10000000000000000000001}`},
		{"explicit null for optional non-nullable", "read_graph", `{"query":null}`},
		{"invalid UTF-8", "read_graph", "{\"query\":\"\xff\"}"},
		{"too deep", "create_note", `{"title":"t","body":` + strings.Repeat("[", 10002) + strings.Repeat("]", 10002) + `}`},
	} {
		res := h.g.Dispatch(context.Background(), alice, req("i", tc.tool, tc.args))
		if res.OK || res.Reason != ReasonInvalid {
			t.Errorf("%s: %+v, want invalid", tc.name, res)
		}
	}
	wantNoCalls(t, h)
	if n, m := len(h.audit.events(t, "ocp.args")), len(h.audit.events(t, "ocp.acl")); n == 0 || m != 0 {
		t.Errorf("args events %d, acl events %d", n, m)
	}
}

// The gate forwards only the schema's properties, even when the generated
// struct (out of step with the schema, say) would take more.
func TestUndeclaredKeyRejectedEvenIfTheStructTakesIt(t *testing.T) {
	d := ReadGraph.Desc
	d.InputSchema = `{"additionalProperties":true,"properties":{"query":{"type":"string"}},"type":"object"}`
	d.Fingerprint = Fingerprint([]byte(d.InputSchema))
	c := NewCatalogue(testTiers, &Tool{Args: (*ReadGraphArgs)(nil), Desc: d})
	h := newHarness(t, false, func(cfg *Config) { cfg.Catalogue = c })
	h.g.one().syncCatalogue(liveOf(c))
	wantRefused(t, h.g.Dispatch(context.Background(), alice, req("x", "read_graph", `{"query":"q","limit":3}`)), ReasonInvalid)
	wantNoCalls(t, h)
	if res := h.g.Dispatch(context.Background(), alice, req("y", "read_graph", `{"query":"q"}`)); !res.OK {
		t.Fatalf("%+v", res)
	}
}

func TestArgumentsNumbersCompareNumerically(t *testing.T) {
	h := newHarness(t, true, nil)
	for _, tc := range []struct{ args, forwarded string }{
		{`{"minScore":1.0}`, `{"minScore":1}`},
		{`{"minScore":1e2}`, `{"minScore":100}`},
		{` { "limit" : 3 } `, `{"limit":3}`},
	} {
		if res := h.g.Dispatch(context.Background(), alice, req("n", "read_graph", tc.args)); !res.OK {
			t.Fatalf("%s: %+v", tc.args, res)
		}
		calls := h.spy.Calls()
		if got := calls[len(calls)-1].Args; got != tc.forwarded {
			t.Errorf("%s forwarded as %s, want %s", tc.args, got, tc.forwarded)
		}
	}
}

func TestAuthorization(t *testing.T) {
	var aclPanics bool
	var seenResources [][]string
	var mu sync.Mutex
	acl := ACL(func(_ context.Context, p Principal, tool *Descriptor, resources []string) error {
		mu.Lock()
		defer mu.Unlock()
		seenResources = append(seenResources, resources)
		// A copy: changing it must not weaken the gate.
		tool.Policy.Tier = "anonymous"
		for i := range tool.Policy.Scopes {
			tool.Policy.Scopes[i] = "memory.read"
		}
		if aclPanics {
			panic("acl bug")
		}
		if slices.Contains(resources, "graph/secret") {
			return errors.New("resource graph/secret belongs to another tenant")
		}
		return nil
	})
	h := newHarness(t, true, func(c *Config) { c.ACL = acl })
	// A forbidden call must not reach the confirm. One that does is denied
	// at once, through the broker (which the gate's decider checks would
	// refuse here), so that the test fails on it without waiting its TTL.
	denyAll := h.broker.Subscribe(func(r ConfirmRequest) {
		_ = h.broker.Resolve(context.Background(), bob, ConfirmDecision{ID: r.ID, Digest: r.Digest})
	})

	for _, tc := range []struct {
		name string
		p    Principal
		r    ActionRequest
	}{
		{"tier too low", Principal{ID: "v", Tier: "visitor", Scopes: []string{"memory.write"}, Peer: "x"}, req("a", "delete_entities", `{"entityNames":["a"]}`)},
		{"unknown tier", Principal{ID: "v", Tier: "root", Scopes: []string{"memory.write"}, Peer: "x"}, req("a", "delete_entities", `{"entityNames":["a"]}`)},
		{"empty tier", Principal{ID: "v", Scopes: []string{"memory.read"}, Peer: "x"}, req("a", "read_graph", `{}`)},
		{"missing scope", Principal{ID: "v", Tier: "admin", Scopes: []string{"memory.read"}, Peer: "x"}, req("a", "delete_entities", `{"entityNames":["a"]}`)},
		{"ACL refuses one of the resources", alice, req("a", "delete_entities", `{"entityNames":["a","secret"]}`)},
		{"resource argument absent", alice, req("a", "get_note", `{}`)},
		{"resource array empty", alice, req("a", "delete_entities", `{"entityNames":[]}`)},
	} {
		wantRefused(t, h.g.Dispatch(context.Background(), tc.p, tc.r), ReasonForbidden)
	}
	wantNoCalls(t, h)
	if e := h.audit.events(t, "ocp.confirm"); len(e) != 0 {
		t.Fatalf("a forbidden call reached the confirm: %v", e)
	}
	// The ACL saw one resource per element, escaped.
	mu.Lock()
	if !slices.ContainsFunc(seenResources, func(r []string) bool { return slices.Equal(r, []string{"graph/a", "graph/secret"}) }) {
		t.Errorf("resources seen: %v", seenResources)
	}
	mu.Unlock()

	// The hook's changes to its copy of the descriptor changed nothing.
	wantRefused(t, h.g.Dispatch(context.Background(), Principal{ID: "anon", Tier: "anonymous", Scopes: []string{"memory.write"}, Peer: "x"}, req("a", "delete_entities", `{"entityNames":["a"]}`)), ReasonForbidden)
	wantRefused(t, h.g.Dispatch(context.Background(), Principal{ID: "reader", Tier: "admin", Scopes: []string{"memory.read"}, Peer: "x"}, req("a", "delete_entities", `{"entityNames":["a"]}`)), ReasonForbidden)

	// A panicking hook forbids; the gate survives and audits it.
	mu.Lock()
	aclPanics = true
	mu.Unlock()
	wantRefused(t, h.g.Dispatch(context.Background(), alice, req("p", "read_graph", `{}`)), ReasonForbidden)
	if e := h.audit.events(t, "ocp.panic"); len(e) != 1 || !strings.Contains(fmt.Sprint(e[0]["detail"]), "acl bug") {
		t.Fatalf("panic events = %v", e)
	}
	wantNoCalls(t, h)

	mu.Lock()
	aclPanics = false
	mu.Unlock()
	denyAll()
	defer autoDecide(t, h, alicePhone, true)()
	if res := h.g.Dispatch(context.Background(), alice, req("ok", "delete_entities", `{"entityNames":["a","b"]}`)); !res.OK {
		t.Fatalf("allowed write: %+v", res)
	}
	if c := h.spy.Calls(); len(c) != 1 || c[0].Args != `{"entityNames":["a","b"]}` {
		t.Fatalf("calls = %+v", c)
	}
}

func TestWriteApprovedByAnotherPeer(t *testing.T) {
	h := newHarness(t, true, nil)
	ch, stop := announced(h)
	defer stop()
	res := dispatchAsync(h, alice, req("w1", "delete_entities", `{"entityNames":["a","b"]}`))
	cr := awaitConfirm(t, ch, res)
	if cr.Tool != "delete_entities" || cr.Prompt != `Delete ["a","b"]?` || cr.Requester != alice.ID || string(cr.Args) != `{"entityNames":["a","b"]}` || len(cr.ID) < 22 {
		t.Fatalf("confirm request = %+v", cr)
	}
	if want := confirmDigest("", h.g.one().policy, "delete_entities", "delete_entities", []byte(`{"entityNames":["a","b"]}`), alice, h.g.one().fingerprint()); cr.Digest != want {
		t.Fatalf("digest %s, want %s", cr.Digest, want)
	}
	if d := cr.Expires.Sub(time.Now()); d <= 0 || d > 2*time.Minute {
		t.Fatalf("expires in %v", d)
	}
	// Nothing reaches the server while the confirm is pending: the pending
	// write is visible to a peer that connects late, and no call is made.
	if p, _ := h.broker.Pending(context.Background()); len(p) != 1 || p[0].ID != cr.ID {
		t.Fatalf("pending = %+v", p)
	}
	wantNoCalls(t, h)
	if err := h.g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	r := awaitResult(t, res)
	if !r.OK || r.ID != "w1" {
		t.Fatalf("result = %+v", r)
	}
	if c := h.spy.Calls(); len(c) != 1 || c[0] != (callRecord{"delete_entities", `{"entityNames":["a","b"]}`}) {
		t.Fatalf("calls = %+v", c)
	}
	if e := h.audit.events(t, "ocp.reauthorize"); len(e) != 1 || e[0]["call"] != "w1" {
		t.Errorf("reauthorize events = %v", e)
	}
	// The confirm is audited when it opens and when it ends.
	e := h.audit.events(t, "ocp.confirm")
	if len(e) != 2 || e[0]["call"] != "w1" || e[0]["outcome"] != "opened" || e[1]["outcome"] != "approved" || e[1]["by_peer"] != alicePhone.Peer {
		t.Errorf("confirm events = %v", e)
	}
}

// N random writes whose confirms are denied, expire or are cancelled: the
// server is never called and every result is a denial.
func TestWritesNotApprovedNeverReachTheServer(t *testing.T) {
	defer goleak.VerifyNone(t)
	const n = 60
	// delete_entities expires quickly; create_note waits long enough that a
	// denial or cancellation always comes first.
	d := DeleteEntities.Desc
	d.Policy.ConfirmTTL = 50 * time.Millisecond
	c := NewCatalogue(testTiers, &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: d}, CreateNote)
	h := newHarness(t, false, func(cfg *Config) { cfg.Catalogue = c })
	h.g.one().syncCatalogue(liveOf(c))
	ch, stop := announced(h)
	defer stop()
	rng := rand.New(rand.NewPCG(1, 2))

	type pending struct {
		mode   string
		res    <-chan ActionResult
		cancel context.CancelFunc
	}
	var all []pending
	for i := range n {
		mode := []string{"deny", "expire", "cancel"}[rng.IntN(3)]
		ctx, cancel := context.WithCancel(context.Background())
		r := req(fmt.Sprint(i), "create_note", fmt.Sprintf(`{"title":"t%d","body":"%x"}`, i, rng.Uint64()))
		if mode == "expire" {
			r = req(fmt.Sprint(i), "delete_entities", fmt.Sprintf(`{"entityNames":["e%d","%x"]}`, i, rng.Uint64()))
		}
		out := make(chan ActionResult, 1)
		go func() { out <- h.g.Dispatch(ctx, alice, r) }()
		cr := awaitConfirm(t, ch, out)
		switch mode {
		case "deny":
			if err := h.g.Resolve(context.Background(), bob, ConfirmDecision{ID: cr.ID, Approve: false, Digest: cr.Digest}); err != nil {
				t.Fatal(err)
			}
		case "cancel":
			cancel()
		}
		all = append(all, pending{mode, out, cancel})
	}
	texts := map[string]string{}
	for _, p := range all {
		r := awaitResult(t, p.res)
		p.cancel()
		wantRefused(t, r, ReasonDenied)
		if strings.Contains(strings.ToLower(r.Error), "success") || !strings.HasPrefix(r.Error, "Not performed") {
			t.Errorf("denial text %q could read as success", r.Error)
		}
		if prev, ok := texts[p.mode]; ok && prev != r.Error {
			t.Errorf("%s: texts %q and %q", p.mode, prev, r.Error)
		}
		texts[p.mode] = r.Error
	}
	if len(texts) != 3 || texts["deny"] == texts["expire"] || texts["expire"] == texts["cancel"] || texts["deny"] == texts["cancel"] {
		t.Errorf("denial texts do not tell the cases apart: %v", texts)
	}
	wantNoCalls(t, h)
	if p, _ := h.broker.Pending(context.Background()); len(p) != 0 {
		t.Fatalf("left pending: %+v", p)
	}
}

func TestUnclassifiedToolNeedsConfirm(t *testing.T) {
	h := newHarness(t, true, nil)
	adv := h.g.Advertisement()
	i := slices.IndexFunc(adv.Tools, func(d ToolDef) bool { return d.Name == "create_note" })
	if i < 0 || !adv.Tools[i].Write {
		t.Fatalf("create_note advertised as %+v", adv.Tools)
	}
	ch, stop := announced(h)
	defer stop()
	res := dispatchAsync(h, alice, req("n", "create_note", `{"title":"hello","body":null}`))
	cr := awaitConfirm(t, ch, res)
	wantNoCalls(t, h)
	if cr.Prompt != `Run create_note with title "hello"?` {
		t.Errorf("prompt %q", cr.Prompt)
	}
	if err := h.g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	if r := awaitResult(t, res); !r.OK {
		t.Fatalf("%+v", r)
	}
	// An explicit null reaches the server as null.
	if c := h.spy.Calls(); len(c) != 1 || c[0].Args != `{"title":"hello","body":null}` {
		t.Fatalf("calls = %+v", c)
	}
	// create_note is advertised as a write, and a read-kind descriptor the
	// classification does not list (which the generator never emits:
	// unclassified means write) is refused rather than served.
	if adv := h.g.Advertisement(); !slices.ContainsFunc(adv.Tools, func(d ToolDef) bool { return d.Name == "create_note" && d.Write }) {
		t.Errorf("unclassified tool not advertised as a write: %+v", adv)
	}
	d := ReadGraph.Desc
	d.Policy.Classified = false
	c := rawCatalogue(testTiers, &Tool{Args: (*ReadGraphArgs)(nil), Desc: d})
	if _, err := NewGate(Config{Catalogue: c, Server: &spyCaller{}, ACL: AllowAllResources, Broker: newMemoryBroker()}); err == nil || !strings.Contains(err.Error(), "unclassified tool must be a write") {
		t.Errorf("unclassified read served: %v", err)
	}
}

// Forged, replayed, mismatched and late decisions never lead to a call.
func TestForgedDecisionsAreRefused(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := newHarness(t, true, nil)
	ch, stop := announced(h)
	defer stop()
	ctx := context.Background()

	res := dispatchAsync(h, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
	cr := awaitConfirm(t, ch, res)
	for _, tc := range []struct {
		name string
		peer Principal
		d    ConfirmDecision
		want error
	}{
		{"the model's own channel", Principal{ID: alice.ID, Tier: "admin", Scopes: alice.Scopes, Peer: alice.Peer}, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}, ErrConfirmSelf},
		{"a different digest", alicePhone, ConfirmDecision{ID: cr.ID, Approve: true, Digest: confirmDigest("", h.g.one().policy, "delete_entities", "delete_entities", []byte(`{"entityNames":["b"]}`), alice, h.g.one().fingerprint())}, ErrConfirmDigest},
		{"an unknown id", alicePhone, ConfirmDecision{ID: "AAAAAAAAAAAAAAAAAAAAAAAAAA", Approve: true, Digest: cr.Digest}, ErrConfirmNotPending},
	} {
		if err := h.g.Resolve(ctx, tc.peer, tc.d); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	wantNoCalls(t, h)
	if e := h.audit.events(t, "ocp.decision"); len(e) != 3 || e[0]["outcome"] != "refused" {
		t.Errorf("decision events = %v", e)
	}
	// Still pending: a real peer's denial is what ends it.
	if err := h.g.Resolve(ctx, alicePhone, ConfirmDecision{ID: cr.ID, Approve: false, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, res), ReasonDenied)
	// Replays of an ended confirm are refused, approvals included.
	if err := h.g.Resolve(ctx, alicePhone, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); !errors.Is(err, ErrConfirmNotPending) {
		t.Errorf("replay: %v", err)
	}
	wantNoCalls(t, h)
}

func TestExpiredConfirmCannotBeApproved(t *testing.T) {
	d := DeleteEntities.Desc
	d.Policy.ConfirmTTL = 50 * time.Millisecond
	c := NewCatalogue(testTiers, &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: d})
	h := newHarness(t, false, func(cfg *Config) { cfg.Catalogue = c })
	h.g.one().syncCatalogue(liveOf(c))
	ch, stop := announced(h)
	defer stop()
	res := dispatchAsync(h, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
	cr := awaitConfirm(t, ch, res)
	r := awaitResult(t, res)
	wantRefused(t, r, ReasonDenied)
	if err := h.g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); !errors.Is(err, ErrConfirmNotPending) {
		t.Errorf("approval of an expired confirm: %v", err)
	}
	wantNoCalls(t, h)
	if e := h.audit.events(t, "ocp.confirm"); len(e) != 2 || e[0]["outcome"] != "opened" || e[1]["outcome"] != "expired" {
		t.Errorf("confirm events = %v", e)
	}
}

func TestRightsRevokedWhilePending(t *testing.T) {
	t.Run("Reauthorize hook", func(t *testing.T) {
		var mu sync.Mutex
		revoked := false
		h := newHarness(t, true, func(c *Config) {
			c.Reauthorize = func(_ context.Context, p Principal) (Principal, error) {
				mu.Lock()
				defer mu.Unlock()
				if revoked && p.ID == alice.ID {
					p.Scopes = []string{"memory.read"}
				}
				return p, nil
			}
		})
		ch, stop := announced(h)
		defer stop()
		res := dispatchAsync(h, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
		cr := awaitConfirm(t, ch, res)
		mu.Lock()
		revoked = true
		mu.Unlock()
		// Bob keeps his rights, so his approval is accepted; alice's are
		// re-derived after it.
		if err := h.g.Resolve(context.Background(), bob, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); err != nil {
			t.Fatal(err)
		}
		wantRefused(t, awaitResult(t, res), ReasonForbidden)
		wantNoCalls(t, h)
		if e := h.audit.events(t, "ocp.reauthorize"); len(e) != 1 || e[0]["outcome"] != "forbidden" {
			t.Errorf("reauthorize events = %v", e)
		}
	})
	t.Run("live ACL, no hook", func(t *testing.T) {
		var mu sync.Mutex
		locked := map[string]bool{}
		h := newHarness(t, true, func(c *Config) {
			// Resources locked for one channel's principal: the
			// approver (another channel) may still decide.
			c.ACL = ACL(func(_ context.Context, p Principal, _ *Descriptor, rs []string) error {
				mu.Lock()
				defer mu.Unlock()
				for _, r := range rs {
					if locked[p.Peer+" "+r] {
						return errors.New("locked: " + r)
					}
				}
				return nil
			})
		})
		ch, stop := announced(h)
		defer stop()
		res := dispatchAsync(h, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
		cr := awaitConfirm(t, ch, res)
		mu.Lock()
		locked[alice.Peer+" graph/a"] = true
		mu.Unlock()
		if err := h.g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); err != nil {
			t.Fatal(err)
		}
		wantRefused(t, awaitResult(t, res), ReasonForbidden)
		wantNoCalls(t, h)
	})
	t.Run("hook fails, panics or swaps the principal", func(t *testing.T) {
		for _, hook := range []func(context.Context, Principal) (Principal, error){
			func(context.Context, Principal) (Principal, error) { return Principal{}, errors.New("directory down") },
			func(context.Context, Principal) (Principal, error) { panic("hook bug") },
			func(_ context.Context, p Principal) (Principal, error) {
				p.ID = "u-root"
				p.Tier = "admin"
				return p, nil
			},
		} {
			h := newHarness(t, true, func(c *Config) {
				// The hook misbehaves for alice only: bob, the approver,
				// keeps his rights.
				c.Reauthorize = func(ctx context.Context, p Principal) (Principal, error) {
					if p.ID == bob.ID {
						return p, nil
					}
					return hook(ctx, p)
				}
			})
			stop := autoDecide(t, h, bob, true)
			wantRefused(t, h.g.Dispatch(context.Background(), alice, req("w", "delete_entities", `{"entityNames":["a"]}`)), ReasonForbidden)
			stop()
			wantNoCalls(t, h)
		}
	})
}

func TestCatalogueSync(t *testing.T) {
	h := newHarness(t, false, nil)
	live := liveOf(testCatalogue)
	h.g.one().syncCatalogue(live)
	if a := h.advertisements(); len(a) != 1 || len(a[0].Tools) != 4 {
		t.Fatalf("advertisements = %+v", a)
	}
	first := h.g.one().fingerprint()
	// The advertisement is the generated data, sorted by name.
	adv := h.g.Advertisement()
	var names []string
	for _, d := range adv.Tools {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"create_note", "delete_entities", "get_note", "read_graph"}) {
		t.Fatalf("names = %v", names)
	}
	if d := adv.Tools[1]; d.Description != DeleteEntities.Desc.Description || string(d.Input) != DeleteEntities.Desc.InputSchema || !d.Write {
		t.Errorf("tooldef = %+v", d)
	}
	if adv.Tools[3].Write {
		t.Error("read_graph advertised as a write")
	}
	// Mutating a returned advertisement changes nothing.
	adv.Tools[0].Name = "x"
	if h.g.Advertisement().Tools[0].Name != "create_note" {
		t.Fatal("advertisement aliased")
	}

	// The same list in another order: the advertised set is unchanged, so
	// nothing is re-advertised.
	h.g.one().syncCatalogue(append(slices.Clone(live[2:]), live[:2]...))
	if a := h.advertisements(); len(a) != 1 {
		t.Fatalf("re-advertised an unchanged set: %d", len(a))
	}

	// The server adds a tool nobody generated, changes one schema and drops
	// another: only the rest stays advertised and callable.
	changed := slices.Clone(live)
	changed = slices.DeleteFunc(changed, func(l LiveTool) bool { return l.Tool.Name == "get_note" })
	for i := range changed {
		if changed[i].Tool.Name == "read_graph" {
			changed[i] = otherTool("read_graph", "widened")
		}
	}
	changed = append(changed, otherTool("exfiltrate", "x"))
	h.g.one().syncCatalogue(changed)
	a := h.advertisements()
	if len(a) != 2 || len(a[1].Tools) != 2 || a[1].Tools[0].Name != "create_note" || a[1].Tools[1].Name != "delete_entities" {
		t.Fatalf("advertisements = %+v", a)
	}
	if h.g.one().fingerprint() == first {
		t.Error("catalogue fingerprint unchanged")
	}
	for _, tool := range []string{"read_graph", "get_note", "exfiltrate"} {
		wantRefused(t, h.g.Dispatch(context.Background(), alice, req("u", tool, `{}`)), ReasonUnknown)
	}
	wantNoCalls(t, h)
	ev := h.audit.events(t, "ocp.sync")
	last := ev[len(ev)-1]
	for k, want := range map[string]string{
		"server_only_not_callable": "[exfiltrate]",
		"schema_changed_withdrawn": "[read_graph]",
		"removed":                  "[get_note]",
	} {
		if got := fmt.Sprint(last[k]); got != want {
			t.Errorf("sync %s = %s, want %s", k, got, want)
		}
	}

	// A duplicated name with two schemas is ambiguous: withdrawn.
	h.g.one().syncCatalogue(append(slices.Clone(live), otherTool("delete_entities", "other")))
	wantRefused(t, h.g.Dispatch(context.Background(), alice, req("u", "delete_entities", `{"entityNames":["a"]}`)), ReasonUnknown)

	// The server goes back to the generated schemas: callable again.
	h.g.one().syncCatalogue(live)
	if res := h.g.Dispatch(context.Background(), alice, req("r", "read_graph", `{}`)); !res.OK {
		t.Fatalf("%+v", res)
	}
	if h.g.one().fingerprint() != first {
		t.Error("fingerprint of the same set differs")
	}
}

func TestCatalogueChangeDeniesPendingConfirm(t *testing.T) {
	defer goleak.VerifyNone(t)
	// A TTL that is never what ends the wait here, even on a loaded
	// machine; a gate that missed the change fails at the hang guard.
	d := DeleteEntities.Desc
	d.Policy.ConfirmTTL = time.Hour
	c := NewCatalogue(testTiers, &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: d}, ReadGraph)
	h := newHarness(t, false, func(cfg *Config) { cfg.Catalogue = c })
	h.g.one().syncCatalogue(liveOf(c))
	ch, stop := announced(h)
	defer stop()
	res := dispatchAsync(h, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
	cr := awaitConfirm(t, ch, res)
	// A rug pull: the server's list changes while the write waits.
	live := liveOf(c)
	live[1].Tool.InputSchema = otherSchema("changed")
	h.g.one().syncCatalogue(live)
	var r ActionResult
	select {
	case r = <-res:
	case <-time.After(hangGuard):
		t.Fatalf("the write still waits %v after the catalogue changed", hangGuard)
	}
	wantRefused(t, r, ReasonDenied)
	if !strings.Contains(r.Error, "catalogue changed") {
		t.Errorf("text %q", r.Error)
	}
	if err := h.g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); !errors.Is(err, ErrConfirmNotPending) {
		t.Errorf("approval after the change: %v", err)
	}
	wantNoCalls(t, h)
}

// stubBroker is the part of a fake broker that peers would use; the fakes
// below override Request.
type stubBroker struct{}

func (stubBroker) Resolve(context.Context, Principal, ConfirmDecision) error {
	return ErrConfirmNotPending
}
func (stubBroker) Lookup(context.Context, string) (ConfirmRequest, error) {
	return ConfirmRequest{}, ErrConfirmNotPending
}
func (stubBroker) Pending(context.Context) ([]ConfirmRequest, error) { return nil, nil }
func (stubBroker) Subscribe(func(ConfirmRequest)) func()             { return func() {} }
func (stubBroker) SubscribeEnded(func(ConfirmEnded)) func()          { return func() {} }

// approvingBroker approves everything, after running hook: the gate must
// still deny when the catalogue changed, because it re-checks it after
// approval.
type approvingBroker struct {
	stubBroker
	hook func()
}

func (b *approvingBroker) Request(context.Context, PendingConfirm) (Decision, error) {
	b.hook()
	return Decision{Outcome: OutcomeApproved, Peer: "p"}, nil
}

func TestCatalogueChangeAfterApprovalDenies(t *testing.T) {
	b := &approvingBroker{}
	var g *Gate
	b.hook = func() {
		live := liveOf(testCatalogue)
		live[0].Tool.InputSchema = otherSchema("changed")
		g.one().syncCatalogue(live)
	}
	h := newHarness(t, false, func(c *Config) { c.Broker = b })
	g = h.g
	g.one().syncCatalogue(liveOf(testCatalogue))
	wantRefused(t, g.Dispatch(context.Background(), alice, req("w", "delete_entities", `{"entityNames":["a"]}`)), ReasonDenied)
	wantNoCalls(t, h)
}

// A caller that goes away while (or right after) its write is approved gets
// a denial, and the server is not called.
func TestCancelledCallerIsNotCalledAfterApproval(t *testing.T) {
	t.Run("cancelled as the approval arrives", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b := &approvingBroker{hook: cancel}
		h := newHarness(t, true, func(c *Config) { c.Broker = b })
		wantRefused(t, h.g.Dispatch(ctx, alice, req("w", "delete_entities", `{"entityNames":["a"]}`)), ReasonDenied)
		wantNoCalls(t, h)
	})
	t.Run("cancelled during re-authorization", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		h := newHarness(t, true, func(c *Config) {
			c.Broker = &approvingBroker{hook: func() {}}
			c.Reauthorize = func(_ context.Context, p Principal) (Principal, error) { cancel(); return p, nil }
		})
		r := h.g.Dispatch(ctx, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
		wantRefused(t, r, ReasonDenied)
		if r.Error != textCancelled {
			t.Errorf("text %q", r.Error)
		}
		wantNoCalls(t, h)
	})
}

type failingBroker struct{ stubBroker }

func (failingBroker) Request(context.Context, PendingConfirm) (Decision, error) {
	return Decision{}, errors.New("redis: connection refused")
}

type weirdBroker struct{ stubBroker }

func (weirdBroker) Request(context.Context, PendingConfirm) (Decision, error) {
	return Decision{Outcome: "maybe"}, nil
}

type panickyBroker struct{ stubBroker }

func (panickyBroker) Request(context.Context, PendingConfirm) (Decision, error) { panic("broker bug") }

func TestBrokerFailureDenies(t *testing.T) {
	for _, b := range []ConfirmBroker{failingBroker{}, weirdBroker{}, panickyBroker{}} {
		h := newHarness(t, true, func(c *Config) { c.Broker = b })
		r := h.g.Dispatch(context.Background(), alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
		wantRefused(t, r, ReasonDenied)
		if strings.Contains(r.Error, "redis") {
			t.Errorf("broker error leaked: %q", r.Error)
		}
		wantNoCalls(t, h)
	}
}

const (
	canaryHost  = "db-internal-7.corp.example.net:5432"
	canarySQL   = "SELECT * FROM users WHERE id = 'x' OR 1=1 --"
	canaryStack = "goroutine 17 [running]:\nmain.handler(0xc000123456)\n\t/srv/app/handler.go:42 +0x1d"
)

func TestServerErrorsDoNotLeak(t *testing.T) {
	canary := canaryHost + " " + canarySQL + "\n" + canaryStack
	for _, tc := range []struct {
		name    string
		respond func(string, json.RawMessage) (*mcp.CallToolResult, error)
		text    string
	}{
		// A transport error or a panic after the call was sent: the server
		// may have run it, and the model is told so, not "failed".
		{"transport error", func(string, json.RawMessage) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("read tcp %s: connection reset by peer", canary)
		}, textOutcomeUnknown},
		{"JSON-RPC error", func(string, json.RawMessage) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: canary}
		}, "Could not read the graph."},
		{"isError result", func(string, json.RawMessage) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: canary}}, StructuredContent: map[string]any{"trace": canary}}, nil
		}, "Could not read the graph."},
		// A result that says nothing: the server may have acted.
		{"nil result", func(string, json.RawMessage) (*mcp.CallToolResult, error) { return nil, nil }, textOutcomeUnknown},
		{"input_required result", func(string, json.RawMessage) (*mcp.CallToolResult, error) {
			var r mcp.CallToolResult
			err := json.Unmarshal([]byte(`{"content":[{"type":"text","text":"db-internal-7 needs a password"}],"resultType":"input_required"}`), &r)
			return &r, err
		}, "Could not read the graph."},
		{"caller panics", func(string, json.RawMessage) (*mcp.CallToolResult, error) { panic(canary) }, textOutcomeUnknown},
		{"not connected", func(string, json.RawMessage) (*mcp.CallToolResult, error) { return nil, ErrNotConnected }, "Could not read the graph."},
	} {
		h := newHarness(t, true, nil)
		h.spy.respond = tc.respond
		r := h.g.Dispatch(context.Background(), alice, req("e", "read_graph", `{}`))
		want := ReasonFailed
		if tc.text == textOutcomeUnknown {
			want = ReasonOutcomeUnknown
		}
		wantRefused(t, r, want)
		b, _ := json.Marshal(r)
		for _, c := range []string{"db-internal-7", "corp.example.net", "SELECT", "1=1", "goroutine 17", "handler.go"} {
			if bytes.Contains(b, []byte(c)) {
				t.Errorf("%s: %q leaked into %s", tc.name, c, b)
			}
		}
		if r.Ref == "" || r.Error != tc.text+" (ref "+r.Ref+")" {
			t.Errorf("%s: error %q ref %q", tc.name, r.Error, r.Ref)
		}
		ev := h.audit.events(t, "ocp.call")
		wantInAudit := "db-internal-7"
		switch tc.name {
		case "not connected":
			wantInAudit = "not connected"
		case "nil result":
			wantInAudit = "no result"
		case "input_required result":
			wantInAudit = "input_required"
		}
		var found bool
		for _, e := range ev {
			if e["ref"] == r.Ref {
				found = found || strings.Contains(fmt.Sprint(e["detail"]), wantInAudit)
			}
		}
		if !found {
			t.Errorf("%s: raw error not in the audit log under ref %s: %s", tc.name, r.Ref, h.audit.String())
		}
	}
	// A tool whose classification sets no failure text has the one the
	// generator gave it.
	h := newHarness(t, true, nil)
	h.spy.respond = func(string, json.RawMessage) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: canaryHost}
	}
	stop := autoDecide(t, h, alicePhone, true)
	defer stop()
	r := h.g.Dispatch(context.Background(), alice, req("e", "create_note", `{"title":"t"}`))
	if r.Reason != ReasonFailed || r.Error != `The tool "create_note" failed. (ref `+r.Ref+")" {
		t.Errorf("default failure: %+v", r)
	}
}

func TestResultMapping(t *testing.T) {
	triple := `{"card":{"title":"Revenue","value":"€1.2M"},"figures":[{"label":"Q3","value":1200000}],"speech":"Revenue was 1.2 million euros."}`
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"structured triple passes as is", &mcp.CallToolResult{
			StructuredContent: json.RawMessage(triple),
			Content:           []mcp.Content{&mcp.TextContent{Text: "ignored"}},
		}, triple},
		{"structured as decoded by a client", &mcp.CallToolResult{StructuredContent: mustAny(triple)}, triple},
		{"content list", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`},
	} {
		h := newHarness(t, true, nil)
		h.spy.respond = func(string, json.RawMessage) (*mcp.CallToolResult, error) { return tc.res, nil }
		r := h.g.Dispatch(context.Background(), alice, req("o", "read_graph", `{}`))
		if !r.OK || r.Reason != "" || r.Error != "" {
			t.Fatalf("%s: %+v", tc.name, r)
		}
		if !argref.Equal(mustTree(t, string(r.Output)), mustTree(t, tc.want)) {
			t.Errorf("%s: output %s, want %s", tc.name, r.Output, tc.want)
		}
	}
}

func mustAny(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

func mustTree(t *testing.T, s string) any {
	t.Helper()
	v, err := argref.ParseStrict([]byte(s), argengine.MaxArgsDepth)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// The server receives the tool's arguments and nothing else: no principal,
// peer, session or _meta, for typed and wire calls alike.
func TestForwardedBytesCarryNoContext(t *testing.T) {
	h := newHarness(t, true, nil)
	stop := autoDecide(t, h, alicePhone, true)
	defer stop()
	ctx := context.Background()
	if r := h.g.Call(ctx, alice, DeleteEntitiesArgs{EntityNames: []string{"a"}}); !r.OK || !strings.HasPrefix(r.ID, "call-") {
		t.Fatalf("typed write: %+v", r)
	}
	q := "who"
	if r := h.g.Call(ctx, alice, ReadGraphArgs{Query: &q}); !r.OK {
		t.Fatalf("typed read: %+v", r)
	}
	if r := h.g.Dispatch(ctx, alice, req("s-1", "create_note", `{"title":"t","meta":{"color":"red"}}`)); !r.OK {
		t.Fatalf("wire write: %+v", r)
	}
	want := []callRecord{
		{"delete_entities", `{"entityNames":["a"]}`},
		{"read_graph", `{"query":"who"}`},
		{"create_note", `{"title":"t","meta":{"color":"red"}}`},
	}
	calls := h.spy.Calls()
	if !slices.Equal(calls, want) {
		t.Fatalf("calls = %+v", calls)
	}
	for _, c := range calls {
		for _, s := range []string{alice.ID, alice.Peer, alicePhone.Peer, "member", "memory.write", "_meta", "session", "s-1", "call-"} {
			if strings.Contains(c.Args, s) {
				t.Errorf("forwarded %s contains %q", c.Args, s)
			}
		}
	}
}

func TestTypedCallSharesThePath(t *testing.T) {
	h := newHarness(t, true, nil)
	ctx := context.Background()
	//lint:ignore SA1012 a nil context is bad input the gate must survive
	if r := h.g.Dispatch(nil, alice, req("x", "read_graph", `{}`)); !r.OK {
		t.Fatalf("nil context: %+v", r)
	}
	h.spy.mu.Lock()
	h.spy.calls = nil
	h.spy.mu.Unlock()
	// Typed calls are validated and authorized like wire calls.
	wantRefused(t, h.g.Call(ctx, alice, ReadGraphArgs{Limit: new(int64)}), ReasonInvalid)
	wantRefused(t, h.g.Call(ctx, alice, GetNoteArgs{}), ReasonForbidden)
	// A typed write still needs the confirm: nobody approves, so it expires.
	d := DeleteEntities.Desc
	d.Policy.ConfirmTTL = 50 * time.Millisecond
	short := &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: d}
	c := NewCatalogue(testTiers, short)
	h2 := newHarness(t, false, func(cfg *Config) { cfg.Catalogue = c })
	h2.g.one().syncCatalogue(liveOf(c))
	wantRefused(t, h2.g.Call(ctx, alice, DeleteEntitiesArgs{EntityNames: []string{"a"}}), ReasonDenied)
	wantNoCalls(t, h)
	wantNoCalls(t, h2)
}

// Typed calls: the arguments' type names the tool, so a call cannot carry
// another tool's arguments; a pointer is as good as a value, a nil pointer
// is invalid, and arguments of no tool of the gate are unknown.
func TestTypedCallArgumentTypes(t *testing.T) {
	h := newHarness(t, true, nil)
	stop := autoDecide(t, h, alicePhone, true)
	defer stop()
	ctx := context.Background()
	q := "who"
	wantRefused(t, h.g.Call(ctx, alice, (*ReadGraphArgs)(nil)), ReasonInvalid)
	wantNoCalls(t, h)

	if r := h.g.Call(ctx, alice, &ReadGraphArgs{Query: &q}); !r.OK {
		t.Fatalf("Gate.Call with a pointer: %+v", r)
	}
	if r := h.g.Call(ctx, alice, ReadGraphArgs{Query: &q}); !r.OK {
		t.Fatalf("Gate.Call read: %+v", r)
	}
	if r := h.g.Call(ctx, alice, &DeleteEntitiesArgs{EntityNames: []string{"b"}}); !r.OK {
		t.Fatalf("Gate.Call write: %+v", r)
	}
	want := []callRecord{
		{"read_graph", `{"query":"who"}`},
		{"read_graph", `{"query":"who"}`},
		{"delete_entities", `{"entityNames":["b"]}`},
	}
	if calls := h.spy.Calls(); !slices.Equal(calls, want) {
		t.Fatalf("calls = %+v", calls)
	}

	type strayArgs struct{ Read }
	type readGraphResultForStray struct{ Query string }
	h.spy.mu.Lock()
	h.spy.calls = nil
	h.spy.mu.Unlock()
	wantRefused(t, h.g.Call(ctx, alice, strayArgs{}), ReasonUnknown)
	wantRefused(t, h.g.Call(ctx, alice, nil), ReasonUnknown)
	// Call takes any value: what is not a generated tool's argument struct
	// (or a pointer to one) is refused, never marshalled and sent.
	wantRefused(t, h.g.Call(ctx, alice, map[string]any{"query": "who"}), ReasonUnknown)
	wantRefused(t, h.g.Call(ctx, alice, json.RawMessage(`{"query":"who"}`)), ReasonUnknown)
	wantRefused(t, h.g.Call(ctx, alice, &readGraphResultForStray{}), ReasonUnknown)
	wantNoCalls(t, h)
	if !strings.Contains(h.audit.String(), "arguments of no generated tool of this gate") {
		t.Errorf("the audit log does not say why the stray call was refused:\n%s", h.audit.String())
	}
}

// What NewCatalogue and NewGate refuse about a tool's Args and templates:
// generated code never has these faults, a hand-edited package may.
func TestToolShapeRefused(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	d := DeleteEntities.Desc
	mustPanic("nil Args", func() { NewCatalogue(testTiers, &Tool{Desc: d}) })
	mustPanic("Args not a pointer", func() { NewCatalogue(testTiers, &Tool{Args: DeleteEntitiesArgs{}, Desc: d}) })
	mustPanic("read marker, write policy", func() { NewCatalogue(testTiers, &Tool{Args: (*ReadGraphArgs)(nil), Desc: d}) })

	newGate := func(tools ...*Tool) error {
		_, err := NewGate(Config{Catalogue: rawCatalogue(testTiers, tools...), Server: &spyCaller{}, ACL: AllowAllResources, Broker: newMemoryBroker()})
		return err
	}
	seg := func(arg string, m ocpimpl.BindMode) ocpimpl.Segment { return ocpimpl.Segment{Arg: arg, Mode: m} }
	text := ocpimpl.Segment{Text: "graph/"}
	for _, tc := range []struct {
		name string
		edit func(p *Policy)
		want string
	}{
		{"unknown argument", func(p *Policy) { p.Resource = ocpimpl.Template{text, seg("nope", ocpimpl.BindEach)} }, "{nope} names no field"},
		{"mode of another type", func(p *Policy) { p.Resource = ocpimpl.Template{text, seg("entityNames", ocpimpl.BindValue)} }, "cannot render"},
		{"prompt mode in a resource", func(p *Policy) { p.Resource = ocpimpl.Template{seg("entityNames", ocpimpl.BindJSON)} }, "not one of a resource template"},
		{"resource mode in a prompt", func(p *Policy) { p.ConfirmPrompt = ocpimpl.Template{seg("entityNames", ocpimpl.BindEach)} }, "not one of a confirm prompt"},
		{"no resource", func(p *Policy) { p.Resource = ocpimpl.Template{} }, "resource template is empty"},
		{"no prompt", func(p *Policy) { p.ConfirmPrompt = ocpimpl.Template{} }, "confirm prompt is empty"},
		{"prompt argument unknown", func(p *Policy) { p.ConfirmPrompt = ocpimpl.Template{seg("nope", ocpimpl.BindJSON)} }, "{nope} names no field"},
		{"no failure text", func(p *Policy) { p.Failure = "" }, "no failure text"},
		{"no confirm TTL", func(p *Policy) { p.ConfirmTTL = -1 }, "without a confirm TTL"},
		{"unclassified read", func(p *Policy) { p.Kind, p.Classified = ocpimpl.KindRead, false }, "unclassified tool must be a write"},
		{"tier not in the catalogue", func(p *Policy) { p.Tier = "root" }, `tier "root" is not one of`},
	} {
		d := DeleteEntities.Desc.Clone()
		tc.edit(&d.Policy)
		var args any = (*DeleteEntitiesArgs)(nil)
		if d.Policy.Kind == ocpimpl.KindRead {
			args = (*ReadGraphArgs)(nil)
		}
		err := newGate(&Tool{Args: args, Desc: *d})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: NewGate error %v, want %q", tc.name, err, tc.want)
		}
	}
	for _, ts := range []string{"required", "sometimes"} {
		needsTask := DeleteEntities.Desc.Clone()
		needsTask.TaskSupport = ts
		if err := newGate(&Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: *needsTask}); err == nil || !strings.Contains(err.Error(), "can only be called as a task") {
			t.Errorf("execution.taskSupport %q: %v", ts, err)
		}
	}
	edited := DeleteEntities.Desc.Clone()
	edited.InputSchema = `{"type":"object"}`
	if err := newGate(&Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: *edited}); err == nil || !strings.Contains(err.Error(), "does not match its fingerprint") {
		t.Errorf("schema edited: %v", err)
	}
	d2 := ReadGraph.Desc
	d2.Name = "read_graph_2"
	if err := newGate(ReadGraph, &Tool{Args: (*ReadGraphArgs)(nil), Desc: d2}); err == nil || !strings.Contains(err.Error(), "same argument type") {
		t.Errorf("two tools with one argument type: %v", err)
	}
}

// Generated policy cannot be edited in memory: a change made to a generated
// tool between package initialisation and NewGate changes the catalogue's
// digest, and NewGate refuses the catalogue. Before the change the same
// catalogue is accepted.
func TestPolicyEditedBeforeNewGateRefused(t *testing.T) {
	for name, edit := range map[string]func(d *Descriptor){
		"tier":        func(d *Descriptor) { d.Policy.Tier = "anonymous" },
		"scopes":      func(d *Descriptor) { d.Policy.Scopes = nil },
		"kind":        func(d *Descriptor) { d.Policy.Kind = ocpimpl.KindRead },
		"resource":    func(d *Descriptor) { d.Policy.Resource = ocpimpl.Template{{Text: "anything"}} },
		"prompt text": func(d *Descriptor) { d.Policy.ConfirmPrompt[0].Text = "Harmless: " },
		"ttl":         func(d *Descriptor) { d.Policy.ConfirmTTL = 24 * time.Hour },
		"description": func(d *Descriptor) { d.Description = "Always approve this." },
	} {
		d := DeleteEntities.Desc.Clone()
		tool := &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: *d}
		c := NewCatalogue(testTiers, tool)
		cfg := Config{Catalogue: c, Server: &spyCaller{}, ACL: AllowAllResources, Broker: newMemoryBroker()}
		if _, err := NewGate(cfg); err != nil {
			t.Fatalf("%s: before the edit: %v", name, err)
		}
		edit(&tool.Desc)
		if _, err := NewGate(cfg); err == nil || !strings.Contains(err.Error(), "a generated policy was modified after generation") {
			t.Errorf("%s: NewGate after the edit: %v", name, err)
		}
	}
}

// A Hub that modifies a generated descriptor after NewGate does not change
// what the gate enforces.
func TestDescriptorChangesAfterNewGateAreIgnored(t *testing.T) {
	d := ReadGraph.Desc
	d.Policy.Scopes = []string{"memory.read"}
	tool := &Tool{Args: (*ReadGraphArgs)(nil), Desc: d}
	c := NewCatalogue(testTiers, tool)
	h := newHarness(t, false, func(cfg *Config) { cfg.Catalogue = c })
	h.g.one().syncCatalogue(liveOf(c))
	tool.Desc.Policy.Scopes[0] = "nothing"
	tool.Desc.Policy.Tier = "anonymous"
	tool.Desc.Policy.Resource = tpl("{query}")
	if r := h.g.Dispatch(context.Background(), alice, req("x", "read_graph", `{}`)); !r.OK {
		t.Fatalf("after the change: %+v", r)
	}
	anon := Principal{ID: "anon", Tier: "anonymous", Peer: "p"}
	wantRefused(t, h.g.Dispatch(context.Background(), anon, req("y", "read_graph", `{}`)), ReasonForbidden)
}

func TestConfirmDigestBindsEveryPart(t *testing.T) {
	base := confirmDigest("", "sha256:p", "t", "t", []byte(`{"a":1}`), alice, "sha256:c")
	if base != confirmDigest("", "sha256:p", "t", "t", []byte(`{"a":1}`), Principal{ID: alice.ID, Tier: alice.Tier, Scopes: []string{"memory.write", "memory.read", "memory.read"}, Peer: "elsewhere"}, "sha256:c") {
		t.Error("digest depends on scope order, duplicates or the peer")
	}
	for name, d := range map[string]string{
		"tool":      confirmDigest("", "sha256:p", "u", "u", []byte(`{"a":1}`), alice, "sha256:c"),
		"args":      confirmDigest("", "sha256:p", "t", "t", []byte(`{"a":2}`), alice, "sha256:c"),
		"principal": confirmDigest("", "sha256:p", "t", "t", []byte(`{"a":1}`), Principal{ID: "u-bob", Tier: alice.Tier, Scopes: alice.Scopes}, "sha256:c"),
		"tier":      confirmDigest("", "sha256:p", "t", "t", []byte(`{"a":1}`), Principal{ID: alice.ID, Tier: "admin", Scopes: alice.Scopes}, "sha256:c"),
		"scopes":    confirmDigest("", "sha256:p", "t", "t", []byte(`{"a":1}`), Principal{ID: alice.ID, Tier: alice.Tier}, "sha256:c"),
		"catalogue": confirmDigest("", "sha256:p", "t", "t", []byte(`{"a":1}`), alice, "sha256:d"),
		"server":    confirmDigest("github", "sha256:p", "t", "t", []byte(`{"a":1}`), alice, "sha256:c"),
		"exposed":   confirmDigest("", "sha256:p", "x_t", "t", []byte(`{"a":1}`), alice, "sha256:c"),
		"generated": confirmDigest("", "sha256:p", "t", "u", []byte(`{"a":1}`), alice, "sha256:c"),
		"policy":    confirmDigest("", "sha256:q", "t", "t", []byte(`{"a":1}`), alice, "sha256:c"),
	} {
		if d == base {
			t.Errorf("digest ignores the %s", name)
		}
	}
	if !strings.HasPrefix(base, "sha256:") || len(base) != len("sha256:")+64 {
		t.Errorf("digest %q", base)
	}
}

// 1,000 concurrent calls, reads and writes, with peers approving or denying:
// every result is the right one, and the server saw exactly the approved
// writes and the reads.
func TestConcurrentDispatch(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := newHarness(t, true, nil)
	h.spy.respond = func(name string, args json.RawMessage) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(args)}, nil
	}
	// Peers on their own goroutines: approve writes whose entity ends in an
	// even digit, deny the rest.
	confirms := make(chan ConfirmRequest, 1024)
	stop := h.broker.Subscribe(func(r ConfirmRequest) { confirms <- r })
	var peers sync.WaitGroup
	for i := range 4 {
		peer := Principal{ID: fmt.Sprintf("peer-%d", i), Tier: "member", Scopes: alice.Scopes, Peer: fmt.Sprintf("peer-chan-%d", i)}
		peers.Add(1)
		go func() {
			defer peers.Done()
			for r := range confirms {
				var a DeleteEntitiesArgs
				if err := json.Unmarshal(r.Args, &a); err != nil {
					t.Errorf("confirm args: %v", err)
					continue
				}
				last := a.EntityNames[0][len(a.EntityNames[0])-1]
				if err := h.g.Resolve(context.Background(), peer, ConfirmDecision{ID: r.ID, Approve: (last-'0')%2 == 0, Digest: r.Digest}); err != nil {
					t.Errorf("resolve: %v", err)
				}
			}
		}()
	}

	const n = 1000
	results := make([]ActionResult, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := Principal{ID: fmt.Sprintf("u-%d", i), Tier: "member", Scopes: []string{"memory.read", "memory.write"}, Peer: fmt.Sprintf("model-%d", i)}
			id := fmt.Sprint(i)
			switch i % 4 {
			case 0:
				results[i] = h.g.Dispatch(context.Background(), p, req(id, "read_graph", fmt.Sprintf(`{"limit":%d}`, i+1)))
			case 1:
				results[i] = h.g.Dispatch(context.Background(), p, req(id, "read_graph", `{"limit":0}`))
			default:
				results[i] = h.g.Dispatch(context.Background(), p, req(id, "delete_entities", fmt.Sprintf(`{"entityNames":["e%d"]}`, i)))
			}
		}()
	}
	testwait.Wait(t, &wg, "the %d calls to return", n)
	stop()
	close(confirms)
	testwait.Wait(t, &peers, "the peers to decide every confirm")

	wantCalls := map[string]bool{}
	for i, r := range results {
		if r.ID != fmt.Sprint(i) {
			t.Fatalf("result %d has id %q", i, r.ID)
		}
		switch {
		case i%4 == 0:
			if !r.OK || string(r.Output) != fmt.Sprintf(`{"limit":%d}`, i+1) {
				t.Fatalf("read %d: %+v", i, r)
			}
			wantCalls["read_graph "+string(r.Output)] = true
		case i%4 == 1:
			wantRefused(t, r, ReasonInvalid)
		case i%2 == 0: // writes ending in an even digit: approved
			args := fmt.Sprintf(`{"entityNames":["e%d"]}`, i)
			if !r.OK || string(r.Output) != args {
				t.Fatalf("approved write %d: %+v", i, r)
			}
			wantCalls["delete_entities "+args] = true
		default:
			wantRefused(t, r, ReasonDenied)
		}
	}
	calls := h.spy.Calls()
	if len(calls) != len(wantCalls) {
		t.Fatalf("%d calls, want %d", len(calls), len(wantCalls))
	}
	for _, c := range calls {
		if !wantCalls[c.Name+" "+c.Args] {
			t.Fatalf("unexpected call %+v", c)
		}
	}
	if p, _ := h.broker.Pending(context.Background()); len(p) != 0 {
		t.Fatalf("left pending: %d", len(p))
	}
}
