package redisbroker

import (
	"testing"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/runtime/brokertest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// TestLoadTwoReplicas is the load test: two replicas, 1,000 writes pending
// at once on one, peers on the other approving half and denying half.
// brokertest.Load fails the test unless every result is right and no denied
// write reached the server. The decision→waiter latencies of the Redis
// broker and, for comparison, of the in-memory broker (both replicas one
// instance) are logged, for a burst (16 peers deciding at once) and for one
// peer deciding one confirm after another:
//
//	go test -v -run LoadTwoReplicas ./redisbroker
func TestLoadTwoReplicas(t *testing.T) {
	const n = 1000
	addr := redistest.Addr(t)
	for _, deciders := range []int{16, 1} {
		mem := ocp.NewMemoryBroker()
		memRes := brokertest.Load(t, mem, mem, n, deciders)
		a, b := newPair(t, addr, Options{})
		redisRes := brokertest.Load(t, a, b, n, deciders)
		t.Logf("memory broker: %v", memRes)
		t.Logf("redis broker:  %v", redisRes)
	}
}
