// Package loadtest holds TestLoad, the load test of a whole deployment: four
// Hub replica processes (the test binary re-executed) on a Redis Cluster of
// the test's own, fronting one MCP server process (examples/tickets), with
// 1,000 concurrent model sessions mixing reads and writes, decisions
// arriving through other replicas, some denied, some expiring, some
// withdrawn, one replica killed and the confirms' Redis master failed over
// mid-run. It runs once per MCP revision the Hub speaks: 2026-07-28, the
// server stateless (no session: the replicas share it without affinity),
// and 2025-11-25, the server stateful (a session per replica).
//
// The test asserts the ledger (every write the model was told ran, ran
// exactly once; no denied, expired, withdrawn or forbidden write ran; no
// call ended without a result unless its replica was killed under it) and
// logs the figures BENCHMARKS.md §7 reports:
//
//	go test -run TestLoad -v -count 1 ./internal/loadtest
//
// It is skipped under -short; under -race only the 2026-07-28 run is made
// (.ci/breadth.sh runs both without -race). It needs redis-server and
// redis-cli; under CI=true their absence fails it.
package loadtest
