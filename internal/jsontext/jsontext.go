// Package jsontext holds the rules of encoding/json's text that the
// generator and the runtime reproduce by hand where a benchmark needs it,
// each in one place and tested against encoding/json.
package jsontext

import (
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

// IsPlainInteger reports whether lit is an integer literal that
// encoding/json writes back unchanged from its float64: at most 15 digits
// (a float64 holds it exactly, and it is written without an exponent) and
// no leading zero. -0 is left out, for the caller's general path: a
// float64 keeps it as a value of its own, an integer does not.
func IsPlainInteger(lit []byte) bool {
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
