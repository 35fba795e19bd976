package ocp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Outcome is how a pending confirm ended.
type Outcome string

const (
	// OutcomeApproved: a peer approved before the confirm expired.
	OutcomeApproved Outcome = "approved"
	// OutcomeDenied: a peer denied.
	OutcomeDenied Outcome = "denied"
	// OutcomeExpired: nobody decided before the confirm expired.
	OutcomeExpired Outcome = "expired"
	// OutcomeCancelled: the waiting call's context ended first (the caller
	// went away, or the gate voided the confirm after a catalogue change).
	OutcomeCancelled Outcome = "cancelled"
)

// Decision is the end of a pending confirm.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	// Peer and PrincipalID identify who decided, for approvals and denials.
	Peer        string `json:"peer,omitempty"`
	PrincipalID string `json:"principalId,omitempty"`
}

// PendingConfirm is what the gate hands a broker: the request peers see and
// the state that never leaves the Hub. It is plain data, so a broker on a
// distributed store can hold it.
type PendingConfirm struct {
	Request ConfirmRequest `json:"request"`
	// RequesterPeer is the Peer of the channel that made the call (the
	// model's). A decision from it is refused.
	RequesterPeer string `json:"requesterPeer"`
}

// The errors of this package: the refusals of a confirm decision
// ([Gate.Resolve], [ConfirmBroker.Resolve]), which change nothing unless
// they say otherwise, then the [Client]'s.
var (
	// ErrConfirmNotPending: no confirm is pending under the id. It is
	// unknown, already resolved, or has ended. Replays get this.
	ErrConfirmNotPending = errors.New("ocp confirm: no pending confirm with this id")
	// ErrConfirmExpired: the confirm's time ran out before the decision
	// arrived. The confirm is now expired (denied).
	ErrConfirmExpired = errors.New("ocp confirm: the confirm has expired")
	// ErrConfirmSelf: the decision came on the requester's own channel, or
	// on a channel without a Peer identity. The confirm stays pending.
	ErrConfirmSelf = errors.New("ocp confirm: a decision cannot come from the requesting channel")
	// ErrConfirmForbidden: the decider is not authorized for the call the
	// confirm holds (see [Gate.Resolve]). The confirm stays pending.
	ErrConfirmForbidden = errors.New("ocp confirm: the decider may not make this call")
	// ErrConfirmUnavailable: the broker could not be reached or failed. The
	// error carries a reference to the audit log, which has the cause.
	ErrConfirmUnavailable = errors.New("ocp confirm: the confirm could not be reached")
	// ErrConfirmDigest: the decision's digest is not the request's. The
	// confirm stays pending.
	ErrConfirmDigest = errors.New("ocp confirm: the decision's digest does not match the request")

	// ErrNotConnected is returned by [Client.CallTool] and [Client.Resync]
	// while there is no live session with the server (it ended and, for a
	// caller made by [Dial], has not been re-established yet).
	ErrNotConnected = errors.New("ocp client: MCP server not connected")
	// ErrClientClosed is returned by the methods of a [Client] after
	// [Client.Close].
	ErrClientClosed = errors.New("ocp client: MCP client closed")
)

// ConfirmBroker holds pending confirms until a peer decides. The gate owns
// the call; a broker only carries the question to peers and the answer back,
// keyed by the Hub-issued id. [NewMemoryBroker] is the in-process
// implementation; an implementation on a distributed store (where the
// approving peer is connected to another replica than the one holding the
// call) satisfies the same interface.
//
// Lookup, Pending and Subscribe return the request as Request registered
// it, every field included: a gate decides, lists and announces only the
// confirms whose Server and Policy are its own (a request that lost them is
// refused everywhere), and checks a decider's ACL on its Resources.
//
// Implementations must guarantee: a confirm resolves at most once; a decision
// at or after Expires is never an approval; a decision from the requester's
// Peer (or from an empty Peer) is refused; a decision whose digest differs is
// refused and leaves the confirm pending.
type ConfirmBroker interface {
	// Request registers p and blocks until a peer decides, p.Request.Expires
	// passes (OutcomeExpired) or ctx is done (OutcomeCancelled). An error
	// means the broker failed; the gate then denies.
	Request(ctx context.Context, p PendingConfirm) (Decision, error)
	// Lookup returns the request of the confirm pending under id, or
	// ErrConfirmNotPending.
	Lookup(ctx context.Context, id string) (ConfirmRequest, error)
	// Resolve applies a peer's decision. peer is the deciding principal, with
	// the Peer of the channel the decision arrived on.
	Resolve(ctx context.Context, peer Principal, d ConfirmDecision) error
	// Pending returns the confirms still waiting, for a peer that connects
	// late.
	Pending(ctx context.Context) ([]ConfirmRequest, error)
	// Subscribe calls fn for every new pending confirm until stop is called.
	// fn must not block for long.
	Subscribe(fn func(ConfirmRequest)) (stop func())
	// SubscribeEnded calls fn for every confirm that ends (on any replica)
	// until stop is called, so peers can take down a prompt they were shown.
	// fn must not block for long.
	SubscribeEnded(fn func(ConfirmEnded)) (stop func())
}

// ConfirmEnded tells peers that a confirm they may have been shown has
// ended: approved or denied (possibly by another peer), expired, or
// cancelled (the caller went away, or a catalogue change withdrew it).
type ConfirmEnded struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
}

// memoryBroker is the broker of [NewMemoryBroker].
type memoryBroker struct {
	now func() time.Time // replaced in tests

	mu      sync.Mutex
	pending map[string]*memConfirm
	subs    map[int]func(ConfirmRequest)
	ended   map[int]func(ConfirmEnded)
	nextSub int
}

type memConfirm struct {
	p       PendingConfirm
	done    chan struct{} // closed on the one transition out of pending
	outcome Outcome       // "" while pending
	by      Principal
}

// NewMemoryBroker returns the in-process [ConfirmBroker], for a Hub of one
// replica. Its subscribers run on the requesting goroutine, outside its
// lock: Subscribe's once the confirm is registered (so they may call
// Resolve), SubscribeEnded's once it has ended. Pending lists the confirms
// by expiry, then id.
func NewMemoryBroker() ConfirmBroker { return newMemoryBroker() }

func newMemoryBroker() *memoryBroker {
	return &memoryBroker{
		now:     time.Now,
		pending: make(map[string]*memConfirm),
		subs:    make(map[int]func(ConfirmRequest)),
		ended:   make(map[int]func(ConfirmEnded)),
	}
}

// finish moves c out of pending. It must be called with b.mu held; it is the
// only state transition (the model's transitions out of pending, named at
// each call: runtime/brokertest/model/confirm.pml), so whichever of decision, expiry and cancellation
// takes the lock first wins and the others see a finished confirm.
func (c *memConfirm) finish(o Outcome, by Principal) bool {
	if c.outcome != "" {
		return false
	}
	c.outcome, c.by = o, by
	close(c.done)
	return true
}

// Request implements [ConfirmBroker].
func (b *memoryBroker) Request(ctx context.Context, p PendingConfirm) (Decision, error) {
	id := p.Request.ID
	if id == "" {
		return Decision{}, errors.New("ocp confirm: empty id")
	}
	c := &memConfirm{p: p, done: make(chan struct{})}
	b.mu.Lock()
	if _, dup := b.pending[id]; dup {
		b.mu.Unlock()
		return Decision{}, fmt.Errorf("ocp confirm: id %q already pending", id)
	}
	b.pending[id] = c // model: open
	subs := make([]func(ConfirmRequest), 0, len(b.subs))
	for _, k := range slices.Sorted(maps.Keys(b.subs)) {
		subs = append(subs, b.subs[k])
	}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
	}()

	for _, fn := range subs {
		notify(fn, p.Request)
	}

	timer := time.NewTimer(p.Request.Expires.Sub(b.now()))
	defer timer.Stop()
	select {
	case <-c.done:
	case <-timer.C:
		b.mu.Lock()
		c.finish(OutcomeExpired, Principal{}) // model: finish_expire
		b.mu.Unlock()
	case <-ctx.Done():
		b.mu.Lock()
		c.finish(OutcomeCancelled, Principal{}) // model: finish_cancel (cancel, withdraw)
		b.mu.Unlock()
	}
	b.mu.Lock()
	d := Decision{Outcome: c.outcome, Peer: c.by.Peer, PrincipalID: c.by.ID} // model: finish_collect
	ended := make([]func(ConfirmEnded), 0, len(b.ended))
	for _, k := range slices.Sorted(maps.Keys(b.ended)) {
		ended = append(ended, b.ended[k])
	}
	b.mu.Unlock()
	for _, fn := range ended {
		notify(fn, ConfirmEnded{ID: id, Outcome: d.Outcome})
	}
	return d, nil
}

// notify calls a subscriber; a panicking subscriber does not take the
// request down with it.
func notify[E any](fn func(E), r E) {
	defer func() { _ = recover() }()
	fn(r)
}

// Resolve implements [ConfirmBroker].
func (b *memoryBroker) Resolve(_ context.Context, peer Principal, d ConfirmDecision) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.pending[d.ID]
	if c == nil || c.outcome != "" {
		return ErrConfirmNotPending // model: decide_notpending
	}
	if !b.now().Before(c.p.Request.Expires) {
		// Expiry wins even if the timer has not fired yet.
		c.finish(OutcomeExpired, Principal{}) // model: decide_expire
		return ErrConfirmExpired
	}
	// The requesting channel is the model's: if it could answer, the model
	// could approve its own writes and the confirm would mean nothing. A
	// decision that names no channel cannot be told apart from it.
	if peer.Peer == "" || peer.Peer == c.p.RequesterPeer {
		return ErrConfirmSelf // model: decide_refuse_self
	}
	if d.Digest != c.p.Request.Digest {
		return ErrConfirmDigest // model: decide_refuse_digest
	}
	o := OutcomeDenied
	if d.Approve {
		o = OutcomeApproved
	}
	c.finish(o, peer) // model: decide_approve, decide_deny
	return nil
}

// Lookup implements [ConfirmBroker].
func (b *memoryBroker) Lookup(_ context.Context, id string) (ConfirmRequest, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.pending[id]
	if c == nil || c.outcome != "" || !b.now().Before(c.p.Request.Expires) {
		return ConfirmRequest{}, ErrConfirmNotPending // model: lookup_notpending
	}
	return c.p.Request, nil // model: lookup_pending
}

// Pending implements [ConfirmBroker].
func (b *memoryBroker) Pending(context.Context) ([]ConfirmRequest, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	out := make([]ConfirmRequest, 0, len(b.pending))
	for _, c := range b.pending {
		if c.outcome == "" && now.Before(c.p.Request.Expires) {
			out = append(out, c.p.Request)
		}
	}
	slices.SortFunc(out, func(x, y ConfirmRequest) int {
		if c := x.Expires.Compare(y.Expires); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return out, nil
}

// SubscribeEnded implements [ConfirmBroker].
func (b *memoryBroker) SubscribeEnded(fn func(ConfirmEnded)) (stop func()) {
	return memSubscribe(b, b.ended, fn)
}

// Subscribe implements [ConfirmBroker].
func (b *memoryBroker) Subscribe(fn func(ConfirmRequest)) (stop func()) {
	return memSubscribe(b, b.subs, fn)
}

// memSubscribe adds fn to subs, one of b's subscriber sets, until stop.
func memSubscribe[E any](b *memoryBroker, subs map[int]func(E), fn func(E)) (stop func()) {
	b.mu.Lock()
	k := b.nextSub
	b.nextSub++
	subs[k] = fn
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(subs, k)
		b.mu.Unlock()
	}
}
