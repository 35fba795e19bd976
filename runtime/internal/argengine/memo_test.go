package argengine

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// memoSet remembers what was put, and only that, for every memo node and
// instance node: before and after a memo node gets its own table (at
// 1/memoDenseShare of the tape's nodes), on small tapes and large.
func TestMemoSetRemembers(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, nodes := range []int{1, 31, 33, 255, 1000, 70000} {
		for _, memos := range []int{1, 3} {
			var m memoSet
			want := map[[2]int]bool{}
			puts := 3 * nodes / 2 // some nodes twice
			for range puts {
				id, i := r.IntN(memos), r.IntN(nodes)
				if id == memos-1 && memos > 1 {
					i = r.IntN(min(nodes, 40)) // one memo node stays in the shared table
				}
				k := [2]int{id, i}
				ok, hit := m.get(int32(id), i)
				if v, known := want[k]; hit != known || hit && ok != v {
					t.Fatalf("%d nodes: get(%d, %d) = %v, %v; want %v, %v", nodes, id, i, ok, hit, v, known)
				}
				if hit {
					continue
				}
				v := r.IntN(2) == 0
				m.put(int32(id), i, v, memos, nodes)
				want[k] = v
			}
			for id := range memos {
				for i := range nodes {
					ok, hit := m.get(int32(id), i)
					if v, known := want[[2]int{id, i}]; hit != known || hit && ok != v {
						t.Fatalf("%d nodes, %d memos: get(%d, %d) = %v, %v; want %v, %v", nodes, memos, id, i, ok, hit, v, known)
					}
				}
			}
			if nodes >= memoDenseShare && m.dense[0] == nil {
				t.Errorf("%d nodes: memo node 0, put at most nodes, has no table of its own", nodes)
			}
		}
	}
}

// The memo of a subschema shared by items and contains (the worst case of
// BenchmarkArgsHeap, shared-ref) costs a validation at most about 3 bits a
// tape node, not a table slot of its own per node.
func TestMemoMemoryIsBounded(t *testing.T) {
	sc, err := compileSchemaJSON([]byte(`{"type":"array","$defs":{"n":{"type":"integer","minimum":0}},"items":{"$ref":"#/$defs/n"},"contains":{"$ref":"#/$defs/n"}}`))
	if err != nil {
		t.Fatal(err)
	}
	const n = 100000
	tp := getTape()
	defer putTape(tp)
	if err := tp.parse("[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]"); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ok, _ := sc.run(tp, 0)
	runtime.ReadMemStats(&after)
	if !ok {
		t.Fatal("refused")
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > n/2+4096 {
		t.Errorf("validating %d items allocated %d bytes (%.1f a node), beyond 4 bits a node", n, a, float64(a)/n)
	}
}
