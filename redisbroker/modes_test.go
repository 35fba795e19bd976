package redisbroker

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
	"github.com/ocpgen/ocpgen/runtime/brokertest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// The conformance suite and the model's traces on the Redis deployments
// production runs: a Redis Cluster (each replica's broker on a cluster
// client of its own) and a TLS-only node whose broker user may run only the
// commands of the package doc. .ci/redis.sh starts both; see
// internal/redistest for the variables.

// clusterOptions are the cluster client options the tests use, and the
// docs/production.md advises: a dead master's slots are looked up again within a
// second, not the 60 s go-redis defaults to.
func clusterOptions(name string) *redis.ClusterOptions {
	return &redis.ClusterOptions{ClientName: name, ClusterStateReloadInterval: time.Second}
}

// clusterBackend is the three-master cluster of $REDIS_CLUSTER_ADDRS.
func clusterBackend(t testing.TB) backend {
	return backend{
		client: func(t testing.TB, name string) redis.UniversalClient {
			return redistest.ClusterFromEnv(t, clusterOptions(name))
		},
		admin: redistest.ClusterFromEnv(t, nil),
	}
}

// tlsBackend is the TLS-only node of $REDIS_TLS_ADDR: the brokers are its
// minimal ACL user, the test's checks its admin.
func tlsBackend(t testing.TB) backend {
	return backend{
		client: func(t testing.TB, name string) redis.UniversalClient {
			return redistest.TLSFromEnv(t, name)
		},
		admin: redistest.TLSAdminFromEnv(t),
	}
}

// conformanceOn is conformance on the deployment be makes.
func conformanceOn(be func(t testing.TB) backend, heartbeat time.Duration) func(t *testing.T) (a, b ocp.ConfirmBroker) {
	return func(t *testing.T) (a, b ocp.ConfirmBroker) {
		ra, rb := newPairOn(t, be, Options{})
		if heartbeat > 0 {
			ra.heartbeat, rb.heartbeat = heartbeat, heartbeat
		}
		return ra, rb
	}
}

// TestConformanceCluster and TestConformanceTLSACL run the conformance suite
// (pub/sub only, and with heartbeats) and the model traces on the cluster
// and on the TLS node. The traces' replay there is breadth (every trace on
// every deployment, through the same broker code that
// TestConformanceRedisModelTraces replays under -race on the plain node):
// it is skipped under -race (testcorpus.SkipUnderRace) and .ci/breadth.sh
// runs it without -race.
func TestConformanceCluster(t *testing.T) {
	t.Parallel()
	redistest.ClusterAddrs(t)
	t.Run("PubSubOnly", func(t *testing.T) { brokertest.Run(t, conformanceOn(clusterBackend, 0)) })
	t.Run("Heartbeat", func(t *testing.T) { brokertest.Run(t, conformanceOn(clusterBackend, time.Millisecond)) })
	t.Run("ModelTraces", func(t *testing.T) {
		testcorpus.SkipUnderRace(t)
		brokertest.Replay(t, conformanceOn(clusterBackend, time.Millisecond))
	})
}

func TestConformanceTLSACL(t *testing.T) {
	t.Parallel()
	redistest.TLSOptions(t)
	admin := redistest.TLSAdminFromEnv(t)
	ctx := context.Background()
	if err := admin.ACLLogReset(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	t.Run("PubSubOnly", func(t *testing.T) { brokertest.Run(t, conformanceOn(tlsBackend, 0)) })
	t.Run("Heartbeat", func(t *testing.T) { brokertest.Run(t, conformanceOn(tlsBackend, time.Millisecond)) })
	t.Run("ModelTraces", func(t *testing.T) {
		testcorpus.SkipUnderRace(t)
		brokertest.Replay(t, conformanceOn(tlsBackend, time.Millisecond))
	})
	// Nothing the broker ran was refused: the user's commands are enough.
	log, err := admin.ACLLog(ctx, 100).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range log {
		if e.Username == redistest.TLSOptions(t).Username {
			t.Errorf("ACL refused the broker user: %s %s on %q", e.Reason, e.Context, e.Object)
		}
	}
}

// The broker user can do what the broker needs and nothing else: no
// administration, no keys or channels outside its prefixes.
func TestTLSACLUserIsMinimal(t *testing.T) {
	rdb := redistest.TLSFromEnv(t, "")
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"FLUSHALL"}, {"KEYS", "*"}, {"CONFIG", "GET", "*"}, {"CLIENT", "LIST"}, {"SET", "{ocp-confirm}:x", "v"},
		{"GET", "other"}, {"HMGET", "other", "state"}, {"PUBLISH", "other", "x"}, {"SCRIPT", "FLUSH"},
		{"EVAL", "return redis.call('GET', KEYS[1])", "1", "{ocp-confirm}:x"},
	} {
		// Refused by the ACL: NOPERM, or, from inside a script, "can't run
		// this command".
		err := rdb.Do(ctx, cmd...).Err()
		if err == nil || !strings.HasPrefix(err.Error(), "NOPERM") && !strings.Contains(err.Error(), "can't run this command") {
			t.Errorf("%v as the broker user: %v, want a refusal by the ACL", cmd, err)
		}
	}
	// And the TLS node answers nobody else: the default user is off.
	opt := redistest.TLSOptions(t)
	opt.Username, opt.Password, opt.MaxRetries = "", "", -1
	anon := redis.NewClient(opt)
	defer anon.Close()
	if err := anon.Ping(ctx).Err(); err == nil {
		t.Error("PING without a user answered")
	}
}

// The broker user of .ci/redis.sh is ACLCommands (with CLIENT SETINFO on a
// Redis that knows it), so the TLS conformance run proves the list enough.
func TestCIBrokerUserIsACLCommands(t *testing.T) {
	src, err := os.ReadFile("../.ci/redis.sh")
	if err != nil {
		t.Fatal(err)
	}
	var rule string
	for _, line := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(line, "user $user on ") {
			rule = line
		}
	}
	var got []string
	for _, f := range strings.Fields(rule) {
		if c, ok := strings.CutPrefix(f, "+"); ok {
			got = append(got, strings.TrimSuffix(c, "$setinfo"))
		}
	}
	if !slices.Equal(got, ACLCommands) {
		t.Fatalf(".ci/redis.sh's broker user runs %q, ACLCommands are %q", got, ACLCommands)
	}
}

func TestACLRule(t *testing.T) {
	got := ACLRule("")
	want := "resetkeys ~{ocp-confirm}:* resetchannels &{ocp-confirm}:* -@all +" + strings.Join(ACLCommands, " +")
	if got != want {
		t.Fatalf("ACLRule(\"\") = %q, want %q", got, want)
	}
	if got := ACLRule("{a*b}:"); !strings.HasPrefix(got, `resetkeys ~{a\*b}:* resetchannels &{a\*b}:* `) {
		t.Fatalf("ACLRule with a glob character = %q", got)
	}
}
