package ocpweb

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/invisible"
)

// piece is a run of a text as the page shows it: plain text, or one
// invisible character shown as its escape (Esc), which the page marks so
// that it stands out.
type piece struct {
	Text string
	Esc  bool
	// Char names the character an Esc piece stands for ("U+202E").
	Char string
}

// visible splits s into the pieces the page shows, by the gate's rule for
// what a person cannot see ([invisible.Is]): each such character is shown
// as the escape the gate writes for it ([invisible.AppendEscape]), marked.
// With jsonText, s is JSON text (or holds JSON values, as a confirm prompt
// does) in which the gate has already written those characters as \u
// escapes: an escape that stands for an invisible character is marked too,
// as it is; an escaped backslash (\\) never starts one; and a line feed is
// whitespace between tokens (no JSON string holds one), shown as a line
// break. The pieces' texts joined are s, except that an invisible
// character s holds itself is replaced by its escape (a byte that is not
// UTF-8 by \xNN).
func visible(s string, jsonText bool) []piece {
	var out []piece
	start := 0 // of the plain run not yet in out
	mark := func(i int, esc string, r rune) {
		if start < i {
			out = append(out, piece{Text: s[start:i]})
		}
		out = append(out, piece{Text: esc, Esc: true, Char: fmt.Sprintf("U+%04X", r)})
	}
	for i := 0; i < len(s); {
		c := s[i]
		if jsonText && c == '\\' {
			r, n := unicodeEscape(s[i:])
			switch {
			case n > 0 && invisible.Is(r):
				mark(i, s[i:i+n], r)
				i += n
				start = i
			case n > 0:
				i += n
			case i+1 < len(s) && s[i+1] < utf8.RuneSelf && !invisible.Is(rune(s[i+1])):
				i += 2 // \" \\ \n ...: the second character never starts an escape
			default:
				i++ // the character after it is looked at on its own
			}
			continue
		}
		if c < utf8.RuneSelf && (!invisible.Is(rune(c)) || jsonText && c == '\n') {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			// Not UTF-8: shown as the byte's \x escape, marked.
			mark(i, fmt.Sprintf(`\x%02x`, c), rune(c))
			out[len(out)-1].Char = fmt.Sprintf("byte 0x%02X (not UTF-8)", c)
			i++
			start = i
			continue
		}
		if invisible.Is(r) {
			mark(i, string(invisible.AppendEscape(nil, r)), r)
			i += n
			start = i
			continue
		}
		i += n
	}
	if start < len(s) {
		out = append(out, piece{Text: s[start:]})
	}
	return out
}

// unicodeEscape decodes the \uXXXX escape (or the surrogate pair of two)
// at the start of s, returning the character and the escape's length, or
// n == 0 if s does not start with one. A lone surrogate is returned as
// itself (invisible: not a character).
func unicodeEscape(s string) (r rune, n int) {
	hi, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(hi) && hi < 0xDC00 {
		if lo, ok := hex4(s[6:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return utf16.DecodeRune(hi, lo), 12
		}
	}
	return hi, 6
}

// hex4 decodes s's leading \uXXXX.
func hex4(s string) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	u, err := strconv.ParseUint(s[2:6], 16, 16)
	return rune(u), err == nil
}
