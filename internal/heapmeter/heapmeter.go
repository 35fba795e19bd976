// Package heapmeter bounds the peak live heap of a piece of code, for the
// memory benchmarks and tests of the argument engine and the gate.
//
// The live heap is known only right after a garbage collection, and a
// collection at every allocation would be the only exact way to find its
// peak. A [Meter] instead forces a full collection when it starts and at
// every boundary the measured code marks ([Meter.Mark]), and reads the
// runtime's cumulative count of allocated bytes there. Between two
// boundaries the live heap can grow by no more than what was allocated in
// between, so
//
//	peak of a phase ≤ live heap at its start + bytes allocated during it
//
// and the peak of the whole run is at most the largest of these. The bound
// is exact for a phase that drops nothing it allocated (a parse that only
// appends to what it keeps), and over-counts the garbage a phase makes and
// drops (the old arrays of a growing slice). Everything is reported
// relative to the live heap at [Start], so what the caller already held
// (the input) is not counted. Goroutine stacks are not heap and are not
// counted.
//
// The counts are process-wide: run a Meter with nothing else running (a
// benchmark or a test that is not parallel). A Meter's own calls allocate
// a few hundred bytes, which are counted.
package heapmeter

import (
	"runtime"
	"runtime/metrics"
)

// Phase is the bound of one phase of a run.
type Phase struct {
	Name string
	// Alloc is the bytes allocated during the phase.
	Alloc uint64
	// Peak bounds the live heap during the phase, above the live heap at
	// Start: the live heap at the phase's start (above Start's) plus
	// Alloc.
	Peak uint64
	// Live is the live heap at the phase's end, above Start's (0 when it
	// is below).
	Live uint64
}

// Meter measures one run; see the package documentation.
type Meter struct {
	samples [2]metrics.Sample
	base    uint64 // live heap at Start
	live    uint64 // live heap at the last boundary, above base
	allocs  uint64 // cumulative allocated bytes at the last boundary
	phases  []Phase
}

// Start collects garbage and starts a run at the live heap it leaves.
func Start() *Meter {
	m := &Meter{phases: make([]Phase, 0, 8)}
	m.samples[0].Name = "/gc/heap/allocs:bytes"
	m.samples[1].Name = "/gc/heap/live:bytes"
	allocs, live := m.read()
	m.base, m.allocs = live, allocs
	return m
}

// read collects garbage, and returns the cumulative allocated bytes and
// the live heap it leaves. (The runtime counts the small objects of a span
// when the span leaves a P's cache, as every cached span does in a
// collection: a count read before one would miss some.)
func (m *Meter) read() (allocs, live uint64) {
	runtime.GC()
	metrics.Read(m.samples[:])
	return m.samples[0].Value.Uint64(), m.samples[1].Value.Uint64()
}

// Mark ends the phase in progress, naming it, and begins the next one.
func (m *Meter) Mark(name string) {
	allocs, live := m.read()
	p := Phase{Name: name, Alloc: allocs - m.allocs}
	p.Peak = m.live + p.Alloc
	if live > m.base {
		p.Live = live - m.base
	}
	m.phases = append(m.phases, p)
	m.live, m.allocs = p.Live, allocs
}

// Phases returns the phases marked so far, in order.
func (m *Meter) Phases() []Phase { return m.phases }

// Peak returns the bound on the peak live heap of the run so far, above
// the live heap at Start: the largest phase peak.
func (m *Meter) Peak() uint64 {
	var peak uint64
	for _, p := range m.phases {
		peak = max(peak, p.Peak)
	}
	return peak
}
