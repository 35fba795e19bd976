// Package brokertest is the conformance suite of [ocp.ConfirmBroker]:
// every broker (the in-memory one, the Redis one, any other) must pass
// [Run]. It plays two Hub replicas, a and b: a confirm requested on one is
// seen, listed and decided from the other. For a single-process broker both
// replicas are the same instance.
//
// Call Run from a test whose name starts with TestConformance, so that
// `go test -run Conformance` selects every broker's suite:
//
//	func TestConformanceMemory(t *testing.T) {
//		brokertest.Run(t, func(t *testing.T) (a, b ocp.ConfirmBroker) {
//			m := ocp.NewMemoryBroker()
//			return m, m
//		})
//	}
//
// The suite relies only on the interface's documented guarantees, plus: a
// subscriber registered with Subscribe is called for every confirm requested
// (on either replica) after Subscribe returns, in subscription order per
// broker, and is not called for confirms requested after its stop returns.
// It never asserts a duration: its only timeouts guard against a hang.
package brokertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/internal/testwait"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// HangGuard bounds every wait of the suite for something the broker must do
// (announce a confirm or its end, return a decision). Reaching it fails the
// test, saying what it waited for: it is a guard against a hang, not a
// performance threshold.
const HangGuard = testwait.Guard

// RequesterPeer is the Peer of the requesting (model's) channel in the
// suite's confirms.
const RequesterPeer = "model-chan-7e1d"

var (
	// phone is the requester's own person on another connection: a peer
	// that may decide.
	phone = ocp.Principal{ID: "u-alice", Tier: "member", Peer: "phone-a1"}
	desk  = Decider
)

// Run runs the conformance suite. newReplicas is called once per subtest and
// returns the two replicas' brokers, fresh (nothing pending) and isolated
// from other subtests; it registers their cleanup with t.
func Run(t *testing.T, newReplicas func(t *testing.T) (a, b ocp.ConfirmBroker)) {
	tests := []struct {
		name string
		fn   func(t *testing.T, a, b ocp.ConfirmBroker)
	}{
		{"ApproveOnOtherReplica", testApproveOnOtherReplica},
		{"DenyOnOtherReplica", testDenyOnOtherReplica},
		{"ApproveOnSameReplica", testApproveOnSameReplica},
		{"RefusalsKeepPending", testRefusalsKeepPending},
		{"DigestOfAnotherConfirm", testDigestOfAnotherConfirm},
		{"ResolvesOnce", testResolvesOnce},
		{"Expires", testExpires},
		{"ApprovalAtExpiryIsNotApproval", testApprovalAtExpiry},
		{"ExpiredOnArrival", testExpiredOnArrival},
		{"CancelDenies", testCancelDenies},
		{"CancelledBeforeRequest", testCancelledBeforeRequest},
		{"RequestErrors", testRequestErrors},
		{"PendingAcrossReplicas", testPendingAcrossReplicas},
		{"LookupAcrossReplicas", testLookupAcrossReplicas},
		{"SubscribersOnEveryReplica", testSubscribers},
		{"EndsAnnouncedOnEveryReplica", testEndsAnnounced},
		{"SubscriberMayResolve", testSubscriberMayResolve},
		{"ManyConcurrent", testManyConcurrent},
		{"GateApproveOnOtherReplica", testGateApprove},
		{"GateDenyOnOtherReplica", testGateDeny},
		{"GateRequesterChannelRefused", testGateRequesterChannel},
		{"GateUnauthorizedDeciderRefused", testGateUnauthorizedDecider},
		{"GateOtherPolicyRefused", testGateOtherPolicy},
		{"GateDeciderACLOnTheConfirmsResources", testGateDeciderACL},
		{"GateExpiryDenies", testGateExpiry},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := newReplicas(t)
			tc.fn(t, a, b)
			if !t.Failed() {
				// Whatever a test did, it ended every confirm: none is left.
				wantPending(t, a)
				wantPending(t, b)
			}
		})
	}
}

// pendingFor returns a confirm with the given id and time to live.
func pendingFor(id string, ttl time.Duration) ocp.PendingConfirm {
	return ocp.PendingConfirm{
		Request: ocp.ConfirmRequest{
			ID:        id,
			Tool:      "close_ticket",
			Prompt:    "Close ticket " + id + "?",
			Requester: "u-alice",
			Args:      []byte(`{"ticket":"` + id + `"}`),
			Policy:    "sha256:policy-of-the-suite",
			Resources: []string{"tickets/" + id, "queues/support"},
			Digest:    "sha256:digest-of-" + id,
			Expires:   time.Now().Add(ttl),
		},
		RequesterPeer: RequesterPeer,
	}
}

func approve(r ocp.ConfirmRequest) ocp.ConfirmDecision {
	return ocp.ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest}
}

func deny(r ocp.ConfirmRequest) ocp.ConfirmDecision {
	return ocp.ConfirmDecision{ID: r.ID, Approve: false, Digest: r.Digest}
}

type result struct {
	d   ocp.Decision
	err error
}

// announcements subscribes to br and returns the confirms it announces. The
// subscription ends with the test.
func announcements(t *testing.T, br ocp.ConfirmBroker) <-chan ocp.ConfirmRequest {
	ch := make(chan ocp.ConfirmRequest, 1024)
	stop := br.Subscribe(func(r ocp.ConfirmRequest) {
		select {
		case ch <- r:
		default:
			panic("brokertest: announcement buffer full")
		}
	})
	t.Cleanup(stop)
	return ch
}

// awaitAnnounced waits until ch carries the confirm id and returns it.
func awaitAnnounced(t *testing.T, ch <-chan ocp.ConfirmRequest, id string) ocp.ConfirmRequest {
	t.Helper()
	timer := time.NewTimer(HangGuard)
	defer timer.Stop()
	for {
		select {
		case r := <-ch:
			if r.ID == id {
				return r
			}
		case <-timer.C:
			t.Fatalf("confirm %s was never announced", id)
		}
	}
}

// start runs on.Request(p) in a goroutine and returns once the confirm has
// been announced by seer (so it is registered), with the announced request.
func start(ctx context.Context, t *testing.T, on, seer ocp.ConfirmBroker, p ocp.PendingConfirm) (<-chan result, ocp.ConfirmRequest) {
	t.Helper()
	ann := announcements(t, seer)
	return request(ctx, on, p), awaitAnnounced(t, ann, p.Request.ID)
}

// request runs on.Request(p) in a goroutine; the result arrives on the
// channel (buffered: nobody need read it).
func request(ctx context.Context, on ocp.ConfirmBroker, p ocp.PendingConfirm) chan result {
	out := make(chan result, 1)
	go func() {
		d, err := on.Request(ctx, p)
		out <- result{d, err}
	}()
	return out
}

// startShortLived is start, with a subscription made beforehand, for a
// confirm with a short time to live, which a loaded machine may delay past
// its Expires before the broker registers it: such a confirm arrives
// expired and need not be announced. It returns once the confirm is
// announced or its Request has ended (the result is still delivered on the
// channel).
func startShortLived(ctx context.Context, t *testing.T, on ocp.ConfirmBroker, ann <-chan ocp.ConfirmRequest, p ocp.PendingConfirm) <-chan result {
	t.Helper()
	out := request(ctx, on, p)
	timer := time.NewTimer(HangGuard)
	defer timer.Stop()
	for {
		select {
		case r := <-ann:
			if r.ID == p.Request.ID {
				return out
			}
		case r := <-out:
			out <- r
			return out
		case <-timer.C:
			t.Fatalf("confirm %s was neither announced nor ended", p.Request.ID)
		}
	}
}

func await(t *testing.T, ch <-chan result) result {
	t.Helper()
	return testwait.Recv(t, ch, "Request to return")
}

func wantOutcome(t *testing.T, r result, o ocp.Outcome) {
	t.Helper()
	if r.err != nil || r.d.Outcome != o {
		t.Fatalf("Request = %+v, %v; want outcome %q and no error", r.d, r.err, o)
	}
}

// wantPending checks that br lists exactly the confirms ids, in that order.
func wantPending(t *testing.T, br ocp.ConfirmBroker, ids ...string) []ocp.ConfirmRequest {
	t.Helper()
	p, err := br.Pending(context.Background())
	if err != nil {
		t.Fatalf("Pending: %v", err)
	}
	got := make([]string, len(p))
	for i, r := range p {
		got[i] = r.ID
	}
	if !slices.Equal(got, ids) {
		t.Fatalf("Pending = %q, want %q", got, ids)
	}
	return p
}

func sameRequest(t *testing.T, what string, got, want ocp.ConfirmRequest) {
	t.Helper()
	if got.ID != want.ID || got.Tool != want.Tool || got.Prompt != want.Prompt || got.Requester != want.Requester ||
		!bytes.Equal(got.Args, want.Args) || got.Digest != want.Digest || !got.Expires.Equal(want.Expires) ||
		got.Server != want.Server || got.Policy != want.Policy || !slices.Equal(got.Resources, want.Resources) {
		t.Fatalf("%s = %+v, want %+v", what, got, want)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: err = %v, want %v", what, err, want)
	}
}

func testApproveOnOtherReplica(t *testing.T, a, b ocp.ConfirmBroker) {
	p := pendingFor("c-approve", time.Hour)
	res, seen := start(context.Background(), t, a, b, p)
	sameRequest(t, "announced on the other replica", seen, p.Request)
	listed := wantPending(t, b, seen.ID)
	sameRequest(t, "listed on the other replica", listed[0], p.Request)
	wantPending(t, a, seen.ID)

	if err := b.Resolve(context.Background(), phone, approve(seen)); err != nil {
		t.Fatalf("approve: %v", err)
	}
	// A second decision or a replay, on either replica, before and after the
	// requester collected the decision, changes nothing.
	wantErr(t, "second decision", b.Resolve(context.Background(), desk, deny(seen)), ocp.ErrConfirmNotPending)
	wantErr(t, "second decision on the requesting replica", a.Resolve(context.Background(), desk, deny(seen)), ocp.ErrConfirmNotPending)
	r := await(t, res)
	wantOutcome(t, r, ocp.OutcomeApproved)
	if r.d.Peer != phone.Peer || r.d.PrincipalID != phone.ID {
		t.Fatalf("decided by %q/%q, want %q/%q", r.d.Peer, r.d.PrincipalID, phone.Peer, phone.ID)
	}
	wantErr(t, "replay", b.Resolve(context.Background(), phone, approve(seen)), ocp.ErrConfirmNotPending)
	wantErr(t, "replay on the requesting replica", a.Resolve(context.Background(), phone, approve(seen)), ocp.ErrConfirmNotPending)
}

func testDenyOnOtherReplica(t *testing.T, a, b ocp.ConfirmBroker) {
	res, seen := start(context.Background(), t, a, b, pendingFor("c-deny", time.Hour))
	if err := b.Resolve(context.Background(), desk, deny(seen)); err != nil {
		t.Fatalf("deny: %v", err)
	}
	wantPending(t, a)
	wantPending(t, b)
	r := await(t, res)
	wantOutcome(t, r, ocp.OutcomeDenied)
	if r.d.Peer != desk.Peer || r.d.PrincipalID != desk.ID {
		t.Fatalf("decided by %q/%q", r.d.Peer, r.d.PrincipalID)
	}
	wantErr(t, "approval after the denial", b.Resolve(context.Background(), phone, approve(seen)), ocp.ErrConfirmNotPending)
}

func testApproveOnSameReplica(t *testing.T, a, b ocp.ConfirmBroker) {
	res, seen := start(context.Background(), t, a, a, pendingFor("c-same", time.Hour))
	if err := a.Resolve(context.Background(), phone, approve(seen)); err != nil {
		t.Fatalf("approve: %v", err)
	}
	wantOutcome(t, await(t, res), ocp.OutcomeApproved)
}

func testRefusalsKeepPending(t *testing.T, a, b ocp.ConfirmBroker) {
	ctx := context.Background()
	p := pendingFor("c-refusals", time.Hour)
	res, seen := start(ctx, t, a, b, p)
	good := approve(seen)
	for _, br := range []ocp.ConfirmBroker{b, a} {
		for _, tc := range []struct {
			name string
			peer ocp.Principal
			d    ocp.ConfirmDecision
			want error
		}{
			{"the requester's own channel", ocp.Principal{ID: "u-alice", Peer: RequesterPeer}, good, ocp.ErrConfirmSelf},
			{"the requester's own channel, denying", ocp.Principal{ID: "u-alice", Peer: RequesterPeer}, deny(seen), ocp.ErrConfirmSelf},
			{"no channel identity", ocp.Principal{ID: "u-alice"}, good, ocp.ErrConfirmSelf},
			{"wrong digest", phone, ocp.ConfirmDecision{ID: seen.ID, Approve: true, Digest: seen.Digest + "x"}, ocp.ErrConfirmDigest},
			{"empty digest", phone, ocp.ConfirmDecision{ID: seen.ID, Approve: true}, ocp.ErrConfirmDigest},
			{"wrong digest, denying", phone, ocp.ConfirmDecision{ID: seen.ID, Digest: "sha256:other"}, ocp.ErrConfirmDigest},
			{"unknown id", phone, ocp.ConfirmDecision{ID: seen.ID + "-not", Approve: true, Digest: seen.Digest}, ocp.ErrConfirmNotPending},
			{"empty id", phone, ocp.ConfirmDecision{Approve: true, Digest: seen.Digest}, ocp.ErrConfirmNotPending},
		} {
			if err := br.Resolve(ctx, tc.peer, tc.d); !errors.Is(err, tc.want) {
				t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
			}
		}
	}
	sameRequest(t, "still pending", wantPending(t, a, seen.ID)[0], p.Request)
	wantPending(t, b, seen.ID)
	if err := b.Resolve(ctx, phone, good); err != nil {
		t.Fatalf("approve after the refusals: %v", err)
	}
	wantOutcome(t, await(t, res), ocp.OutcomeApproved)
}

func testDigestOfAnotherConfirm(t *testing.T, a, b ocp.ConfirmBroker) {
	ctx := context.Background()
	res1, c1 := start(ctx, t, a, b, pendingFor("c-1", time.Hour))
	res2, c2 := start(ctx, t, b, a, pendingFor("c-2", time.Hour))
	wantErr(t, "c1 with c2's digest", b.Resolve(ctx, phone, ocp.ConfirmDecision{ID: c1.ID, Approve: true, Digest: c2.Digest}), ocp.ErrConfirmDigest)
	wantErr(t, "c2 with c1's digest", a.Resolve(ctx, phone, ocp.ConfirmDecision{ID: c2.ID, Approve: true, Digest: c1.Digest}), ocp.ErrConfirmDigest)
	wantPending(t, a, c1.ID, c2.ID)
	if err := b.Resolve(ctx, phone, deny(c1)); err != nil {
		t.Fatal(err)
	}
	if err := a.Resolve(ctx, phone, approve(c2)); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, await(t, res1), ocp.OutcomeDenied)
	wantOutcome(t, await(t, res2), ocp.OutcomeApproved)
}

// Deciders on both replicas race: exactly one decision wins, and it is the
// one the requester gets.
func testResolvesOnce(t *testing.T, a, b ocp.ConfirmBroker) {
	const deciders = 16
	for round := range 4 {
		res, seen := start(context.Background(), t, a, b, pendingFor(fmt.Sprintf("c-race-%d", round), time.Hour))
		errs := make([]error, deciders)
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for i := range deciders {
			br := a
			if i%2 == 1 {
				br = b
			}
			wg.Go(func() {
				<-gate
				peer := ocp.Principal{ID: fmt.Sprintf("u-%d", i), Peer: fmt.Sprintf("peer-%d", i)}
				errs[i] = br.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: seen.ID, Approve: i%4 < 2, Digest: seen.Digest})
			})
		}
		close(gate)
		testwait.Wait(t, &wg, "round %d: the %d deciders' Resolve to return", round, deciders)
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: deciders %d and %d both won", round, winner, i)
			case err == nil:
				winner = i
			case !errors.Is(err, ocp.ErrConfirmNotPending):
				t.Fatalf("round %d: decider %d: %v", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no decider won", round)
		}
		want := ocp.OutcomeDenied
		if winner%4 < 2 {
			want = ocp.OutcomeApproved
		}
		r := await(t, res)
		wantOutcome(t, r, want)
		if r.d.Peer != fmt.Sprintf("peer-%d", winner) {
			t.Fatalf("round %d: decided by %q, but decider %d won", round, r.d.Peer, winner)
		}
	}
}

func testExpires(t *testing.T, a, b ocp.ConfirmBroker) {
	p := pendingFor("c-expires", time.Second)
	seen := p.Request
	r := await(t, request(context.Background(), a, p))
	wantOutcome(t, r, ocp.OutcomeExpired)
	if r.d.Peer != "" || r.d.PrincipalID != "" {
		t.Fatalf("an expiry names a decider: %+v", r.d)
	}
	wantPending(t, a)
	wantPending(t, b)
	wantErr(t, "approval after expiry", b.Resolve(context.Background(), phone, approve(seen)), ocp.ErrConfirmNotPending)
}

// An approval sent at or after Expires is never an approval, whether or not
// the broker has noticed the expiry yet.
func testApprovalAtExpiry(t *testing.T, a, b ocp.ConfirmBroker) {
	ann := announcements(t, b)
	p := pendingFor("c-late", time.Second)
	res := startShortLived(context.Background(), t, a, ann, p)
	seen := p.Request
	time.Sleep(time.Until(seen.Expires) + time.Millisecond)
	err := b.Resolve(context.Background(), phone, approve(seen))
	if !errors.Is(err, ocp.ErrConfirmExpired) && !errors.Is(err, ocp.ErrConfirmNotPending) {
		t.Fatalf("late approval: err = %v, want ErrConfirmExpired or ErrConfirmNotPending", err)
	}
	wantOutcome(t, await(t, res), ocp.OutcomeExpired)
}

// A confirm that arrives already expired is expired, even with a peer that
// approves everything at once.
func testExpiredOnArrival(t *testing.T, a, b ocp.ConfirmBroker) {
	type attempt struct {
		id  string
		err error
	}
	attempts := make(chan attempt, 64)
	for _, br := range []ocp.ConfirmBroker{a, b} {
		stop := br.Subscribe(func(r ocp.ConfirmRequest) {
			attempts <- attempt{r.ID, br.Resolve(context.Background(), phone, approve(r))}
		})
		t.Cleanup(stop)
	}
	p := pendingFor("c-stale", -time.Second)
	d, err := a.Request(context.Background(), p)
	if err != nil || d.Outcome != ocp.OutcomeExpired {
		t.Fatalf("Request = %+v, %v; want expired", d, err)
	}
	// A later confirm, approved by the same peers, flushes their earlier
	// attempts through (subscribers are called in order).
	res, _ := start(context.Background(), t, a, b, pendingFor("c-fresh", time.Hour))
	wantOutcome(t, await(t, res), ocp.OutcomeApproved)
	for freshApproved := false; !freshApproved; {
		select {
		case at := <-attempts:
			switch {
			case at.id == "c-stale" && at.err == nil:
				t.Fatal("an approval of the expired confirm was accepted")
			case at.id == "c-fresh" && at.err == nil:
				freshApproved = true
			}
		case <-time.After(HangGuard):
			t.Fatal("the approving subscriber never reported")
		}
	}
}

func testCancelDenies(t *testing.T, a, b ocp.ConfirmBroker) {
	ctx, cancel := context.WithCancel(context.Background())
	res, seen := start(ctx, t, a, b, pendingFor("c-cancel", time.Hour))
	cancel()
	wantOutcome(t, await(t, res), ocp.OutcomeCancelled)
	wantPending(t, a)
	wantPending(t, b)
	wantErr(t, "approval after cancellation", b.Resolve(context.Background(), phone, approve(seen)), ocp.ErrConfirmNotPending)
}

func testCancelledBeforeRequest(t *testing.T, a, b ocp.ConfirmBroker) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := pendingFor("c-precancelled", time.Hour)
	d, err := a.Request(ctx, p)
	if err != nil || d.Outcome != ocp.OutcomeCancelled {
		t.Fatalf("Request = %+v, %v; want cancelled", d, err)
	}
	wantErr(t, "approval", b.Resolve(context.Background(), phone, approve(p.Request)), ocp.ErrConfirmNotPending)
}

func testRequestErrors(t *testing.T, a, b ocp.ConfirmBroker) {
	if _, err := a.Request(context.Background(), ocp.PendingConfirm{}); err == nil {
		t.Fatal("empty id accepted")
	}
	p := pendingFor("c-dup", time.Hour)
	res, seen := start(context.Background(), t, a, b, p)
	for name, br := range map[string]ocp.ConfirmBroker{"same replica": a, "other replica": b} {
		// A second's life: a broker that accepts the duplicate fails here
		// when it expires, not a minute later.
		q := pendingFor("c-dup", time.Second)
		q.Request.Digest = "sha256:an-impostor"
		if d, err := br.Request(context.Background(), q); err == nil {
			t.Fatalf("duplicate id on the %s accepted: %+v", name, d)
		}
	}
	// The duplicates did not disturb the original.
	sameRequest(t, "original", wantPending(t, b, seen.ID)[0], p.Request)
	if err := b.Resolve(context.Background(), phone, approve(seen)); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, await(t, res), ocp.OutcomeApproved)
}

// Pending lists the confirms of both replicas on both, by expiry then id.
// Lookup finds a pending confirm on every replica, with the request as
// registered, and nothing once it ended or for an unknown id.
func testLookupAcrossReplicas(t *testing.T, a, b ocp.ConfirmBroker) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := pendingFor("c-look", time.Hour)
	res, _ := start(ctx, t, a, a, p)
	for _, br := range []ocp.ConfirmBroker{a, b} {
		got, err := br.Lookup(context.Background(), p.Request.ID)
		if err != nil {
			t.Fatalf("Lookup of a pending confirm: %v", err)
		}
		sameRequest(t, "looked up", got, p.Request)
		if _, err := br.Lookup(context.Background(), "c-unknown"); !errors.Is(err, ocp.ErrConfirmNotPending) {
			t.Errorf("Lookup of an unknown id: %v, want ErrConfirmNotPending", err)
		}
	}
	if err := b.Resolve(context.Background(), desk, deny(p.Request)); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, await(t, res), ocp.OutcomeDenied)
	for _, br := range []ocp.ConfirmBroker{a, b} {
		if _, err := br.Lookup(context.Background(), p.Request.ID); !errors.Is(err, ocp.ErrConfirmNotPending) {
			t.Errorf("Lookup of an ended confirm: %v, want ErrConfirmNotPending", err)
		}
	}
}

func testPendingAcrossReplicas(t *testing.T, a, b ocp.ConfirmBroker) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	later := pendingFor("c-later", 3*time.Hour)
	soonX := pendingFor("c-soon-x", time.Hour)
	soonY := pendingFor("c-soon-y", time.Hour)
	soonY.Request.Expires = soonX.Request.Expires // a tie: by id
	mid := pendingFor("c-mid", 2*time.Hour)
	var results []<-chan result
	for _, s := range []struct {
		on ocp.ConfirmBroker
		p  ocp.PendingConfirm
	}{{a, later}, {b, soonY}, {a, mid}, {b, soonX}} {
		r, _ := start(ctx, t, s.on, a, s.p)
		results = append(results, r)
	}
	for _, br := range []ocp.ConfirmBroker{a, b} {
		got := wantPending(t, br, "c-soon-x", "c-soon-y", "c-mid", "c-later")
		sameRequest(t, "listed", got[2], mid.Request)
	}
	if err := a.Resolve(context.Background(), desk, deny(mid.Request)); err != nil {
		t.Fatal(err)
	}
	for _, br := range []ocp.ConfirmBroker{a, b} {
		wantPending(t, br, "c-soon-x", "c-soon-y", "c-later")
	}
	wantOutcome(t, await(t, results[2]), ocp.OutcomeDenied)
	cancel()
	for _, i := range []int{0, 1, 3} {
		wantOutcome(t, await(t, results[i]), ocp.OutcomeCancelled)
	}
}

func testSubscribers(t *testing.T, a, b ocp.ConfirmBroker) {
	ctx := context.Background()
	stopPanic := b.Subscribe(func(ocp.ConfirmRequest) { panic("a subscriber's bug") })
	defer stopPanic()
	var mu sync.Mutex
	var early []string
	stopEarly := b.Subscribe(func(r ocp.ConfirmRequest) {
		mu.Lock()
		early = append(early, r.ID)
		mu.Unlock()
	})
	onA := announcements(t, a)

	p1 := pendingFor("c-sub-1", time.Hour)
	res1, seen := start(ctx, t, a, b, p1)
	sameRequest(t, "announced on the other replica", seen, p1.Request)
	sameRequest(t, "announced on the requesting replica", awaitAnnounced(t, onA, p1.Request.ID), p1.Request)
	if err := b.Resolve(ctx, phone, approve(seen)); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, await(t, res1), ocp.OutcomeApproved)

	// start subscribes after stopEarly: once that later subscriber has seen
	// c-sub-2, a stopped early one would have been called already.
	stopEarly()
	stopEarly() // idempotent
	res2, seen2 := start(ctx, t, a, b, pendingFor("c-sub-2", time.Hour))
	awaitAnnounced(t, onA, seen2.ID)
	if err := b.Resolve(ctx, phone, deny(seen2)); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, await(t, res2), ocp.OutcomeDenied)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(early, []string{"c-sub-1"}) {
		t.Fatalf("the stopped subscriber saw %q, want only c-sub-1", early)
	}
}

// Every replica's SubscribeEnded hears of every confirm's end, with its
// outcome: decided on another replica, expired, or cancelled.
func testEndsAnnounced(t *testing.T, a, b ocp.ConfirmBroker) {
	// One subscription on each replica (a and b may be one broker).
	var ends []chan ocp.ConfirmEnded
	for _, br := range []ocp.ConfirmBroker{a, b} {
		ch := make(chan ocp.ConfirmEnded, 16)
		ends = append(ends, ch)
		stop := br.SubscribeEnded(func(e ocp.ConfirmEnded) { ch <- e })
		defer stop()
	}
	wantEnd := func(id string, o ocp.Outcome) {
		t.Helper()
		for _, ch := range ends {
			timer := time.NewTimer(HangGuard)
			select {
			case e := <-ch:
				if e != (ocp.ConfirmEnded{ID: id, Outcome: o}) {
					t.Errorf("end announced: %+v, want %s %s", e, id, o)
				}
			case <-timer.C:
				t.Fatalf("the end of %s (%s) was not announced", id, o)
			}
			timer.Stop()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, seen := start(ctx, t, a, b, pendingFor("c-end-1", time.Hour))
	if err := b.Resolve(ctx, phone, deny(seen)); err != nil {
		t.Fatal(err)
	}
	wantOutcome(t, await(t, res), ocp.OutcomeDenied)
	wantEnd("c-end-1", ocp.OutcomeDenied)

	res, _ = start(ctx, t, a, b, pendingFor("c-end-2", 50*time.Millisecond))
	wantOutcome(t, await(t, res), ocp.OutcomeExpired)
	wantEnd("c-end-2", ocp.OutcomeExpired)

	cctx, ccancel := context.WithCancel(ctx)
	res, _ = start(cctx, t, a, b, pendingFor("c-end-3", time.Hour))
	ccancel()
	wantOutcome(t, await(t, res), ocp.OutcomeCancelled)
	wantEnd("c-end-3", ocp.OutcomeCancelled)
}

func testSubscriberMayResolve(t *testing.T, a, b ocp.ConfirmBroker) {
	errs := make(chan error, 16)
	stop := b.Subscribe(func(r ocp.ConfirmRequest) {
		errs <- b.Resolve(context.Background(), phone, approve(r))
	})
	defer stop()
	// The subscriber decides: Request waits for it, not for the hour.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wantOutcome(t, await(t, request(ctx, a, pendingFor("c-in-notification", time.Hour))), ocp.OutcomeApproved)
	select {
	case err := <-errs:
		if err != nil {
			t.Fatalf("resolve in the notification: %v", err)
		}
	case <-time.After(HangGuard):
		t.Fatal("the subscriber never returned")
	}
}

// Many confirms pending at once on both replicas, each decided from the
// other: every requester gets its own decision.
func testManyConcurrent(t *testing.T, a, b ocp.ConfirmBroker) {
	const n = 100
	annA, annB := announcements(t, a), announcements(t, b)
	results := make([]chan result, n)
	for i := range n {
		on := a
		if i%2 == 1 {
			on = b
		}
		results[i] = make(chan result, 1)
		go func() {
			d, err := on.Request(context.Background(), pendingFor(fmt.Sprintf("c-many-%03d", i), time.Hour))
			results[i] <- result{d, err}
		}()
	}
	// Every confirm is announced on both replicas, and all are pending at
	// once before any is decided.
	seen := map[string]ocp.ConfirmRequest{}
	for _, ch := range []<-chan ocp.ConfirmRequest{annA, annB} {
		for range n {
			select {
			case r := <-ch:
				seen[r.ID] = r
			case <-time.After(HangGuard):
				t.Fatalf("only %d confirms announced", len(seen))
			}
		}
	}
	if len(seen) != n {
		t.Fatalf("announced %d distinct confirms, want %d", len(seen), n)
	}
	if p, err := b.Pending(context.Background()); err != nil || len(p) != n {
		t.Fatalf("Pending = %d confirms, %v; want %d", len(p), err, n)
	}
	var wg sync.WaitGroup
	for i := range n {
		decider := b
		if i%2 == 1 {
			decider = a
		}
		r := seen[fmt.Sprintf("c-many-%03d", i)]
		wg.Go(func() {
			d := deny(r)
			if i%3 == 0 {
				d = approve(r)
			}
			if err := decider.Resolve(context.Background(), desk, d); err != nil {
				t.Errorf("decide %s: %v", r.ID, err)
			}
		})
	}
	testwait.Wait(t, &wg, "the deciders' Resolve to return")
	for i := range n {
		want := ocp.OutcomeDenied
		if i%3 == 0 {
			want = ocp.OutcomeApproved
		}
		wantOutcome(t, await(t, results[i]), want)
	}
}
