package load

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// canonicalJSON returns ocpimpl.CanonicalJSON(raw) for raw valid JSON, in
// one pass over the bytes instead of a decoding into maps and an encoding
// of them: object keys sorted (a repeated key keeps its last value), no
// insignificant white space, strings written as encoding/json writes them
// without HTML escaping, numbers as ocpimpl.CanonicalNumber writes them.
// TestCanonicalJSON and FuzzCanonicalJSON compare the two.
func canonicalJSON(raw []byte) []byte {
	return appendCanonical(make([]byte, 0, len(raw)), raw)
}

// member is one member of an object: its decoded key and its value.
type member struct {
	key string
	val []byte
}

// appendCanonical appends the canonical form of the valid JSON value raw.
func appendCanonical(dst, raw []byte) []byte {
	i := skipSpace(raw, 0)
	if i >= len(raw) {
		return dst
	}
	switch c := raw[i]; {
	case c == '{':
		keys, vals := members(raw[i:])
		ms := make([]member, len(keys))
		for j, k := range keys {
			ms[j] = member{k, vals[j]}
		}
		slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.key, b.key) })
		dst = append(dst, '{')
		first := true
		for j, m := range ms {
			if j+1 < len(ms) && ms[j+1].key == m.key {
				continue // the last of repeated keys wins
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendJSONString(dst, m.key)
			dst = append(dst, ':')
			dst = appendCanonical(dst, m.val)
		}
		return append(dst, '}')
	case c == '[':
		dst = append(dst, '[')
		for j, e := range elements(raw[i:]) {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = appendCanonical(dst, e)
		}
		return append(dst, ']')
	case c == '"':
		q := raw[i:skipString(raw, i)]
		if plainString(q) {
			return append(dst, q...)
		}
		return appendJSONString(dst, decodeKey(q))
	case c == '-' || '0' <= c && c <= '9':
		lit := raw[i:skipValue(raw, i)]
		if plainInteger(lit) {
			return append(dst, lit...)
		}
		return append(dst, ocpimpl.CanonicalNumber(string(lit))...)
	}
	// true, false, null
	return append(dst, raw[i:skipValue(raw, i)]...)
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

// plainInteger reports whether lit is an integer literal that
// ocpimpl.CanonicalNumber keeps as it is: at most 15 digits (a float64
// holds it exactly, and encoding/json writes it without an exponent), no
// leading zero, and not -0.
func plainInteger(lit []byte) bool {
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

// appendJSONString appends s as encoding/json writes a string without
// HTML escaping.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
