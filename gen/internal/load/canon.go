package load

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/jsontext"
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

// appendCanonical appends the canonical form of the valid JSON value raw.
func appendCanonical(dst, raw []byte) []byte {
	var w canonWriter
	dst, _ = w.value(dst, raw, skipSpace(raw, 0))
	return dst
}

// canonWriter writes canonical JSON in one pass: each object's members are
// written in the file's order, then, unless their keys were already
// strictly increasing, put in order again from a copy.
type canonWriter struct {
	segs []canonSeg // the members of the objects being written
	tmp  []byte     // scratch for reordering one object's members
	buf  []byte     // scratch for unquoting
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
		i = skipSpace(raw, i+1)
		for n := 0; i < len(raw) && raw[i] != ']'; n++ {
			if raw[i] == ',' {
				i = skipSpace(raw, i+1)
			}
			if n > 0 {
				dst = append(dst, ',')
			}
			dst, i = w.value(dst, raw, i)
			i = skipSpace(raw, i)
		}
		return append(dst, ']'), i + 1
	case c == '"':
		end := skipString(raw, i)
		q := raw[i:end]
		if plainString(q) {
			return append(dst, q...), end
		}
		return jsontext.AppendString(dst, w.decode(q), false), end
	case c == '-' || '0' <= c && c <= '9':
		end := skipValue(raw, i)
		lit := raw[i:end]
		if jsontext.IsPlainInteger(lit) {
			return append(dst, lit...), end
		}
		return append(dst, ocpimpl.CanonicalNumber(string(lit))...), end
	}
	// true, false, null
	end := skipValue(raw, i)
	return append(dst, raw[i:end]...), end
}

// object is value for the object at raw[i].
func (w *canonWriter) object(dst, raw []byte, i int) ([]byte, int) {
	open := len(dst)
	dst = append(dst, '{')
	base := len(w.segs)
	ordered := true
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != '}' {
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		end := skipString(raw, i)
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
			dst = jsontext.AppendString(dst, string(key), false)
		}
		dst = append(dst, ':')
		i = skipSpace(raw, skipSpace(raw, end)+1) // past ':'
		dst, i = w.value(dst, raw, i)
		w.segs = append(w.segs, canonSeg{key, from, len(dst)})
		i = skipSpace(raw, i)
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
	s, w.buf = unquoteInto(w.buf, quoted)
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
