package model

import (
	"go/doc/comment"
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
//     dropped and runs of blank lines become one;
//   - no line can become a doc-comment heading, wherever the lines are
//     placed in a comment (see noHeadings).
//
// An empty result means there is nothing to say.
func DocLines(s string) []string { return noHeadings(SafeLines(s)) }

// SafeLines is DocLines without the heading rule: the lines are safe to
// emit as "//" comments, and where they stand in a comment is the
// caller's. The emitter passes every line through it, the model's own
// included, whose headings DocLines has already settled for the whole text.
func SafeLines(s string) []string {
	if plainText(s) {
		return safeLines(s)
	}
	return safeLines(safeText(s))
}

// safeLines splits text, which safeText leaves as it is, into SafeLines'
// lines: trailing white space trimmed, no blank line first or last, and
// runs of blank lines made one.
func safeLines(text string) []string {
	var out []string
	blank := false
	for line := range strings.SplitSeq(text, "\n") {
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

// plainText reports whether safeText leaves s as it is: s is printable
// ASCII and line feeds, the text of most descriptions.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < ' ' && c != '\n') || c > '~' {
			return false
		}
	}
	return true
}

// safeText is SafeLines' rewrite of s's characters (see DocLines): line
// ends become "\n", and what cannot stand in a "//" comment is replaced
// or dropped.
func safeText(s string) string {
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
	return b.String()
}

// noHeadings rewrites lines so that gofmt (go/doc/comment) reads none of
// them as a section heading, which it would print as "# Text": a heading
// is a paragraph of one line, such as "Returns the sum of two numbers" or a
// Markdown "# Usage". Such a paragraph is joined to the paragraph before it,
// else to the one after it; when it is all there is, a Markdown heading
// mark is dropped and a final period added, so it reads as a sentence.
func noHeadings(lines []string) []string {
	for i := 0; i < len(lines); i++ {
		alone := lines[i] != "" && (i == 0 || lines[i-1] == "") && (i+1 == len(lines) || lines[i+1] == "")
		if !alone || !headingLike(lines[i]) {
			continue
		}
		switch {
		case i > 0:
			lines = append(lines[:i-1], lines[i:]...) // drop the blank line before
			i--
		case len(lines) > 1:
			lines = append(lines[:1], lines[2:]...) // drop the blank line after
		default:
			l := strings.TrimLeft(lines[0], "# \t")
			if l == "" {
				l = "#"
			}
			if r, _ := utf8.DecodeLastRuneInString(l); unicode.IsLetter(r) || unicode.IsDigit(r) {
				l += "."
			}
			lines[0] = l
		}
	}
	return lines
}

// mayBeHeading is false for a line that go/doc/comment cannot read as a
// heading: one that, trimmed of spaces, neither starts with "#" (a "#
// Heading") nor starts with an upper-case letter and ends with a letter or
// a digit (an old-style heading). It decides most lines (a sentence ends
// with punctuation) without running the parser; TestMayBeHeading and
// FuzzMayBeHeading check it against the parse.
func mayBeHeading(line string) bool {
	line = strings.TrimSpace(line) // as go/doc/comment does before its checks
	if strings.HasPrefix(line, "#") {
		return true
	}
	first, _ := utf8.DecodeRuneInString(line)
	last, _ := utf8.DecodeLastRuneInString(line)
	return unicode.IsUpper(first) && unicode.IsLetter(first) && (unicode.IsLetter(last) || unicode.IsDigit(last))
}

// headingLike reports whether go/doc/comment reads line as a heading when
// it is a paragraph of its own between two others.
func headingLike(line string) bool {
	return mayBeHeading(line) && parsesAsHeading(line)
}

// parsesAsHeading runs go/doc/comment on line between two paragraphs.
func parsesAsHeading(line string) bool {
	var p comment.Parser
	d := p.Parse("Before.\n\n" + line + "\n\nAfter.\n")
	for _, b := range d.Content {
		if _, ok := b.(*comment.Heading); ok {
			return true
		}
	}
	return false
}
