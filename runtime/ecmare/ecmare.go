// Package ecmare compiles a JSON Schema "pattern", an ECMA-262 regular
// expression (with the "u" flag, as JSON Schema 2020-12 asks), into a Go
// regexp that matches the same strings, in linear time.
//
// Go's regexp (RE2 syntax) and ECMA-262 agree on most of the syntax JSON
// Schema patterns use, but not on everything:
//
//   - \s and \S: ECMA-262's white space is Unicode's (U+00A0, U+2028,
//     U+FEFF, U+3000, …) and includes \v; RE2's is [\t\n\f\r ]. They are
//     written out as classes.
//   - "." excludes every line terminator (\n, \r, U+2028, U+2029) in
//     ECMA-262, only \n in RE2.
//   - \uXXXX (surrogate pairs combined), \u{…}, \cX, \0, and [\b] (a
//     backspace) are ECMA-262 escapes RE2 lacks; [^] and [] are classes RE2
//     refuses; "[" inside a class is a literal in ECMA-262 and starts a
//     POSIX class in RE2.
//   - (?<name>…) becomes (?P<name>…); \p{…} is kept when Go knows the
//     property (a general category or a script, with or without "gc=" or
//     "Script=").
//
// \d, \D, \w, \W, \b and \B mean the same (ASCII) in both and pass
// unchanged. What RE2 cannot do in linear time, lookaround ((?=, (?!,
// (?<=, (?<!) and back-references (\1, \k<name>), is an error, as is any
// syntax ECMA-262 refuses in "u" mode (an identity escape of a letter such
// as \z, inline flags such as (?i)). The caller decides what an error
// means; the generator reports it, and the gate refuses every value the
// pattern would check (fail closed).
package ecmare

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// An Error says why a pattern cannot be compiled with ECMA-262 meaning.
type Error struct {
	Pattern string
	Reason  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("pattern %q: %s", e.Pattern, e.Reason)
}

// Compile translates an ECMA-262 pattern and compiles it.
func Compile(pattern string) (*regexp.Regexp, error) {
	src, err := Translate(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, &Error{pattern, "Go's regexp refuses its translation: " + err.Error()}
	}
	return re, nil
}

// whiteSpace are ECMA-262's WhiteSpace and LineTerminator code points, the
// meaning of \s, as ranges.
var whiteSpace = [][2]rune{
	{0x09, 0x0d}, {0x20, 0x20}, {0xa0, 0xa0}, {0x1680, 0x1680}, {0x2000, 0x200a},
	{0x2028, 0x2029}, {0x202f, 0x202f}, {0x205f, 0x205f}, {0x3000, 0x3000}, {0xfeff, 0xfeff},
}

var (
	spaceClass    = ranges(whiteSpace)             // the inside of a class
	nonSpaceClass = ranges(complement(whiteSpace)) // the inside of a class
	anyClass      = `\x{0}-\x{10FFFF}`
	dotClass      = `[^\n\r\x{2028}\x{2029}]`
)

func complement(rs [][2]rune) [][2]rune {
	var out [][2]rune
	next := rune(0)
	for _, r := range rs {
		if r[0] > next {
			out = append(out, [2]rune{next, r[0] - 1})
		}
		next = r[1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, [2]rune{next, unicode.MaxRune})
	}
	return out
}

func ranges(rs [][2]rune) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(hexRune(r[0]))
		if r[1] != r[0] {
			b.WriteByte('-')
			b.WriteString(hexRune(r[1]))
		}
	}
	return b.String()
}

func hexRune(r rune) string { return `\x{` + strconv.FormatInt(int64(r), 16) + `}` }

// Translate returns the Go regexp syntax for an ECMA-262 pattern.
func Translate(pattern string) (string, error) {
	if !utf8.ValidString(pattern) {
		return "", &Error{pattern, "not valid UTF-8"}
	}
	t := &translator{src: pattern}
	if err := t.run(); err != nil {
		return "", &Error{pattern, err.Error()}
	}
	return t.out.String(), nil
}

type translator struct {
	src string
	pos int
	out strings.Builder
}

func (t *translator) more() bool { return t.pos < len(t.src) }

func (t *translator) peek(s string) bool { return strings.HasPrefix(t.src[t.pos:], s) }

func (t *translator) run() error {
	for t.more() {
		c := t.src[t.pos]
		switch c {
		case '\\':
			if err := t.escape(false); err != nil {
				return err
			}
		case '.':
			t.pos++
			t.out.WriteString(dotClass)
		case '[':
			if err := t.class(); err != nil {
				return err
			}
		case '(':
			if err := t.group(); err != nil {
				return err
			}
		case '{':
			if err := t.quantifier(); err != nil {
				return err
			}
		case '}', ']':
			return fmt.Errorf("an unescaped %q at offset %d", c, t.pos)
		default:
			_, n := utf8.DecodeRuneInString(t.src[t.pos:])
			t.out.WriteString(t.src[t.pos : t.pos+n])
			t.pos += n
		}
	}
	return nil
}

// quantifier copies {n}, {n,} or {n,m}; ECMA-262 refuses any other "{"
// in a Unicode pattern, where RE2 would read it as a literal.
func (t *translator) quantifier() error {
	end := strings.IndexByte(t.src[t.pos:], '}')
	if end < 0 {
		return fmt.Errorf("an unescaped '{' at offset %d", t.pos)
	}
	body := t.src[t.pos+1 : t.pos+end]
	lo, hi, comma := strings.Cut(body, ",")
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	if lo == "" || !digits(lo) || comma && !digits(hi) {
		return fmt.Errorf("an unescaped '{' at offset %d", t.pos)
	}
	t.out.WriteString(t.src[t.pos : t.pos+end+1])
	t.pos += end + 1
	return nil
}

func (t *translator) group() error {
	switch {
	case t.peek("(?="), t.peek("(?!"), t.peek("(?<="), t.peek("(?<!"):
		return fmt.Errorf("lookaround at offset %d, which cannot be matched in linear time", t.pos)
	case t.peek("(?:"):
		t.out.WriteString("(?:")
		t.pos += 3
	case t.peek("(?<"):
		end := strings.IndexByte(t.src[t.pos:], '>')
		if end < 0 {
			return fmt.Errorf("unterminated group name at offset %d", t.pos)
		}
		t.out.WriteString("(?P<" + t.src[t.pos+3:t.pos+end] + ">")
		t.pos += end + 1
	case t.peek("(?"):
		return fmt.Errorf("group modifier at offset %d (ECMA-262 has no inline flags in JSON Schema patterns)", t.pos)
	default:
		t.out.WriteByte('(')
		t.pos++
	}
	return nil
}

// class translates a character class, [ at t.pos.
func (t *translator) class() error {
	start := t.pos
	t.pos++
	neg := false
	if t.peek("^") {
		neg = true
		t.pos++
	}
	if t.peek("]") { // [] matches nothing, [^] anything
		t.pos++
		if neg {
			t.out.WriteString("[" + anyClass + "]")
		} else {
			t.out.WriteString("[^" + anyClass + "]")
		}
		return nil
	}
	t.out.WriteByte('[')
	if neg {
		t.out.WriteByte('^')
	}
	for {
		if !t.more() {
			return fmt.Errorf("unterminated character class at offset %d", start)
		}
		switch c := t.src[t.pos]; c {
		case ']':
			t.pos++
			t.out.WriteByte(']')
			return nil
		case '\\':
			if err := t.escape(true); err != nil {
				return err
			}
		case '[':
			t.pos++
			t.out.WriteString(`\[`)
		default:
			_, n := utf8.DecodeRuneInString(t.src[t.pos:])
			t.out.WriteString(t.src[t.pos : t.pos+n])
			t.pos += n
		}
	}
}

// escape translates the escape at t.pos (a backslash).
func (t *translator) escape(inClass bool) error {
	at := t.pos
	t.pos++
	if !t.more() {
		return fmt.Errorf("a trailing backslash")
	}
	c := t.src[t.pos]
	t.pos++
	switch c {
	case 'd', 'D', 'w', 'W', 't', 'n', 'v', 'f', 'r':
		t.out.WriteByte('\\')
		t.out.WriteByte(c)
	case 'b', 'B':
		switch {
		case inClass && c == 'b':
			t.out.WriteString(`\x08`)
		case inClass:
			return fmt.Errorf(`\B inside a class at offset %d`, at)
		default:
			t.out.WriteByte('\\')
			t.out.WriteByte(c)
		}
	case 's':
		if inClass {
			t.out.WriteString(spaceClass)
		} else {
			t.out.WriteString("[" + spaceClass + "]")
		}
	case 'S':
		if inClass {
			t.out.WriteString(nonSpaceClass)
		} else {
			t.out.WriteString("[^" + spaceClass + "]")
		}
	case '0':
		if t.more() && t.src[t.pos] >= '0' && t.src[t.pos] <= '9' {
			return fmt.Errorf("a legacy octal escape at offset %d", at)
		}
		t.out.WriteString(`\x00`)
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return fmt.Errorf("a back-reference at offset %d, which cannot be matched in linear time", at)
	case 'k':
		return fmt.Errorf("a named back-reference at offset %d, which cannot be matched in linear time", at)
	case 'x':
		if t.pos+2 > len(t.src) || !isHex(t.src[t.pos:t.pos+2]) {
			return fmt.Errorf(`an incomplete \x escape at offset %d`, at)
		}
		t.out.WriteString(`\x` + t.src[t.pos:t.pos+2])
		t.pos += 2
	case 'u':
		r, err := t.unicodeEscape(at)
		if err != nil {
			return err
		}
		t.out.WriteString(hexRune(r))
	case 'c':
		if !t.more() || !('a' <= t.src[t.pos]|0x20 && t.src[t.pos]|0x20 <= 'z') {
			return fmt.Errorf(`an incomplete \c escape at offset %d`, at)
		}
		t.out.WriteString(hexRune(rune(t.src[t.pos] % 32)))
		t.pos++
	case 'p', 'P':
		if !t.peek("{") {
			return fmt.Errorf(`\%c without a property name at offset %d`, c, at)
		}
		end := strings.IndexByte(t.src[t.pos:], '}')
		if end < 0 {
			return fmt.Errorf(`an unterminated \%c{ at offset %d`, c, at)
		}
		name := t.src[t.pos+1 : t.pos+end]
		t.pos += end + 1
		goName, ok := property(name)
		if !ok {
			return fmt.Errorf(`the Unicode property %q at offset %d, which Go's regexp does not have`, name, at)
		}
		t.out.WriteString(`\` + string(c) + "{" + goName + "}")
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/', '-':
		if c == '-' && !inClass {
			return fmt.Errorf(`\- outside a class at offset %d`, at)
		}
		t.out.WriteByte('\\')
		t.out.WriteByte(c)
	default:
		return fmt.Errorf("the escape \\%c at offset %d, which ECMA-262 refuses in a Unicode pattern", c, at)
	}
	return nil
}

// unicodeEscape reads \uXXXX (a surrogate pair as one code point) or
// \u{X…}; t.pos is just past the u.
func (t *translator) unicodeEscape(at int) (rune, error) {
	if t.peek("{") {
		end := strings.IndexByte(t.src[t.pos:], '}')
		if end < 2 {
			return 0, fmt.Errorf(`an incomplete \u{ escape at offset %d`, at)
		}
		v, err := strconv.ParseUint(t.src[t.pos+1:t.pos+end], 16, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, fmt.Errorf(`an invalid \u{ escape at offset %d`, at)
		}
		t.pos += end + 1
		return rune(v), nil
	}
	hex4 := func() (rune, bool) {
		if t.pos+4 > len(t.src) || !isHex(t.src[t.pos:t.pos+4]) {
			return 0, false
		}
		v, _ := strconv.ParseUint(t.src[t.pos:t.pos+4], 16, 32)
		t.pos += 4
		return rune(v), true
	}
	r, ok := hex4()
	if !ok {
		return 0, fmt.Errorf(`an incomplete \u escape at offset %d`, at)
	}
	if utf16.IsSurrogate(r) && r < 0xdc00 && t.peek(`\u`) {
		save := t.pos
		t.pos += 2
		if lo, ok := hex4(); ok {
			if p := utf16.DecodeRune(r, lo); p != unicode.ReplacementChar {
				return p, nil
			}
		}
		t.pos = save
	}
	if utf16.IsSurrogate(r) {
		return 0, fmt.Errorf(`a lone surrogate \u escape at offset %d`, at)
	}
	return r, nil
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// property maps an ECMA-262 property name to Go's, when Go's regexp has
// it: a general category, by its short or long name or an alias
// (Lu, Uppercase_Letter, digit; bare or after gc= or General_Category=), or
// a script (sc=, Script=). Script_Extensions and binary properties but Any
// are not supported. Names are case-sensitive, as in ECMA-262.
func property(name string) (string, bool) {
	key, val, has := strings.Cut(name, "=")
	if !has {
		if name == "Any" {
			return "Any", true
		}
		return category(name)
	}
	switch key {
	case "gc", "General_Category":
		return category(val)
	case "sc", "Script":
		if _, ok := unicode.Scripts[val]; ok {
			return val, true
		}
	}
	return "", false
}

// category maps a General_Category value (short name, long name or alias,
// exactly as Unicode's PropertyValueAliases spells it) to Go's short name.
func category(name string) (string, bool) {
	if _, ok := unicode.Categories[name]; ok {
		return name, true
	}
	if short, ok := unicode.CategoryAliases[name]; ok {
		return short, true
	}
	return "", false
}
