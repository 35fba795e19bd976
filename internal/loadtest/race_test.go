//go:build race

package loadtest

// raceEnabled: the race detector slows every process about fivefold, so
// TestLoad makes fewer calls per session (see config).
const raceEnabled = true
