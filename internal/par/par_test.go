package par

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
)

// created is the number of goroutines the program has started.
func created(t *testing.T) uint64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatalf("metric %s unsupported", s[0].Name)
	}
	return s[0].Value.Uint64()
}

func TestEachCallsEveryIndexOnce(t *testing.T) {
	runtime.GC() // the collector starts its workers at its first cycle
	for _, procs := range []int{1, 2, 4} {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		for _, n := range []int{0, 1, 2, 3, 100, 1000} {
			calls := make([]atomic.Int32, n)
			var running, most atomic.Int32
			before := created(t)
			Each(n, func(i int) {
				r := running.Add(1)
				for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
				}
				calls[i].Add(1)
				running.Add(-1)
			})
			started := created(t) - before
			for i := range calls {
				if c := calls[i].Load(); c != 1 {
					t.Fatalf("GOMAXPROCS %d, n %d: f(%d) called %d times", procs, n, i, c)
				}
			}
			if m := most.Load(); int(m) > procs {
				t.Errorf("GOMAXPROCS %d, n %d: %d calls at once", procs, n, m)
			}
			// A goroutine per worker, not per call (the caller is one).
			if want := uint64(max(min(procs, n)-1, 0)); started > want {
				t.Errorf("GOMAXPROCS %d, n %d: %d goroutines started, want at most %d", procs, n, started, want)
			}
		}
	}
}
