// Package redisbroker is a [ocp.ConfirmBroker] on Redis, for a Hub of
// several replicas: a write's confirm can be requested on one replica and
// approved by a peer connected to another.
//
// It has the in-memory broker's semantics, checked by the same conformance
// suite (runtime/brokertest): a confirm resolves at most once; a decision
// must carry the request's digest and come from another channel than the
// requester's; it expires to deny; the caller's cancellation denies; every
// replica lists the pending confirms and announces new ones to its
// subscribers; and the waiting replica learns of the decision at once.
//
// How it works. Every state change is one Lua script, run atomically by
// Redis: registering (with a PUBLISH of the request to every replica),
// deciding (with a PUBLISH of the id on the waiting replica's own channel),
// and the waiting replica's check or close (which, when it collects the
// ended confirm, announces the end to every replica). A decision thus
// reaches the waiting replica in one script, a PUBLISH and one script more.
// The script that decides checks, on the server's clock, that the
// confirm is pending and unexpired, that the deciding channel is not the
// requester's, and that the digest matches, and only then writes the
// decision; the waiting replica accepts an approval only if it carries the
// request's digest. Pub/sub only wakes the waiting replica: the decision is
// always read from the confirm's key.
//
// Failures all deny: Redis unreachable when a write arrives fails the
// request (the gate denies, the server is not called); a confirm whose key
// vanishes (a Redis restart or failover without the data, or a lease that
// ran out) is reported as [ErrLost] and denied; a replica that dies while
// waiting stops renewing its lease, so its confirm vanishes within
// [Options.Lease] and nothing is ever called for it. A pending confirm's key
// holds the request that peers are shown, a hash of the requester's Peer and
// the expiry; no token or credential.
//
// Redis modes. One node, or Redis Cluster: every key and channel of one
// Options.Prefix carries its hash tag, so one slot, on one master, holds
// every confirm, and each script touches that slot only. Announcements are
// classic PUBLISH, which a cluster forwards to every node (a sharded
// subscription goes silent on a failover). On a cluster, set the client's
// ClusterStateReloadInterval to about a second: with go-redis's 60 s, a dead
// master's slots stay unreachable, and confirms denied, that long. Over TLS
// with ACL users, the broker's user needs [ACLCommands] on the keys and
// channels of its prefix only: [ACLRule] is that rule.
//
// Only Hubs that import this package link go-redis.
package redisbroker

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// Defaults of [Options].
const (
	// DefaultPrefix is the default key and channel prefix. The braces are a
	// Redis Cluster hash tag: every key of one prefix lives in one slot, as
	// the scripts need.
	DefaultPrefix = "{ocp-confirm}:"
	// DefaultLease is the default [Options.Lease].
	DefaultLease = 5 * time.Second
	// DefaultOpTimeout is the default [Options.OpTimeout].
	DefaultOpTimeout = 2 * time.Second
)

// Options configures a [Broker]. The zero value uses the defaults.
type Options struct {
	// Prefix starts every key and pub/sub channel the broker uses. Replicas
	// of one Hub must use the same prefix; Hubs sharing a Redis use
	// different ones. On Redis Cluster it must contain a hash tag ({...}).
	// Empty means DefaultPrefix.
	Prefix string
	// Lease is how long a pending confirm outlives the replica waiting for
	// it: the replica renews it every Lease/3 while it waits. A replica that
	// dies, or cannot reach Redis for Lease, loses its confirms (denied).
	// Zero means DefaultLease.
	Lease time.Duration
	// OpTimeout bounds each Redis operation the broker starts on its own
	// (registering, checking, closing a confirm; one that waits for
	// another's round trip to group with the next may take twice that) and
	// how long Subscribe waits for the pub/sub connection. Zero means
	// DefaultOpTimeout.
	OpTimeout time.Duration
}

var (
	// ErrLost is the error of [Broker.Request] when the pending confirm
	// vanished from Redis before it ended: Redis restarted or failed over
	// without the data, or this replica could not renew its lease. The gate
	// denies the write.
	ErrLost = errors.New("redisbroker: the pending confirm vanished from Redis (restart, failover, or an expired lease)")
	// ErrClosed is returned by a broker after [Broker.Close], and by the
	// requests it was waiting for.
	ErrClosed = errors.New("redisbroker: broker closed")
)

// notesBuffer is how many announcements of new confirms may wait for the
// subscribers before the pub/sub reader waits for them.
const notesBuffer = 4096

// Broker is a [ocp.ConfirmBroker] on Redis. Create it with [New]; it is
// safe for concurrent use. Each replica has its own Broker (and its own
// client), with the same Options.Prefix.
type Broker struct {
	rdb       redis.UniversalClient
	keyPrefix string // PREFIX c:
	keyIndex  string // PREFIX pending
	chNew     string
	chDecided string // this replica's own: decisions of the confirms it waits for
	chEnded   string
	lease     time.Duration
	heartbeat time.Duration
	pingEvery time.Duration
	opTimeout time.Duration
	// leaseMS is millis(lease), boxed once: the lease (a key may also
	// outlive its expiry by one lease) in every open and finish, which
	// would otherwise format and box it: two allocations each time.
	leaseMS any
	now     func() time.Time // replaced in tests
	scripts combiner         // runs open and finish

	ctx    context.Context // done at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup
	notes  chan note // announced requests and ends, JSON, for the subscribers

	mu      sync.Mutex
	waiters map[string]chan struct{} // confirm id → wake-up of its waiting Request
	subs    map[int]func(ocp.ConfirmRequest)
	ended   map[int]func(ocp.ConfirmEnded)
	nextSub int
	ready   chan struct{} // closed while the pub/sub connection is subscribed
	up      bool
	ps      *redis.PubSub
	closed  bool
}

var _ ocp.ConfirmBroker = (*Broker)(nil)

// New returns a Broker that keeps its confirms in rdb, and starts its pub/sub
// reader. It does not wait for Redis: while Redis is unreachable, requests
// fail (and the gate denies). Close the Broker before rdb.
func New(rdb redis.UniversalClient, opt Options) (*Broker, error) {
	if rdb == nil {
		return nil, errors.New("redisbroker: nil Redis client")
	}
	if opt.Lease < 0 || opt.OpTimeout < 0 {
		return nil, errors.New("redisbroker: negative Lease or OpTimeout")
	}
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.Lease == 0 {
		opt.Lease = DefaultLease
	}
	if opt.OpTimeout == 0 {
		opt.OpTimeout = DefaultOpTimeout
	}
	heartbeat := max(opt.Lease/3, time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	b := &Broker{
		rdb:       rdb,
		keyPrefix: opt.Prefix + "c:",
		keyIndex:  opt.Prefix + "pending",
		chNew:     opt.Prefix + "new",
		chDecided: opt.Prefix + "decided:" + rand.Text(),
		chEnded:   opt.Prefix + "ended",
		lease:     opt.Lease,
		heartbeat: heartbeat,
		pingEvery: min(max(heartbeat, 250*time.Millisecond), 5*time.Second),
		opTimeout: opt.OpTimeout,
		leaseMS:   millis(opt.Lease),
		now:       time.Now,
		ctx:       ctx,
		cancel:    cancel,
		notes:     make(chan note, notesBuffer),
		waiters:   make(map[string]chan struct{}),
		subs:      make(map[int]func(ocp.ConfirmRequest)),
		ended:     make(map[int]func(ocp.ConfirmEnded)),
		ready:     make(chan struct{}),
		scripts:   combiner{rdb: rdb, timeout: opt.OpTimeout},
	}
	b.wg.Add(2)
	go b.listen()
	go b.announce()
	return b, nil
}

// Close stops the broker's goroutines. Requests still waiting return
// [ErrClosed] (the gate denies them) and their confirms are withdrawn if
// Redis can be reached; later calls fail. It does not close the Redis
// client.
func (b *Broker) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	ps := b.ps
	b.mu.Unlock()
	b.cancel()
	if ps != nil {
		_ = ps.Close()
	}
	b.wg.Wait()
	return nil
}

func (b *Broker) keys(id string) []string { return []string{b.keyPrefix + id, b.keyIndex} }

// opCtx is the context of an operation the broker must finish whatever the
// caller's context says (a half-done registration or close is worse than a
// late one).
func (b *Broker) opCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), b.opTimeout)
}

func millis(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) }

// peerHash is what Redis holds of a channel identity: enough to compare, not
// the identity itself. An empty Peer stays empty, which no decision may have.
func peerHash(peer string) string {
	if peer == "" {
		return ""
	}
	s := sha256.Sum256([]byte("ocp-confirm-peer\x00" + peer))
	return hex.EncodeToString(s[:])
}

// Request implements [ocp.ConfirmBroker]: it registers p in Redis,
// announces it to every replica's subscribers, and waits until a peer on any
// replica decides, p.Request.Expires passes (OutcomeExpired), or ctx is done
// (OutcomeCancelled). It returns an error, which the gate turns into a
// denial, when Redis cannot be reached to register the confirm, when the
// confirm vanishes from Redis ([ErrLost]), when Redis stays unreachable for
// the lease, and after Close.
func (b *Broker) Request(ctx context.Context, p ocp.PendingConfirm) (ocp.Decision, error) {
	id := p.Request.ID
	if id == "" {
		return ocp.Decision{}, errors.New("redisbroker: empty confirm id")
	}
	if ctx.Err() != nil {
		return ocp.Decision{Outcome: ocp.OutcomeCancelled}, nil
	}
	reqJSON, err := json.Marshal(p.Request)
	if err != nil {
		return ocp.Decision{}, fmt.Errorf("redisbroker: encode confirm request: %w", err)
	}
	kick := make(chan struct{}, 1)
	b.mu.Lock()
	switch {
	case b.closed:
		b.mu.Unlock()
		return ocp.Decision{}, ErrClosed
	case b.waiters[id] != nil:
		b.mu.Unlock()
		return ocp.Decision{}, fmt.Errorf("redisbroker: confirm id %q already pending", id)
	}
	b.waiters[id] = kick // before the confirm exists, so no wake-up is missed
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.waiters, id)
		b.mu.Unlock()
	}()

	keys := b.keys(id)
	res, err := b.scripts.run(scriptOpen, keys,
		id, reqJSON, peerHash(p.RequesterPeer), p.Request.Digest,
		strconv.FormatInt(p.Request.Expires.UnixMicro(), 10), b.leaseMS, b.chNew, b.chDecided,
	).Text()
	if err != nil {
		// The script may have run with its reply lost: withdraw the confirm
		// if it is there, so no peer approves a write nobody waits for. In
		// the background: the denial need not wait for it.
		go func() { _, _ = b.finish(id, string(ocp.OutcomeCancelled)) }() // bounded by OpTimeout
		return ocp.Decision{}, fmt.Errorf("redisbroker: register confirm: %w", err)
	}
	switch res {
	case "ok":
	case "dup":
		return ocp.Decision{}, fmt.Errorf("redisbroker: confirm id %q already pending", id)
	case "expired":
		return ocp.Decision{Outcome: ocp.OutcomeExpired}, nil
	default:
		return ocp.Decision{}, fmt.Errorf("redisbroker: register confirm: unexpected reply %q", res)
	}
	return b.wait(ctx, p, keys, kick)
}

// endPrefix is the JSON of the ConfirmEnded of id up to its outcome's
// value, which the finish script completes with the state it collects and
// publishes: the end is announced to the subscribers on every replica in
// the round trip that collects the confirm, not one more.
func endPrefix(id string) string {
	q, _ := json.Marshal(id) // a string: cannot fail
	return `{"id":` + string(q) + `,"outcome":"`
}

// wait is the waiting half of Request. It checks the confirm when woken by
// its decision's announcement, when the pub/sub connection comes back (an
// announcement may have been missed), and every heartbeat (which also renews
// the lease); it closes it at the deadline or on cancellation.
//
// A check or close that fails is retried with a backoff (retryMin,
// doubling, at most retryMax and never more than a heartbeat) until one
// succeeds, as well as at every wake-up: on Redis Cluster a node answers
// SUBSCRIBE while the cluster is still down, so the check made when the
// pub/sub connection comes back can fail, and waiting for the next
// heartbeat would leave a decision made meanwhile uncollected for up to
// Lease/3. A failed check decides nothing (the decision is only ever read
// from the confirm's key); the deadline and cancellation still close the
// confirm while checks fail.
//
// A close that cannot reach Redis is retried at each wake-up until it does,
// or until the lease has run out since the last renewal (the key is gone by
// then): returning the close's outcome at once would leave the key pending,
// and a peer could still have an approval accepted that nothing acts on,
// while Request had told the gate "expired" or "cancelled" (the model's
// invariant "the accepted decision is the one that acts"; see
// runtime/brokertest/model). A close retried until the lease ran out is an
// error, not a decision: the gate denies.
func (b *Broker) wait(ctx context.Context, p ocp.PendingConfirm, keys []string, kick <-chan struct{}) (ocp.Decision, error) {
	id := p.Request.ID
	check := b.finishArgs(id, "") // built once: every check of this confirm runs with it
	deadline := time.NewTimer(p.Request.Expires.Sub(b.now()))
	defer deadline.Stop()
	tick := time.NewTicker(b.heartbeat)
	defer tick.Stop()
	var retry *time.Timer       // made at the first failure
	var retryC <-chan time.Time // set while a failed check or close waits for its retry
	defer func() {
		if retry != nil {
			retry.Stop()
		}
	}()
	maxBackoff := min(retryMax, b.heartbeat)
	backoff := min(retryMin, maxBackoff)
	lastOK := time.Now()
	closing := "" // a close that could not reach Redis yet
	for {
		closeAs := closing
		deadlineC, done := deadline.C, ctx.Done()
		if closing != "" {
			deadlineC, done = nil, nil // already closing: retry at the next wake-up
		}
		select {
		case <-kick:
		case <-tick.C:
		case <-retryC:
		case <-deadlineC:
			closeAs = string(ocp.OutcomeExpired) // model: deadline
		case <-done:
			closeAs = string(ocp.OutcomeCancelled) // model: cancel (or withdraw)
		case <-b.ctx.Done():
			_, _ = b.finish(id, string(ocp.OutcomeCancelled))
			return ocp.Decision{}, ErrClosed
		}
		args := check
		if closeAs != "" {
			args = b.finishArgs(id, closeAs)
		}
		st, err := b.runFinish(keys, args)
		if err != nil {
			closing = closeAs // model: finish_retry_close
			if time.Since(lastOK) >= b.lease {
				return ocp.Decision{}, fmt.Errorf("redisbroker: confirm %s: Redis unreachable for the whole lease: %w", id, err)
			}
			// Retried after the backoff, or at the next heartbeat or
			// wake-up if one comes first.
			if retry == nil {
				retry = time.NewTimer(backoff)
			} else {
				retry.Reset(backoff)
			}
			retryC = retry.C
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		if retryC != nil {
			retry.Stop()
			retryC = nil
			backoff = min(retryMin, maxBackoff)
		}
		switch st.state {
		case "pending":
			lastOK = time.Now() // model: finish_renew
			continue
		case "gone":
			return ocp.Decision{}, ErrLost // model: finish_gone
		}
		return decision(p, st) // model: finish_collect, finish_expire, finish_cancel
	}
}

// The backoff of a failed check or close in wait: retryMin after the first
// failure, doubling up to retryMax (or the heartbeat, if shorter).
const (
	retryMin = 20 * time.Millisecond
	retryMax = time.Second
)

// finished is what the finish script returns.
type finished struct{ state, peer, principal, digest string }

// finish runs the finish script on the confirm id: a check (closeAs
// empty) or a close.
func (b *Broker) finish(id, closeAs string) (finished, error) {
	return b.runFinish(b.keys(id), b.finishArgs(id, closeAs))
}

// finishArgs is the finish script's ARGV for the confirm id.
func (b *Broker) finishArgs(id, closeAs string) []any {
	return []any{id, closeAs, b.leaseMS, endPrefix(id), b.chEnded}
}

// runFinish runs the finish script with keys and args (of b.keys and
// finishArgs; neither is modified).
func (b *Broker) runFinish(keys []string, args []any) (finished, error) {
	v, err := b.scripts.run(scriptFinish, keys, args...).StringSlice()
	if err != nil {
		return finished{}, err
	}
	switch {
	case len(v) == 1 && (v[0] == "pending" || v[0] == "gone"):
		return finished{state: v[0]}, nil
	case len(v) == 4:
		return finished{v[0], v[1], v[2], v[3]}, nil
	}
	return finished{}, fmt.Errorf("redisbroker: unexpected reply %q", v)
}

// decision maps an ended confirm to the Decision. An approval must carry the
// request's digest: one that does not was not written by the decide script,
// and is refused.
func decision(p ocp.PendingConfirm, st finished) (ocp.Decision, error) {
	switch ocp.Outcome(st.state) {
	case ocp.OutcomeApproved:
		if st.digest != p.Request.Digest {
			return ocp.Decision{}, fmt.Errorf("redisbroker: confirm %s: an approval without the request's digest; denied", p.Request.ID)
		}
		return ocp.Decision{Outcome: ocp.OutcomeApproved, Peer: st.peer, PrincipalID: st.principal}, nil
	case ocp.OutcomeDenied:
		return ocp.Decision{Outcome: ocp.OutcomeDenied, Peer: st.peer, PrincipalID: st.principal}, nil
	case ocp.OutcomeExpired, ocp.OutcomeCancelled:
		return ocp.Decision{Outcome: ocp.Outcome(st.state)}, nil
	}
	return ocp.Decision{}, fmt.Errorf("redisbroker: confirm %s: unknown state %q", p.Request.ID, st.state)
}

// Resolve implements [ocp.ConfirmBroker]. The decision is checked and
// applied by one script on the server; its refusals are the runtime's
// (ErrConfirmNotPending, ErrConfirmExpired, ErrConfirmSelf,
// ErrConfirmDigest). Any other error means Redis could not be asked, and
// nothing was decided by this call.
func (b *Broker) Resolve(ctx context.Context, peer ocp.Principal, d ocp.ConfirmDecision) error {
	if d.ID == "" {
		return ocp.ErrConfirmNotPending
	}
	approve := "0"
	if d.Approve {
		approve = "1"
	}
	res, err := scriptDecide.Run(ctx, b.rdb, b.keys(d.ID),
		d.ID, approve, d.Digest, peerHash(peer.Peer), peer.Peer, peer.ID,
	).Text()
	if err != nil {
		return fmt.Errorf("redisbroker: resolve: %w", err)
	}
	switch res {
	case "ok":
		return nil
	case "notpending":
		return ocp.ErrConfirmNotPending
	case "expired":
		return ocp.ErrConfirmExpired
	case "self":
		return ocp.ErrConfirmSelf
	case "digest":
		return ocp.ErrConfirmDigest
	}
	return fmt.Errorf("redisbroker: resolve: unexpected reply %q", res)
}

// Lookup implements [ocp.ConfirmBroker]: the request of a confirm pending
// on any replica. A confirm that ended, expired or is unknown is
// ocp.ErrConfirmNotPending; any other error means Redis could not be asked.
func (b *Broker) Lookup(ctx context.Context, id string) (ocp.ConfirmRequest, error) {
	if id == "" {
		return ocp.ConfirmRequest{}, ocp.ErrConfirmNotPending
	}
	v, err := b.rdb.HMGet(ctx, b.keyPrefix+id, "state", "req").Result()
	if err != nil {
		return ocp.ConfirmRequest{}, fmt.Errorf("redisbroker: lookup: %w", err)
	}
	if len(v) != 2 || v[0] != "pending" {
		return ocp.ConfirmRequest{}, ocp.ErrConfirmNotPending
	}
	s, _ := v[1].(string)
	var r ocp.ConfirmRequest
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return ocp.ConfirmRequest{}, fmt.Errorf("redisbroker: lookup: confirm %s: %w", id, err)
	}
	if !b.now().Before(r.Expires) {
		return ocp.ConfirmRequest{}, ocp.ErrConfirmNotPending
	}
	return r, nil
}

// Pending implements [ocp.ConfirmBroker]: the confirms pending on every
// replica, ordered by expiry, then id.
func (b *Broker) Pending(ctx context.Context) ([]ocp.ConfirmRequest, error) {
	now := b.now()
	ids, err := b.rdb.ZRangeByScore(ctx, b.keyIndex, &redis.ZRangeBy{
		Min: "(" + strconv.FormatInt(now.UnixMicro(), 10),
		Max: "+inf",
	}).Result()
	if err != nil {
		return nil, fmt.Errorf("redisbroker: pending: %w", err)
	}
	out := make([]ocp.ConfirmRequest, 0, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	cmds := make([]*redis.SliceCmd, len(ids))
	if _, err := b.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = pl.HMGet(ctx, b.keyPrefix+id, "state", "req")
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("redisbroker: pending: %w", err)
	}
	var goneKeys, goneIDs []string
	for i, c := range cmds {
		v := c.Val()
		if len(v) == 2 && v[0] == nil {
			goneKeys, goneIDs = append(goneKeys, b.keyPrefix+ids[i]), append(goneIDs, ids[i])
		}
		if len(v) != 2 || v[0] != "pending" {
			continue // decided or gone since the index was read
		}
		s, _ := v[1].(string)
		var r ocp.ConfirmRequest
		if err := json.Unmarshal([]byte(s), &r); err != nil || !now.Before(r.Expires) {
			continue
		}
		out = append(out, r)
	}
	if len(goneIDs) > 0 {
		args := make([]any, len(goneIDs))
		for i, id := range goneIDs {
			args[i] = id
		}
		// Best effort: an index entry left behind only costs a lookup.
		_ = scriptPrune.Run(ctx, b.rdb, append([]string{b.keyIndex}, goneKeys...), args...).Err()
	}
	slices.SortFunc(out, func(x, y ocp.ConfirmRequest) int {
		if c := x.Expires.Compare(y.Expires); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return out, nil
}

// Subscribe implements [ocp.ConfirmBroker]: fn is called for every
// confirm requested on any replica from now on, on one goroutine of the
// broker, in subscription order, after the confirm is registered (so fn may
// call Resolve). A panic in fn is recovered. Subscribe waits (at most
// OpTimeout) until the pub/sub connection is subscribed; while it is down,
// announcements are missed, and a peer catches up with Pending. After stop
// returns, fn is not called for confirms announced later.
func (b *Broker) Subscribe(fn func(ocp.ConfirmRequest)) (stop func()) {
	return subscribe(b, b.subs, fn)
}

// SubscribeEnded implements [ocp.ConfirmBroker]: fn is called for every
// confirm that ends on any replica from now on, as Subscribe's fn is for
// new ones. The end is announced by the replica that waited; when that
// replica dies, its confirm lapses with its lease and no end is announced
// (a peer sees it gone from Pending).
func (b *Broker) SubscribeEnded(fn func(ocp.ConfirmEnded)) (stop func()) {
	return subscribe(b, b.ended, fn)
}

func subscribe[E any](b *Broker, subs map[int]func(E), fn func(E)) (stop func()) {
	b.mu.Lock()
	k := b.nextSub
	b.nextSub++
	subs[k] = fn
	ready := b.ready
	b.mu.Unlock()
	t := time.NewTimer(b.opTimeout)
	select {
	case <-ready:
	case <-t.C:
	case <-b.ctx.Done():
	}
	t.Stop()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			delete(subs, k)
			b.mu.Unlock()
		})
	}
}

// announce calls the subscribers for each new confirm, off the pub/sub
// reader, so neither decoding nor a slow subscriber delays the wake-ups of
// decisions.
func (b *Broker) announce() {
	defer b.wg.Done()
	for {
		select {
		case <-b.ctx.Done():
			return
		case n := <-b.notes:
			if n.ended {
				var e ocp.ConfirmEnded
				if json.Unmarshal([]byte(n.payload), &e) == nil {
					fanOut(b, b.ended, e)
				}
				continue
			}
			var r ocp.ConfirmRequest
			if json.Unmarshal([]byte(n.payload), &r) == nil {
				fanOut(b, b.subs, r)
			}
		}
	}
}

// note is one announcement for the subscribers: a new confirm's request,
// or (ended) a confirm's end.
type note struct {
	payload string
	ended   bool
}

// fanOut calls every subscriber of subs, in subscription order, skipping
// those stopped meanwhile.
func fanOut[E any](b *Broker, subs map[int]func(E), e E) {
	b.mu.Lock()
	keys := slices.Sorted(maps.Keys(subs))
	b.mu.Unlock()
	for _, k := range keys {
		b.mu.Lock()
		fn := subs[k] // nil once stopped
		b.mu.Unlock()
		if fn != nil {
			notify(fn, e)
		}
	}
}

func notify[E any](fn func(E), e E) {
	defer func() { _ = recover() }()
	fn(e)
}

// listen keeps one pub/sub connection subscribed to the channels of new and
// ended confirms and to this replica's own channel of decisions,
// reconnecting with backoff. Each time it is (re)subscribed it wakes every
// waiting Request, which checks its confirm: a decision
// announced while the connection was down is not missed, and a confirm lost
// with a Redis restart is denied at once.
func (b *Broker) listen() {
	defer b.wg.Done()
	const minBackoff, maxBackoff = 20 * time.Millisecond, time.Second
	backoff := minBackoff
	for b.ctx.Err() == nil {
		ps := b.rdb.Subscribe(b.ctx, b.chNew, b.chDecided, b.chEnded)
		if !b.setPubSub(ps) {
			_ = ps.Close()
			return
		}
		if b.receive(ps) {
			backoff = minBackoff
		}
		_ = ps.Close()
		b.setUp(false)
		b.kickAll()
		t := time.NewTimer(backoff)
		select {
		case <-b.ctx.Done():
		case <-t.C:
		}
		t.Stop()
		backoff = min(2*backoff, maxBackoff)
	}
}

func (b *Broker) setPubSub(ps *redis.PubSub) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.ps = ps
	return true
}

// receive reads ps until its connection fails. It reports whether the
// connection got subscribed. Silence longer than pingEvery is probed with a
// PING; a second silence means the connection is dead.
func (b *Broker) receive(ps *redis.PubSub) (wasUp bool) {
	subscribed := map[string]bool{}
	probing := false
	for {
		msg, err := ps.ReceiveTimeout(b.ctx, b.pingEvery)
		if err != nil {
			var ne net.Error
			if b.ctx.Err() == nil && !probing && errors.As(err, &ne) && ne.Timeout() {
				if ps.Ping(b.ctx) == nil {
					probing = true
					continue
				}
			}
			return wasUp
		}
		probing = false
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				subscribed[m.Channel] = true
			}
			if !wasUp && subscribed[b.chNew] && subscribed[b.chDecided] && subscribed[b.chEnded] {
				wasUp = true
				b.loadScripts()
				b.setUp(true)
				b.kickAll()
			}
		case *redis.Message:
			switch m.Channel {
			case b.chDecided:
				b.kick(m.Payload)
			case b.chNew, b.chEnded:
				ended := m.Channel == b.chEnded
				if !b.subscribed(ended) {
					continue // nobody to call: no decoding, no wake-up of announce
				}
				select {
				case b.notes <- note{payload: m.Payload, ended: ended}:
				case <-b.ctx.Done():
					return wasUp
				}
			}
		}
	}
}

// subscribed says whether the broker has subscribers of ends (ended) or of
// new confirms. An announcement read while it has none is dropped: a
// subscriber is called only for the announcements read after it
// subscribed.
func (b *Broker) subscribed(ended bool) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ended {
		return len(b.ended) > 0
	}
	return len(b.subs) > 0
}

// loadScripts loads the scripts into Redis (again, after a restart), so
// that the first confirms do not pay for it. Best effort: Script.Run loads a
// missing script by itself.
func (b *Broker) loadScripts() {
	ctx, cancel := b.opCtx()
	defer cancel()
	for _, s := range []*redis.Script{scriptOpen, scriptDecide, scriptFinish, scriptPrune} {
		_ = s.Load(ctx, b.rdb).Err()
	}
}

func (b *Broker) setUp(up bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case up && !b.up:
		close(b.ready)
	case !up && b.up:
		b.ready = make(chan struct{})
	}
	b.up = up
}

func (b *Broker) kick(id string) {
	b.mu.Lock()
	k := b.waiters[id]
	b.mu.Unlock()
	if k != nil {
		select {
		case k <- struct{}{}:
		default:
		}
	}
}

func (b *Broker) kickAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range b.waiters {
		select {
		case k <- struct{}{}:
		default:
		}
	}
}
