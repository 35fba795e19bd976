package canon

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// Append appends the canonical JSON of the valid JSON value raw
// ([JSON]'s): object keys sorted (a repeated key keeps its
// last value), no insignificant white space, strings written as
// encoding/json writes them without HTML escaping, numbers as
// [Number] writes them. It writes from the bytes, each value
// once however deeply objects out of key order nest
// (BenchmarkCanonicalOutOfOrder), not by decoding into maps and encoding
// them: TestCanonicalJSONMatchesRef and FuzzCanonicalJSON compare it,
// through [JSON] and [SchemaFingerprint], with that encoding/json
// implementation.
//
// float64s reports that every number was written as encoding/json writes
// the float64 it decodes to: then [AppendFloat64] of the result
// is the result itself.
//
// raw must be valid JSON (json.Valid), as for the other Append functions
// here: every caller checks it first, and other bytes may panic.
func Append(dst, raw []byte) (out []byte, float64s bool) {
	w := getWriter(raw)
	w.float64s = true
	dst, _ = w.value(dst, raw, jsonscan.SkipSpace(raw, 0))
	float64s = w.float64s
	putWriter(w)
	return dst, float64s
}

// AppendFloat64 is [Append] with every number written as
// encoding/json writes the float64 it decodes to ([SchemaFingerprint]'s
// form: what a client that decodes JSON into float64s sees). bad is the
// first number, in raw's order, that a float64 cannot hold (encoding/json
// refuses it), nil if none; end is the offset just past it.
func AppendFloat64(dst, raw []byte) (out, bad []byte, end int) {
	w := getWriter(raw)
	w.toFloat = true
	dst, _ = w.value(dst, raw, jsonscan.SkipSpace(raw, 0))
	bad, end = w.bad, w.badEnd
	putWriter(w)
	return dst, bad, end
}

// AppendObject is [Append] of the valid JSON object raw,
// except that member writes the value of each of its members that it
// chooses to (ok true): member appends it to dst, canonical, given the
// member's key (decoded).
func AppendObject(dst, raw []byte, member func(dst, key []byte) ([]byte, bool)) []byte {
	w := getWriter(raw)
	w.float64s, w.member = true, member
	dst, _ = w.object(dst, raw, jsonscan.SkipSpace(raw, 0))
	putWriter(w)
	return dst
}

// canonWriter writes canonical JSON. It first finds where every array and
// object of the input ends (index), then writes each object's members in
// the order of their keys, each value once, straight from the input: the
// cost is linear in the input however deep the objects that are out of
// order are nested (copying an out-of-order object's written members into
// order again would copy a nested one once for each such object around it).
type canonWriter struct {
	// opens and ends: the offset of each array and object of the input,
	// in the input's order, and the offset just past its end.
	opens, ends []int
	stack       []int         // index's scratch
	members     []canonMember // of the objects being written
	buf         []byte        // scratch for unquoting

	// toFloat writes numbers as their float64s; bad and badEnd are then
	// the first number, in the input's order, that a float64 cannot hold
	// and the offset past it (the one that ends first: members are
	// written in the order of their keys).
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

// writers keeps canonWriters' scratch (the index, the members, the unquote
// buffer) from one call to the next.
var writers = sync.Pool{New: func() any { return new(canonWriter) }}

// getWriter returns a reset canonWriter, with raw indexed.
func getWriter(raw []byte) *canonWriter {
	w := writers.Get().(*canonWriter)
	*w = canonWriter{opens: w.opens[:0], ends: w.ends[:0], stack: w.stack[:0], members: w.members[:0], buf: w.buf[:0]}
	w.index(raw)
	return w
}

// putWriter returns w to the pool, without what refers to the input, and
// drops scratch grown past 64 Ki entries rather than keep it.
func putWriter(w *canonWriter) {
	if cap(w.opens) > 1<<16 || cap(w.members) > 1<<16 || cap(w.buf) > 1<<16 {
		return
	}
	clear(w.members[:cap(w.members)])
	w.member = nil
	w.bad = nil
	writers.Put(w)
}

// canonMember is one member of an object: its key (decoded), the key as
// the input writes it, whether encoding/json writes the key as that
// (plainString), and the offset of its value.
type canonMember struct {
	key, quoted []byte
	plain       bool
	value       int
}

// index records where each array and object of raw (valid JSON) ends.
func (w *canonWriter) index(raw []byte) {
	open := w.stack[:0] // indexes into w.opens of the containers not yet closed
	defer func() { w.stack = open }()
	for i := 0; i < len(raw); {
		switch c := raw[i]; {
		case c == '"':
			i = jsonscan.SkipString(raw, i)
			continue
		case c == '{' || c == '[':
			open = append(open, len(w.opens))
			w.opens, w.ends = append(w.opens, i), append(w.ends, 0)
		case c == '}' || c == ']':
			w.ends[open[len(open)-1]] = i + 1
			open = open[:len(open)-1]
		}
		i++
	}
}

// noteBad records lit, a number a float64 cannot hold that ends at raw
// offset end, if it comes before the one recorded.
func (w *canonWriter) noteBad(lit []byte, end int) {
	if w.bad == nil || end < w.badEnd {
		w.bad, w.badEnd = lit, end
	}
}

// noteBadIn is noteBad for every number of raw[i:to], the value of a
// member that is not written (a repeated key's earlier value).
func (w *canonWriter) noteBadIn(raw []byte, i, to int) {
	for i < to {
		switch c := raw[i]; {
		case c == '"':
			i = jsonscan.SkipString(raw, i)
			continue
		case c == '-' || '0' <= c && c <= '9':
			end := jsonscan.SkipValue(raw, i)
			if lit := raw[i:end]; !isPlainInteger(lit) {
				if _, err := strconv.ParseFloat(string(lit), 64); err != nil {
					w.noteBad(lit, end)
				}
			}
			i = end
			continue
		}
		i++
	}
}

// skip returns the offset just past the value at raw[i] (valid JSON, no
// space before it): an array's or object's from index, in O(log n).
func (w *canonWriter) skip(raw []byte, i int) int {
	if c := raw[i]; c == '{' || c == '[' {
		k, _ := slices.BinarySearch(w.opens, i)
		return w.ends[k]
	}
	return jsonscan.SkipValue(raw, i)
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
		i = jsonscan.SkipSpace(raw, i+1)
		for n := 0; i < len(raw) && raw[i] != ']'; n++ {
			if raw[i] == ',' {
				i = jsonscan.SkipSpace(raw, i+1)
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			dst, i = w.value(dst, raw, i)
			i = jsonscan.SkipSpace(raw, i)
		}
		return append(dst, ']'), i + 1
	case c == '"':
		end := jsonscan.SkipString(raw, i)
		q := raw[i:end]
		if plainString(q) {
			return append(dst, q...), end
		}
		return jsonscan.AppendString(dst, w.decode(q), false), end
	case c == '-' || '0' <= c && c <= '9':
		end := jsonscan.SkipValue(raw, i)
		return w.number(dst, raw[i:end], end), end
	}
	// true, false, null
	end := jsonscan.SkipValue(raw, i)
	return append(dst, raw[i:end]...), end
}

// number appends the number literal lit, which ends at raw offset end.
func (w *canonWriter) number(dst, lit []byte, end int) []byte {
	if isPlainInteger(lit) {
		return append(dst, lit...)
	}
	if !w.toFloat {
		s, float := numberOf(string(lit))
		w.float64s = w.float64s && float
		return append(dst, s...)
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		w.noteBad(lit, end)
		return append(dst, lit...)
	}
	b, _ := json.Marshal(f) // a float64 ParseFloat returns is finite
	return append(dst, b...)
}

// object is value for the object at raw[i]. Its members are read first
// (keys, and where each value starts), then written in the order of their
// keys, a repeated key's last value only.
func (w *canonWriter) object(dst, raw []byte, i int) ([]byte, int) {
	member := w.member
	w.member = nil // only for the outermost object
	end := w.skip(raw, i)
	base := len(w.members)
	ordered := true
	j := jsonscan.SkipSpace(raw, i+1)
	for j < len(raw) && raw[j] != '}' {
		if raw[j] == ',' {
			j = jsonscan.SkipSpace(raw, j+1)
		}
		kend := jsonscan.SkipString(raw, j)
		m := canonMember{quoted: raw[j:kend]}
		if m.plain = plainString(m.quoted); m.plain {
			m.key = m.quoted[1 : len(m.quoted)-1]
		} else {
			m.key = []byte(w.decode(m.quoted))
		}
		if len(w.members) > base && bytes.Compare(w.members[len(w.members)-1].key, m.key) >= 0 {
			ordered = false
		}
		m.value = jsonscan.SkipSpace(raw, jsonscan.SkipSpace(raw, kend)+1) // past ':'
		w.members = append(w.members, m)
		j = jsonscan.SkipSpace(raw, w.skip(raw, m.value))
	}
	ms := w.members[base:] // nested objects append past it, and truncate back
	if !ordered {
		slices.SortStableFunc(ms, func(a, b canonMember) int { return bytes.Compare(a.key, b.key) })
	}
	dst = append(dst, '{')
	first := true
	for k, m := range ms {
		if !ordered && k+1 < len(ms) && bytes.Equal(ms[k+1].key, m.key) {
			// The last of repeated keys wins; a number this value holds
			// still counts for bad, as encoding/json decodes it.
			if w.toFloat {
				w.noteBadIn(raw, m.value, w.skip(raw, m.value))
			}
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if m.plain {
			dst = append(dst, m.quoted...)
		} else {
			dst = jsonscan.AppendString(dst, string(m.key), false)
		}
		dst = append(dst, ':')
		if member != nil {
			if d, ok := member(dst, m.key); ok {
				dst = d
				continue
			}
		}
		dst, _ = w.value(dst, raw, m.value)
	}
	w.members = w.members[:base]
	return append(dst, '}'), end
}

// decode decodes the JSON string quoted (with its quotes) as
// encoding/json does.
func (w *canonWriter) decode(quoted []byte) string {
	var s string
	s, w.buf = jsonscan.Unquote(w.buf, quoted)
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

// Number returns the canonical form of a JSON number literal (see
// [JSON]). A string that is not a JSON number comes back as is.
func Number(lit string) string {
	s, _ := numberOf(lit)
	return s
}

// numberOf is Number; float reports that the result is
// encoding/json's encoding of the float64 lit decodes to.
func numberOf(lit string) (canon string, float bool) {
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

// isPlainInteger reports whether lit is an integer literal that
// encoding/json writes back unchanged from its float64: at most 15 digits
// (a float64 holds it exactly, and it is written without an exponent) and
// no leading zero. -0 is left out, for the caller's general path: a
// float64 keeps it as a value of its own, an integer does not.
func isPlainInteger(lit []byte) bool {
	d := lit
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 || (d[0] == '0' && (len(d) > 1 || len(lit) > 1)) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
