package ocp

import (
	"slices"
	"testing"
)

// one returns the policy of g's only server.
func (g *Gate) one() *serverGate {
	if len(g.servers) != 1 {
		panic("one: the gate has several servers")
	}
	return g.servers[0]
}

// fingerprint is the fingerprint of g's advertised catalogue, or "" before
// the first sync.
func (g *serverGate) fingerprint() string {
	if st := g.state.Load(); st != nil {
		return st.fp
	}
	return ""
}

// checkStageOutcomes reports every audit event of a stage in audit whose
// outcome is not "ok" nor a reason the stage declares (for StepConfirm,
// nor "opened" nor an Outcome).
func checkStageOutcomes(t *testing.T, audit *syncBuffer) {
	t.Helper()
	for _, s := range stages {
		allowed := []string{"ok"}
		for _, r := range s.reasons {
			allowed = append(allowed, string(r))
		}
		if s.step == StepConfirm {
			allowed = append(allowed, "opened", string(OutcomeApproved), string(OutcomeDenied), string(OutcomeExpired), string(OutcomeCancelled))
		}
		for _, e := range audit.events(t, s.event) {
			if o, _ := e["outcome"].(string); !slices.Contains(allowed, o) {
				t.Errorf("%s event with outcome %q, which the stage does not declare: %v", s.event, o, e)
			}
		}
	}
}
