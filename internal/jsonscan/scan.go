package jsonscan

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// SkipSpace returns the index of the first byte of raw at or after i that
// is not JSON white space (len(raw) if none).
func SkipSpace(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// SkipString returns the index just past the JSON string whose opening
// quote is raw[i], or len(raw) if it is not closed. It checks nothing
// else: raw is valid JSON, or the caller does not need it to be.
func SkipString(raw []byte, i int) int {
	for i++; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(raw)
}

// SkipValue returns the index just past the valid JSON value starting at
// i. It keeps no stack: in valid JSON, brackets match.
func SkipValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return SkipString(raw, i)
	case '{', '[':
		depth := 0
		for ; i < len(raw); i++ {
			switch raw[i] {
			case '"':
				i = SkipString(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return len(raw)
	}
	// A number, true, false or null: up to the next delimiter.
	for i < len(raw) {
		switch raw[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// ScanString checks the syntax of the JSON string whose opening quote is
// raw[i], as encoding/json's scanner does, and returns the index just past
// it. plain reports that the string it holds is its bytes between the
// quotes (no escape, valid UTF-8: encoding/json turns invalid bytes into
// U+FFFD). ok is false if it is not a valid JSON string.
func ScanString(raw []byte, i int) (end int, plain, ok bool) {
	plain = true
	for i++; i < len(raw); {
		c := raw[i]
		switch {
		case c == '"':
			return i + 1, plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(raw) {
				return i, false, false
			}
			switch raw[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if len(raw)-i < 5 {
					return i, false, false
				}
				for _, h := range raw[i+1 : i+5] {
					if !isHex(h) {
						return i, false, false
					}
				}
				i += 5
			default:
				return i, false, false
			}
		case c < 0x20:
			return i, false, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && n == 1 {
				plain = false
			}
			i += n
		}
	}
	return i, false, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Unquote decodes the valid JSON string quoted (with its quotes) as
// encoding/json does, using buf as scratch space, and returns buf for
// reuse. What encoding/json rewrites (invalid UTF-8, and a \u escape of a
// UTF-16 surrogate that is not half of a pair: [Rewritten]) is left to
// encoding/json itself, which writes U+FFFD for it.
func Unquote(buf, quoted []byte) (string, []byte) {
	s := quoted[1 : len(quoted)-1]
	b := buf[:0]
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			if c >= utf8.RuneSelf {
				r, n := utf8.DecodeRune(s[i:])
				if r == utf8.RuneError && n == 1 {
					return unquoteJSON(quoted), b
				}
				b = append(b, s[i:i+n]...)
				i += n
				continue
			}
			b = append(b, c)
			i++
			continue
		}
		switch s[i+1] {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, n := escapedRune(s[i:])
			if n == 0 {
				return unquoteJSON(quoted), b
			}
			b = utf8.AppendRune(b, r)
			i += n
			continue
		default: // '"', '\\', '/'
			b = append(b, s[i+1])
		}
		i += 2
	}
	return string(b), b
}

// escapedRune decodes the \u escape at the start of s (valid JSON string
// text): a rune and the escape's length, 6, or 12 for a UTF-16 surrogate
// pair. n is 0 for a surrogate that is not half of a pair, which
// encoding/json rewrites to U+FFFD.
func escapedRune(s []byte) (r rune, n int) {
	r = hex4(s[2:6])
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if len(s) < 12 || s[6] != '\\' || s[7] != 'u' || !isHex(s[8]) || !isHex(s[9]) || !isHex(s[10]) || !isHex(s[11]) {
		return 0, 0
	}
	if r = utf16.DecodeRune(r, hex4(s[8:12])); r == utf8.RuneError {
		return 0, 0
	}
	return r, 12
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// unquoteJSON is encoding/json's decoding of the string quoted.
func unquoteJSON(quoted []byte) string {
	var s string
	_ = json.Unmarshal(quoted, &s)
	return s
}

// Rewritten finds the first thing in the text s of a valid JSON string
// (between its quotes) that encoding/json silently rewrites to U+FFFD when
// it decodes it: the offset of the first byte that is not UTF-8 (utf8
// true), or else of the first \u escape of a UTF-16 surrogate that is not
// half of a pair. at is -1 if there is neither.
func Rewritten(s []byte) (at int, utf8Byte bool) {
	if !utf8.Valid(s) {
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return i, true
			}
			i += n
		}
	}
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if s[i+1] != 'u' || i+6 > len(s) {
			i++ // a two-character escape
			continue
		}
		_, n := escapedRune(s[i:])
		if n == 0 {
			return i, false
		}
		i += n - 1
	}
	return -1, false
}
