package ocp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ocpgen/ocpgen/internal/testwait"
)

// The gate's own checks, each of which another layer also makes (a
// conforming broker, a later stage): they must hold against a broker that
// checks nothing, and each is made before anything more costly.

// recordingBroker is a broker that records every decision it is asked to
// apply, and looks up what lookup says when it is set.
type recordingBroker struct {
	ConfirmBroker
	lookup func(id string) (ConfirmRequest, error)

	mu       sync.Mutex
	resolved []ConfirmDecision
}

func (b *recordingBroker) Lookup(ctx context.Context, id string) (ConfirmRequest, error) {
	if b.lookup != nil {
		return b.lookup(id)
	}
	return b.ConfirmBroker.Lookup(ctx, id)
}

func (b *recordingBroker) Resolve(ctx context.Context, peer Principal, d ConfirmDecision) error {
	b.mu.Lock()
	b.resolved = append(b.resolved, d)
	b.mu.Unlock()
	return b.ConfirmBroker.Resolve(ctx, peer, d)
}

func (b *recordingBroker) wantNoResolve(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.resolved) != 0 {
		t.Errorf("the broker was asked to apply %+v", b.resolved)
	}
}

// recording returns a harness whose broker records the decisions it is
// asked to apply, and the recorder.
func recording(t *testing.T, mod func(*Config)) (*harness, *recordingBroker) {
	var rb *recordingBroker
	h := newHarness(t, true, func(cfg *Config) {
		rb = &recordingBroker{ConfirmBroker: cfg.Broker}
		cfg.Broker = rb
		if mod != nil {
			mod(cfg)
		}
	})
	return h, rb
}

// A decision with another digest is refused by the gate itself: the broker
// is not asked to apply it.
func TestGateRefusesAnotherDigestItself(t *testing.T) {
	h, rb := recording(t, nil)
	ch, stop := announced(h)
	defer stop()
	res := dispatchAsync(h, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
	cr := awaitConfirm(t, ch, res)
	forged := ConfirmDecision{ID: cr.ID, Approve: true, Digest: "sha256:" + strings.Repeat("0", 64)}
	if err := h.g.Resolve(context.Background(), alicePhone, forged); !errors.Is(err, ErrConfirmDigest) {
		t.Fatalf("Resolve with another digest: %v, want ErrConfirmDigest", err)
	}
	rb.wantNoResolve(t)
	if err := h.g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: cr.ID, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, res), ReasonDenied)
}

// A confirm the broker hands back for a tool that is not a write (a broker
// that lost its way, or one written to) is not decided: every write's
// confirm comes from a write.
func TestConfirmOfAReadIsNotDecided(t *testing.T) {
	var h *harness
	h, rb := recording(t, nil)
	rb.lookup = func(id string) (ConfirmRequest, error) {
		return ConfirmRequest{ID: id, Tool: "read_graph", Policy: h.g.one().policy, Resources: []string{"graph"}, Digest: "d"}, nil
	}
	if err := h.g.Resolve(context.Background(), bob, ConfirmDecision{ID: "x", Approve: true, Digest: "d"}); !errors.Is(err, ErrConfirmForbidden) {
		t.Fatalf("deciding a read's confirm: %v, want ErrConfirmForbidden", err)
	}
	rb.wantNoResolve(t)
	if !strings.Contains(h.audit.String(), "which is not a write") {
		t.Error("the audit log does not say why")
	}
}

// A confirm that names more resources than Config.MaxResources is refused
// before the ACL is asked about them, and never applied.
func TestDeciderACLIsBoundedByMaxResources(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	acl := ACL(func(context.Context, Principal, *Descriptor, []string) error {
		mu.Lock()
		asked++
		mu.Unlock()
		return nil
	})
	var h *harness
	h, rb := recording(t, func(cfg *Config) { cfg.ACL, cfg.MaxResources = acl, 4 })
	many := make([]string, 5)
	for i := range many {
		many[i] = fmt.Sprintf("graph/e%d", i)
	}
	rb.lookup = func(id string) (ConfirmRequest, error) {
		return ConfirmRequest{ID: id, Tool: "delete_entities", Policy: h.g.one().policy, Resources: many, Digest: "d"}, nil
	}
	if err := h.g.Resolve(context.Background(), bob, ConfirmDecision{ID: "x", Approve: true, Digest: "d"}); !errors.Is(err, ErrConfirmForbidden) {
		t.Fatalf("deciding a confirm of 5 resources, at most 4: %v, want ErrConfirmForbidden", err)
	}
	rb.wantNoResolve(t)
	mu.Lock()
	defer mu.Unlock()
	if asked != 0 {
		t.Errorf("the ACL was asked %d times", asked)
	}
}

// A decider is checked on the rights it presents before its current rights
// are asked for: one whose channel presents too low a tier is refused
// without a call of Config.Reauthorize, even when Reauthorize would grant
// the tier.
func TestDeciderPresentedRightsComeFirst(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	reauth := func(_ context.Context, p Principal) (Principal, error) {
		mu.Lock()
		asked = append(asked, p.ID)
		mu.Unlock()
		p.Tier = "admin"
		return p, nil
	}
	h, rb := recording(t, func(cfg *Config) { cfg.Reauthorize = reauth })
	ch, stop := announced(h)
	defer stop()
	res := dispatchAsync(h, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
	cr := awaitConfirm(t, ch, res)
	low := Principal{ID: "u-carol", Tier: "visitor", Scopes: alice.Scopes, Peer: "carol-desk"}
	if err := h.g.Resolve(context.Background(), low, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); !errors.Is(err, ErrConfirmForbidden) {
		t.Fatalf("a visitor's approval: %v, want ErrConfirmForbidden", err)
	}
	rb.wantNoResolve(t)
	mu.Lock()
	if slices.Contains(asked, low.ID) {
		t.Errorf("Reauthorize was asked about %s, whose presented tier already refuses it (asked: %q)", low.ID, asked)
	}
	mu.Unlock()
	if err := h.g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: cr.ID, Approve: false, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, awaitResult(t, res), ReasonDenied)
}

// lateApprover is a broker whose Request returns an approval only once the
// wait was cancelled: a decision that lost the race with a catalogue
// change.
type lateApprover struct {
	ConfirmBroker
	waiting chan struct{}
}

func (b *lateApprover) Request(ctx context.Context, p PendingConfirm) (Decision, error) {
	close(b.waiting)
	<-ctx.Done()
	return Decision{Outcome: OutcomeApproved, Peer: "desk-bob", PrincipalID: "u-bob"}, nil
}

// An approval that arrives after the wait was voided (the catalogue
// changed) is not an approval: the write is denied, the server is not
// called, and the confirm's audit event says it ended cancelled, the
// approval after the cancellation, not that it was approved.
func TestApprovalAfterTheWaitWasVoided(t *testing.T) {
	late := &lateApprover{waiting: make(chan struct{})}
	h := newHarness(t, true, func(cfg *Config) { late.ConfirmBroker = cfg.Broker; cfg.Broker = late })
	res := dispatchAsync(h, alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
	testwait.Closed(t, late.waiting, "the write to wait for its confirm")
	h.g.one().syncCatalogue(liveOf(NewCatalogue(testTiers, DeleteEntities, ReadGraph)))
	if r := awaitResult(t, res); r.OK || r.Reason != ReasonDenied || r.Error != textCatalogue {
		t.Errorf("result %+v, want denied as the catalogue changed", r)
	}
	wantNoCalls(t, h)
	var outcomes []string
	for _, e := range h.audit.events(t, "ocp.confirm") {
		outcomes = append(outcomes, fmt.Sprint(e["outcome"]))
		if e["outcome"] == string(OutcomeCancelled) && !strings.Contains(fmt.Sprint(e["detail"]), "approved after cancellation") {
			t.Errorf("the cancelled event does not say the approval came after: %v", e)
		}
	}
	if !slices.Equal(outcomes, []string{"opened", "cancelled"}) {
		t.Errorf("confirm events %q, want opened, cancelled", outcomes)
	}
}

// A tool the server lists twice, with the generated schema the second
// time, is withdrawn: which of the two would a call meet?
func TestToolListedTwiceIsWithdrawn(t *testing.T) {
	h := newHarness(t, false, nil)
	live := liveOf(testCatalogue)
	i := slices.IndexFunc(live, func(lt LiveTool) bool { return lt.Tool.Name == "read_graph" })
	other := otherTool("read_graph", "other")
	live = slices.Insert(live, i, other) // the other schema first, the generated one last
	h.g.one().syncCatalogue(live)
	if names := advertisedNames(h.g); slices.Contains(names, "read_graph") {
		t.Errorf("read_graph advertised while listed twice: %v", names)
	}
	e := h.audit.events(t, auditSync)
	if len(e) != 1 || fmt.Sprint(e[0]["schema_changed_withdrawn"]) != "[read_graph]" {
		t.Errorf("sync events %v", e)
	}
}
