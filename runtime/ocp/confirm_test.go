package ocp

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/internal/testwait"
)

var (
	requesterPeer = "model-channel"
	phone         = Principal{ID: "u-alice", Tier: "member", Peer: "phone-1"}
)

func pendingFor(id string, ttl time.Duration) PendingConfirm {
	return PendingConfirm{
		Request:       ConfirmRequest{ID: id, Tool: "t", Digest: "sha256:good", Expires: time.Now().Add(ttl)},
		RequesterPeer: requesterPeer,
	}
}

type requestResult struct {
	d   Decision
	err error
}

// awaitDecision returns the result of a Request started by startRequest.
func awaitDecision(t *testing.T, ch <-chan requestResult) requestResult {
	t.Helper()
	return testwait.Recv(t, ch, "the Request to return")
}

// startRequest runs Request in a goroutine and returns once the confirm is
// registered.
func startRequest(ctx context.Context, t *testing.T, b *memoryBroker, p PendingConfirm) <-chan requestResult {
	t.Helper()
	registered := make(chan struct{})
	stop := b.Subscribe(func(r ConfirmRequest) {
		if r.ID == p.Request.ID {
			close(registered)
		}
	})
	out := make(chan requestResult, 1)
	go func() {
		d, err := b.Request(ctx, p)
		out <- requestResult{d, err}
	}()
	testwait.Closed(t, registered, "confirm %s to be announced", p.Request.ID)
	stop()
	return out
}

func TestMemoryBrokerApproveOnce(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	res := startRequest(context.Background(), t, b, pendingFor("c1", time.Hour))
	if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}); err != nil {
		t.Fatalf("first resolve: %v", err)
	}
	// A second resolution (or a replay) is refused, before and after the
	// requester has collected the decision.
	if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: "c1", Approve: false, Digest: "sha256:good"}); !errors.Is(err, ErrConfirmNotPending) {
		t.Fatalf("second resolve: %v", err)
	}
	r := awaitDecision(t, res)
	if r.err != nil || r.d.Outcome != OutcomeApproved || r.d.Peer != "phone-1" || r.d.PrincipalID != "u-alice" {
		t.Fatalf("decision = %+v, %v", r.d, r.err)
	}
	if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}); !errors.Is(err, ErrConfirmNotPending) {
		t.Fatalf("replay: %v", err)
	}
}

func TestMemoryBrokerDeny(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	res := startRequest(context.Background(), t, b, pendingFor("c1", time.Hour))
	if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: "c1", Approve: false, Digest: "sha256:good"}); err != nil {
		t.Fatal(err)
	}
	if r := awaitDecision(t, res); r.d.Outcome != OutcomeDenied {
		t.Fatalf("outcome = %v", r.d.Outcome)
	}
}

func TestMemoryBrokerRefusalsKeepPending(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	ctx := context.Background()
	res := startRequest(ctx, t, b, pendingFor("c1", time.Hour))
	for _, tc := range []struct {
		name string
		peer Principal
		d    ConfirmDecision
		want error
	}{
		{"requester's own channel", Principal{ID: "u-alice", Peer: requesterPeer}, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}, ErrConfirmSelf},
		{"no channel identity", Principal{ID: "u-alice"}, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}, ErrConfirmSelf},
		{"wrong digest", phone, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:other"}, ErrConfirmDigest},
		{"empty digest", phone, ConfirmDecision{ID: "c1", Approve: true}, ErrConfirmDigest},
		{"unknown id", phone, ConfirmDecision{ID: "nope", Approve: true, Digest: "sha256:good"}, ErrConfirmNotPending},
		{"empty id", phone, ConfirmDecision{Approve: true, Digest: "sha256:good"}, ErrConfirmNotPending},
	} {
		if err := b.Resolve(ctx, tc.peer, tc.d); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
	}
	p, err := b.Pending(ctx)
	if err != nil || len(p) != 1 || p[0].ID != "c1" {
		t.Fatalf("still pending = %+v, %v", p, err)
	}
	if err := b.Resolve(ctx, phone, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}); err != nil {
		t.Fatal(err)
	}
	if r := awaitDecision(t, res); r.d.Outcome != OutcomeApproved {
		t.Fatalf("outcome = %v", r.d.Outcome)
	}
	if p, _ := b.Pending(ctx); len(p) != 0 {
		t.Fatalf("pending after resolution: %+v", p)
	}
}

func TestMemoryBrokerExpires(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	r := awaitDecision(t, startRequest(context.Background(), t, b, pendingFor("c1", 50*time.Millisecond)))
	if r.err != nil || r.d.Outcome != OutcomeExpired {
		t.Fatalf("decision = %+v, %v", r.d, r.err)
	}
	if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}); !errors.Is(err, ErrConfirmNotPending) {
		t.Fatalf("resolve after expiry: %v", err)
	}
}

// An approval that arrives at or after Expires is never an approval, even
// when the expiry timer has not fired yet.
func TestMemoryBrokerApprovalAfterExpiryIsExpiry(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	var skew atomic.Int64
	b.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	p := pendingFor("c1", time.Hour)
	res := startRequest(context.Background(), t, b, p)
	skew.Store(int64(time.Hour)) // the clock reaches Expires; the real timer is an hour away
	if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}); !errors.Is(err, ErrConfirmExpired) {
		t.Fatalf("late approval: %v", err)
	}
	if r := awaitDecision(t, res); r.d.Outcome != OutcomeExpired {
		t.Fatalf("outcome = %v, want expired", r.d.Outcome)
	}
}

func TestMemoryBrokerContextDoneDenies(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	ctx, cancel := context.WithCancel(context.Background())
	res := startRequest(ctx, t, b, pendingFor("c1", time.Hour))
	cancel()
	if r := awaitDecision(t, res); r.d.Outcome != OutcomeCancelled {
		t.Fatalf("outcome = %v", r.d.Outcome)
	}
	if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}); !errors.Is(err, ErrConfirmNotPending) {
		t.Fatalf("resolve after cancel: %v", err)
	}
}

func TestMemoryBrokerRequestErrors(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	if _, err := b.Request(context.Background(), PendingConfirm{}); err == nil {
		t.Error("empty id accepted")
	}
	res := startRequest(context.Background(), t, b, pendingFor("c1", time.Hour))
	if _, err := b.Request(context.Background(), pendingFor("c1", time.Hour)); err == nil {
		t.Error("duplicate id accepted")
	}
	// The duplicate did not disturb the original.
	if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: "c1", Approve: true, Digest: "sha256:good"}); err != nil {
		t.Fatal(err)
	}
	if r := awaitDecision(t, res); r.d.Outcome != OutcomeApproved {
		t.Fatalf("outcome = %v", r.d.Outcome)
	}
}

func TestMemoryBrokerSubscribers(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	var seen []string
	stopPanic := b.Subscribe(func(ConfirmRequest) { panic("subscriber bug") })
	stop := b.Subscribe(func(r ConfirmRequest) {
		seen = append(seen, r.ID)
		// Resolving from inside the notification works: the confirm is
		// registered and the lock is not held.
		if err := b.Resolve(context.Background(), phone, ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest}); err != nil {
			t.Errorf("resolve in subscriber: %v", err)
		}
	})
	d, err := b.Request(context.Background(), pendingFor("c1", time.Hour))
	if err != nil || d.Outcome != OutcomeApproved {
		t.Fatalf("decision = %+v, %v", d, err)
	}
	stop()
	stopPanic()
	d, err = b.Request(context.Background(), pendingFor("c2", 50*time.Millisecond))
	if err != nil || d.Outcome != OutcomeExpired {
		t.Fatalf("after unsubscribe: %+v, %v", d, err)
	}
	if len(seen) != 1 || seen[0] != "c1" {
		t.Fatalf("notified %v", seen)
	}
}

func TestMemoryBrokerPendingOrderAndExpiry(t *testing.T) {
	defer goleak.VerifyNone(t)
	b := newMemoryBroker()
	var skew atomic.Int64
	b.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	ctx, cancel := context.WithCancel(context.Background())
	r2 := startRequest(ctx, t, b, pendingFor("b-later", 2*time.Hour))
	r1 := startRequest(ctx, t, b, pendingFor("a-sooner", time.Hour))
	p, _ := b.Pending(ctx)
	if len(p) != 2 || p[0].ID != "a-sooner" || p[1].ID != "b-later" {
		t.Fatalf("pending = %+v", p)
	}
	skew.Store(int64(90 * time.Minute))
	p, _ = b.Pending(ctx)
	if len(p) != 1 || p[0].ID != "b-later" {
		t.Fatalf("pending after the first expiry = %+v", p)
	}
	cancel()
	awaitDecision(t, r1)
	awaitDecision(t, r2)
}
