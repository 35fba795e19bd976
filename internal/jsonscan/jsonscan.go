// Package jsonscan holds the rules of encoding/json's text that the
// generator and the runtime reproduce by hand: scanning, unquoting and
// writing JSON strings, folding object keys and reading struct tags, each
// in one place and tested against encoding/json.
package jsonscan

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// AppendFoldedName appends name folded as encoding/json folds an object
// key to match it with a struct field regardless of case: ASCII letters
// upper-cased, every other rune replaced by the smallest rune of its
// case-folding orbit. Two keys decode into the same field (with no exact
// match) exactly when their folded names are equal.
func AppendFoldedName(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		if c := name[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		dst = utf8.AppendRune(dst, foldRune(r))
		i += n
	}
	return dst
}

// foldRune is the smallest rune of r's case-folding orbit.
func foldRune(r rune) rune {
	for {
		r2 := unicode.SimpleFold(r)
		if r2 <= r {
			return r2
		}
		r = r2
	}
}

// AppendString appends s as a JSON string exactly as encoding/json writes
// it: with HTML escaping (json.Marshal's default: <, > and & as \u003c,
// \u003e and \u0026) when html, without it (Encoder.SetEscapeHTML(false))
// otherwise; in both, U+2028 and U+2029 escaped and invalid UTF-8 written
// as \ufffd.
func AppendString(dst []byte, s string, html bool) []byte {
	return append(AppendStringText(append(dst, '"'), s, html), '"')
}

// AppendStringText appends what [AppendString] writes between the quotes.
// Each character is written on its own, so the text of s is that of any
// two parts of s split between two characters, one after the other.
func AppendStringText(dst []byte, s string, html bool) []byte {
	plain := &plainText
	if html {
		plain = &plainHTML
	}
	start := 0
	for i := 0; i < len(s); {
		// Most bytes are printable ASCII that needs no escape.
		for i < len(s) && plain[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
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
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(dst, s[start:]...)
}

// Plain reports whether [AppendString] copies byte c as it is (printable
// ASCII but '"' and '\\', and with html but '<', '>' and '&' too).
func Plain(c byte, html bool) bool {
	if html {
		return plainHTML[c]
	}
	return plainText[c]
}

const hexDigits = "0123456789abcdef"

// plainText and plainHTML mark the bytes AppendString copies as they are.
var plainText, plainHTML = func() (t, h [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
		h[c] = t[c] && c != '<' && c != '>' && c != '&'
	}
	return t, h
}()

// IsValidTagName reports whether encoding/json takes name, in a field's
// `json:"name"` tag, as the field's JSON name (its isValidTag); otherwise
// it silently uses the Go field's name.
func IsValidTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
