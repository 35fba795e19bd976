package argengine

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// genLiteral returns a random literal of the JSON number grammar.
func genLiteral(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(3) == 0 {
		b.WriteByte('-')
	}
	digits := func(n int, lead bool) {
		for k := range n {
			c := byte('0' + r.IntN(10))
			if k == 0 && lead && c == '0' {
				c = '1' + byte(r.IntN(9))
			}
			b.WriteByte(c)
		}
	}
	if r.IntN(4) == 0 {
		b.WriteByte('0')
	} else {
		digits(1+r.IntN(22), true)
	}
	if r.IntN(2) == 0 {
		b.WriteByte('.')
		if r.IntN(3) == 0 {
			b.WriteString(strings.Repeat("0", r.IntN(8)))
		}
		digits(1+r.IntN(18), false)
	}
	if r.IntN(5) == 0 {
		b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[r.IntN(5)])
		digits(1+r.IntN(3), false)
	}
	return b.String()
}

func checkNumFast(t *testing.T, lit string) bool {
	want, werr := strconv.ParseFloat(lit, 64)
	got, gerr := parseFloatLiteral(lit)
	if (werr == nil) != (gerr == nil) || werr == nil && math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("parseFloatLiteral(%q) = %v, %v; strconv: %v, %v", lit, got, gerr, want, werr)
	}
	if k, ok := parseIntLiteral(lit); ok {
		if w, err := strconv.ParseInt(lit, 10, 64); err != nil || w != k {
			t.Fatalf("parseIntLiteral(%q) = %d; strconv: %d, %v", lit, k, w, err)
		}
	}
	if canonicalFloatLiteral(lit) {
		if werr != nil {
			t.Fatalf("%q is canonical and out of range", lit)
		}
		if out := string(appendJSONFloat(nil, want, 64)); out != lit {
			t.Fatalf("%q is canonical, but json.Marshal writes %s", lit, out)
		}
		return true
	}
	return false
}

func TestNumFastAgreesWithStrconv(t *testing.T) {
	for _, lit := range []string{"0.25", "10", "-0", "0", "123456789012345", "0.000001", "99999999999999900000", "0.1", "-7.5", "100"} {
		if !checkNumFast(t, lit) {
			t.Errorf("%q is not canonical", lit)
		}
	}
	for _, lit := range []string{"0.10", "1e2", "1.0", "0.0", "-0.0", "0.0000001", "1234567890123456", "1000000000000000000000", "1.5E3", "12345678901234.56"} {
		if checkNumFast(t, lit) {
			t.Errorf("%q is canonical", lit)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	canonical := 0
	for range 200000 {
		if checkNumFast(t, genLiteral(r)) {
			canonical++
		}
	}
	if canonical < 20000 {
		t.Errorf("only %d of 200000 literals canonical: the test checks little", canonical)
	}
	for _, v := range []int64{0, 1, -1, 9, 10, -10, math.MaxInt64, math.MinInt64, 1e18, -1e18} {
		if got, want := string(appendInt64(nil, v)), strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt64(%d) = %s", v, got)
		}
	}
	for range 100000 {
		v := int64(r.Uint64()) >> r.IntN(64)
		if got, want := string(appendInt64(nil, v)), strconv.FormatInt(v, 10); got != want {
			t.Fatalf("appendInt64(%d) = %s", v, got)
		}
		u := r.Uint64() >> r.IntN(64)
		if got, want := string(appendUint64(nil, u)), strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendUint64(%d) = %s", u, got)
		}
	}
	if got := string(appendUint64(nil, math.MaxUint64)); got != "18446744073709551615" {
		t.Errorf("appendUint64(max) = %s", got)
	}
}

func FuzzNumFast(f *testing.F) {
	for _, s := range []string{"0.25", "10", "-0", "1e2", "0.000001", "123456789012345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		tp := getTape()
		defer putTape(tp)
		if tp.parse(lit) != nil || tp.kind(0) != tNumber || len(lit) > MaxNumberLen {
			return
		}
		checkNumFast(t, lit)
	})
}
