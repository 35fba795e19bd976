package model

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DocLines turns free text from an input file (a tool or property
// description) into lines that are safe to emit as one "//" comment each:
//
//   - invalid UTF-8 becomes U+FFFD;
//   - CR LF, CR, U+0085, U+2028 and U+2029 end a line;
//   - a tab becomes a space;
//   - other control characters (NUL included) and bidirectional formatting
//     characters are dropped, so nothing can end the comment or make the
//     source read differently from how it compiles;
//   - trailing white space is trimmed, leading and trailing blank lines are
//     dropped and runs of blank lines become one.
//
// An empty result means there is nothing to say.
func DocLines(s string) []string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r':
			if i < len(s) && s[i] == '\n' {
				i++
			}
			b.WriteByte('\n')
		case r == '\n', r == 0x85, r == 0x2028, r == 0x2029:
			b.WriteByte('\n')
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), r == 0xFEFF:
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	var out []string
	blank := false
	for _, line := range strings.Split(b.String(), "\n") {
		line = strings.TrimRightFunc(line, unicode.IsSpace)
		if line == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	return out
}
