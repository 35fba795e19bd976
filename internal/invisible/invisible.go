// Package invisible decides which characters a person reading a text cannot
// see: the one rule behind what the gate escapes in a confirm's prompt and
// arguments, what the approval page (runtime/ocpweb) shows escaped, what
// ocpgen init escapes in a classification skeleton, and the generator's
// warning about tool names.
package invisible

import (
	"unicode"
	"unicode/utf16"
)

// DefaultIgnorable is Unicode's Default_Ignorable_Code_Point property
// (DerivedCoreProperties.txt, unchanged from Unicode 14.0 to 16.0; 4,174
// code points): characters a renderer shows as nothing when it cannot
// render them, such as U+034F COMBINING GRAPHEME JOINER, the Hangul fillers
// U+115F, U+1160, U+3164 and U+FFA0, variation selectors, and the reserved
// U+2065 and U+FFF0..U+FFF8. Go's unicode package has no table of it.
var DefaultIgnorable = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00AD, Hi: 0x00AD, Stride: 1},
		{Lo: 0x034F, Hi: 0x034F, Stride: 1},
		{Lo: 0x061C, Hi: 0x061C, Stride: 1},
		{Lo: 0x115F, Hi: 0x1160, Stride: 1},
		{Lo: 0x17B4, Hi: 0x17B5, Stride: 1},
		{Lo: 0x180B, Hi: 0x180F, Stride: 1},
		{Lo: 0x200B, Hi: 0x200F, Stride: 1},
		{Lo: 0x202A, Hi: 0x202E, Stride: 1},
		{Lo: 0x2060, Hi: 0x206F, Stride: 1},
		{Lo: 0x3164, Hi: 0x3164, Stride: 1},
		{Lo: 0xFE00, Hi: 0xFE0F, Stride: 1},
		{Lo: 0xFEFF, Hi: 0xFEFF, Stride: 1},
		{Lo: 0xFFA0, Hi: 0xFFA0, Stride: 1},
		{Lo: 0xFFF0, Hi: 0xFFF8, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x1BCA0, Hi: 0x1BCA3, Stride: 1},
		{Lo: 0x1D173, Hi: 0x1D17A, Stride: 1},
		{Lo: 0xE0000, Hi: 0xE0FFF, Stride: 1},
	},
}

// Is reports whether r is invisible: not a graphic character (controls,
// format characters such as bidi overrides and zero-width characters,
// line and paragraph separators, private-use and surrogate code points,
// and code points unassigned in Go's Unicode tables), or a default
// ignorable one. ASCII controls are invisible too; the space is not.
func Is(r rune) bool {
	if r < 0x80 {
		return r < 0x20 || r == 0x7F
	}
	return !unicode.IsGraphic(r) || unicode.Is(DefaultIgnorable, r)
}

// AppendEscape appends r as the gate writes an invisible character: a JSON
// \u escape of its UTF-16 code unit in lower-case hex (\u202e), or of its
// surrogate pair for a character beyond U+FFFF (\udb40\udc41).
func AppendEscape(dst []byte, r rune) []byte {
	if r > 0xFFFF {
		r1, r2 := utf16.EncodeRune(r)
		return appendU4(appendU4(dst, r1), r2)
	}
	return appendU4(dst, r)
}

// appendU4 appends \uXXXX, the escape of the UTF-16 code unit u. (Without
// fmt, which allocates for each: a string of them is escaped in one
// allocation.)
func appendU4(dst []byte, u rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[u>>12&0xF], hex[u>>8&0xF], hex[u>>4&0xF], hex[u&0xF])
}
