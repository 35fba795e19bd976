package redisbroker

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/runtime/brokertest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// cuttable is a dialer whose connections can all be cut at once, and which
// refuses new ones while cut: replica A losing its link to Redis while B
// keeps its own.
type cuttable struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func (c *cuttable) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return nil, errors.New("cuttable: link cut")
	}
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		c.conns = append(c.conns, conn)
	}
	return conn, err
}

func (c *cuttable) setCut(cut bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = cut
	if cut {
		for _, conn := range c.conns {
			_ = conn.Close()
		}
		c.conns = nil
	}
}

// closeHook counts the finish script's closes as "cancelled" that failed.
type closeHook struct{ failed *atomic.Int64 }

func (closeHook) DialHook(next redis.DialHook) redis.DialHook { return next }
func (closeHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h closeHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		args := cmd.Args()
		if err != nil && len(args) > 0 && slices.Contains(args, any(string(ocp.OutcomeCancelled))) {
			if name, _ := args[0].(string); strings.HasPrefix(strings.ToLower(name), "eval") {
				h.failed.Add(1)
			}
		}
		return err
	}
}

// The model's counterexample "close failure" (runtime/brokertest/model,
// -DOLD_CLOSE; testdata/traces/cex-close-failure.trace): the caller gives
// up while the waiting replica cannot reach Redis. The close fails; the
// broker used to return "cancelled" at once, leaving the key pending, and a
// peer on another replica then had an approval accepted that nothing acted
// on: the broker's accepted decision and the one Request returned
// disagreed. Now the close is retried until it reaches Redis (or the lease
// runs out, an error), so Request returns the decision the broker accepted.
func TestCloseThatCannotReachRedisIsRetried(t *testing.T) {
	addr := redistest.Addr(t)
	prefix := testPrefix()
	link := &cuttable{}
	ca := redis.NewClient(&redis.Options{Addr: addr, Dialer: link.dial, MaxRetries: -1})
	t.Cleanup(func() { _ = ca.Close() })
	var closeFailed atomic.Int64
	ca.AddHook(closeHook{&closeFailed})
	a, err := New(ca, steady(Options{Prefix: prefix}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	a.heartbeat = 5 * time.Millisecond // before any Request
	b := newBroker(t, addr, Options{Prefix: prefix})

	ann := make(chan ocp.ConfirmRequest, 1)
	stop := b.Subscribe(func(r ocp.ConfirmRequest) { ann <- r })
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := pending("c-close", time.Hour)
	out := make(chan result, 1)
	go func() {
		d, err := a.Request(ctx, p)
		out <- result{d, err}
	}()
	select {
	case <-ann:
	case <-time.After(brokertest.HangGuard):
		t.Fatal("never announced")
	}

	link.setCut(true)
	cancel()
	// The close has been tried, and has failed, at least once.
	for deadline := time.Now().Add(brokertest.HangGuard); closeFailed.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the waiting replica never tried to close")
		}
		time.Sleep(time.Millisecond)
	}
	// The key is still pending: a peer's approval is accepted.
	if err := b.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: p.Request.ID, Approve: true, Digest: p.Request.Digest}); err != nil {
		t.Fatalf("approval while A is cut off: %v", err)
	}
	link.setCut(false)
	var r result
	select {
	case r = <-out:
	case <-time.After(brokertest.HangGuard):
		t.Fatal("Request never returned")
	}
	if r.err == nil && r.d.Outcome != ocp.OutcomeApproved {
		t.Fatalf("Request = %+v: the broker accepted an approval, Request returned another decision", r.d)
	}
}
