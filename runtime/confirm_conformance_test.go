package runtime_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/runtime"
	"github.com/ocpgen/ocpgen/runtime/brokertest"
)

// TestConformanceMemory runs the broker conformance suite against the
// in-memory broker; both replicas are the same instance.
func TestConformanceMemory(t *testing.T) {
	defer goleak.VerifyNone(t)
	brokertest.Run(t, func(*testing.T) (a, b runtime.ConfirmBroker) {
		m := runtime.NewMemoryBroker()
		return m, m
	})
}
