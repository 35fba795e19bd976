package argengine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkSameAsTape holds sameAsTape, which reads b once against the tape of
// a, to the comparison it replaced: b parsed into a tape of its own (refused
// if the parser refuses it) and compared with tapeDiff. It does so with the
// parse's index of a's largest object hashed, and again in name order
// (keyIndex.byName, as a map's re-encoding leaves it).
func checkSameAsTape(t *testing.T, a, b string) {
	ta := getTape()
	defer putTape(ta)
	if ta.parse(a) != nil {
		return
	}
	got := sameAsTape(ta, []byte(b)) == nil
	tb := getTape()
	defer putTape(tb)
	want := tb.parse(b) == nil && tapeDiff(ta, 0, tb, 0) < 0
	if got != want {
		t.Fatalf("%.200q against %.200q: sameAsTape says equal=%v, a second parse %v", b, a, got, want)
	}
	if ta.indexed > 0 {
		ta.index.byName(ta)
		if got := sameAsTape(ta, []byte(b)) == nil; got != want {
			t.Fatalf("%.200q against %.200q, index in name order: sameAsTape says equal=%v, a second parse %v", b, a, got, want)
		}
	}
}

// wideObject is an object of n members k0…k(n-1), in an order of r's, or
// with r nil in name order.
func wideObject(r *rand.Rand, n int, value func(k int) string) string {
	var ks []int
	if r != nil {
		ks = r.Perm(n)
	} else {
		names := make([]string, n)
		for k := range names {
			names[k] = fmt.Sprint(k)
		}
		slices.Sort(names)
		for _, name := range names {
			k, _ := strconv.Atoi(name)
			ks = append(ks, k)
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range ks {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%d":%s`, k, value(k))
	}
	b.WriteByte('}')
	return b.String()
}

func TestSameAsTape(t *testing.T) {
	pairs := [][2]string{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`}, {`{"a":1.0}`, `{"a":1}`}, {`{"a":1e2}`, `{"a":100}`},
		{`{"a":0.10000000000000000000001}`, `{"a":0.1}`}, {`{"a":1}`, `{"A":1}`}, {`{"a":1}`, `{"a":1,"b":2}`},
		{`{"a":1,"b":2}`, `{"a":1}`}, {`{"a":1,"b":2}`, `{"a":1,"a":1}`}, {`{"a":1}`, `{"a":1,"a":1}`},
		{`[1,2]`, `[2,1]`}, {`[1,2]`, `[1,2,3]`}, {`[1,2,3]`, `[1,2]`}, {`"\u003c"`, `"<"`}, {`"<"`, `"\u003c"`},
		{`"é"`, `"\u00e9"`}, {`"😀"`, `"\ud83d\ude00"`}, {`"\ud83d\ude00"`, `"\ud83d"`}, {`"a"`, `"a\ud800"`},
		{`null`, `false`}, {`{}`, `{} `}, {`{}`, `{}x`}, {`[]`, ` [ ] `}, {`{"a":[]}`, `{"a":{}}`},
		{`{"a":"x"}`, `{"a":"x`}, {`{"a":1}`, `{"a":1e400}`}, {`{"a":1}`, `{"a":1e1001}`}, {`{"a":1}`, `{"a":` + strings.Repeat("1", 129) + `}`},
		{`{"\u0061":1}`, `{"a":1}`}, {`{"a\"":1}`, `{"a\u0022":1}`}, {`{"x":[{"y":null}]}`, `{"x":[{"y":false}]}`},
		{`[` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `]`, `[` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `]`},
		{`{"a":1}`, `{"a":` + strings.Repeat("[", MaxArgsDepth+2) + strings.Repeat("]", MaxArgsDepth+2) + `}`},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{3, 17, 64, 65, 300} {
		one := func(int) string { return "1" }
		a := wideObject(r, n, one)
		pairs = append(pairs, [2]string{a, wideObject(r, n, one)}, // reordered
			[2]string{a, wideObject(nil, n, one)},                                                // in name order
			[2]string{a, strings.Replace(wideObject(nil, n, one), `"k1":1`, `"k2":1`, 1)},        // in name order, a key twice
			[2]string{a, strings.Replace(wideObject(nil, n, one), `"k1":1`, `"k1":1,"k1":1`, 1)}, // in name order, a key twice in a row
			[2]string{a, strings.Replace(wideObject(nil, n, one), `"k1":1,`, ``, 1) + ``},        // in name order, one missing
			[2]string{a, wideObject(r, n+1, one)},                                                // one more
			[2]string{a, wideObject(r, n-1, one)},                                                // one fewer
			[2]string{a, wideObject(r, n, func(k int) string { // one value differs
				if k == n/2 {
					return "2"
				}
				return "1"
			})},
			[2]string{a, strings.Replace(wideObject(r, n, one), `"k1":1`, `"k2":1`, 1)}) // a key twice, one missing
	}
	for _, p := range pairs {
		checkSameAsTape(t, p[0], p[1])
	}
}

func FuzzSameAsTape(f *testing.F) {
	for _, s := range tapeSeeds {
		f.Add(s, s)
	}
	f.Add(`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`)
	f.Add(`{"a":1}`, `{"a":1,"a":1}`)
	f.Add(`"<"`, `"\u003c"`)
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 1<<16 || len(b) > 1<<16 {
			return
		}
		checkSameAsTape(t, a, b)
	})
}

// Member finds a member of an object as it is written, by its decoded name.
func TestMember(t *testing.T) {
	obj := ` { "a" : 1 , "b":{"a":[2,"}"]}, "\u0063":"x\"y" ,"":null} `
	for _, tc := range []struct {
		name, want string
		ok         bool
	}{
		{"a", "1", true}, {"b", `{"a":[2,"}"]}`, true}, {"c", `"x\"y"`, true}, {"", "null", true}, {"d", "", false},
	} {
		got, ok := Member([]byte(obj), tc.name)
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("%q: %q %v, want %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	for _, bad := range []string{``, `[]`, `{}`, `{"a"}`, `{"a":}`, `{"b":1,`, `"a"`, `{"b":[}, "a":1}`} {
		if got, ok := Member([]byte(bad), "a"); ok {
			t.Errorf("%q: %q", bad, got)
		}
	}
}
