package invisible

import (
	"testing"
	"unicode"
)

// TestDefaultIgnorableIsUnicodes checks the table against the property's
// definition in the header of Unicode's DerivedCoreProperties.txt
// (https://www.unicode.org/Public/16.0.0/ucd/DerivedCoreProperties.txt):
//
//	Generated from
//	  Other_Default_Ignorable_Code_Point
//	+ Cf (Format characters)
//	+ Variation_Selector
//	- White_Space
//	- FFF9..FFFB (Interlinear annotation format characters)
//	- 13430..1343F (Egyptian hieroglyph format characters)
//	- Prepended_Concatenation_Mark (Exceptional format characters that should be visible)
//
// computed from Go's own tables of those properties, and against the
// file's total of 4,174 code points.
func TestDefaultIgnorableIsUnicodes(t *testing.T) {
	n := 0
	for r := rune(0); r <= unicode.MaxRune; r++ {
		want := (unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r)) &&
			!unicode.Is(unicode.White_Space, r) &&
			!(r >= 0xFFF9 && r <= 0xFFFB) &&
			!(r >= 0x13430 && r <= 0x1343F) &&
			!unicode.Is(unicode.Prepended_Concatenation_Mark, r)
		got := unicode.Is(DefaultIgnorable, r)
		if got != want {
			t.Errorf("U+%04X: in the table %v, by the definition %v", r, got, want)
		}
		if got {
			n++
		}
	}
	if n != 4174 {
		t.Errorf("%d code points, DerivedCoreProperties.txt says 4174", n)
	}
}

func TestIs(t *testing.T) {
	for _, r := range []rune{
		0x00, 0x1F, 0x7F, 0x85, // controls
		0x200B, 0x200D, 0x202E, 0x2066, 0xFEFF, 0xE0041, // format
		0x2028, 0x2029, // separators
		0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0xFE0F, 0xE0100, 0x180B, 0x17B4, 0x00AD, // default ignorable, not Cf
		0x2065, 0xFFF0, 0xFFF8, 0x0378, 0xFFFE, 0xFFFF, 0x10FFFF, // unassigned
		0xE000, 0xF0000, // private use
	} {
		if !Is(r) {
			t.Errorf("U+%04X is not invisible", r)
		}
	}
	for _, r := range []rune{' ', 'a', '~', 0xA0, 0xE9, 0x0301, 0x3000, 0x4E00, 0xFFFD, 0x1F600, 0x2003} {
		if Is(r) {
			t.Errorf("U+%04X is invisible", r)
		}
	}
}

func TestAppendEscape(t *testing.T) {
	for r, want := range map[rune]string{
		0x202E:   `\u202e`,
		0x3164:   `\u3164`,
		0x0085:   `\u0085`,
		0xE0041:  `\udb40\udc41`,
		0x10FFFF: `\udbff\udfff`,
	} {
		if got := string(AppendEscape([]byte("x"), r)); got != "x"+want {
			t.Errorf("U+%04X: %s, want x%s", r, got, want)
		}
	}
}
