package redisbroker

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/internal/testwait"
	"github.com/ocpgen/ocpgen/runtime/brokertest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// conformance returns the suite's replica factory: a pair of brokers with
// opt (see steady) and, unless zero, the given heartbeat.
func conformance(opt Options, heartbeat time.Duration) func(t *testing.T) (a, b ocp.ConfirmBroker) {
	return func(t *testing.T) (a, b ocp.ConfirmBroker) {
		ra, rb := newPair(t, redistest.Addr(t), opt)
		if heartbeat > 0 {
			// Before any Request: wait reads it on the Request's goroutine.
			ra.heartbeat, rb.heartbeat = heartbeat, heartbeat
		}
		return ra, rb
	}
}

// TestConformanceRedisPubSubOnly runs the broker conformance suite against
// two replicas' brokers, each with its own client, on one Redis server. The
// lease is an hour (see steady), so the heartbeat never fires during a
// test: every decision reaches the waiting replica through pub/sub.
func TestConformanceRedisPubSubOnly(t *testing.T) {
	t.Parallel()
	redistest.Addr(t)
	brokertest.Run(t, conformance(Options{}, 0))
}

// TestConformanceRedisHeartbeat runs the suite with the waiting replicas
// checking and renewing their confirms every millisecond, so heartbeats
// interleave with the decisions. The lease stays an hour: a short lease
// would deny confirms as lost whenever a loaded machine delays a renewal
// past it (that is the lease working; TestReplicaDiesConfirmVanishes
// checks it), and a test may not depend on the scheduler.
func TestConformanceRedisHeartbeat(t *testing.T) {
	t.Parallel()
	redistest.Addr(t)
	brokertest.Run(t, conformance(Options{}, time.Millisecond))
}

// TestConformanceRedisModelTraces replays the confirm model's traces
// (runtime/brokertest/model) against two replicas' brokers, with heartbeats
// every millisecond interleaving with the trace's steps.
func TestConformanceRedisModelTraces(t *testing.T) {
	t.Parallel()
	redistest.Addr(t)
	brokertest.Replay(t, conformance(Options{}, time.Millisecond))
}

func TestNewRefusesBadOptions(t *testing.T) {
	if _, err := New(nil, Options{}); err == nil {
		t.Error("nil client accepted")
	}
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	if _, err := New(c, Options{Lease: -time.Second}); err == nil {
		t.Error("negative lease accepted")
	}
}

// Redis unreachable when a write arrives: the write is denied, the server is
// not called, and peers get errors, not decisions.
func TestUnreachableRedisDeniesWrite(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	br := newBroker(t, addr, Options{OpTimeout: 500 * time.Millisecond})
	r := brokertest.NewReplica(t, br)
	res := testwait.Recv(t, r.Dispatch(brokertest.Requester, "close_ticket", `{"ticket":"T-1"}`), "the write's result while Redis is unreachable")
	if res.OK || res.Reason != ocp.ReasonDenied {
		t.Fatalf("result = %+v, want denied", res)
	}
	if c := r.Calls(); len(c) != 0 {
		t.Fatalf("server called: %q", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := br.Resolve(ctx, peer, ocp.ConfirmDecision{ID: "x", Approve: true, Digest: "d"})
	if err == nil || errors.Is(err, ocp.ErrConfirmNotPending) {
		t.Fatalf("Resolve = %v, want a Redis error", err)
	}
	if _, err := br.Pending(ctx); err == nil {
		t.Fatal("Pending without Redis succeeded")
	}
	stop := br.Subscribe(func(ocp.ConfirmRequest) {}) // returns after OpTimeout
	stop()
}

// Redis restarted (without persistence) while confirms are pending: every
// one of them is denied, none is ever approved, and the replicas recover. The
// lease is an hour, so what denies them is the replica noticing the restart,
// not a lease running out.
func TestRedisRestartDeniesPending(t *testing.T) {
	srv := redistest.StartNode(t)
	opt := Options{Prefix: testPrefix(), Lease: time.Hour}
	a, b := newBroker(t, srv.Addr(), opt), newBroker(t, srv.Addr(), opt)
	ra, rb := brokertest.NewReplica(t, a), brokertest.NewReplica(t, b)

	const n = 5
	var results []<-chan ocp.ActionResult
	for i := range n {
		results = append(results, ra.Dispatch(brokertest.Requester, "close_ticket", fmt.Sprintf(`{"ticket":"T-%d"}`, i)))
	}
	var seen []ocp.ConfirmRequest
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for len(seen) < n {
		var err error
		if seen, err = b.Pending(context.Background()); err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d confirms pending", len(seen), n)
		}
		time.Sleep(5 * time.Millisecond)
	}

	srv.Kill()
	srv.Start()

	// Approvals sent after the restart find nothing to approve.
	for _, r := range seen {
		err := rb.Gate().Resolve(context.Background(), brokertest.Decider, ocp.ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest})
		if err == nil {
			t.Fatalf("approval of %s accepted after the restart", r.ID)
		}
	}
	for i, ch := range results {
		select {
		case res := <-ch:
			if res.OK || res.Reason != ocp.ReasonDenied {
				t.Fatalf("write %d after the restart: %+v, want denied", i, res)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("write %d still waiting after the restart", i)
		}
	}
	if c := ra.Calls(); len(c) != 0 {
		t.Fatalf("server called: %q", c)
	}

	// Both replicas work again: a new write is announced across and approved.
	out := ra.Dispatch(brokertest.Requester, "close_ticket", `{"ticket":"T-after"}`)
	var r ocp.ConfirmRequest
	for r.ID == "" {
		p, err := b.Pending(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(p) == 1 {
			r = p[0]
		}
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatal("the write after the restart never became pending")
		}
	}
	if err := rb.Gate().Resolve(context.Background(), brokertest.Decider, ocp.ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest}); err != nil {
		t.Fatal(err)
	}
	if res := testwait.Recv(t, out, "the result of the write after the restart"); !res.OK {
		t.Fatalf("write after the restart: %+v", res)
	}
	if c := ra.Calls(); !slices.Equal(c, []string{`close_ticket {"ticket":"T-after"}`}) {
		t.Fatalf("server calls = %q", c)
	}
}

// The child process of TestReplicaDiesConfirmVanishes: a replica that asks
// for a write's confirm, reports it, and waits until it is killed.
const childEnv = "OCP_REDISBROKER_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		runChild()
		return
	}
	// go-redis logs every failed dial; the tests that stop Redis make many.
	redis.SetLogger(quietLogger{})
	// Every broker and client was closed by its test: none of their
	// goroutines (nor a Request's) may be left.
	goleak.VerifyTestMain(m)
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

func runChild() {
	lease, _ := time.ParseDuration(os.Getenv("OCP_CHILD_LEASE"))
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("REDIS_ADDR")})
	// OpTimeout is a minute (see steady): Subscribe must not give up on a
	// slow pub/sub connection, or the child never reports its confirm.
	br, err := New(rdb, Options{Prefix: os.Getenv("OCP_CHILD_PREFIX"), Lease: lease, OpTimeout: time.Minute})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(1)
	}
	stop := br.Subscribe(func(r ocp.ConfirmRequest) { fmt.Println("PENDING", r.ID) })
	defer stop()
	d, err := br.Request(context.Background(), pending("c-orphan", time.Hour))
	fmt.Println("ENDED", d, err) // never reached: the parent kills this process
	os.Exit(1)
}

// A replica that dies while waiting: its confirm vanishes within the lease,
// no peer can approve it afterwards, and nothing is called (the process that
// would call is gone).
func TestReplicaDiesConfirmVanishes(t *testing.T) {
	addr := redistest.Addr(t)
	const lease = 3 * time.Second
	prefix := testPrefix()
	b := newBroker(t, addr, Options{Prefix: prefix}) // the survivor: steady

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"=1", "REDIS_ADDR="+addr, "OCP_CHILD_PREFIX="+prefix, "OCP_CHILD_LEASE="+lease.String())
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	type read struct {
		line string
		err  error
	}
	lines := make(chan read, 1)
	go func() {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		lines <- read{line, err}
	}()
	if r := testwait.Recv(t, lines, "the child replica to say its confirm is pending"); r.err != nil || strings.TrimSpace(r.line) != "PENDING c-orphan" {
		t.Fatalf("child said %q, %v", r.line, r.err)
	}
	// The child printed it from its subscription, so it is registered. (Not
	// awaited in b's Pending: a child that a loaded machine stalls for the
	// lease has lost it already, which is what this test is about.)
	r := pending("c-orphan", time.Hour).Request

	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	// Redis will drop the key by itself: its TTL is at most the lease (or
	// it is gone already, -2).
	rdb := newClient(t, addr)
	ttl, err := rdb.PTTL(context.Background(), prefix+"c:c-orphan").Result()
	if err != nil || (ttl != -2 && (ttl <= 0 || ttl > lease)) {
		t.Fatalf("TTL of the orphan's key = %v, %v; want at most the lease %v", ttl, err, lease)
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for {
		p, err := b.Pending(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(p) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the dead replica's confirm is still listed: %+v", p)
		}
		time.Sleep(20 * time.Millisecond)
	}
	err = b.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest})
	if !errors.Is(err, ocp.ErrConfirmNotPending) {
		t.Fatalf("approval of the dead replica's confirm: %v", err)
	}
	// Pending dropped the orphan's index entry: nothing of it is left.
	res := requestAsync(context.Background(), b, pending("c-next", time.Hour))
	awaitPending(t, b, "c-next")
	if err := b.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: "c-next", Digest: "sha256:d-c-next"}); err != nil {
		t.Fatal(err)
	}
	if r := await(t, res); r.d.Outcome != ocp.OutcomeDenied {
		t.Fatalf("c-next: %+v", r)
	}
	if keys, _ := rdb.Keys(context.Background(), prefix+"*").Result(); len(keys) != 0 {
		t.Fatalf("keys left: %q", keys)
	}
}

// A pending confirm's key holds what peers are shown and what the decide
// script compares, nothing else: not the requester's channel identity, no
// principal's tier or scopes, no token.
func TestKeyHoldsNoMoreThanNeeded(t *testing.T) {
	a, b := newPair(t, redistest.Addr(t), Options{})
	p := pending("c-fields", time.Hour)
	res := requestAsync(context.Background(), a, p)
	awaitPending(t, b, p.Request.ID)
	rdb := newClient(t, redistest.Addr(t))
	h, err := rdb.HGetAll(context.Background(), a.keyPrefix+p.Request.ID).Result()
	if err != nil {
		t.Fatal(err)
	}
	fields := slices.Sorted(func(yield func(string) bool) {
		for k := range h {
			if !yield(k) {
				return
			}
		}
	})
	if !slices.Equal(fields, []string{"digest", "exp", "req", "rp", "state", "wch"}) {
		t.Fatalf("fields = %q", fields)
	}
	if h["wch"] != a.chDecided {
		t.Errorf("wch = %q, want the waiting replica's channel of decisions %q", h["wch"], a.chDecided)
	}
	for k, v := range h {
		if strings.Contains(v, "SECRET") || strings.Contains(v, "model-chan") {
			t.Errorf("field %s holds the requester's channel identity: %q", k, v)
		}
	}
	if rp, err := hex.DecodeString(h["rp"]); err != nil || len(rp) != 32 {
		t.Errorf("rp = %q, want a sha256", h["rp"])
	}
	var req ocp.ConfirmRequest
	if err := json.Unmarshal([]byte(h["req"]), &req); err != nil || req.ID != p.Request.ID || !req.Expires.Equal(p.Request.Expires) {
		t.Errorf("req = %q (%v)", h["req"], err)
	}
	if err := b.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: p.Request.ID, Digest: p.Request.Digest}); err != nil {
		t.Fatal(err)
	}
	if r := await(t, res); r.d.Outcome != ocp.OutcomeDenied {
		t.Fatalf("%+v", r)
	}
}

// An approval that did not come through the decide script (written into
// Redis by hand, without the request's digest) is not an approval.
func TestForgedApprovalIsRefused(t *testing.T) {
	for _, forged := range []map[string]any{
		{"state": "approved", "by_peer": "x", "by_id": "x"},
		{"state": "approved", "by_peer": "x", "by_id": "x", "ddigest": "sha256:forged"},
	} {
		a, _ := newPair(t, redistest.Addr(t), Options{Lease: time.Hour})
		p := pending("c-forged", time.Hour)
		res := requestAsync(context.Background(), a, p)
		awaitPending(t, a, p.Request.ID)
		rdb := newClient(t, redistest.Addr(t))
		ctx := context.Background()
		if err := rdb.HSet(ctx, a.keyPrefix+p.Request.ID, forged).Err(); err != nil {
			t.Fatal(err)
		}
		if err := rdb.Publish(ctx, a.chDecided, p.Request.ID).Err(); err != nil {
			t.Fatal(err)
		}
		r := await(t, res)
		if r.err == nil || r.d.Outcome == ocp.OutcomeApproved {
			t.Fatalf("forged approval %v: Request = %+v, %v", forged, r.d, r.err)
		}
	}
}

// Expiry is judged on the server's clock: an approval that reaches Redis
// after Expires is refused even when the waiting replica's own clock lags
// and its timer has not fired.
func TestApprovalAfterServerExpiry(t *testing.T) {
	a, b := newPair(t, redistest.Addr(t), Options{})
	var lag atomic.Int64
	lag.Store(int64(time.Hour))
	a.now = func() time.Time { return time.Now().Add(-time.Duration(lag.Load())) }
	var p ocp.PendingConfirm
	var res <-chan result
	for ttl := time.Second; ; ttl *= 2 {
		p = pending("c-lagging", ttl)
		res = requestAsync(context.Background(), a, p)
		if _, ok := awaitPendingOrExpired(t, b, p.Request.ID, res); ok {
			break
		}
		// It reached Redis after its Expires: again, with a longer life.
	}
	rdb := newClient(t, redistest.Addr(t))
	for { // wait for the server's clock to pass Expires
		now, err := rdb.Time(context.Background()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if !now.Before(p.Request.Expires) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	err := b.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: p.Request.ID, Approve: true, Digest: p.Request.Digest})
	if !errors.Is(err, ocp.ErrConfirmExpired) {
		t.Fatalf("late approval: %v, want ErrConfirmExpired", err)
	}
	if r := await(t, res); r.err != nil || r.d.Outcome != ocp.OutcomeExpired {
		t.Fatalf("Request = %+v, %v; want expired", r.d, r.err)
	}
}

// A decision announced while the waiting replica's pub/sub connection is
// down is still seen: the replica checks its confirms when it resubscribes.
// (The lease is an hour: no heartbeat helps.)
func TestDecisionSurvivesPubSubDrop(t *testing.T) {
	a, b := newPair(t, redistest.Addr(t), Options{Lease: time.Hour})
	rdb := newClient(t, redistest.Addr(t))
	for i := range 3 {
		p := pending(fmt.Sprintf("c-drop-%d", i), time.Hour)
		res := requestAsync(context.Background(), a, p)
		awaitPending(t, b, p.Request.ID)
		killPubSub(t, rdb, strings.TrimSuffix(a.keyPrefix, "c:"))
		if err := b.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: p.Request.ID, Approve: true, Digest: p.Request.Digest}); err != nil {
			t.Fatal(err)
		}
		if r := await(t, res); r.err != nil || r.d.Outcome != ocp.OutcomeApproved {
			t.Fatalf("Request = %+v, %v; want approved", r.d, r.err)
		}
	}
	// Announcements flow again once the replicas are resubscribed.
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for {
		n, err := rdb.PubSubNumSub(context.Background(), a.chNew).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n[a.chNew] == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d replicas resubscribed", n[a.chNew])
		}
		time.Sleep(5 * time.Millisecond)
	}
	seen := make(chan string, 8)
	stop := b.Subscribe(func(r ocp.ConfirmRequest) { seen <- r.ID })
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	res := requestAsync(ctx, a, pending("c-after-drop", time.Hour))
	select {
	case id := <-seen:
		if id != "c-after-drop" {
			t.Fatalf("announced %q", id)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no announcement after the pub/sub connections came back")
	}
	cancel()
	if r := await(t, res); r.d.Outcome != ocp.OutcomeCancelled {
		t.Fatalf("%+v", r)
	}
}

// Close withdraws the confirms a broker waits for and refuses later calls.
func TestClose(t *testing.T) {
	a, b := newPair(t, redistest.Addr(t), Options{})
	p := pending("c-close", time.Hour)
	res := requestAsync(context.Background(), a, p)
	awaitPending(t, b, p.Request.ID)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if r := await(t, res); !errors.Is(r.err, ErrClosed) {
		t.Fatalf("Request after Close = %+v, %v", r.d, r.err)
	}
	if _, err := a.Request(context.Background(), pending("c-late", time.Hour)); !errors.Is(err, ErrClosed) {
		t.Fatalf("Request on a closed broker: %v", err)
	}
	if err := b.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: p.Request.ID, Approve: true, Digest: p.Request.Digest}); !errors.Is(err, ocp.ErrConfirmNotPending) {
		t.Fatalf("approval of a withdrawn confirm: %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
}
