package redisbroker

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/runtime/brokertest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// The failure tests on a Redis Cluster of the test's own (three masters,
// one replica each): with writes pending on one replica, a fault hits the
// master of the confirm slot; then a peer on the other replica approves
// half of them and denies the rest. Whatever the fault did to the data:
//
//   - no write is approved by the fault: a write runs only if a peer's
//     approval of it was accepted, and then exactly once;
//   - every pending write resolves: approved (its approval accepted),
//     denied (its denial accepted), or, when the fault took the confirm
//     with it, denied (ErrLost), with the approval refused;
//   - the server is never called for a write that was not approved;
//   - the replicas work again: a new write is approved across them.
//
// Where the fault keeps the data (a manual failover, a killed master whose
// replica had everything), every decision is accepted and acts; where it
// loses it (a master restarted in place, the whole cluster restarted,
// without persistence), every decision is refused and every write denied.

// faultKeeps says what a fault does to the pending confirms.
type faultKeeps bool

const (
	keepsData faultKeeps = true
	losesData faultKeeps = false
)

// The brokers connect as a user with ACLRule only (set on every node; a
// restarted node forgets it, so the restart tests use the default user),
// or as the default user.
const (
	withACLUser   = true
	asDefaultUser = false
)

func TestClusterSlotMasterKilled(t *testing.T) {
	t.Parallel()
	clusterFault(t, keepsData, withACLUser, func(t *testing.T, c *redistest.Cluster, m *redistest.Node) {
		c.WaitReplicated(m) // the replica has every confirm: a crash loses none
		c.KillMaster(m)     // returns once m's replica is master
	})
}

func TestClusterSlotMasterFailover(t *testing.T) {
	t.Parallel()
	clusterFault(t, keepsData, withACLUser, func(t *testing.T, c *redistest.Cluster, m *redistest.Node) {
		c.Failover(m) // returns once m's replica is master
		// The new master may not have the scripts (SCRIPT LOAD reached it
		// as a replica, or not): flush them everywhere, so the decisions
		// and the waiting replica's checks below go through NOSCRIPT and
		// go-redis's EVAL fallback.
		flushScripts(t, c)
	})
}

func TestClusterSlotMasterRestartedEmpty(t *testing.T) {
	t.Parallel()
	clusterFault(t, losesData, asDefaultUser, func(t *testing.T, c *redistest.Cluster, m *redistest.Node) {
		c.RestartMaster(m)
	})
}

func TestClusterRestartedEmpty(t *testing.T) {
	t.Parallel()
	clusterFault(t, losesData, asDefaultUser, func(t *testing.T, c *redistest.Cluster, m *redistest.Node) {
		c.Restart()
	})
}

func strAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func flushScripts(t *testing.T, c *redistest.Cluster) {
	t.Helper()
	for _, n := range c.Nodes {
		rdb := redis.NewClient(&redis.Options{Addr: n.Addr()})
		err := rdb.ScriptFlush(context.Background()).Err()
		_ = rdb.Close()
		if err != nil {
			t.Fatalf("SCRIPT FLUSH on %s: %v", n.Addr(), err)
		}
	}
}

func clusterFault(t *testing.T, keeps faultKeeps, aclUser bool, fault func(t *testing.T, c *redistest.Cluster, master *redistest.Node)) {
	if testing.Short() {
		t.Skip("-short: starts a six-node Redis Cluster and injects a fault")
	}
	c := redistest.StartCluster(t, redistest.ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	// The lease is an hour (steady): what ends a lost confirm is the
	// replica noticing, not a lease running out. The waiting replica checks
	// its confirms every 50 ms, not every 20 minutes (a third of the
	// lease): on a cluster, the pub/sub connection may come back before the
	// cluster serves the slot again (SUBSCRIBE has no key, and a node
	// answers it while the cluster is down), so the check that the
	// resubscription triggers can fail, and the next one is the
	// heartbeat's. (With the default 5 s lease, that is 1.7 s.)
	opt := Options{Prefix: testPrefix(), Lease: time.Hour}
	copt := clusterOptions(clientName(opt.Prefix))
	if aclUser {
		copt.Username, copt.Password = "ocp-broker", rand.Text()
		rule := append([]any{"ACL", "SETUSER", copt.Username, "on", ">" + copt.Password}, strAny(strings.Fields(ACLRule(opt.Prefix)))...)
		for _, n := range c.Nodes {
			rdb := redis.NewClient(&redis.Options{Addr: n.Addr()})
			err := rdb.Do(context.Background(), rule...).Err()
			_ = rdb.Close()
			if err != nil {
				t.Fatalf("ACL SETUSER on %s: %v", n.Addr(), err)
			}
		}
		t.Cleanup(func() {
			for _, n := range c.Nodes {
				if !n.Running() {
					continue
				}
				rdb := redis.NewClient(&redis.Options{Addr: n.Addr()})
				log, err := rdb.ACLLog(context.Background(), 100).Result()
				_ = rdb.Close()
				if err != nil {
					t.Errorf("ACL LOG on %s: %v", n.Addr(), err)
				}
				for _, e := range log {
					t.Errorf("%s: the ACL refused %s: %s %s on %q", n.Addr(), e.Username, e.Reason, e.Context, e.Object)
				}
			}
		})
	}
	a := newBrokerOn(t, c.Client(copt), opt)
	b := newBrokerOn(t, c.Client(copt), opt)
	a.heartbeat, b.heartbeat = 50*time.Millisecond, 50*time.Millisecond // before any Request
	waitUp(t, a)
	waitUp(t, b)
	ra, rb := brokertest.NewReplica(t, a), brokertest.NewReplica(t, b)

	const n = 6
	results := map[string]<-chan ocp.ActionResult{}
	for i := range n {
		args := fmt.Sprintf(`{"ticket":"T-%d"}`, i)
		results[args] = ra.Dispatch(brokertest.Requester, "close_ticket", args)
	}
	seen := awaitPendingN(t, b, n)

	fault(t, c, c.MasterOf(opt.Prefix+"pending"))

	// A peer decides each confirm, retrying while Redis cannot be asked (the
	// client finds the new master): approve even tickets, deny odd ones.
	accepted := map[string]bool{}  // args → the decision was accepted
	ambiguous := map[string]bool{} // args → refused after a try whose reply was lost
	approve := map[string]bool{}
	for i, r := range seen {
		args := string(r.Args)
		approve[args] = i%2 == 0
		err, retried := resolveRetrying(t, rb.Gate(), ocp.ConfirmDecision{ID: r.ID, Approve: approve[args], Digest: r.Digest})
		switch {
		case err == nil:
			accepted[args] = true
		case errors.Is(err, ocp.ErrConfirmNotPending) && retried:
			// A try that failed may have been applied, its reply lost: the
			// write may end either way, but only approved if approved.
			ambiguous[args] = true
			t.Logf("decision on %s: refused after a failed try: %v", args, err)
		case errors.Is(err, ocp.ErrConfirmNotPending):
		default:
			t.Fatalf("decision on %s: %v", args, err)
		}
		if !ambiguous[args] && bool(keeps) != accepted[args] {
			t.Fatalf("decision on %s after the fault: %v; the fault %s the data", args, err, map[faultKeeps]string{keepsData: "keeps", losesData: "loses"}[keeps])
		}
	}

	var want []string
	for args, ch := range results {
		var res ocp.ActionResult
		select {
		case res = <-ch:
		case <-time.After(brokertest.HangGuard):
			t.Fatalf("write %s never resolved after the fault", args)
		}
		switch {
		case res.OK && !(approve[args] && (accepted[args] || ambiguous[args])):
			t.Fatalf("write %s approved without an accepted approval: %+v", args, res)
		case !res.OK && res.Reason != ocp.ReasonDenied:
			t.Fatalf("write %s: %+v, want denied", args, res)
		case !res.OK && approve[args] && accepted[args]:
			t.Fatalf("write %s denied although its approval was accepted: %+v", args, res)
		}
		if res.OK {
			want = append(want, "close_ticket "+args)
		}
	}
	got := ra.Calls()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("server calls = %q, want %q (the approved writes, once each)", got, want)
	}

	// Both replicas work again: a new write is announced across and approved.
	out := ra.Dispatch(brokertest.Requester, "close_ticket", `{"ticket":"T-after"}`)
	r := awaitPendingN(t, b, 1)[0]
	if err, _ := resolveRetrying(t, rb.Gate(), ocp.ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest}); err != nil {
		t.Fatalf("approval after the fault: %v", err)
	}
	select {
	case res := <-out:
		if !res.OK {
			t.Fatalf("write after the fault: %+v", res)
		}
	case <-time.After(brokertest.HangGuard):
		t.Fatal("the write after the fault never resolved")
	}
	if got := ra.Calls(); !slices.Contains(got, `close_ticket {"ticket":"T-after"}`) || len(got) != len(want)+1 {
		t.Fatalf("server calls = %q", got)
	}
}

// awaitPendingN waits until br lists exactly n pending confirms, retrying
// while Redis cannot be asked.
func awaitPendingN(t *testing.T, br *Broker, n int) []ocp.ConfirmRequest {
	t.Helper()
	deadline := time.Now().Add(brokertest.HangGuard)
	for {
		p, err := br.Pending(context.Background())
		if err == nil && len(p) == n {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d confirms pending (%v), want %d", len(p), err, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// resolveRetrying is g.Resolve by the suite's decider, retried while the
// broker cannot reach Redis (ErrConfirmUnavailable). It reports whether
// it retried: a refusal after a failed try may be that try's own effect,
// its reply lost.
func resolveRetrying(t *testing.T, g *ocp.Gate, d ocp.ConfirmDecision) (err error, retried bool) {
	t.Helper()
	deadline := time.Now().Add(brokertest.HangGuard)
	for ; ; retried = true {
		err := g.Resolve(context.Background(), brokertest.Decider, d)
		if !errors.Is(err, ocp.ErrConfirmUnavailable) {
			return err, retried
		}
		if time.Now().After(deadline) {
			t.Fatalf("Resolve of %s: still %v", d.ID, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
