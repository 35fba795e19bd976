package redisbroker

import (
	"context"
	"crypto/rand"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// Test helpers for a real redis-server. The tests find it at $REDIS_ADDR
// (.ci/redis.sh starts one and sets it). Under CI=true a missing or
// unreachable server fails the tests; elsewhere they skip, saying why.

func inCI() bool { return os.Getenv("CI") == "true" }

func skipOrFail(t testing.TB, msg string) {
	t.Helper()
	if inCI() {
		t.Fatal(msg + " (CI=true: .ci/run must start redis-server, see .ci/redis.sh)")
	}
	t.Skip(msg + "; to run: redis-server --port 6390 --save '' --appendonly no --daemonize yes; REDIS_ADDR=127.0.0.1:6390 go test ./redisbroker")
}

// redisAddr returns the address of the test Redis server.
func redisAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("REDIS_ADDR")
	if addr == "" {
		skipOrFail(t, "REDIS_ADDR is not set")
	}
	if err := ping(addr); err != nil {
		skipOrFail(t, "Redis at REDIS_ADDR="+addr+" does not answer: "+err.Error())
	}
	return addr
}

func ping(addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

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
	b, err := New(c, steady(opt))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
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
	opt.Prefix = testPrefix()
	check := newClient(t, addr)
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		keys, err := check.Keys(context.Background(), opt.Prefix+"*").Result()
		if err != nil {
			t.Errorf("listing keys: %v", err)
		} else if len(keys) != 0 {
			t.Errorf("keys left in Redis after every confirm ended: %q", keys)
		}
	})
	a, b = newBroker(t, addr, opt), newBroker(t, addr, opt)
	waitUp(t, a)
	waitUp(t, b)
	return a, b
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

// redisServer is a redis-server process of one test's own, for the tests
// that kill it.
type redisServer struct {
	t    testing.TB
	bin  string
	port int
	cmd  *exec.Cmd
}

func startOwnRedis(t testing.TB) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		skipOrFail(t, "redis-server is not installed (Debian package redis-server)")
	}
	s := &redisServer{t: t, bin: bin, port: freePort(t)}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

func (s *redisServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.t.TempDir())
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second) // a hang guard
	for ping(s.addr()) != nil {
		if time.Now().After(deadline) {
			s.t.Fatalf("own redis-server on %s never answered", s.addr())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill ends the server as a crash would: no shutdown, no save.
func (s *redisServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
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
