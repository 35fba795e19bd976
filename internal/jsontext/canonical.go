package jsontext

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendCanonical appends the canonical JSON of the valid JSON value raw
// (ocpimpl.CanonicalJSON's): object keys sorted (a repeated key keeps its
// last value), no insignificant white space, strings written as
// encoding/json writes them without HTML escaping, numbers as
// [CanonicalNumber] writes them. It makes it in one pass over the bytes,
// not by decoding into maps and encoding them: TestCanonicalJSONMatchesRef
// and FuzzCanonicalJSON (runtime/ocpimpl) compare it, through
// ocpimpl.CanonicalJSON and SchemaFingerprint, with that encoding/json
// implementation.
//
// float64s reports that every number was written as encoding/json writes
// the float64 it decodes to: then [AppendFloat64Canonical] of the result
// is the result itself.
func AppendCanonical(dst, raw []byte) (out []byte, float64s bool) {
	w := canonWriter{float64s: true}
	dst, _ = w.value(dst, raw, SkipSpace(raw, 0))
	return dst, w.float64s
}

// AppendFloat64Canonical is [AppendCanonical] with every number written as
// encoding/json writes the float64 it decodes to (ocpimpl.SchemaFingerprint's
// form: what a client that decodes JSON into float64s sees). bad is the
// first number, in raw's order, that a float64 cannot hold (encoding/json
// refuses it), nil if none; end is the offset just past it.
func AppendFloat64Canonical(dst, raw []byte) (out, bad []byte, end int) {
	w := canonWriter{toFloat: true}
	dst, _ = w.value(dst, raw, SkipSpace(raw, 0))
	return dst, w.bad, w.badEnd
}

// AppendCanonicalObject is [AppendCanonical] of the valid JSON object raw,
// except that member writes the value of each of its members that it
// chooses to (ok true): member appends it to dst, canonical, given the
// member's key (decoded).
func AppendCanonicalObject(dst, raw []byte, member func(dst, key []byte) ([]byte, bool)) []byte {
	w := canonWriter{float64s: true, member: member}
	dst, _ = w.object(dst, raw, SkipSpace(raw, 0))
	return dst
}

// canonWriter writes canonical JSON in one pass: each object's members are
// written in the file's order, then, unless their keys were already
// strictly increasing, put in order again from a copy.
type canonWriter struct {
	segs []canonSeg // the members of the objects being written
	tmp  []byte     // scratch for reordering one object's members
	buf  []byte     // scratch for unquoting

	// toFloat writes numbers as their float64s; bad and badEnd are then
	// the first number a float64 cannot hold and the offset past it.
	toFloat bool
	bad     []byte
	badEnd  int
	// float64s is cleared by the first number written exactly that a
	// float64 does not hold as written.
	float64s bool
	// member, if set, writes the values of the outermost object's members
	// it chooses to.
	member func(dst, key []byte) ([]byte, bool)
}

// canonSeg is one member written at dst[from:to] (its key, a colon and
// its value; no comma).
type canonSeg struct {
	key      []byte // decoded
	from, to int
}

// value appends the canonical form of the value at raw[i] (valid JSON, no
// space before it) and returns the index just past it.
func (w *canonWriter) value(dst, raw []byte, i int) ([]byte, int) {
	if i >= len(raw) {
		return dst, i
	}
	switch c := raw[i]; {
	case c == '{':
		return w.object(dst, raw, i)
	case c == '[':
		dst = append(dst, '[')
		i = SkipSpace(raw, i+1)
		for n := 0; i < len(raw) && raw[i] != ']'; n++ {
			if raw[i] == ',' {
				i = SkipSpace(raw, i+1)
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			dst, i = w.value(dst, raw, i)
			i = SkipSpace(raw, i)
		}
		return append(dst, ']'), i + 1
	case c == '"':
		end := SkipString(raw, i)
		q := raw[i:end]
		if plainString(q) {
			return append(dst, q...), end
		}
		return AppendString(dst, w.decode(q), false), end
	case c == '-' || '0' <= c && c <= '9':
		end := SkipValue(raw, i)
		return w.number(dst, raw[i:end], end), end
	}
	// true, false, null
	end := SkipValue(raw, i)
	return append(dst, raw[i:end]...), end
}

// number appends the number literal lit, which ends at raw offset end.
func (w *canonWriter) number(dst, lit []byte, end int) []byte {
	if IsPlainInteger(lit) {
		return append(dst, lit...)
	}
	if !w.toFloat {
		s, float := canonicalNumber(string(lit))
		w.float64s = w.float64s && float
		return append(dst, s...)
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		if w.bad == nil {
			w.bad, w.badEnd = lit, end
		}
		return append(dst, lit...)
	}
	b, _ := json.Marshal(f) // a float64 ParseFloat returns is finite
	return append(dst, b...)
}

// object is value for the object at raw[i].
func (w *canonWriter) object(dst, raw []byte, i int) ([]byte, int) {
	member := w.member
	w.member = nil // only for the outermost object
	open := len(dst)
	dst = append(dst, '{')
	base := len(w.segs)
	ordered := true
	i = SkipSpace(raw, i+1)
	for i < len(raw) && raw[i] != '}' {
		if raw[i] == ',' {
			i = SkipSpace(raw, i+1)
		}
		end := SkipString(raw, i)
		q := raw[i:end]
		var key []byte
		if plainString(q) {
			key = q[1 : len(q)-1]
		} else {
			key = []byte(w.decode(q))
		}
		if len(w.segs) > base {
			dst = append(dst, ',')
			if bytes.Compare(w.segs[len(w.segs)-1].key, key) >= 0 {
				ordered = false
			}
		}
		from := len(dst)
		if plainString(q) {
			dst = append(dst, q...)
		} else {
			dst = AppendString(dst, string(key), false)
		}
		dst = append(dst, ':')
		i = SkipSpace(raw, SkipSpace(raw, end)+1) // past ':'
		if member != nil {
			if d, ok := member(dst, key); ok {
				dst, i = d, SkipValue(raw, i)
			} else {
				dst, i = w.value(dst, raw, i)
			}
		} else {
			dst, i = w.value(dst, raw, i)
		}
		w.segs = append(w.segs, canonSeg{key, from, len(dst)})
		i = SkipSpace(raw, i)
	}
	if !ordered {
		segs := w.segs[base:]
		w.tmp = append(w.tmp[:0], dst[open+1:]...)
		shift := open + 1
		slices.SortStableFunc(segs, func(a, b canonSeg) int { return bytes.Compare(a.key, b.key) })
		dst = dst[:open+1]
		first := true
		for j, sg := range segs {
			if j+1 < len(segs) && bytes.Equal(segs[j+1].key, sg.key) {
				continue // the last of repeated keys wins
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(dst, w.tmp[sg.from-shift:sg.to-shift]...)
		}
	}
	w.segs = w.segs[:base]
	return append(dst, '}'), i + 1
}

// decode decodes the JSON string quoted (with its quotes) as
// encoding/json does.
func (w *canonWriter) decode(quoted []byte) string {
	var s string
	s, w.buf = Unquote(w.buf, quoted)
	return s
}

// plainString reports whether encoding/json writes the string that the
// JSON string quoted (with its quotes, valid JSON) holds as quoted itself:
// no escape, valid UTF-8, and neither U+2028 nor U+2029 (which it
// escapes).
func plainString(quoted []byte) bool {
	s := quoted[1 : len(quoted)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' {
			return false
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += n
	}
	return true
}

// CanonicalNumber returns the canonical form of a JSON number literal
// (ocpimpl.CanonicalNumber documents it). A string that is not a JSON
// number comes back as is.
func CanonicalNumber(lit string) string {
	s, _ := canonicalNumber(lit)
	return s
}

// canonicalNumber is CanonicalNumber; float reports that the result is
// encoding/json's encoding of the float64 lit decodes to.
func canonicalNumber(lit string) (canon string, float bool) {
	neg, digits, exp, ok := decimal(lit)
	if !ok {
		return lit, false
	}
	if f, err := strconv.ParseFloat(lit, 64); err == nil {
		short := strconv.FormatFloat(f, 'g', -1, 64)
		if sneg, sd, se, ok := decimal(short); ok && sd == digits && (se == exp || digits == "") && (sneg == neg || digits == "") {
			b, err := json.Marshal(f)
			if err == nil {
				return string(b), true
			}
		}
	}
	// Not held by a float64: the exact decimal value 0.DIGITS × 10^exp.
	if digits == "" {
		return "0", false
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch n := len(digits); {
	case exp >= n && exp <= 64: // an integer
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp-n))
	case exp > 0 && exp < n && n <= 64: // a fraction with an integer part
		b.WriteString(digits[:exp])
		b.WriteByte('.')
		b.WriteString(digits[exp:])
	case exp <= 0 && n-exp <= 64: // 0.000DIGITS
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -exp))
		b.WriteString(digits)
	default:
		b.WriteString(digits[:1])
		if n > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		e := exp - 1
		if e >= 0 {
			b.WriteString("e+")
		} else {
			b.WriteString("e-")
			e = -e
		}
		b.WriteString(strconv.Itoa(e))
	}
	return b.String(), false
}

// decimal splits a JSON number literal into its sign and its value
// 0.DIGITS × 10^exp, DIGITS without leading or trailing zeros ("" for
// zero). ok is false for a string that is not a JSON number, or whose
// exponent does not fit an int32.
func decimal(lit string) (neg bool, digits string, exp int, ok bool) {
	s := lit
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	mant, e, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || (len(intPart) > 1 && intPart[0] == '0') {
		return false, "", 0, false
	}
	if hasExp {
		n, err := strconv.ParseInt(e, 10, 32)
		if err != nil {
			return false, "", 0, false
		}
		exp = int(n)
	}
	all := intPart + frac
	exp += len(intPart)
	trimmed := strings.TrimLeft(all, "0")
	exp -= len(all) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")
	if digits == "" {
		exp = 0
	}
	return neg, digits, exp, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
