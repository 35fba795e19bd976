package ocp

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when its tests pass but leave a goroutine
// running. Run with benchStdioServerEnv set, the test binary is instead the
// stdio server of the benchmarks (bench_stdio_test.go).
func TestMain(m *testing.M) {
	if os.Getenv(benchStdioServerEnv) != "" {
		os.Exit(serveBenchStdio())
	}
	goleak.VerifyTestMain(m)
}
