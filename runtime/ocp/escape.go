package ocp

import (
	"encoding/binary"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// escapeInvisible returns the JSON text b with every character that a
// person cannot see, or that changes how the text around it is shown,
// written as a \u escape: C0 and C1 controls, format characters (bidi
// embeddings, overrides and isolates, zero-width characters, the BOM, tag
// characters: Unicode category Cf), and line and paragraph separators. In
// valid JSON such characters can occur only inside strings, where the
// escape is the same value, so the result means what b means. b is
// returned as it is when it holds none.
func escapeInvisible(b []byte) []byte {
	i := 0
	for i < len(b) {
		// Eight ASCII bytes at a time.
		for i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 == 0 {
			i += 8
		}
		if i >= len(b) {
			break
		}
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if invisible(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+12)
	out = append(out, b[:i]...)
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if invisible(r) {
			if r > 0xFFFF {
				r1, r2 := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

// invisible reports whether r is a non-ASCII control, format or separator
// character (ASCII controls are escaped by every JSON encoder already).
func invisible(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp)
}
