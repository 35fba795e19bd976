package testcorpus

import (
	"runtime"
	"strings"
	"testing"
)

// SkipUnderRace skips t when the test binary was built with the race
// detector (go test -race), and says where t runs instead.
//
// It is for a test whose value is its breadth: every input of a corpus,
// every committed seed, many random rounds. The race detector makes such
// a test five to ten times slower and finds nothing the package's other
// tests, which drive the same code under -race, do not: each caller's doc
// comment names those tests. .ci/breadth.sh, which .ci/run runs after the
// race-detector run, finds every test that calls SkipUnderRace in the test
// files and runs it in full without -race, so CI checks the whole breadth
// on every run. Call it in the Test or Fuzz function itself (or a closure
// in it), where .ci/breadth.sh finds it.
func SkipUnderRace(t testing.TB) {
	t.Helper()
	if Race {
		t.Skipf("breadth test, skipped under -race; bash .ci/breadth.sh runs it in full without -race (go test -run '^%s$' %s)",
			strings.Split(t.Name(), "/")[0], callerPackage())
	}
}

// callerPackage returns the import path of the package of SkipUnderRace's
// caller, or "." when the stack does not say.
func callerPackage() string {
	pc, _, _, ok := runtime.Caller(2)
	if !ok {
		return "."
	}
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return "."
	}
	// "example.com/a/b.TestX.func1": the path up to the last slash, then
	// up to the first dot after it.
	name := fn.Name()
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return "."
	}
	return strings.TrimSuffix(name[:slash+1+dot], "_test")
}
