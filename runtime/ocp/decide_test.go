package ocp

// Who may decide a confirm, and what a decision costs (issue 28, items 1–3).

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// guest is a principal of the lowest tiers, with no scopes.
var guest = Principal{ID: "u-guest", Tier: "visitor", Peer: "guest-chan"}

// laxCatalogue is testCatalogue with a laxer classification of
// delete_entities: a visitor with no scope may call it. Its tools, schemas
// and writes are testCatalogue's, so the two advertise the same catalogue
// fingerprint; only the policy digest tells them apart.
var laxCatalogue = func() *Catalogue {
	d := DeleteEntities.Desc.Clone()
	d.Policy.Tier, d.Policy.Scopes = "visitor", nil
	lax := &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: *d}
	return NewCatalogue(testTiers, CreateNote, lax, GetNote, ReadGraph)
}()

// loneGate is a gate of NewGate over cat, on broker, synced with every tool
// of cat listed unchanged.
func loneGate(t *testing.T, cat *Catalogue, broker ConfirmBroker, mod func(*Config)) (*Gate, *spyCaller) {
	t.Helper()
	spy := &spyCaller{}
	cfg := Config{Catalogue: cat, Server: spy, ACL: AllowAllResources, Broker: broker, Audit: quiet}
	if mod != nil {
		mod(&cfg)
	}
	g, err := NewGate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g.one().syncCatalogue(liveOf(cat))
	return g, spy
}

// events collects what a Subscribe delivers.
type events struct {
	mu            sync.Mutex
	opened, ended []string
}

// subscribe subscribes e to g's confirms.
func (e *events) subscribe(g *Gate) (stop func()) {
	return g.Subscribe(func(r ConfirmRequest) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.opened = append(e.opened, r.ID)
	}, func(c ConfirmEnded) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.ended = append(e.ended, c.ID)
	})
}

func (e *events) get() (opened, ended []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.opened...), append([]string(nil), e.ended...)
}

// The scenario: two gates of NewGate for two servers, one broker,
// the second with a laxer classification. A guest may not approve alice's
// delete_entities through gate two (on the old code it could, and server
// one deleted), gate two neither lists nor announces the confirm, and only
// gate one announces its end.
func TestConfirmBelongsToThePolicyThatOpenedIt(t *testing.T) {
	noLeaksAfter(t)
	broker := newMemoryBroker()
	one, spyOne := loneGate(t, testCatalogue, broker, nil)
	two, spyTwo := loneGate(t, laxCatalogue, broker, nil)
	if one.one().fingerprint() != two.one().fingerprint() {
		t.Fatal("the two gates advertise different catalogues; the test needs them equal")
	}
	var evOne, evTwo events
	defer evOne.subscribe(one)()
	defer evTwo.subscribe(two)()
	ch := make(chan ConfirmRequest, 1)
	defer broker.Subscribe(func(r ConfirmRequest) { ch <- r })()

	res := make(chan ActionResult, 1)
	go func() {
		res <- one.Dispatch(context.Background(), alice, req("w", "delete_entities", `{"entityNames":["report"]}`))
	}()
	cr := awaitConfirm(t, ch, res)
	if cr.Policy != testCatalogue.PolicyDigest() || cr.Server != "" {
		t.Fatalf("confirm policy %q server %q, want gate one's %q", cr.Policy, cr.Server, testCatalogue.PolicyDigest())
	}
	if len(cr.Resources) != 1 || cr.Resources[0] != "graph/report" {
		t.Fatalf("confirm resources %q", cr.Resources)
	}

	// Gate two's own policy would let the guest call delete_entities.
	if err := two.one().authorizeRights(guest, two.one().tools["delete_entities"]); err != nil {
		t.Fatalf("gate two refuses the guest's own call: %v", err)
	}
	approve := ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}
	if err := two.Resolve(t.Context(), guest, approve); !errors.Is(err, ErrConfirmForbidden) {
		t.Fatalf("guest approving through gate two: %v, want ErrConfirmForbidden", err)
	}
	// Nor may anyone else decide it there, however authorized.
	if err := two.Resolve(t.Context(), bob, ConfirmDecision{ID: cr.ID, Approve: false, Digest: cr.Digest}); !errors.Is(err, ErrConfirmForbidden) {
		t.Fatalf("bob denying through gate two: %v, want ErrConfirmForbidden", err)
	}
	if err := one.Resolve(t.Context(), guest, approve); !errors.Is(err, ErrConfirmForbidden) {
		t.Fatalf("guest approving through gate one: %v, want ErrConfirmForbidden", err)
	}
	if p, err := two.Pending(t.Context()); err != nil || len(p) != 0 {
		t.Fatalf("gate two Pending() = %+v, %v: it lists gate one's confirm", p, err)
	}
	if p, err := one.Pending(t.Context()); err != nil || len(p) != 1 || p[0].ID != cr.ID {
		t.Fatalf("gate one Pending() = %+v, %v", p, err)
	}
	if err := one.Resolve(t.Context(), alicePhone, ConfirmDecision{ID: cr.ID, Approve: false, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, res), ReasonDenied)
	if c := spyOne.Calls(); len(c) != 0 {
		t.Fatalf("server one was called: %+v", c)
	}
	if c := spyTwo.Calls(); len(c) != 0 {
		t.Fatalf("server two was called: %+v", c)
	}
	if o, e := evTwo.get(); len(o)+len(e) != 0 {
		t.Errorf("gate two announced gate one's confirm: opened %q, ended %q", o, e)
	}
	if o, e := evOne.get(); len(o) != 1 || o[0] != cr.ID || len(e) != 1 || e[0] != cr.ID {
		t.Errorf("gate one announced opened %q, ended %q; want its confirm once each", o, e)
	}
}

// In a Mux, a server's gate lists and announces only that server's
// confirms, and the Mux announces the end only of confirms it has seen (not
// of another Hub's on the same broker).
func TestMuxGatesShowOnlyTheirOwnConfirms(t *testing.T) {
	noLeaksAfter(t)
	h := newMuxHarness(t, nil)
	var evMem, evChat events
	defer evMem.subscribe(h.m.Server("mem"))()
	defer evChat.subscribe(h.m.Server("chat"))()
	res, cr := h.openWrite(t, "w", "delete_entities", `{"entityNames":["a"]}`)
	if cr.Server != "mem" {
		t.Fatalf("confirm for %q", cr.Server)
	}
	if p, err := h.m.Server("chat").Pending(t.Context()); err != nil || len(p) != 0 {
		t.Errorf("chat's gate Pending() = %+v, %v: it lists mem's confirm", p, err)
	}
	if p, err := h.m.Server("mem").Pending(t.Context()); err != nil || len(p) != 1 || p[0].ID != cr.ID {
		t.Errorf("mem's gate Pending() = %+v, %v", p, err)
	}

	// Another Hub's lone gate on the same broker opens and ends a confirm.
	other, _ := loneGate(t, testCatalogue, h.broker, nil)
	ch := make(chan ConfirmRequest, 1)
	stop := h.broker.Subscribe(func(r ConfirmRequest) {
		if r.Server == "" {
			ch <- r
		}
	})
	otherRes := make(chan ActionResult, 1)
	go func() {
		otherRes <- other.Dispatch(context.Background(), alice, req("o", "delete_entities", `{"entityNames":["b"]}`))
	}()
	ocr := awaitConfirm(t, ch, otherRes)
	stop()
	if p, err := h.m.Pending(t.Context()); err != nil || len(p) != 1 || p[0].ID != cr.ID {
		t.Errorf("mux Pending() = %+v, %v", p, err)
	}
	if err := other.Resolve(t.Context(), alicePhone, ConfirmDecision{ID: ocr.ID, Digest: ocr.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, otherRes), ReasonDenied)
	if err := h.m.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: cr.ID, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, res), ReasonDenied)

	// The broker tells its subscribers of an end before Request returns:
	// every event is in by now.
	if o, e := h.confirms.counts(ocr.ID); o+e != 0 {
		t.Errorf("the mux announced another Hub's confirm: opened %d, ended %d", o, e)
	}
	if o, e := h.confirms.counts(cr.ID); o != 1 || e != 1 {
		t.Errorf("the mux announced its confirm opened %d, ended %d times", o, e)
	}
	if o, e := evChat.get(); len(o)+len(e) != 0 {
		t.Errorf("chat's gate announced opened %q, ended %q", o, e)
	}
	if o, e := evMem.get(); len(o) != 1 || o[0] != cr.ID || len(e) != 1 || e[0] != cr.ID {
		t.Errorf("mem's gate announced opened %q, ended %q", o, e)
	}
}

// bytesPerRun is the mean of the bytes allocated by one run of f, as
// testing.AllocsPerRun counts allocations.
func bytesPerRun(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}

// A decision on a confirm of 2 MiB of arguments reads none of them: the
// decider's tier and scopes come first, and the ACL is asked about the
// resources kept from when the confirm opened. On the old code every
// refused decision parsed, validated and decoded the arguments again (more
// than their size in allocations).
func TestDecisionDoesNotReadTheArguments(t *testing.T) {
	var aclCalls atomic.Int64
	var aclSaw atomic.Value
	broker := newMemoryBroker()
	g, spy := loneGate(t, testCatalogue, broker, func(c *Config) {
		c.ACL = ACL(func(_ context.Context, p Principal, _ *Descriptor, rs []string) error {
			aclCalls.Add(1)
			aclSaw.Store(strings.Join(rs, ","))
			if p.ID == memOnly.ID {
				return errors.New("not dave's notes")
			}
			return nil
		})
	})
	body := strings.Repeat("x", 2<<20)
	args := []byte(`{"title":"t","body":"` + body + `"}`)
	ch := make(chan ConfirmRequest, 1)
	defer broker.Subscribe(func(r ConfirmRequest) { ch <- r })()
	res := make(chan ActionResult, 1)
	go func() { res <- g.Dispatch(context.Background(), alice, req("w", "create_note", string(args))) }()
	cr := awaitConfirm(t, ch, res)
	aclCalls.Store(0)

	for _, tc := range []struct {
		name    string
		decider Principal
		acl     int64 // ACL calls per decision
	}{
		{"without the tier", guest, 0},
		{"refused by the ACL", memOnly, 1},
	} {
		d := ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}
		var err error
		n := bytesPerRun(20, func() { err = g.Resolve(context.Background(), tc.decider, d) })
		if !errors.Is(err, ErrConfirmForbidden) {
			t.Fatalf("%s: %v, want ErrConfirmForbidden", tc.name, err)
		}
		t.Logf("%s: %d bytes allocated per refused decision", tc.name, n)
		if n > 64<<10 {
			t.Errorf("%s: a refused decision allocates %d bytes, for a confirm of %d bytes of arguments", tc.name, n, len(args))
		}
		if got := aclCalls.Swap(0); got != 21*tc.acl {
			t.Errorf("%s: the ACL was asked %d times in 21 decisions, want %d", tc.name, got, 21*tc.acl)
		}
	}
	if s, _ := aclSaw.Load().(string); s != "notes/t" {
		t.Errorf("the ACL saw resources %q, want the confirm's notes/t", s)
	}
	if err := g.Resolve(context.Background(), bob, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	if r := awaitResult(t, res); !r.OK {
		t.Fatalf("result %+v", r)
	}
	if c := spy.Calls(); len(c) != 1 || c[0].Args != string(args) {
		t.Fatalf("server calls: %d", len(c))
	}
}

// The decider's rights are re-derived at decision time with
// Config.Reauthorize: a decider who lost the scope, whose rights cannot be
// read, or whose hook returns someone else, is refused and the confirm stays
// pending; Config.Approver is asked about the current rights.
func TestDeciderRightsReDerived(t *testing.T) {
	noLeaksAfter(t)
	var mu sync.Mutex
	mode := ""
	var approverSaw Principal
	broker := newMemoryBroker()
	g, spy := loneGate(t, testCatalogue, broker, func(c *Config) {
		c.Reauthorize = func(_ context.Context, p Principal) (Principal, error) {
			mu.Lock()
			defer mu.Unlock()
			if p.ID != bob.ID {
				return p, nil
			}
			switch mode {
			case "revoked":
				p.Scopes = []string{"memory.read"}
			case "demoted":
				p.Tier = "visitor"
			case "down":
				return Principal{}, errors.New("directory down")
			case "panic":
				panic("hook bug")
			case "swapped":
				p.ID = "u-root"
			case "current":
				p.Scopes = append(p.Scopes[:len(p.Scopes):len(p.Scopes)], "fresh")
			}
			return p, nil
		}
		c.Approver = func(_ context.Context, p Principal, _ ConfirmRequest) error {
			mu.Lock()
			defer mu.Unlock()
			approverSaw = p
			return nil
		}
	})
	ch := make(chan ConfirmRequest, 1)
	defer broker.Subscribe(func(r ConfirmRequest) { ch <- r })()
	res := make(chan ActionResult, 1)
	go func() {
		res <- g.Dispatch(context.Background(), alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
	}()
	cr := awaitConfirm(t, ch, res)
	d := ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}
	for _, m := range []string{"revoked", "demoted", "down", "panic", "swapped"} {
		mu.Lock()
		mode = m
		mu.Unlock()
		if err := g.Resolve(context.Background(), bob, d); !errors.Is(err, ErrConfirmForbidden) {
			t.Errorf("%s: bob's approval: %v, want ErrConfirmForbidden", m, err)
		}
		if _, err := broker.Lookup(context.Background(), cr.ID); err != nil {
			t.Fatalf("%s: the confirm is no longer pending: %v", m, err)
		}
	}
	mu.Lock()
	mode = "current"
	mu.Unlock()
	if err := g.Resolve(context.Background(), bob, d); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-res:
		if !r.OK {
			t.Fatalf("result %+v", r)
		}
	case <-time.After(hangGuard):
		t.Fatal("the call did not return")
	}
	if c := spy.Calls(); len(c) != 1 {
		t.Fatalf("server calls %+v", c)
	}
	mu.Lock()
	defer mu.Unlock()
	if approverSaw.ID != bob.ID || !approverSaw.HasScope("fresh") {
		t.Errorf("Config.Approver saw %+v, not bob's current rights", approverSaw)
	}
}

// MayDecide gives, for every decider, the verdict of Resolve's own rules
// (a channel, the policy that opened the confirm, the approver rule with
// current rights and Config.Approver): a decider it allows has its denial
// accepted, except on the requester's channel, which only the broker knows;
// a decider it refuses is refused by Resolve with the same error and leaves
// the confirm pending. On a Mux it asks the gate of the confirm's server.
func TestMayDecideIsResolvesRule(t *testing.T) {
	noLeaksAfter(t)
	broker := NewMemoryBroker()
	var mu sync.Mutex
	refuseBob := false
	one, spy := loneGate(t, testCatalogue, broker, func(c *Config) {
		c.Reauthorize = func(_ context.Context, p Principal) (Principal, error) {
			mu.Lock()
			defer mu.Unlock()
			if p.Peer == "desk-bob-revoked" {
				p.Scopes = []string{"memory.read"}
			}
			return p, nil
		}
		c.Approver = func(_ context.Context, p Principal, _ ConfirmRequest) error {
			mu.Lock()
			defer mu.Unlock()
			if refuseBob && p.ID == bob.ID {
				return errors.New("bob is on leave")
			}
			return nil
		}
	})
	two, _ := loneGate(t, laxCatalogue, broker, nil)
	noPeer := bob
	noPeer.Peer = ""
	revoked := bob
	revoked.Peer = "desk-bob-revoked"
	ch := make(chan ConfirmRequest, 1)
	defer broker.Subscribe(func(r ConfirmRequest) { ch <- r })()

	for _, c := range []struct {
		name    string
		gate    *Gate
		decider Principal
		onLeave bool
		want    error // of MayDecide
		resolve error // of Resolve, when it differs
	}{
		{"the requester's phone", one, alicePhone, false, nil, nil},
		{"another authorized peer", one, bob, false, nil, nil},
		{"the requester's own channel", one, alice, false, nil, ErrConfirmSelf},
		{"no channel", one, noPeer, false, ErrConfirmSelf, nil},
		{"a peer without the tier and scopes", one, guest, false, ErrConfirmForbidden, nil},
		{"current rights revoked", one, revoked, false, ErrConfirmForbidden, nil},
		{"Config.Approver refuses", one, bob, true, ErrConfirmForbidden, nil},
		{"a gate of another policy", two, guest, false, ErrConfirmForbidden, nil},
		{"a gate of another policy, an authorized peer", two, bob, false, ErrConfirmForbidden, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			mu.Lock()
			refuseBob = c.onLeave
			mu.Unlock()
			res := make(chan ActionResult, 1)
			go func() {
				res <- one.Dispatch(context.Background(), alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
			}()
			var cr ConfirmRequest
			select {
			case cr = <-ch:
			case <-time.After(hangGuard):
				t.Fatal("no confirm was announced")
			}
			if err := c.gate.MayDecide(t.Context(), c.decider, cr); !errors.Is(err, c.want) || (c.want == nil && err != nil) {
				t.Errorf("MayDecide: %v, want %v", err, c.want)
			}
			wantResolve := c.want
			if c.resolve != nil {
				wantResolve = c.resolve
			}
			err := c.gate.Resolve(t.Context(), c.decider, ConfirmDecision{ID: cr.ID, Digest: cr.Digest})
			if !errors.Is(err, wantResolve) || (wantResolve == nil && err != nil) {
				t.Errorf("Resolve: %v, want %v", err, wantResolve)
			}
			if err != nil {
				if err := one.Resolve(t.Context(), alicePhone, ConfirmDecision{ID: cr.ID, Digest: cr.Digest}); err != nil {
					t.Fatalf("the confirm was not left pending: %v", err)
				}
			}
			wantRefused(t, awaitResult(t, res), ReasonDenied)
		})
	}
	if c := spy.Calls(); len(c) != 0 {
		t.Fatalf("server calls %+v", c)
	}

	h := newMuxHarness(t, nil)
	resM, cr := h.openWrite(t, "w", "delete_entities", `{"entityNames":["a"]}`)
	if err := h.m.MayDecide(t.Context(), guest, cr); !errors.Is(err, ErrConfirmForbidden) {
		t.Errorf("mux, guest: %v", err)
	}
	if err := h.m.MayDecide(t.Context(), noPeer, cr); !errors.Is(err, ErrConfirmSelf) {
		t.Errorf("mux, no channel: %v", err)
	}
	other := cr
	other.Server = "nowhere"
	if err := h.m.MayDecide(t.Context(), chatPhone, other); !errors.Is(err, ErrConfirmForbidden) {
		t.Errorf("mux, a confirm of no server of the mux: %v", err)
	}
	if err := h.m.MayDecide(t.Context(), chatPhone, cr); err != nil {
		t.Errorf("mux, the requester's phone: %v", err)
	}
	if err := h.m.Resolve(t.Context(), chatPhone, ConfirmDecision{ID: cr.ID, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, resM), ReasonDenied)
}
