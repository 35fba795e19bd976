package redistest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Each test starts a cluster of its own (StartCluster takes its ports under
// a lock) and mostly waits on it, so they run in parallel.

// The slot function agrees with the server's CLUSTER KEYSLOT.
func TestSlotAgreesWithRedis(t *testing.T) {
	t.Parallel()
	c := StartCluster(t, ClusterOptions{})
	rdb := redis.NewClient(&redis.Options{Addr: c.Nodes[0].Addr()})
	defer rdb.Close()
	for _, k := range []string{"", "a", "{ocp-confirm}:x", "{ocp-confirm}:index", "x{}y", "{}", "{a}{b}", "foo{bar", "user1000", "é"} {
		want, err := rdb.ClusterKeySlot(context.Background(), k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := redisSlot(k); int64(got) != want {
			t.Errorf("redisSlot(%q) = %d, CLUSTER KEYSLOT = %d", k, got, want)
		}
	}
}

// A cluster with replicas survives a manual failover and a killed master,
// and a client on it keeps reading what was written before.
func TestClusterFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: starts six redis-server processes and waits for two failovers")
	}
	c := StartCluster(t, ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	// go-redis reloads the slot map every ClusterStateReloadInterval (60 s by
	// default) or on a MOVED; a dead master answers nothing, so without a
	// short interval the client would keep dialling it for a minute.
	rdb := c.Client(&redis.ClusterOptions{MaxRedirects: 16, ClusterStateReloadInterval: time.Second})
	ctx := context.Background()
	const key = "{ocp-confirm}:probe"
	if err := rdb.Set(ctx, key, "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	m := c.MasterOf(key)
	if err := rdb.Wait(ctx, 1, 5*time.Second).Err(); err != nil {
		t.Logf("WAIT: %v", err)
	}
	t0 := time.Now()
	nm := c.Failover(m)
	t.Logf("failover: %v", time.Since(t0))
	if nm == m {
		t.Fatal("failover kept the same master")
	}
	if got := c.MasterOf(key); got != nm {
		t.Fatalf("after failover the master of the key is %s, want %s", got.Addr(), nm.Addr())
	}
	if err := eventually(func() error { return get(rdb, key, "v") }); err != nil {
		t.Fatal(err)
	}
	// Now kill the new master: the old one, its replica again, takes over.
	if reps := c.ReplicasOf(nm); len(reps) == 0 {
		t.Fatalf("%s has no replica after the failover", nm.Addr())
	}
	t0 = time.Now()
	nn := c.KillMaster(nm)
	t.Logf("kill master: %v", time.Since(t0))
	if nn == nm {
		t.Fatal("kill kept the same master")
	}
	t0 = time.Now()
	if err := eventually(func() error { return get(rdb, key, "v") }); err != nil {
		t.Fatal(err)
	}
	t.Logf("client recovered: %v", time.Since(t0))
	t0 = time.Now()
	nm.Start() // rejoins as a replica
	c.WaitHealthy()
	t.Logf("rejoin: %v", time.Since(t0))
}

func get(rdb redis.UniversalClient, key, want string) error {
	got, err := rdb.Get(context.Background(), key).Result()
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("GET %s = %q, want %q", key, got, want)
	}
	return nil
}

// eventually retries f until it succeeds or Bound passes (the client
// refreshes its slot map after a failover).
func eventually(f func() error) error {
	deadline := time.Now().Add(Bound)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A master restarted in place, and a whole cluster restarted, come back
// empty (no persistence), with the same masters.
func TestClusterRestartLosesData(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: starts six redis-server processes and restarts them")
	}
	c := StartCluster(t, ClusterOptions{Replicas: 1, NodeTimeout: time.Second})
	rdb := c.Client(&redis.ClusterOptions{MaxRedirects: 16, ClusterStateReloadInterval: time.Second})
	ctx := context.Background()
	const key = "{ocp-confirm}:probe"
	for _, restart := range []func(m *Node){c.RestartMaster, func(*Node) { c.Restart() }} {
		if err := eventually(func() error { return rdb.Set(ctx, key, "v", 0).Err() }); err != nil {
			t.Fatal(err)
		}
		m := c.MasterOf(key)
		c.WaitReplicated(m)
		restart(m)
		if got := c.MasterOf(key); got != m {
			t.Fatalf("after the restart the master is %s, want %s", got.Addr(), m.Addr())
		}
		err := eventually(func() error {
			err := rdb.Get(ctx, key).Err()
			if err == redis.Nil {
				return nil
			}
			if err == nil {
				return fmt.Errorf("%s survived the restart", key)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range c.ReplicasOf(m) {
			rc := redis.NewClient(&redis.Options{Addr: r.Addr()})
			n, err := rc.DBSize(ctx).Result()
			_ = rc.Close()
			if err != nil || n != 0 {
				t.Fatalf("replica %s holds %d keys (%v) after the restart", r.Addr(), n, err)
			}
		}
	}
}
