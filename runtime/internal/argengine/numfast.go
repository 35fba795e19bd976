package argengine

import "strconv"

// Number conversions of ordinary literals (10, 0.25, 1024) without
// strconv; any other literal goes to strconv, so the results are strconv's
// either way (TestNumFastAgreesWithStrconv, FuzzNumFast).

// pow10f are the powers of ten that float64 holds exactly.
var pow10f = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFloatLiteral is strconv.ParseFloat(lit, 64) for a literal of the
// JSON number grammar. A literal of at most 15 digits and no exponent is
// converted with one correctly rounded operation on exact operands (the
// mantissa and a power of ten up to 1e22), which is the correctly rounded
// value, as strconv's own exact path computes it.
func parseFloatLiteral(lit string) (float64, error) {
	s, neg := lit, false
	if s != "" && s[0] == '-' {
		s, neg = s[1:], true
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default: // an exponent
			return strconv.ParseFloat(lit, 64)
		}
	}
	if digits == 0 || digits > 15 {
		return strconv.ParseFloat(lit, 64)
	}
	f := float64(mant)
	if frac > 0 {
		f /= pow10f[frac]
	}
	if neg {
		f = -f
	}
	return f, nil
}

// parseIntLiteral is strconv.ParseInt(s, 10, 64) (ok) for s of at most 18
// digits, an optional minus and nothing else; ok is false for anything else.
func parseIntLiteral(s string) (int64, bool) {
	neg := false
	if s != "" && s[0] == '-' {
		s, neg = s[1:], true
	}
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// appendUint64 is strconv.AppendUint(dst, u, 10).
func appendUint64(dst []byte, u uint64) []byte {
	var buf [20]byte
	i := len(buf)
	for u >= 10 {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
	}
	i--
	buf[i] = byte('0' + u)
	return append(dst, buf[i:]...)
}

// appendInt64 is strconv.AppendInt(dst, v, 10).
func appendInt64(dst []byte, v int64) []byte {
	if v < 0 {
		return appendUint64(append(dst, '-'), uint64(-v)) // -MinInt64 wraps to its magnitude
	}
	return appendUint64(dst, uint64(v))
}

// canonicalFloatLiteral reports whether json.Marshal writes the float64 that
// lit denotes as lit itself: no exponent, no leading zero but a lone one
// before the point, no trailing zero in a fraction, at most 15 significant
// digits, and a magnitude (zero or at least 1e-6, below 1e21) that
// encoding/json writes without an exponent. A decimal of at most 15
// significant digits is the only one of at most 15 that rounds to its
// float64, so it is the shortest decimal that does, which is what strconv
// writes.
func canonicalFloatLiteral(lit string) bool {
	s := lit
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	if s == "" || s[0] == '0' && len(s) > 1 && s[1] != '.' {
		return false
	}
	first, last, n, dot, zerosAfterDot := -1, -1, 0, -1, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			if dot >= 0 {
				return false
			}
			dot = i
			continue
		case c < '0' || c > '9':
			return false // an exponent
		}
		if c != '0' {
			if first < 0 {
				first = n
				if dot >= 0 {
					zerosAfterDot = i - dot - 1
				}
			}
			last = n
		}
		n++
	}
	switch {
	case dot == len(s)-1:
		return false // "1." is not JSON; be safe
	case dot >= 0 && s[len(s)-1] == '0':
		return false // a trailing zero in the fraction
	case first < 0:
		return dot < 0 // 0 and -0, not 0.0
	case last-first+1 > 15:
		return false
	case dot < 0 && n > 21, dot > 21:
		return false // 1e21 and above: an exponent
	case s[0] == '0' && zerosAfterDot > 5:
		return false // below 1e-6: an exponent
	}
	return true
}
