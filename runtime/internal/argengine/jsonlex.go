package argengine

import (
	"errors"
	"iter"
	"unicode/utf8"
)

// The JSON grammar (RFC 8259) of the tape's parser, over the arguments (a
// string), and of the round-trip comparison, over the re-encoding (bytes):
// one lexer for both, so that both read JSON alike.

type text interface{ ~string | ~[]byte }

func skipSpace[S text](s S, p int) int {
	for p < len(s) {
		switch s[p] {
		case ' ', '\t', '\n', '\r':
			p++
		default:
			return p
		}
	}
	return p
}

// scanLiteral scans the literal at s[p:], which begins with 't', 'f' or
// 'n', and returns the offset past it and its kind.
func scanLiteral[S text](s S, p int) (int, tapeKind, error) {
	lit, k := "null", tNull
	switch s[p] {
	case 't':
		lit, k = "true", tTrue
	case 'f':
		lit, k = "false", tFalse
	}
	q, err := scanLit(s, p, lit)
	return q, k, err
}

// scanLit scans the literal want (true, false, null) at s[p:] and returns
// the offset past it.
func scanLit[S text](s S, p int, want string) (int, error) {
	if len(s)-p < len(want) {
		if string(s[p:]) == want[:len(s)-p] {
			return 0, errTapeEOF
		}
		return 0, errTapeSyntax
	}
	if string(s[p:p+len(want)]) != want {
		return 0, errTapeSyntax
	}
	return p + len(want), nil
}

// scanNumber scans the number literal at s[p:] and returns the offset past
// it.
func scanNumber[S text](s S, p int) (int, error) {
	if p < len(s) && s[p] == '-' {
		p++
	}
	switch {
	case p >= len(s):
		return 0, errTapeEOF
	case s[p] == '0':
		p++
	case s[p] >= '1' && s[p] <= '9':
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
	default:
		return 0, errTapeSyntax
	}
	if p < len(s) && s[p] == '.' {
		var err error
		if p, err = scanDigits(s, p+1); err != nil {
			return 0, err
		}
	}
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
		p++
		if p < len(s) && (s[p] == '+' || s[p] == '-') {
			p++
		}
		return scanDigits(s, p)
	}
	return p, nil
}

// scanDigits scans the digits at s[p:], one at least (of a fraction or an
// exponent), and returns the offset past them.
func scanDigits[S text](s S, p int) (int, error) {
	if p >= len(s) {
		return 0, errTapeEOF
	}
	if s[p] < '0' || s[p] > '9' {
		return 0, errTapeSyntax
	}
	for p < len(s) && s[p] >= '0' && s[p] <= '9' {
		p++
	}
	return p, nil
}

// scanNext scans what follows a member or an element at s[p:]: a comma
// (another follows: true) or the closing byte of its object or array
// (false), and returns the offset past it.
func scanNext[S text](s S, p int, closing byte) (int, bool, error) {
	p = skipSpace(s, p)
	if p >= len(s) {
		return 0, false, errTapeEOF
	}
	switch s[p] {
	case ',':
		return p + 1, true, nil
	case closing:
		return p + 1, false, nil
	}
	return 0, false, errTapeSyntax
}

// scanString scans the string whose opening quote is s[p]: its characters
// are s[p+1:end] (end is the closing quote's offset); escaped says whether
// they hold escapes, and n is the length of their decoded text. Every
// escape is checked, and a surrogate that is not half of a pair is
// errLoneSurrogate.
func scanString[S text](s S, p int) (end int, escaped bool, n int, err error) {
	start := p + 1
	saved := 0 // bytes the escapes save
	for p = start; p < len(s); p++ {
		// Most bytes are neither a quote, a backslash nor a control.
		for p < len(s) && strPlain[s[p]] {
			p++
		}
		if p >= len(s) {
			break
		}
		c := s[p]
		switch {
		case c == '"':
			return p, escaped, p - start - saved, nil
		case c == '\\':
			escaped = true
			p++
			if p >= len(s) {
				return 0, false, 0, errTapeEOF
			}
			switch s[p] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				saved++
			case 'u':
				r, err := hex4(s, p+1)
				if err != nil {
					return 0, false, 0, err
				}
				p += 4
				switch {
				case 0xDC00 <= r && r <= 0xDFFF:
					return 0, false, 0, errLoneSurrogate
				case 0xD800 <= r && r <= 0xDBFF:
					// A high surrogate must be followed by a low one.
					if p+2 >= len(s) || s[p+1] != '\\' || s[p+2] != 'u' {
						return 0, false, 0, errLoneSurrogate
					}
					lo, err := hex4(s, p+3)
					if err != nil {
						return 0, false, 0, err
					}
					if lo < 0xDC00 || lo > 0xDFFF {
						return 0, false, 0, errLoneSurrogate
					}
					p += 6
					saved += 12 - 4
				default:
					saved += 6 - utf8.RuneLen(r)
				}
			default:
				return 0, false, 0, errTapeSyntax
			}
		case c < 0x20:
			return 0, false, 0, errTapeSyntax
		}
	}
	return 0, false, 0, errTapeEOF
}

// unescaped yields the decoded text of the characters s of a string that
// scanString has checked, as encoding/json decodes it: runs of s without
// escapes (with r < 0), and the character r of each escape.
func unescaped[S text](s S) iter.Seq2[S, rune] {
	return func(yield func(S, rune) bool) {
		for p := 0; p < len(s); {
			q := p
			for q < len(s) && s[q] != '\\' {
				q++
			}
			if q > p && !yield(s[p:q], -1) {
				return
			}
			if q >= len(s) {
				return
			}
			p = q + 1
			var r rune
			switch c := s[p]; c {
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				r, _ = hex4(s, p+1)
				p += 4
				if 0xD800 <= r && r <= 0xDBFF {
					lo, _ := hex4(s, p+3)
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					p += 6
				}
			default: // '"', '\\', '/'
				r = rune(c)
			}
			if !yield(s[:0], r) {
				return
			}
			p++
		}
	}
}

// strPlain marks the bytes that scanString passes over: all but '"', '\\'
// and the controls below 0x20.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// hex4 reads the four hex digits of a \u escape at s[p:].
func hex4[S text](s S, p int) (rune, error) {
	var r rune
	for k := p; k < p+4; k++ {
		if k >= len(s) {
			return 0, errTapeEOF
		}
		c := s[k]
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, errTapeSyntax
		}
	}
	return r, nil
}

// errLoneSurrogate is a \u escape of a UTF-16 surrogate that is not half of
// a pair. encoding/json would decode it to U+FFFD, so what was validated
// and what is forwarded would differ; the gate refuses it, naming where
// (RuleLoneSurrogate).
var errLoneSurrogate = errors.New("a \\u escape of a lone UTF-16 surrogate (not a character; it would be rewritten to U+FFFD)")
