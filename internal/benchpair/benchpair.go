// Package benchpair measures two calls against each other in one
// benchmark loop, for the benchmarks of runtime/ocp and runtime/ocpotel.
//
// The machine the benchmarks run on is noisy (few CPUs, shared with other
// jobs), so a benchmark that runs a variant for a second and then its
// baseline for a second mostly measures the load in between. [Run] instead
// alternates the baseline (a) and the variant (b) call by call: load then
// falls on both alike, and their ratio is the figure to quote.
package benchpair

import (
	"slices"
	"testing"
	"time"
)

// Run calls a and b once each, then alternately, one call each per
// iteration of bb's loop, and reports each one's mean (a-ns/op, b-ns/op)
// and their ratio (b/a), and each one's median (med-a-ns/op, med-b-ns/op)
// and the ratio of the medians (med-b/a). A GC cycle or another job's burst
// lands on a few calls of either side and moves the means by several
// percent from run to run; the medians are the typical call.
func Run(bb *testing.B, a, b func()) { Between(bb, a, nil, b) }

// Between is [Run] with between, unless nil, called after each call of a
// and before the call of b, untimed: what it costs the call after it.
func Between(bb *testing.B, a, between, b func()) {
	a()
	b()
	var ta, tb time.Duration
	da, db := make([]time.Duration, 0, 1<<14), make([]time.Duration, 0, 1<<14)
	for bb.Loop() {
		t0 := time.Now()
		a()
		t1 := time.Now()
		t2 := t1
		if between != nil {
			between()
			t2 = time.Now()
		}
		b()
		t3 := time.Now()
		ta += t1.Sub(t0)
		tb += t3.Sub(t2)
		da, db = append(da, t1.Sub(t0)), append(db, t3.Sub(t2))
	}
	n := len(da)
	bb.ReportMetric(float64(ta)/float64(n), "a-ns/op")
	bb.ReportMetric(float64(tb)/float64(n), "b-ns/op")
	bb.ReportMetric(float64(tb)/float64(ta), "b/a")
	ma, mb := Median(da), Median(db)
	bb.ReportMetric(float64(ma), "med-a-ns/op")
	bb.ReportMetric(float64(mb), "med-b-ns/op")
	bb.ReportMetric(float64(mb)/float64(ma), "med-b/a")
}

// Median returns the median of d, which it sorts. d must not be empty.
func Median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
