package redisbroker

import (
	"context"
	"crypto/rand"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// Test helpers for a real redis-server. The tests find the servers that
// .ci/redis.sh starts through internal/redistest (REDIS_ADDR, and for the
// cluster and TLS tests REDIS_CLUSTER_ADDRS and REDIS_TLS_*); a test that
// kills a server starts its own with redistest. Under CI=true a missing or
// unreachable server fails the tests; elsewhere they skip, saying why.
//
// The tests that mostly wait (the conformance suite and the model traces on
// each deployment, which wait out expiries; the cluster fault tests, which
// wait for a failover) run in parallel with each other (t.Parallel): each
// pair of brokers has a key prefix and connection names of its own
// (testPrefix, clientName), a fault test a cluster of its own, and none
// inspects another's keys or connections. The TLS node's ACL log is
// TestConformanceTLSACL's alone: TestTLSACLUserIsMinimal, which fills it on
// purpose, is not parallel, so it has ended before the parallel tests
// start.

// testPrefix is a key prefix of one test's own, so tests sharing a server do
// not see each other's confirms.
func testPrefix() string { return "{ocptest-" + rand.Text()[:12] + "}:" }

// newClient returns a client of its own (one per replica), closed with the
// test.
func newClient(t testing.TB, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// steady fills in the durations opt leaves zero with ones no scheduling
// delay reaches: a lease of an hour and an OpTimeout of a minute. The
// defaults (a 5 s lease, a 2 s OpTimeout) are for production; in a test on
// a loaded machine they would deny confirms as lost or unreachable now and
// then, and a test may not depend on the scheduler. A test about the lease
// or the timeout sets its own.
func steady(opt Options) Options {
	if opt.Lease == 0 {
		opt.Lease = time.Hour
	}
	if opt.OpTimeout == 0 {
		opt.OpTimeout = time.Minute
	}
	return opt
}

// newBroker returns a broker with steady(opt) on its own client, closed
// with the test. The client's connections are named after opt.Prefix (see
// killPubSub).
func newBroker(t testing.TB, addr string, opt Options) *Broker {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, ClientName: clientName(opt.Prefix)})
	t.Cleanup(func() { _ = c.Close() })
	return newBrokerOn(t, c, opt)
}

// clientName is the connection name of the brokers of one key prefix: its
// letters, digits and dashes.
func clientName(prefix string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, "ocpbroker-"+prefix)
}

// killPubSub kills the pub/sub connections that the brokers of prefix have
// open, and only those: other tests sharing the server keep theirs.
func killPubSub(t testing.TB, rdb *redis.Client, prefix string) {
	t.Helper()
	ctx := context.Background()
	list, err := rdb.ClientList(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(list, "\n") {
		f := map[string]string{}
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			f[k] = v
		}
		if f["name"] != clientName(prefix) || !strings.Contains(f["flags"], "P") {
			continue
		}
		if err := rdb.ClientKillByFilter(ctx, "ID", f["id"]).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

// newPair returns two replicas' brokers on one server, each with its own
// client, under a fresh prefix (opt.Prefix is replaced). When the test ends
// without failing, no key of the prefix may be left.
func newPair(t testing.TB, addr string, opt Options) (a, b *Broker) {
	t.Helper()
	return newPairOn(t, plainBackend(addr), opt)
}

// backend is a Redis deployment the tests run brokers on.
type backend struct {
	// client returns a replica's own client, its connections named name
	// (see killPubSub), closed with the test.
	client func(t testing.TB, name string) redis.UniversalClient
	// admin is a client for the test's own inspection.
	admin redis.UniversalClient
}

// plainBackend is one plain node at addr.
func plainBackend(addr string) func(t testing.TB) backend {
	return func(t testing.TB) backend {
		return backend{
			client: func(t testing.TB, name string) redis.UniversalClient {
				c := redis.NewClient(&redis.Options{Addr: addr, ClientName: name})
				t.Cleanup(func() { _ = c.Close() })
				return c
			},
			admin: newClient(t, addr),
		}
	}
}

// newPairOn is newPair on the deployment be makes.
func newPairOn(t testing.TB, be func(t testing.TB) backend, opt Options) (a, b *Broker) {
	t.Helper()
	opt.Prefix = testPrefix()
	env := be(t)
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		keys, err := redistest.Keys(context.Background(), env.admin, opt.Prefix+"*")
		if err != nil {
			t.Errorf("listing keys: %v", err)
		} else if len(keys) != 0 {
			t.Errorf("keys left in Redis after every confirm ended: %q", keys)
		}
	})
	a, b = newBrokerOn(t, env.client(t, clientName(opt.Prefix)), opt), newBrokerOn(t, env.client(t, clientName(opt.Prefix)), opt)
	waitUp(t, a)
	waitUp(t, b)
	return a, b
}

// newBrokerOn returns a broker with steady(opt) on rdb, closed with the
// test.
func newBrokerOn(t testing.TB, rdb redis.UniversalClient, opt Options) *Broker {
	t.Helper()
	b, err := New(rdb, steady(opt))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// waitUp waits until br's pub/sub connection is subscribed, so that a test
// on a loaded machine does not race the broker's start.
func waitUp(t testing.TB, br *Broker) {
	t.Helper()
	br.mu.Lock()
	ready := br.ready
	br.mu.Unlock()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the broker's pub/sub connection never came up")
	}
}

// freePort returns a loopback port nothing listens on (at the time).
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	return port
}

// pending returns a PendingConfirm for the broker tests.
func pending(id string, ttl time.Duration) ocp.PendingConfirm {
	return ocp.PendingConfirm{
		Request: ocp.ConfirmRequest{
			ID: id, Tool: "close_ticket", Prompt: "Close ticket " + id + "?", Requester: "u-alice",
			Args: []byte(`{"ticket":"` + id + `"}`), Digest: "sha256:d-" + id, Expires: time.Now().Add(ttl),
		},
		RequesterPeer: "model-chan-SECRET-91c2",
	}
}

var peer = ocp.Principal{ID: "u-bob", Tier: "operator", Peer: "desk-b2"}

type result struct {
	d   ocp.Decision
	err error
}

func requestAsync(ctx context.Context, b *Broker, p ocp.PendingConfirm) <-chan result {
	out := make(chan result, 1)
	go func() {
		d, err := b.Request(ctx, p)
		out <- result{d, err}
	}()
	return out
}

// awaitPending waits until br lists the confirm id.
func awaitPending(t testing.TB, br *Broker, id string) ocp.ConfirmRequest {
	t.Helper()
	r, _ := awaitPendingOrExpired(t, br, id, nil)
	return r
}

// awaitPendingOrExpired waits until br lists the confirm id, or until its
// Request (res, unless nil) ends as expired: a short-lived confirm that a
// loaded machine delays past its Expires reaches Redis expired, and is never
// pending. It reports whether the confirm is pending.
func awaitPendingOrExpired(t testing.TB, br *Broker, id string, res <-chan result) (ocp.ConfirmRequest, bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for {
		p, err := br.Pending(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p {
			if r.ID == id {
				return r, true
			}
		}
		select {
		case r := <-res: // never, when res is nil
			if r.err != nil || r.d.Outcome != ocp.OutcomeExpired {
				t.Fatalf("confirm %s ended before it was pending: %+v, %v", id, r.d, r.err)
			}
			return ocp.ConfirmRequest{}, false
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("confirm %s never pending", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func await(t testing.TB, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("Request never returned")
	}
	panic("unreachable")
}
