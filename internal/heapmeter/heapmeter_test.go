package heapmeter

import (
	"runtime"
	"testing"
)

var sink []byte

// A phase that keeps what it allocates is bounded by it, and leaves it
// live; one that drops it is bounded by it too, and leaves nothing; the
// peak is the larger bound, counted from the live heap at Start.
func TestMeter(t *testing.T) {
	const mib = 1 << 20
	held := make([]byte, 4*mib) // live before Start: not counted
	m := Start()
	sink = make([]byte, mib) // kept
	m.Mark("keep")
	func() {
		b := make([]byte, 2*mib) // dropped
		runtime.KeepAlive(b)
	}()
	m.Mark("drop")
	ph := m.Phases()
	if len(ph) != 2 || ph[0].Name != "keep" || ph[1].Name != "drop" {
		t.Fatalf("phases %+v", ph)
	}
	// Some slack: the runtime's and the Meter's own allocations, and the
	// garbage of before Start that a collection frees.
	near := func(got, want uint64) bool { return got+64<<10 > want && got < want+64<<10 }
	if !near(ph[0].Alloc, mib) || !near(ph[0].Peak, mib) || !near(ph[0].Live, mib) {
		t.Errorf("keep: %+v", ph[0])
	}
	if !near(ph[1].Alloc, 2*mib) || !near(ph[1].Peak, 3*mib) || !near(ph[1].Live, mib) {
		t.Errorf("drop: %+v", ph[1])
	}
	if p := m.Peak(); !near(p, 3*mib) {
		t.Errorf("peak %d", p)
	}
	runtime.KeepAlive(held)
	sink = nil
}
