// Package par runs independent calls on all CPUs.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) once for every i from 0 to n-1 and returns when every call
// has returned. The calls run on at most GOMAXPROCS goroutines at once, the
// caller's among them: each goroutine makes the next call not yet made
// until none is left, so it starts at most GOMAXPROCS-1 goroutines whatever
// n is. The calls must not depend on one another or on their order.
func Each(n int, f func(i int)) {
	var next atomic.Int64
	work := func() {
		for {
			i := next.Add(1) - 1
			if i >= int64(n) {
				return
			}
			f(int(i))
		}
	}
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}
