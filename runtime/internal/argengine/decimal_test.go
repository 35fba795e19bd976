package argengine

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The exact decimal arithmetic is held to math/big's on every literal the
// tape accepts: comparison, integer-ness, integer form and multipleOf.

func ratOf(t testing.TB, lit string) *big.Rat {
	r, ok := new(big.Rat).SetString(lit)
	if !ok {
		t.Fatalf("big.Rat refuses %q", lit)
	}
	return r
}

// agreeDecimal checks the decimal operations on a and b against big.Rat.
func agreeDecimal(t testing.TB, a, b string) {
	t.Helper()
	da, oka := parseDecimal(a)
	db, okb := parseDecimal(b)
	if !oka || !okb {
		return
	}
	ra, rb := ratOf(t, a), ratOf(t, b)
	if got, want := cmpDecimal(&da, &db), ra.Cmp(rb); got != want {
		t.Fatalf("cmp(%s, %s) = %d, big.Rat says %d", a, b, got, want)
	}
	if got, want := da.isInteger(), ra.IsInt(); got != want {
		t.Fatalf("isInteger(%s) = %v, big.Rat says %v", a, got, want)
	}
	if s, ok := da.integerText(); ok {
		if !ra.IsInt() || ratOf(t, s).Cmp(ra) != 0 || strings.ContainsAny(s, ".eE") {
			t.Fatalf("integerText(%s) = %s", a, s)
		}
	} else if ra.IsInt() && len(ra.Num().String()) <= 19 {
		t.Fatalf("integerText(%s) refused an integer", a)
	}
	if rb.Sign() > 0 {
		q := new(big.Rat).Quo(ra, rb)
		if got, want := multipleOf(&da, &db), q.IsInt(); got != want {
			t.Fatalf("multipleOf(%s, %s) = %v, big.Rat says %v", a, b, got, want)
		}
	}
}

// randomLiteral makes a JSON number literal with leading and trailing zeros,
// fractions and exponents.
func randomLiteral(r *rand.Rand) string {
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte("0000123456789"[r.IntN(13)])
		}
		return b.String()
	}
	var b strings.Builder
	if r.IntN(3) == 0 {
		b.WriteByte('-')
	}
	if r.IntN(3) == 0 {
		b.WriteByte('0')
	} else {
		b.WriteByte("123456789"[r.IntN(9)])
		b.WriteString(digits(r.IntN(25)))
	}
	if r.IntN(2) == 0 {
		b.WriteByte('.')
		b.WriteString(digits(1 + r.IntN(25)))
	}
	if r.IntN(2) == 0 {
		b.WriteString([]string{"e", "E", "e+", "e-", "E-"}[r.IntN(5)])
		b.WriteString(strconv.Itoa(r.IntN(40)))
	}
	return b.String()
}

func TestDecimalAgreesWithBigRat(t *testing.T) {
	fixed := []string{"0", "-0", "0.0", "-0.0e5", "1", "1.0", "1e2", "100", "0.07", "0.01", "1.15",
		"9007199254740992", "9007199254740993", "2", "3", "0.5", "1e-3", "0.001", "10.50", "1.05e1",
		"12345678901234567890", "1.8446744073709551615e19", "5e-324", "1e308", "0.3", "0.29999999999999998"}
	for _, a := range fixed {
		for _, b := range fixed {
			agreeDecimal(t, a, b)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		agreeDecimal(t, randomLiteral(r), randomLiteral(r))
	}
}

func TestDecimalExponentBound(t *testing.T) {
	for _, s := range []string{"1e1001", "1e-1001", "1e00000000000000000005", "1e99999999999999999999"} {
		d, ok := parseDecimal(s)
		if want := strings.HasSuffix(s, "05"); ok != want {
			t.Errorf("parseDecimal(%s) ok = %v (%+v)", s, ok, d)
		}
	}
}

func FuzzDecimal(f *testing.F) {
	f.Add("0.07", "0.01")
	f.Add("9007199254740993", "2")
	f.Add("-1.50e1", "5e-1")
	f.Fuzz(func(t *testing.T, a, b string) {
		var ta, tb tape
		if ta.parse(a) != nil || tb.parse(b) != nil || ta.kind(0) != tNumber || tb.kind(0) != tNumber {
			return
		}
		agreeDecimal(t, ta.str(0), tb.str(0))
	})
}
