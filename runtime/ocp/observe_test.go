package ocp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recObserver records what a gate tells its Observer.
type recObserver struct {
	mu    sync.Mutex
	calls []*recCall
	syncs []SyncInfo
	// panicIn makes the observer panic in "start", "step", "confirm",
	// "end" or "sync".
	panicIn string
	// bugs are the breaches of the CallObserver contract seen (a second
	// End, ConfirmEnded outside StepConfirm), which last reports. They are
	// recorded rather than panicked: the gate recovers an observer's panic,
	// so one would go unseen (and, raised under mu, deadlock the next call).
	bugs []string
}

type recCall struct {
	o     *recObserver
	ctx   context.Context
	info  CallInfo
	steps []Step
	// confirms are the outcomes ConfirmEnded was told, in StepConfirm.
	confirms []Outcome
	ended    bool
	end      Reason
}

type obsStepKey struct{}

func (o *recObserver) StartCall(ctx context.Context, info CallInfo) (context.Context, CallObserver) {
	if o.panicIn == "start" {
		panic("observer bug in StartCall")
	}
	rc := &recCall{o: o, info: info}
	rc.ctx = context.WithValue(ctx, obsStepKey{}, Step("call"))
	o.mu.Lock()
	o.calls = append(o.calls, rc)
	o.mu.Unlock()
	return rc.ctx, rc
}

func (o *recObserver) Synced(s SyncInfo) {
	if o.panicIn == "sync" {
		panic("observer bug in Synced")
	}
	o.mu.Lock()
	o.syncs = append(o.syncs, s)
	o.mu.Unlock()
}

func (rc *recCall) Step(s Step) context.Context {
	if rc.o.panicIn == "step" {
		panic("observer bug in Step")
	}
	rc.o.mu.Lock()
	rc.steps = append(rc.steps, s)
	rc.o.mu.Unlock()
	return context.WithValue(rc.ctx, obsStepKey{}, s)
}

func (rc *recCall) ConfirmEnded(o Outcome) {
	if rc.o.panicIn == "confirm" {
		panic("observer bug in ConfirmEnded")
	}
	rc.o.mu.Lock()
	defer rc.o.mu.Unlock()
	if len(rc.steps) == 0 || rc.steps[len(rc.steps)-1] != StepConfirm {
		rc.o.bugs = append(rc.o.bugs, fmt.Sprintf("ConfirmEnded(%v) in step %v", o, rc.steps))
	}
	rc.confirms = append(rc.confirms, o)
}

func (rc *recCall) End(r Reason) {
	if rc.o.panicIn == "end" {
		panic("observer bug in End")
	}
	rc.o.mu.Lock()
	defer rc.o.mu.Unlock()
	if rc.ended {
		rc.o.bugs = append(rc.o.bugs, fmt.Sprintf("End(%q) after End(%q) of %+v", r, rc.end, rc.info))
		return
	}
	rc.ended, rc.end = true, r
}

// last returns the last call observed, as it is now, and reports the
// contract breaches seen so far.
func (o *recObserver) last(t *testing.T) recCall {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, b := range o.bugs {
		t.Errorf("observer contract: %s", b)
	}
	o.bugs = nil
	if len(o.calls) == 0 {
		t.Fatal("no call observed")
	}
	return *o.calls[len(o.calls)-1]
}

// ctxServer is a spy server that also records the step each call's context
// was made for.
type ctxServer struct {
	spyCaller
	mu    sync.Mutex
	steps []any
}

func (s *ctxServer) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.steps = append(s.steps, ctx.Value(obsStepKey{}))
	s.mu.Unlock()
	return s.spyCaller.CallTool(ctx, name, args)
}

func TestObserverSeesEveryStep(t *testing.T) {
	obs := &recObserver{}
	srv := &ctxServer{}
	var aclSteps, reauthSteps []any
	var hookMu sync.Mutex
	h := newHarness(t, true, func(c *Config) {
		c.Observer = obs
		c.Server = srv
		c.ACL = ACL(func(ctx context.Context, p Principal, _ *Descriptor, rs []string) error {
			hookMu.Lock()
			aclSteps = append(aclSteps, ctx.Value(obsStepKey{}))
			hookMu.Unlock()
			if slices.Contains(rs, "graph/secret") {
				return errors.New("no")
			}
			return nil
		})
		c.Reauthorize = func(ctx context.Context, p Principal) (Principal, error) {
			hookMu.Lock()
			reauthSteps = append(reauthSteps, ctx.Value(obsStepKey{}))
			hookMu.Unlock()
			return p, nil
		}
	})
	h.spy = &srv.spyCaller
	ctx := context.Background()
	fp := h.g.one().fingerprint()
	auth := []Step{StepCatalogue, StepRights, StepArgs, StepACL}
	full := append(slices.Clone(auth), StepConfirm, StepReauthorize, StepCall)
	noScope := alice
	noScope.Scopes = nil

	for _, tc := range []struct {
		name  string
		run   func() ActionResult
		info  CallInfo
		steps []Step
		end   Reason
	}{
		{"read", func() ActionResult { return h.g.Dispatch(ctx, alice, req("r", "read_graph", `{"query":"q"}`)) },
			CallInfo{Tool: "read_graph", Catalogue: fp}, append(slices.Clone(auth), StepCall), ""},
		{"write approved", func() ActionResult {
			defer autoDecide(t, h, alicePhone, true)()
			return h.g.Dispatch(ctx, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
		}, CallInfo{Tool: "delete_entities", Write: true, Catalogue: fp}, full, ""},
		{"write denied", func() ActionResult {
			defer autoDecide(t, h, alicePhone, false)()
			return h.g.Dispatch(ctx, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
		}, CallInfo{Tool: "delete_entities", Write: true, Catalogue: fp}, append(slices.Clone(auth), StepConfirm), ReasonDenied},
		{"unknown", func() ActionResult { return h.g.Dispatch(ctx, alice, req("u", "no_such_tool", `{}`)) },
			CallInfo{Catalogue: fp}, []Step{StepCatalogue}, ReasonUnknown},
		{"forbidden rights", func() ActionResult { return h.g.Dispatch(ctx, noScope, req("f", "read_graph", `{}`)) },
			CallInfo{Tool: "read_graph", Catalogue: fp}, []Step{StepCatalogue, StepRights}, ReasonForbidden},
		{"invalid", func() ActionResult { return h.g.Dispatch(ctx, alice, req("i", "read_graph", `{"limit":0}`)) },
			CallInfo{Tool: "read_graph", Catalogue: fp}, []Step{StepCatalogue, StepRights, StepArgs}, ReasonInvalid},
		{"forbidden acl", func() ActionResult {
			return h.g.Dispatch(ctx, alice, req("a", "delete_entities", `{"entityNames":["secret"]}`))
		}, CallInfo{Tool: "delete_entities", Write: true, Catalogue: fp}, auth, ReasonForbidden},
		{"failed", func() ActionResult {
			srv.spyCaller.mu.Lock()
			srv.spyCaller.respond = func(string, json.RawMessage) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom"}}}, nil
			}
			srv.spyCaller.mu.Unlock()
			defer func() { srv.spyCaller.mu.Lock(); srv.spyCaller.respond = nil; srv.spyCaller.mu.Unlock() }()
			return h.g.Dispatch(ctx, alice, req("x", "read_graph", `{}`))
		}, CallInfo{Tool: "read_graph", Catalogue: fp}, append(slices.Clone(auth), StepCall), ReasonFailed},
		{"typed read", func() ActionResult { return h.g.Call(ctx, alice, ReadGraphArgs{}) },
			CallInfo{Tool: "read_graph", Catalogue: fp}, append(slices.Clone(auth), StepCall), ""},
		{"typed unknown", func() ActionResult { return h.g.Call(ctx, alice, SearchNodesArgs{}) },
			CallInfo{Catalogue: fp}, []Step{StepCatalogue}, ReasonUnknown},
		// A typed call takes Dispatch's stages: its arguments are encoded,
		// and refused, after the catalogue and the rights.
		{"typed nil", func() ActionResult { return h.g.Call(ctx, alice, (*ReadGraphArgs)(nil)) },
			CallInfo{Tool: "read_graph", Catalogue: fp}, []Step{StepCatalogue, StepRights, StepArgs}, ReasonInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.run()
			if res.Reason != tc.end || res.OK != (tc.end == "") {
				t.Fatalf("result = %+v, want reason %q", res, tc.end)
			}
			got := obs.last(t)
			if got.info != tc.info {
				t.Errorf("info = %+v, want %+v", got.info, tc.info)
			}
			if !slices.Equal(got.steps, tc.steps) {
				t.Errorf("steps = %v, want %v", got.steps, tc.steps)
			}
			if !got.ended || got.end != tc.end {
				t.Errorf("end = %v %q, want %q", got.ended, got.end, tc.end)
			}
			wantConfirms := map[string][]Outcome{"write approved": {OutcomeApproved}, "write denied": {OutcomeDenied}}[tc.name]
			if !slices.Equal(got.confirms, wantConfirms) {
				t.Errorf("confirms = %v, want %v", got.confirms, wantConfirms)
			}
		})
	}
	// Each hook got the context of its own step: the ACL is asked at
	// StepACL by the six calls that reach it, at StepReauthorize, and
	// (unobserved) by Resolve for the two decisions.
	count := map[any]int{}
	for _, s := range aclSteps {
		count[s]++
	}
	if want := map[any]int{StepACL: 6, StepReauthorize: 1, nil: 2}; !maps.Equal(count, want) {
		t.Errorf("ACL contexts by step = %v, want %v", count, want)
	}
	// Reauthorize: at StepReauthorize for the approved write's requester,
	// and (unobserved) by Resolve for the two deciders.
	count = map[any]int{}
	for _, s := range reauthSteps {
		count[s]++
	}
	if want := map[any]int{StepReauthorize: 1, nil: 2}; !maps.Equal(count, want) {
		t.Errorf("Reauthorize contexts of steps %v, want %v", reauthSteps, want)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.steps) != 4 {
		t.Fatalf("server calls = %d, want 4", len(srv.steps))
	}
	for _, s := range srv.steps {
		if s != StepCall {
			t.Errorf("server context of step %v", s)
		}
	}
}

func TestObserverSeesSyncs(t *testing.T) {
	obs := &recObserver{}
	h := newHarness(t, false, func(c *Config) { c.Observer = obs })
	live := liveOf(testCatalogue)
	h.g.one().syncCatalogue(live)
	h.g.one().syncCatalogue(live)
	changed := slices.DeleteFunc(slices.Clone(live), func(l LiveTool) bool { return l.Tool.Name == "get_note" })
	for i := range changed {
		switch changed[i].Tool.Name {
		case "read_graph":
			changed[i] = otherTool("read_graph", "widened")
		case "create_note":
			lt := *changed[i].Tool
			lt.Description = "Create a note, and mail it to everyone."
			changed[i].Tool = &lt
		}
	}
	changed = append(changed, otherTool("exfiltrate", "x"))
	h.g.one().syncCatalogue(changed)
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.syncs) != 3 {
		t.Fatalf("syncs = %+v", obs.syncs)
	}
	first, again, third := obs.syncs[0], obs.syncs[1], obs.syncs[2]
	// The lists carry no title or description, so every tool drifts there.
	if want := (SyncInfo{Catalogue: first.Catalogue, Changed: true, Advertised: 4, Drift: 4}); first != want || first.Catalogue == "" {
		t.Errorf("first sync = %+v, want %+v", first, want)
	}
	if want := (SyncInfo{Catalogue: first.Catalogue, Changed: false, Advertised: 4, Drift: 4}); again != want {
		t.Errorf("same list = %+v, want %+v", again, want)
	}
	if want := (SyncInfo{Catalogue: h.g.one().fingerprint(), Changed: true, Advertised: 2, ServerOnly: 1, Withdrawn: 1, Removed: 1, Drift: 3}); third != want {
		t.Errorf("changed list = %+v, want %+v", third, want)
	}
}

// A panicking observer is audited and changes no result.
func TestObserverPanicDoesNotBreakTheGate(t *testing.T) {
	for _, where := range []string{"start", "step", "confirm", "end", "sync"} {
		t.Run(where, func(t *testing.T) {
			obs := &recObserver{panicIn: where}
			h := newHarness(t, true, func(c *Config) { c.Observer = obs })
			defer autoDecide(t, h, alicePhone, true)()
			ctx := context.Background()
			if res := h.g.Dispatch(ctx, alice, req("r", "read_graph", `{}`)); !res.OK {
				t.Fatalf("read: %+v", res)
			}
			if res := h.g.Dispatch(ctx, alice, req("w", "delete_entities", `{"entityNames":["a"]}`)); !res.OK {
				t.Fatalf("write: %+v", res)
			}
			wantRefused(t, h.g.Dispatch(ctx, alice, req("u", "nope", `{}`)), ReasonUnknown)
			wantRefused(t, h.g.Call(ctx, alice, (*ReadGraphArgs)(nil)), ReasonInvalid)
			if n := len(h.spy.Calls()); n != 2 {
				t.Fatalf("server calls = %d, want 2", n)
			}
			panics := h.audit.events(t, "ocp.panic")
			if len(panics) == 0 {
				t.Fatal("no panic audited")
			}
			for _, p := range panics {
				if !strings.Contains(fmt.Sprint(p["detail"]), "observer bug") {
					t.Errorf("panic event %v", p)
				}
			}
		})
	}
}

// Without an observer the step boundaries hand each step the caller's
// context unchanged.
func TestNoObserverKeepsTheContext(t *testing.T) {
	type key struct{}
	var got []any
	var mu sync.Mutex
	h := newHarness(t, true, func(c *Config) {
		c.ACL = ACL(func(ctx context.Context, _ Principal, _ *Descriptor, _ []string) error {
			mu.Lock()
			got = append(got, ctx.Value(key{}))
			mu.Unlock()
			return nil
		})
	})
	ctx := context.WithValue(context.Background(), key{}, "caller")
	if res := h.g.Dispatch(ctx, alice, req("r", "read_graph", `{}`)); !res.OK {
		t.Fatalf("%+v", res)
	}
	if len(got) != 1 || got[0] != "caller" {
		t.Fatalf("ACL contexts = %v", got)
	}
}

// detachingObserver returns contexts that are not derived from the
// caller's: the gate must ignore them, or a cancelled caller's write could
// still reach the server.
type detachingObserver struct{ recObserver }

func (o *detachingObserver) StartCall(ctx context.Context, info CallInfo) (context.Context, CallObserver) {
	_, co := o.recObserver.StartCall(ctx, info)
	return context.Background(), detachingCall{co}
}

type detachingCall struct{ CallObserver }

func (d detachingCall) Step(s Step) context.Context {
	d.CallObserver.Step(s)
	return context.WithValue(context.Background(), obsStepKey{}, s)
}

func TestObserverCannotDetachTheContext(t *testing.T) {
	srv := &ctxServer{}
	h := newHarness(t, true, func(c *Config) {
		c.Observer = &detachingObserver{}
		c.Server = srv
		c.Broker = &approvingBroker{hook: func() {}}
	})
	h.spy = &srv.spyCaller
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantRefused(t, h.g.Dispatch(ctx, alice, req("w", "delete_entities", `{"entityNames":["a"]}`)), ReasonDenied)
	wantNoCalls(t, h)
	// A live caller is served, with its own context (not the observer's).
	live, stop := context.WithCancel(context.Background())
	defer stop()
	if res := h.g.Dispatch(live, alice, req("r", "read_graph", `{}`)); !res.OK {
		t.Fatalf("%+v", res)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.steps) != 1 || srv.steps[0] != nil {
		t.Fatalf("server contexts %v", srv.steps)
	}
}
