package redisbroker

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/internal/testwait"
	"github.com/ocpgen/ocpgen/runtime/brokertest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// TestClusterConfirmSlotLoad measures what the master of the confirm slot
// holds (BENCHMARKS.md §6). Every confirm of one Options.Prefix lives in
// one hash slot, so one master runs every script of every replica. On a
// cluster of the test's own (three masters, a replica each), two replicas'
// gates run writes from many requesters at once; a peer on the other
// replica decides each as soon as it is announced, approving half. The
// test fails unless every approved write ran once and no denied one ran;
// it logs the decisions per second this machine reached and, from INFO cpu
// and INFO commandstats of every node, the CPU each decision cost the
// slot's master (whose inverse is what one master core holds), the other
// masters and the replica:
//
//	OCP_CLUSTER_LOAD=1 go test -v -run ClusterConfirmSlotLoad ./redisbroker
//
// OCP_CLUSTER_LOAD_N (default 4000) and OCP_CLUSTER_LOAD_C (default 64)
// set the writes and the concurrent requesters.
func TestClusterConfirmSlotLoad(t *testing.T) {
	if os.Getenv("OCP_CLUSTER_LOAD") == "" {
		t.Skip("a measurement: OCP_CLUSTER_LOAD=1 go test -v -run ClusterConfirmSlotLoad ./redisbroker")
	}
	n, conc := envInt("OCP_CLUSTER_LOAD_N", 4000), envInt("OCP_CLUSTER_LOAD_C", 64)
	c := redistest.StartCluster(t, redistest.ClusterOptions{Replicas: 1})
	opt := Options{Prefix: DefaultPrefix}
	a := newBrokerOn(t, c.Client(clusterOptions("ocp-load")), opt)
	b := newBrokerOn(t, c.Client(clusterOptions("ocp-load")), opt)
	waitUp(t, a)
	waitUp(t, b)
	ra, rb := brokertest.NewReplica(t, a), brokertest.NewReplica(t, b)

	var decideErrs atomic.Int64
	var deciders sync.WaitGroup
	stop := b.Subscribe(func(r ocp.ConfirmRequest) {
		deciders.Add(1)
		go func() { // the peers decide concurrently, as many desks would
			defer deciders.Done()
			// {"ticket":"T-i"}: approve the even i.
			num := strings.TrimSuffix(string(r.Args[strings.LastIndexByte(string(r.Args), '-')+1:]), `"}`)
			i, _ := strconv.Atoi(num)
			approve := i%2 == 0
			if err := rb.Gate().Resolve(context.Background(), brokertest.Decider, ocp.ConfirmDecision{ID: r.ID, Approve: approve, Digest: r.Digest}); err != nil {
				decideErrs.Add(1)
			}
		}()
	})
	defer stop()

	master := c.MasterOf(opt.Prefix + "pending")
	// What each node spends idle (cluster bus pings, cron), subtracted from
	// the run's CPU below.
	idle0, idleStart := snapshot(t, c), time.Now()
	time.Sleep(2 * time.Second)
	idle1, idleTime := snapshot(t, c), time.Since(idleStart)
	before := snapshot(t, c)
	var next atomic.Int64
	var approved, denied atomic.Int64
	var wg sync.WaitGroup
	t0 := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				res := <-ra.Dispatch(brokertest.Requester, "close_ticket", fmt.Sprintf(`{"ticket":"T-%d"}`, i))
				switch {
				case res.OK && i%2 == 0:
					approved.Add(1)
				case !res.OK && i%2 == 1 && res.Reason == ocp.ReasonDenied:
					denied.Add(1)
				default:
					t.Errorf("write %d: %+v", i, res)
				}
			}
		}()
	}
	testwait.Wait(t, &wg, "the %d writes to return", n)
	elapsed := time.Since(t0)
	testwait.Wait(t, &deciders, "the deciders to decide every write")
	after := snapshot(t, c)
	if decideErrs.Load() != 0 || approved.Load()+denied.Load() != int64(n) {
		t.Fatalf("%d approved, %d denied of %d; %d decisions refused", approved.Load(), denied.Load(), n, decideErrs.Load())
	}
	calls := ra.Calls()
	if len(calls) != int(approved.Load()) || len(slices.Compact(slices.Sorted(slices.Values(calls)))) != len(calls) {
		t.Fatalf("%d server calls for %d approved writes (or one ran twice)", len(calls), approved.Load())
	}

	t.Logf("%d confirms (%d requesters at once, each decided by a peer on the other replica as announced): %v, %.0f decisions/s on this machine",
		n, conc, elapsed.Round(time.Millisecond), float64(n)/elapsed.Seconds())
	for _, nd := range c.Nodes {
		role := "other master"
		switch {
		case nd == master:
			role = "CONFIRM SLOT MASTER"
		case slices.Contains(c.ReplicasOf(master), nd):
			role = "its replica"
		case !c.IsMaster(nd):
			role = "other replica"
		}
		idle := time.Duration(float64(idle1[nd.Addr()].cpu-idle0[nd.Addr()].cpu) * float64(elapsed) / float64(idleTime))
		cpu := after[nd.Addr()].cpu - before[nd.Addr()].cpu - idle
		t.Logf("  %-19s %s: CPU %.1f µs per decision (idle CPU subtracted: %.1f µs per decision)", role, nd.Addr(), cpu.Seconds()*1e6/float64(n), idle.Seconds()*1e6/float64(n))
		if nd == master {
			t.Logf("    → one master core holds about %.0f decisions/s", float64(n)/cpu.Seconds())
			for _, cmd := range slices.Sorted(func(yield func(string) bool) {
				for k := range after[nd.Addr()].cmds {
					if !yield(k) {
						return
					}
				}
			}) {
				d := after[nd.Addr()].cmds[cmd].sub(before[nd.Addr()].cmds[cmd])
				if d.calls == 0 {
					continue
				}
				t.Logf("    %-22s %.2f calls per decision, %.1f µs each (%.1f µs per decision)",
					cmd, float64(d.calls)/float64(n), d.usec/float64(d.calls), d.usec/float64(n))
			}
		}
	}
	t.Run("Broadcast", func(t *testing.T) { measureBroadcast(t, c, master) })
}

// measureBroadcast compares what a PUBLISH and an SPUBLISH of a confirm's
// announcement cost each node: a classic PUBLISH on a cluster is sent over
// the cluster bus to every node; a sharded one only to the slot's replicas.
func measureBroadcast(t *testing.T, c *redistest.Cluster, master *redistest.Node) {
	const m, size = 20000, 400 // about a ConfirmRequest's JSON
	payload := strings.Repeat("x", size)
	ch := DefaultPrefix + "bench"
	for _, kind := range []string{"publish", "spublish"} {
		rdb := redis.NewClient(&redis.Options{Addr: master.Addr()})
		sub := redis.NewClient(&redis.Options{Addr: master.Addr()})
		var ps *redis.PubSub
		if kind == "publish" {
			ps = sub.Subscribe(context.Background(), ch)
		} else {
			ps = sub.SSubscribe(context.Background(), ch)
		}
		if _, err := ps.Receive(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := make(chan int)
		go func() {
			k := 0
			for range ps.Channel() {
				if k++; k == m {
					break
				}
			}
			got <- k
		}()
		before := snapshot(t, c)
		for i := 0; i < m; i += 100 {
			if _, err := rdb.Pipelined(context.Background(), func(p redis.Pipeliner) error {
				for range 100 {
					if kind == "publish" {
						p.Publish(context.Background(), ch, payload)
					} else {
						p.SPublish(context.Background(), ch, payload)
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-got:
		case <-time.After(brokertest.HangGuard):
			t.Fatal("the subscriber did not get every message")
		}
		time.Sleep(200 * time.Millisecond) // let the bus deliver to every node
		after := snapshot(t, c)
		var line []string
		for _, nd := range c.Nodes {
			cpu := after[nd.Addr()].cpu - before[nd.Addr()].cpu
			tag := ""
			if nd == master {
				tag = "*"
			}
			line = append(line, fmt.Sprintf("%s%s %.2f", nd.Addr(), tag, cpu.Seconds()*1e6/m))
		}
		t.Logf("%-8s of %d bytes, µs CPU per message per node (* the slot's master): %s", strings.ToUpper(kind), size, strings.Join(line, ", "))
		_ = ps.Close()
		_ = sub.Close()
		_ = rdb.Close()
	}
}

type cmdStat struct {
	calls int64
	usec  float64
}

func (s cmdStat) sub(o cmdStat) cmdStat { return cmdStat{s.calls - o.calls, s.usec - o.usec} }

type nodeStats struct {
	cpu  time.Duration // used_cpu_sys + used_cpu_user
	cmds map[string]cmdStat
}

func snapshot(t *testing.T, c *redistest.Cluster) map[string]nodeStats {
	t.Helper()
	out := map[string]nodeStats{}
	for _, n := range c.Nodes {
		cpu, err := n.Info("cpu")
		if err != nil {
			t.Fatal(err)
		}
		sys, _ := strconv.ParseFloat(cpu["used_cpu_sys"], 64)
		usr, _ := strconv.ParseFloat(cpu["used_cpu_user"], 64)
		st := nodeStats{cpu: time.Duration((sys + usr) * float64(time.Second)), cmds: map[string]cmdStat{}}
		cs, err := n.Info("commandstats")
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range cs {
			// cmdstat_evalsha:calls=10,usec=123,usec_per_call=12.3,...
			name, ok := strings.CutPrefix(k, "cmdstat_")
			if !ok {
				continue
			}
			var s cmdStat
			for _, kv := range strings.Split(v, ",") {
				f, x, _ := strings.Cut(kv, "=")
				switch f {
				case "calls":
					s.calls, _ = strconv.ParseInt(x, 10, 64)
				case "usec":
					s.usec, _ = strconv.ParseFloat(x, 64)
				}
			}
			st.cmds[name] = s
		}
		out[n.Addr()] = st
	}
	return out
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
