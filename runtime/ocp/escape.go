package ocp

import (
	"encoding/binary"
	"math"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/invisible"
)

// escapeInvisible returns the JSON text b with every character that a
// person cannot see, or that changes how the text around it is shown,
// written as a \u escape ([invisible.AppendEscape]): every non-ASCII
// character [invisible.Is] reports (C1 controls, format characters such as bidi embeddings, overrides and
// isolates, zero-width characters, the BOM and tag characters, line and
// paragraph separators, the rest of Unicode's Default_Ignorable_Code_Point
// set such as U+034F, the Hangul fillers and variation selectors,
// private-use and unassigned code points such as U+2065 and U+FFF0). In
// valid JSON such characters can occur only inside strings, where the
// escape is the same value, so the result means what b means. b is
// returned as it is when it holds none.
func escapeInvisible(b []byte) []byte {
	out, _ := escapeInvisibleWithin(b, math.MaxInt)
	return out
}

// escapeInvisibleWithin is escapeInvisible, unless the escaped text would
// be longer than limit: then it returns nil and the escaped text's length,
// having allocated nothing.
func escapeInvisibleWithin(b []byte, limit int) ([]byte, int) {
	if len(b) > limit {
		return nil, len(b)
	}
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
		if invisible.Is(r) {
			break
		}
		i += n
	}
	if i == len(b) {
		return b, len(b)
	}
	// The escaped text, allocated once at its size.
	size := len(b)
	for k := i; k < len(b); {
		if b[k] < utf8.RuneSelf {
			k++
			continue
		}
		r, n := utf8.DecodeRune(b[k:])
		if invisible.Is(r) {
			size += 6*utf16.RuneLen(r) - n
		}
		k += n
	}
	if size > limit {
		return nil, size
	}
	out := make([]byte, 0, size)
	out = append(out, b[:i]...)
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			out = append(out, b[i])
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if invisible.Is(r) {
			out = invisible.AppendEscape(out, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out, size
}
