package argengine

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Exact decimal arithmetic on JSON number literals, for the numeric
// keywords (minimum, maximum, exclusive*, multipleOf, the integer type) and
// for the equality of the arguments received with the arguments forwarded.
//
// A literal is read as sign × 0.d₁d₂…dₙ × 10^exp, where d₁…dₙ are its
// significant digits (no leading or trailing zero). Comparing two such
// values is a comparison of signs, exponents and then digits: linear in the
// digits, whatever the exponent. multipleOf works on the digits too (see
// multipleOf), so no step costs more than the literal's length, which the
// tape bounds (MaxNumberLen, MaxNumberExp).

// MaxNumberLen is the longest number literal the gate accepts, in bytes. A
// float64 prints in at most 24 bytes and an int64 in 20; an exact decimal
// expansion of a double with some care still fits. Longer literals are
// refused as invalid (docs/security-model.md).
const MaxNumberLen = 128

// MaxNumberExp bounds the magnitude of a literal's exponent part. Anything
// beyond is far outside float64's range (about 1e±308) either way.
const MaxNumberExp = 1000

var (
	errNumberLong = errors.New("arguments hold a number literal longer than " + strconv.Itoa(MaxNumberLen) + " bytes")
	errNumberExp  = errors.New("arguments hold a number whose exponent exceeds ±" + strconv.Itoa(MaxNumberExp))
)

// decimal is a number literal in the form above. The significant digits
// are the concatenation of hi and lo, two substrings of the literal (its
// integer and fraction digits, trimmed).
type decimal struct {
	neg    bool
	hi, lo string
	exp    int // value = ±0.(hi lo) × 10^exp; a zero has no digits
}

func (d *decimal) digits() int { return len(d.hi) + len(d.lo) }

func (d *decimal) digit(k int) byte {
	if k < len(d.hi) {
		return d.hi[k]
	}
	return d.lo[k-len(d.hi)]
}

func (d *decimal) zero() bool { return d.digits() == 0 }

// parseDecimal reads a literal that matches the JSON number grammar. It
// returns false only for an exponent beyond MaxNumberExp.
func parseDecimal(s string) (decimal, bool) { return parseDecimalLim(s, MaxNumberExp) }

// maxSchemaExp bounds the exponent of a schema's number literal: the
// schema is the server's, not the caller's, and every operation on
// decimals is linear in the digits whatever the exponent (see multipleOf).
const maxSchemaExp = 99_999_999

// parseSchemaDecimal reads a number literal of a schema (json.Number,
// which matches the JSON number grammar).
func parseSchemaDecimal(s string) (decimal, bool) { return parseDecimalLim(s, maxSchemaExp) }

func parseDecimalLim(s string, lim int) (decimal, bool) {
	var d decimal
	if s != "" && s[0] == '-' {
		d.neg, s = true, s[1:]
	}
	end, dot := -1, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			dot = i
		case 'e', 'E':
			end = i
		}
		if end >= 0 {
			break
		}
	}
	e := 0
	if end >= 0 {
		es := s[end+1:]
		eneg := false
		if es != "" && (es[0] == '+' || es[0] == '-') {
			eneg, es = es[0] == '-', es[1:]
		}
		es = strings.TrimLeft(es, "0")
		if len(es) > 8 {
			return d, false
		}
		for i := 0; i < len(es); i++ {
			e = e*10 + int(es[i]-'0')
		}
		if e > lim {
			return d, false
		}
		if eneg {
			e = -e
		}
		s = s[:end]
	}
	intPart, frac := s, ""
	if dot >= 0 {
		intPart, frac = s[:dot], s[dot+1:]
	}
	// value = 0.(intPart frac) × 10^(len(intPart)+e)
	exp := len(intPart) + e
	// Strip leading zeros, across the point.
	t := strings.TrimLeft(intPart, "0")
	exp -= len(intPart) - len(t)
	intPart = t
	if intPart == "" {
		t = strings.TrimLeft(frac, "0")
		exp -= len(frac) - len(t)
		frac = t
	}
	// Strip trailing zeros.
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		intPart = strings.TrimRight(intPart, "0")
	}
	d.hi, d.lo, d.exp = intPart, frac, exp
	if d.zero() {
		d.exp = 0
		d.neg = false // -0 equals 0
	}
	return d, true
}

// cmpDecimal returns -1, 0 or +1 as a < b, a == b, a > b.
func cmpDecimal(a, b *decimal) int {
	switch {
	case a.zero() && b.zero():
		return 0
	case a.zero():
		if b.neg {
			return 1
		}
		return -1
	case b.zero():
		if a.neg {
			return -1
		}
		return 1
	case a.neg != b.neg:
		if a.neg {
			return -1
		}
		return 1
	}
	r := cmpMagnitude(a, b)
	if a.neg {
		r = -r
	}
	return r
}

// cmpMagnitude compares |a| and |b|, both non-zero.
func cmpMagnitude(a, b *decimal) int {
	if a.exp != b.exp {
		if a.exp < b.exp {
			return -1
		}
		return 1
	}
	na, nb := a.digits(), b.digits()
	for k := 0; k < na && k < nb; k++ {
		if x, y := a.digit(k), b.digit(k); x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case na < nb:
		return -1
	case na > nb:
		return 1
	}
	return 0
}

// isInteger reports whether d has no fractional part.
func (d *decimal) isInteger() bool { return d.zero() || d.exp >= d.digits() }

// integerText is d written as an integer literal without fraction or
// exponent, when d is an integer of at most 20 digits (the size of a uint64):
// the form a typed decode into int64 or uint64 accepts.
func (d *decimal) integerText() (string, bool) {
	ps, ok := d.integerParts()
	return ps[0] + ps[1] + ps[2] + ps[3], ok
}

// integerParts is integerText in parts, which make it when joined: its
// sign, its digits (two parts) and its trailing zeros; it allocates
// nothing.
func (d *decimal) integerParts() (ps [4]string, ok bool) {
	if !d.isInteger() || d.exp > 20 {
		return ps, false
	}
	if d.zero() {
		ps[0] = "0"
		return ps, true
	}
	if d.neg {
		ps[0] = "-"
	}
	ps[1], ps[2], ps[3] = d.hi, d.lo, zeros[:d.exp-d.digits()]
	return ps, true
}

// zeros are more zeros than integerParts writes after an integer's digits.
const zeros = "00000000000000000000"

// magnitude returns |d| when integerText writes d (an integer of at most
// 20 digits) and a uint64 holds it: integerText's value, without writing
// it.
func (d *decimal) magnitude() (uint64, bool) {
	if !d.isInteger() || d.exp > 20 {
		return 0, false
	}
	if d.zero() {
		return 0, true
	}
	var m uint64
	for k := range d.exp {
		c := uint64(0)
		if k < d.digits() {
			c = uint64(d.digit(k) - '0')
		}
		if m > (math.MaxUint64-c)/10 {
			return 0, false
		}
		m = m*10 + c
	}
	return m, true
}

// mantissa returns the significant digits as an integer.
func (d *decimal) mantissa() *big.Int {
	m, _ := new(big.Int).SetString(d.hi+d.lo, 10)
	return m
}

// multipleOf reports whether x is an integer multiple of m (m > 0).
//
// With x = X × 10^p and m = M × 10^q (X, M the digit strings as integers),
// x/m = (X/M) × 10^(p-q). For k = p-q ≥ 0 that is an integer iff M divides
// X × 10^k; once k exceeds the number of factors 2 or 5 in M (at most
// 4 × digits(M)) more zeros change nothing, so k is capped there. For k < 0
// it is an integer iff M × 10^-k divides X, impossible when 10^-k alone
// exceeds X. Either way the integers involved have O(digits(x)+digits(m))
// digits.
func multipleOf(x, m *decimal) bool {
	if x.zero() {
		return true
	}
	if m.zero() {
		return false // schemas require multipleOf > 0
	}
	k := (x.exp - x.digits()) - (m.exp - m.digits())
	if k >= 0 {
		if c := 4 * m.digits(); k > c {
			k = c
		}
	} else if -k > x.digits() {
		return false // 10^-k alone exceeds X
	}
	if x.digits() <= 18 && m.digits() <= 18 {
		return multipleOfSmall(x.small(), m.small(), k)
	}
	X, M := x.mantissa(), m.mantissa()
	ten := big.NewInt(10)
	if k >= 0 {
		X.Mul(X, new(big.Int).Exp(ten, big.NewInt(int64(k)), nil))
	} else {
		M.Mul(M, new(big.Int).Exp(ten, big.NewInt(int64(-k)), nil))
	}
	return new(big.Int).Rem(X, M).Sign() == 0
}

// small returns the significant digits as an integer; at most 18 digits.
func (d *decimal) small() uint64 {
	var v uint64
	for k := range d.digits() {
		v = v*10 + uint64(d.digit(k)-'0')
	}
	return v
}

// multipleOfSmall is multipleOf for mantissas X, M < 10^18: whether M
// divides X × 10^k.
func multipleOfSmall(X, M uint64, k int) bool {
	if k >= 0 {
		r := X % M
		for range k {
			r = r * 10 % M // r < M < 10^18: no overflow
		}
		return r == 0
	}
	for range -k {
		if M > X/10 {
			return false // M × 10^-k > X > 0
		}
		M *= 10
	}
	return X%M == 0
}

// literalsEqual reports whether two number literals (within the tape's
// bounds) are the same number.
func literalsEqual(a, b string) bool {
	if a == b {
		return true
	}
	da, oka := parseDecimal(a)
	db, okb := parseDecimal(b)
	return oka && okb && cmpDecimal(&da, &db) == 0
}
