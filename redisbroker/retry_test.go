package redisbroker

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// finishFaults is a go-redis hook that fails the waiting replica's finish
// script (its check or close) while armed, as a Redis Cluster node that
// answers SUBSCRIBE while the cluster is still down answers CLUSTERDOWN to
// the check made when the pub/sub connection comes back. Other commands
// pass.
type finishFaults struct {
	mu     sync.Mutex
	fail   int           // finish runs left to fail
	failed int           // finish runs failed
	runs   int           // finish runs that reached Redis
	hit    chan struct{} // one send per failed run (buffered)
}

var errInjected = errors.New("CLUSTERDOWN The cluster is down (injected by the test)")

func newFinishFaults() *finishFaults { return &finishFaults{hit: make(chan struct{}, 1024)} }

// arm fails the next n runs of the finish script.
func (f *finishFaults) arm(n int) {
	f.mu.Lock()
	f.fail = n
	f.mu.Unlock()
}

// counts returns the failed runs and the runs that reached Redis.
func (f *finishFaults) counts() (failed, runs int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed, f.runs
}

// inject says whether this run of the finish script fails.
func (f *finishFaults) inject() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail == 0 {
		f.runs++
		return false
	}
	f.fail--
	f.failed++
	select {
	case f.hit <- struct{}{}:
	default:
	}
	return true
}

// isFinish says whether cmd runs the finish script (EVALSHA, or the EVAL
// go-redis falls back to).
func isFinish(cmd redis.Cmder) bool {
	args := cmd.Args()
	if len(args) < 2 {
		return false
	}
	switch name, body := strings.ToLower(fmt.Sprint(args[0])), fmt.Sprint(args[1]); name {
	case "evalsha":
		return body == scriptFinish.Hash()
	case "eval":
		h := sha1.Sum([]byte(body))
		return hex.EncodeToString(h[:]) == scriptFinish.Hash()
	}
	return false
}

func (f *finishFaults) DialHook(next redis.DialHook) redis.DialHook { return next }

func (f *finishFaults) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if isFinish(cmd) && f.inject() {
			cmd.SetErr(errInjected)
			return errInjected
		}
		return next(ctx, cmd)
	}
}

func (f *finishFaults) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			if isFinish(c) && f.inject() {
				for _, c := range cmds {
					c.SetErr(errInjected) // the whole round trip fails
				}
				return errInjected
			}
		}
		return next(ctx, cmds)
	}
}

// faultyPair is newPair with replica A's client behind a finishFaults hook.
func faultyPair(t *testing.T) (a, b *Broker, faults *finishFaults, admin *redis.Client, prefix string) {
	t.Helper()
	addr := redistest.Addr(t)
	prefix = testPrefix()
	opt := Options{Prefix: prefix}
	faults = newFinishFaults()
	ca := redis.NewClient(&redis.Options{Addr: addr, ClientName: clientName(prefix)})
	ca.AddHook(faults)
	t.Cleanup(func() { _ = ca.Close() })
	a = newBrokerOn(t, ca, opt)
	b = newBroker(t, addr, opt)
	waitUp(t, a)
	waitUp(t, b)
	return a, b, faults, newClient(t, addr), prefix
}

// After the pub/sub connection comes back, the waiting replica's check
// fails three times (the cluster is still down); it is retried until it
// succeeds, and the decision made meanwhile is collected. The heartbeat is
// 20 minutes (steady's lease of an hour), and without the retry at most two
// checks would run (the reconnection's and the decision's wake-ups): the
// Request would not return within the hang guard.
func TestCheckRetriedAfterReconnect(t *testing.T) {
	a, b, faults, admin, prefix := faultyPair(t)
	ctx := context.Background()
	p := pending("c-retry-reconnect", time.Hour)
	res := requestAsync(ctx, a, p)
	q := awaitPending(t, b, p.Request.ID)

	faults.arm(3)
	killPubSub(t, admin, prefix) // both replicas' connections; A's comes back and checks
	if err := b.Resolve(ctx, peer, ocp.ConfirmDecision{ID: q.ID, Approve: true, Digest: q.Digest}); err != nil {
		t.Fatal(err)
	}
	r := await(t, res)
	if r.err != nil || r.d.Outcome != ocp.OutcomeApproved || r.d.Peer != peer.Peer {
		t.Fatalf("Request = %+v, %v; want approved by %s", r.d, r.err, peer.Peer)
	}
	if failed, runs := faults.counts(); failed != 3 || runs < 1 {
		t.Fatalf("finish runs: %d failed, %d reached Redis; want 3 failed, then at least 1", failed, runs)
	}
	if n, err := admin.Exists(ctx, a.keyPrefix+p.Request.ID).Result(); err != nil || n != 0 {
		t.Fatalf("the collected confirm's key: exists %d, %v", n, err)
	}
}

// A check that fails is retried even with no wake-up to come (no decision,
// no reconnection, no heartbeat within the test): the fault never decides
// anything, and the confirm stays pending until a check succeeds.
func TestFailedCheckRetriedAlone(t *testing.T) {
	a, b, faults, _, _ := faultyPair(t)
	ctx := context.Background()
	p := pending("c-retry-alone", time.Hour)
	res := requestAsync(ctx, a, p)
	q := awaitPending(t, b, p.Request.ID)

	// One wake-up (as a reconnection makes), three failed checks, each
	// after the one before: only the retry can run the second and third.
	faults.arm(3)
	a.kickAll()
	for range 3 {
		select {
		case <-faults.hit:
		case <-time.After(30 * time.Second): // a hang guard
			failed, _ := faults.counts()
			t.Fatalf("%d failed checks, then none: the check is not retried", failed)
		}
	}
	select {
	case r := <-res:
		t.Fatalf("Request returned while nothing was decided: %+v, %v", r.d, r.err)
	default:
	}
	if _, err := b.Lookup(ctx, q.ID); err != nil {
		t.Fatalf("the confirm after failed checks: %v; want still pending", err)
	}
	if err := b.Resolve(ctx, peer, ocp.ConfirmDecision{ID: q.ID, Approve: false, Digest: q.Digest}); err != nil {
		t.Fatal(err)
	}
	if r := await(t, res); r.err != nil || r.d.Outcome != ocp.OutcomeDenied {
		t.Fatalf("Request = %+v, %v; want denied", r.d, r.err)
	}
}

// A close (here: the caller cancelled) that fails is retried with the
// backoff, with no other wake-up, until it reaches Redis; the Request then
// returns the close's outcome and no key is left.
func TestFailedCloseRetried(t *testing.T) {
	a, b, faults, _, _ := faultyPair(t)
	ctx, cancel := context.WithCancel(context.Background())
	p := pending("c-retry-close", time.Hour)
	res := requestAsync(ctx, a, p)
	awaitPending(t, b, p.Request.ID)

	faults.arm(1 << 20)
	cancel()
	for range 3 {
		select {
		case <-faults.hit:
		case <-time.After(30 * time.Second): // a hang guard
			failed, _ := faults.counts()
			t.Fatalf("%d failed closes, then none: the close is not retried", failed)
		}
	}
	faults.arm(0)
	if r := await(t, res); r.err != nil || r.d.Outcome != ocp.OutcomeCancelled {
		t.Fatalf("Request = %+v, %v; want cancelled", r.d, r.err)
	}
}
