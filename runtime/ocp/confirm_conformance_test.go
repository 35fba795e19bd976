package ocp_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/runtime/brokertest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// TestConformanceMemory runs the broker conformance suite against the
// in-memory broker; both replicas are the same instance.
func TestConformanceMemory(t *testing.T) {
	defer goleak.VerifyNone(t)
	brokertest.Run(t, func(*testing.T) (a, b ocp.ConfirmBroker) {
		m := ocp.NewMemoryBroker()
		return m, m
	})
}

// TestConformanceMemoryModelTraces replays the confirm model's traces
// (runtime/brokertest/model) against the in-memory broker.
func TestConformanceMemoryModelTraces(t *testing.T) {
	defer goleak.VerifyNone(t)
	brokertest.Replay(t, func(*testing.T) (a, b ocp.ConfirmBroker) {
		m := ocp.NewMemoryBroker()
		return m, m
	})
}
