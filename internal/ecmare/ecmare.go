// Package ecmare compiles a JSON Schema "pattern", an ECMA-262 regular
// expression with the "u" flag (as JSON Schema 2020-12 asks), into a Go
// regexp that matches the same strings, in linear time.
//
// The syntax is ECMA-262's Unicode mode, without flags, as of its 2024
// edition: a pattern it refuses there is an error (an identity escape of
// a letter such as \z, a lone "{", "}" or "]", a quantified assertion, a
// class range bounded by a class escape, a group modifier such as (?i) or
// a duplicate group name, which later editions allow, a property name
// spelled otherwise than exactly). Every pattern it accepts translates,
// except these, which are errors too:
//
//   - lookaround ((?=, (?!, (?<=, (?<!) and back-references (\1, \k<name>),
//     which no linear-time matcher can do;
//   - \p{…} or \P{…} of Script_Extensions (scx=), and of the binary
//     properties whose data Go's unicode package lacks: Bidi_Mirrored,
//     Case_Ignorable, Changes_When_* (CWCF, CWCM, CWKCF, CWL, CWT, CWU),
//     Default_Ignorable_Code_Point, Emoji, Emoji_Component, Emoji_Modifier,
//     Emoji_Modifier_Base, Emoji_Presentation, Extended_Pictographic,
//     XID_Start and XID_Continue;
//   - a pattern whose translation exceeds Go's regexp limits or this
//     package's: a program of more than 100,000 instructions (repetition
//     counts expanded), 1 MiB of Go syntax, or groups nested more than
//     1000 deep.
//
// An *Error says which. The caller decides what an error means; the
// generator reports it, and the gate refuses every value the pattern
// would check (fail closed).
//
// Meaning: a string matches if the pattern matches some part of it, as
// RegExp.prototype.test does; the regexp returned is meant for that, not
// for submatches (its groups do not capture). Characters are code points:
// "." and a class match one, astral ones included; "." excludes the line
// terminators \n, \r, U+2028 and U+2029; \s is ECMA-262's white space and
// line terminators; \d, \w and \b are ASCII; ^ and $ are the ends of the
// string. \p{…} and \P{…} take a General_Category value by short or long
// name or alias, with or without General_Category= or gc=; a Script value
// by long or short name, with Script= or sc=; or a binary property by
// name or alias. They mean what Go's unicode tables say (Unicode
// unicode.Version): an engine with a later Unicode differs on the code
// points Unicode has changed since, and a property value added since is
// an error here. A \u escape of a lone surrogate matches nothing, since no
// valid UTF-8 string holds one; strings that are not valid UTF-8 have no
// ECMA-262 meaning.
package ecmare

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// An Error says why a pattern cannot be compiled with ECMA-262 meaning.
type Error struct {
	Pattern string
	Reason  string
	// refused is true when ECMA-262 accepts the pattern and it has no
	// translation; false when ECMA-262 refuses it.
	refused bool
}

func (e *Error) Error() string {
	return fmt.Sprintf("pattern %q: %s", e.Pattern, e.Reason)
}

// maxTranslation bounds the length of a translation, in bytes.
const maxTranslation = 1 << 20

// Compile translates an ECMA-262 pattern and compiles it.
func Compile(pattern string) (*regexp.Regexp, error) {
	src, err := Translate(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, &Error{pattern, "Go's regexp refuses its translation (a bug in ecmare): " + err.Error(), false}
	}
	return re, nil
}

// maxInsts bounds the size of a translation's compiled program, as
// progSize counts it: compiling and matching take time in proportion.
const maxInsts = 100_000

// Translate returns the Go regexp syntax for an ECMA-262 pattern.
func Translate(pattern string) (string, error) {
	if !utf8.ValidString(pattern) {
		return "", &Error{pattern, "not valid UTF-8", false}
	}
	t := &translator{src: pattern, names: map[string]bool{}}
	out, err := t.run()
	if err != nil {
		return "", &Error{pattern, err.Error(), err == errTooDeep}
	}
	if t.refusal != "" {
		return "", &Error{pattern, t.refusal, true}
	}
	if len(out) > maxTranslation {
		return "", &Error{pattern, fmt.Sprintf("its translation exceeds Go's regexp limits (%d bytes)", maxTranslation), true}
	}
	re, err := syntax.Parse(out, syntax.Perl)
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && (se.Code == syntax.ErrLarge || se.Code == syntax.ErrNestingDepth) {
			return "", &Error{pattern, "its translation exceeds Go's regexp limits: " + err.Error(), true}
		}
		return "", &Error{pattern, "Go's regexp refuses its translation (a bug in ecmare): " + err.Error(), false}
	}
	if n := progSize(re); n > maxInsts {
		return "", &Error{pattern, fmt.Sprintf("its translation exceeds Go's regexp limits (it compiles to about %d instructions, more than %d)", n, maxInsts), true}
	}
	return out, nil
}

// progSize estimates the instructions re compiles to, counted
// repetitions expanded.
func progSize(re *syntax.Regexp) int64 {
	var subs int64
	for _, s := range re.Sub {
		subs += progSize(s)
	}
	switch re.Op {
	case syntax.OpRepeat:
		if re.Max == -1 {
			return int64(re.Min)*subs + subs + 1
		}
		return int64(re.Min)*subs + int64(re.Max-re.Min)*(subs+1)
	case syntax.OpLiteral:
		return int64(len(re.Rune))
	}
	return 1 + subs
}

type translator struct {
	src     string
	pos     int
	depth   int
	groups  int             // capturing groups so far
	names   map[string]bool // group names so far
	refusal string          // why the pattern, if valid, has no translation
	backref []backref       // to check once every group is known
}

type backref struct {
	at   int
	num  int    // \N, or 0
	name string // \k<name>
}

// A piece is the Go syntax of a translated part, and the largest product
// of the counts of nested counted repetitions in it: Go's regexp refuses a
// product above 1000.
type piece struct {
	s    string
	prod int
}

// maxDepth bounds the nesting of groups: Go's regexp refuses deeper
// parse trees.
const maxDepth = 1000

var errTooDeep = fmt.Errorf("groups nested more than %d deep, beyond Go's regexp limits", maxDepth)

// refuse records the first reason a valid pattern has no translation; the
// translation goes on, to find any syntax error ECMA-262 would report.
func (t *translator) refuse(format string, args ...any) {
	if t.refusal == "" {
		t.refusal = fmt.Sprintf(format, args...)
	}
}

func (t *translator) more() bool { return t.pos < len(t.src) }

func (t *translator) peek(s string) bool { return strings.HasPrefix(t.src[t.pos:], s) }

func (t *translator) run() (string, error) {
	p, err := t.disjunction()
	if err != nil {
		return "", err
	}
	if t.more() { // only ")" ends a disjunction early
		return "", fmt.Errorf("an unmatched ')' at offset %d", t.pos)
	}
	for _, b := range t.backref {
		switch {
		case b.name != "" && !t.names[b.name]:
			return "", fmt.Errorf("a back-reference at offset %d to a group name the pattern lacks", b.at)
		case b.name == "" && b.num > t.groups:
			return "", fmt.Errorf("a back-reference at offset %d to a group the pattern lacks", b.at)
		}
		t.refuse("a back-reference at offset %d, which cannot be matched in linear time", b.at)
	}
	return p.s, nil
}

func (t *translator) disjunction() (piece, error) {
	var b strings.Builder
	prod := 1
	for {
		a, err := t.alternative()
		if err != nil {
			return piece{}, err
		}
		b.WriteString(a.s)
		prod = max(prod, a.prod)
		if b.Len() > maxTranslation {
			t.refuse("its translation exceeds %d bytes", maxTranslation)
			b.Reset()
		}
		if !t.more() || t.src[t.pos] != '|' {
			return piece{b.String(), prod}, nil
		}
		t.pos++
		b.WriteByte('|')
	}
}

func (t *translator) alternative() (piece, error) {
	var b strings.Builder
	prod := 1
	for t.more() && t.src[t.pos] != '|' && t.src[t.pos] != ')' {
		at := t.pos
		p, quantifiable, err := t.term()
		if err != nil {
			return piece{}, err
		}
		q, ok, err := t.quantifier()
		if err != nil {
			return piece{}, err
		}
		if ok {
			if !quantifiable {
				return piece{}, fmt.Errorf("a quantifier at offset %d with nothing to repeat (the assertion at offset %d)", q.at, at)
			}
			if p, err = t.repeat(p, q); err != nil {
				return piece{}, err
			}
		}
		b.WriteString(p.s)
		prod = max(prod, p.prod)
		if b.Len() > maxTranslation {
			t.refuse("its translation exceeds %d bytes", maxTranslation)
			b.Reset()
		}
	}
	return piece{b.String(), prod}, nil
}

// term translates one assertion or atom at t.pos; quantifiable is false
// for an assertion.
func (t *translator) term() (p piece, quantifiable bool, err error) {
	at := t.pos
	switch c := t.src[t.pos]; c {
	case '^', '$':
		t.pos++
		return piece{string(c), 1}, false, nil
	case '\\':
		if t.peek(`\b`) || t.peek(`\B`) {
			t.pos += 2
			return piece{t.src[at:t.pos], 1}, false, nil
		}
		p, err := t.atomEscape()
		return p, true, err
	case '.':
		t.pos++
		return piece{setSyntax(dotSet), 1}, true, nil
	case '[':
		p, err := t.class()
		return p, true, err
	case '(':
		return t.group()
	case '*', '+', '?':
		return piece{}, false, fmt.Errorf("a quantifier at offset %d with nothing to repeat", at)
	case '{':
		if _, ok, _ := t.quantifier(); ok {
			return piece{}, false, fmt.Errorf("a quantifier at offset %d with nothing to repeat", at)
		}
		return piece{}, false, fmt.Errorf("a lone '{' at offset %d", at)
	case '}', ']':
		return piece{}, false, fmt.Errorf("a lone %q at offset %d", c, at)
	default:
		r, n := utf8.DecodeRuneInString(t.src[t.pos:])
		t.pos += n
		return piece{literal(r), 1}, true, nil
	}
}

// literal is the Go syntax matching the code point r.
func literal(r rune) string {
	if utf16.IsSurrogate(r) {
		return setSyntax(nil)
	}
	if !unicode.IsGraphic(r) {
		return fmt.Sprintf(`\x{%x}`, r)
	}
	return regexp.QuoteMeta(string(r))
}

func (t *translator) group() (piece, bool, error) {
	at := t.pos
	lookaround := false
	switch {
	case t.peek("(?="), t.peek("(?!"):
		t.pos += 3
		lookaround = true
	case t.peek("(?<="), t.peek("(?<!"):
		t.pos += 4
		lookaround = true
	case t.peek("(?:"):
		t.pos += 3
	case t.peek("(?<"):
		t.pos += 3
		name, err := t.groupName()
		if err != nil {
			return piece{}, false, err
		}
		if t.names[name] {
			return piece{}, false, fmt.Errorf("a duplicate group name %q at offset %d", name, at)
		}
		t.names[name] = true
		t.groups++
	case t.peek("(?"):
		return piece{}, false, fmt.Errorf("an invalid group at offset %d: ECMA-262 (2023) has no group modifier such as (?i)", at)
	default:
		t.pos++
		t.groups++
	}
	if t.depth++; t.depth > maxDepth {
		return piece{}, false, errTooDeep
	}
	p, err := t.disjunction()
	if err != nil {
		return piece{}, false, err
	}
	t.depth--
	if !t.more() {
		return piece{}, false, fmt.Errorf("an unterminated group at offset %d", at)
	}
	t.pos++ // ")"
	if lookaround {
		t.refuse("lookaround at offset %d, which cannot be matched in linear time", at)
		return piece{}, false, nil
	}
	return piece{"(?:" + p.s + ")", p.prod}, true, nil
}

// groupName reads a group name and its ">"; t.pos is just past "<".
func (t *translator) groupName() (string, error) {
	at := t.pos
	var b strings.Builder
	for first := true; ; first = false {
		if !t.more() {
			return "", fmt.Errorf("an unterminated group name at offset %d", at)
		}
		var r rune
		switch {
		case t.src[t.pos] == '>' && !first:
			t.pos++
			return b.String(), nil
		case t.peek(`\u`):
			t.pos += 2
			var err error
			if r, err = t.unicodeEscape(t.pos - 2); err != nil {
				return "", err
			}
		default:
			var n int
			r, n = utf8.DecodeRuneInString(t.src[t.pos:])
			t.pos += n
		}
		ok := r == '$' || r == '_'
		if first {
			ok = ok || inSet(idStartSet(), r)
		} else {
			ok = ok || r == 0x200c || r == 0x200d || inSet(idContinueSet(), r)
		}
		if !ok {
			return "", fmt.Errorf("an invalid group name at offset %d", at)
		}
		b.WriteRune(r)
	}
}

type quant struct {
	at       int
	min, max int64 // max -1: unbounded
	lazy     bool
}

// quantifier reads the quantifier at t.pos, if there is one.
func (t *translator) quantifier() (quant, bool, error) {
	q := quant{at: t.pos}
	if !t.more() {
		return q, false, nil
	}
	switch t.src[t.pos] {
	case '*':
		q.min, q.max = 0, -1
		t.pos++
	case '+':
		q.min, q.max = 1, -1
		t.pos++
	case '?':
		q.min, q.max = 0, 1
		t.pos++
	case '{':
		end := strings.IndexByte(t.src[t.pos:], '}')
		if end < 0 {
			return q, false, nil
		}
		lo, hi, comma := strings.Cut(t.src[t.pos+1:t.pos+end], ",")
		if !digits(lo) || comma && hi != "" && !digits(hi) {
			return q, false, nil
		}
		q.min, q.max = count(lo), count(lo)
		if comma {
			q.max = -1
			if hi != "" {
				q.max = count(hi)
				if q.min > q.max {
					return q, false, fmt.Errorf("numbers out of order in the quantifier at offset %d", q.at)
				}
			}
		}
		t.pos += end + 1
	default:
		return q, false, nil
	}
	if t.peek("?") {
		q.lazy = true
		t.pos++
	}
	return q, true, nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// hugeCount stands for every count of 10^18 or more: no string in memory
// has that many code points, so a quantifier's bound of hugeCount is no
// bound.
const hugeCount = 1 << 62

// count is the value of a decimal count, at most hugeCount.
func count(s string) int64 {
	s = strings.TrimLeft(s, "0")
	if len(s) > 18 {
		return hugeCount
	}
	v, _ := strconv.ParseInt("0"+s, 10, 64)
	return min(v, hugeCount)
}

// repeat translates p repeated as q says. Go's regexp refuses counts whose
// product over nested counted repetitions exceeds 1000, so a larger count
// is written as a sequence of repetitions of at most budget each.
func (t *translator) repeat(p piece, q quant) (piece, error) {
	lazy := ""
	if q.lazy {
		lazy = "?"
	}
	if q.max == hugeCount {
		q.max = -1
	}
	budget := int64(1000 / p.prod)
	switch {
	case q.min == 0 && q.max == -1:
		return piece{p.s + "*" + lazy, p.prod}, nil
	case q.min == 1 && q.max == -1:
		return piece{p.s + "+" + lazy, p.prod}, nil
	case q.min == 0 && q.max == 1:
		return piece{p.s + "?" + lazy, p.prod}, nil
	case q.max == 0:
		return piece{"(?:)", 1}, nil
	case q.max == -1 && q.min <= budget:
		return piece{fmt.Sprintf("%s{%d,}%s", p.s, q.min, lazy), p.prod * int(q.min)}, nil
	case q.max != -1 && q.max <= budget:
		if q.min == q.max {
			return piece{fmt.Sprintf("%s{%d}", p.s, q.min), p.prod * int(q.max)}, nil
		}
		return piece{fmt.Sprintf("%s{%d,%d}%s", p.s, q.min, q.max, lazy), p.prod * int(q.max)}, nil
	}
	// p{min} then p* or p{0,max-min}, each in chunks of at most budget.
	opt := q.max - q.min
	chunks := (q.min+budget-1)/budget + (opt+budget-1)/budget
	if q.max == -1 {
		chunks = (q.min+budget-1)/budget + 1
	}
	if chunks > maxInsts || chunks > maxTranslation/int64(len(p.s)+16) {
		t.refuse("the repetition count at offset %d, whose translation exceeds Go's regexp limits", q.at)
		return piece{"", 1}, nil
	}
	var b strings.Builder
	prod := p.prod
	write := func(n int64, optional bool) {
		for n > 0 {
			k := min(n, budget)
			n -= k
			switch {
			case k == 1 && optional:
				b.WriteString(p.s + "?")
			case k == 1:
				b.WriteString(p.s)
			case optional:
				fmt.Fprintf(&b, "%s{0,%d}", p.s, k)
			default:
				fmt.Fprintf(&b, "%s{%d}", p.s, k)
			}
			if k > 1 {
				prod = max(prod, p.prod*int(k))
			}
		}
	}
	write(q.min, false)
	if q.max == -1 {
		b.WriteString(p.s + "*")
	} else {
		write(opt, true)
	}
	return piece{"(?:" + b.String() + ")", prod}, nil
}

// atomEscape translates the escape at t.pos outside a class.
func (t *translator) atomEscape() (piece, error) {
	at := t.pos
	t.pos++
	if !t.more() {
		return piece{}, fmt.Errorf("a trailing backslash")
	}
	c := t.src[t.pos]
	switch {
	case c == 'd' || c == 'D' || c == 'w' || c == 'W':
		t.pos++
		return piece{t.src[at:t.pos], 1}, nil
	case c == 's' || c == 'S' || c == 'p' || c == 'P':
		s, err := t.classEscape(at)
		return piece{setSyntax(s), 1}, err
	case '1' <= c && c <= '9':
		end := t.pos
		for end < len(t.src) && '0' <= t.src[end] && t.src[end] <= '9' {
			end++
		}
		n := count(t.src[t.pos:end])
		t.pos = end
		t.backref = append(t.backref, backref{at: at, num: int(min(n, 1<<30))})
		return piece{"", 1}, nil
	case c == 'k':
		t.pos++
		if !t.peek("<") {
			return piece{}, fmt.Errorf(`a \k without a group name at offset %d`, at)
		}
		t.pos++
		name, err := t.groupName()
		if err != nil {
			return piece{}, err
		}
		t.backref = append(t.backref, backref{at: at, name: name})
		return piece{"", 1}, nil
	}
	r, err := t.characterEscape(at)
	if err != nil {
		return piece{}, err
	}
	return piece{literal(r), 1}, nil
}

// characterEscape reads a CharacterEscape; t.pos is just past the backslash.
func (t *translator) characterEscape(at int) (rune, error) {
	c := t.src[t.pos]
	t.pos++
	switch c {
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'v':
		return '\v', nil
	case 'c':
		if !t.more() || !('a' <= t.src[t.pos]|0x20 && t.src[t.pos]|0x20 <= 'z') {
			return 0, fmt.Errorf(`a \c without an ASCII letter at offset %d`, at)
		}
		t.pos++
		return rune(t.src[t.pos-1] % 32), nil
	case '0':
		if t.more() && '0' <= t.src[t.pos] && t.src[t.pos] <= '9' {
			return 0, fmt.Errorf("a legacy octal escape at offset %d", at)
		}
		return 0, nil
	case 'x':
		if t.pos+2 > len(t.src) || !isHex(t.src[t.pos:t.pos+2]) {
			return 0, fmt.Errorf(`an incomplete \x escape at offset %d`, at)
		}
		v, _ := strconv.ParseUint(t.src[t.pos:t.pos+2], 16, 8)
		t.pos += 2
		return rune(v), nil
	case 'u':
		return t.unicodeEscape(at)
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/':
		return rune(c), nil
	}
	r, _ := utf8.DecodeRuneInString(t.src[t.pos-1:])
	return 0, fmt.Errorf("the escape \\%c at offset %d, which ECMA-262 refuses in a Unicode pattern", r, at)
}

// unicodeEscape reads \uXXXX (a surrogate pair as one code point) or
// \u{X…}; t.pos is just past the u.
func (t *translator) unicodeEscape(at int) (rune, error) {
	if t.peek("{") {
		end := strings.IndexByte(t.src[t.pos:], '}')
		if end < 2 || !isHex(t.src[t.pos+1:t.pos+end]) {
			return 0, fmt.Errorf(`an invalid \u{ escape at offset %d`, at)
		}
		hex := strings.TrimLeft(t.src[t.pos+1:t.pos+end], "0")
		v, err := strconv.ParseUint("0"+hex, 16, 32)
		if len(hex) > 6 || err != nil || v > unicode.MaxRune {
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
	if 0xd800 <= r && r < 0xdc00 && t.peek(`\u`) {
		save := t.pos
		t.pos += 2
		if lo, ok := hex4(); ok && 0xdc00 <= lo && lo <= 0xdfff {
			return utf16.DecodeRune(r, lo), nil
		}
		t.pos = save
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

// classEscape reads \s, \S, \p{…} or \P{…} at t.pos-1 (t.pos at the letter).
func (t *translator) classEscape(at int) (runeSet, error) {
	c := t.src[t.pos]
	t.pos++
	switch c {
	case 'd':
		return digitSet, nil
	case 'D':
		return complement(digitSet), nil
	case 'w':
		return wordSet, nil
	case 'W':
		return complement(wordSet), nil
	case 's':
		return spaceSet, nil
	case 'S':
		return complement(spaceSet), nil
	}
	if !t.peek("{") {
		return nil, fmt.Errorf(`a \%c without a property name at offset %d`, c, at)
	}
	end := strings.IndexByte(t.src[t.pos:], '}')
	if end < 0 {
		return nil, fmt.Errorf(`an unterminated \%c{ at offset %d`, c, at)
	}
	name := t.src[t.pos+1 : t.pos+end]
	t.pos += end + 1
	set, ok, refusal := lookupProperty(name)
	switch {
	case !ok && refusal == "":
		return nil, fmt.Errorf(`\%c{%s} at offset %d: ECMA-262 has no such Unicode property (as of Unicode %s)`, c, name, at, unicode.Version)
	case !ok:
		t.refuse(`\%c{%s} at offset %d: %s`, c, name, at, refusal)
	case c == 'P':
		return complement(set), nil
	}
	return set, nil
}

// class translates a character class, [ at t.pos.
func (t *translator) class() (piece, error) {
	start := t.pos
	t.pos++
	neg := t.peek("^")
	if neg {
		t.pos++
	}
	var sets []runeSet
	for {
		if !t.more() {
			return piece{}, fmt.Errorf("an unterminated character class at offset %d", start)
		}
		if t.src[t.pos] == ']' {
			t.pos++
			break
		}
		at := t.pos
		lo, loSet, err := t.classAtom()
		if err != nil {
			return piece{}, err
		}
		if !t.peek("-") || t.pos+1 >= len(t.src) || t.src[t.pos+1] == ']' {
			if loSet == nil {
				loSet = runeSet{{lo, lo}}
			}
			sets = append(sets, loSet)
			continue
		}
		t.pos++ // "-"
		hi, hiSet, err := t.classAtom()
		if err != nil {
			return piece{}, err
		}
		switch {
		case loSet != nil || hiSet != nil:
			return piece{}, fmt.Errorf("a class escape as a bound of the range at offset %d", at)
		case lo > hi:
			return piece{}, fmt.Errorf("a range out of order at offset %d", at)
		}
		sets = append(sets, runeSet{{lo, hi}})
	}
	s := union(sets...)
	if neg {
		s = complement(s)
	}
	return piece{setSyntax(s), 1}, nil
}

// classAtom reads one code point of a class, or the set of a class escape.
func (t *translator) classAtom() (rune, runeSet, error) {
	if t.src[t.pos] != '\\' {
		r, n := utf8.DecodeRuneInString(t.src[t.pos:])
		t.pos += n
		return r, nil, nil
	}
	at := t.pos
	t.pos++
	if !t.more() {
		return 0, nil, fmt.Errorf("a trailing backslash")
	}
	switch c := t.src[t.pos]; {
	case c == 'b':
		t.pos++
		return '\b', nil, nil
	case c == '-':
		t.pos++
		return '-', nil, nil
	case strings.IndexByte("dDwWsSpP", c) >= 0:
		s, err := t.classEscape(at)
		if s == nil {
			s = runeSet{} // a refused property: still a class escape
		}
		return 0, s, err
	case c == 'B' || c == 'k' || '1' <= c && c <= '9':
		return 0, nil, fmt.Errorf("the escape \\%c in a class at offset %d, which ECMA-262 refuses in a Unicode pattern", c, at)
	}
	r, err := t.characterEscape(at)
	return r, nil, err
}

// setSyntax is a Go class matching the code points of s, less surrogates
// (no valid UTF-8 string holds one).
func setSyntax(s runeSet) string {
	s = minus(s, surrogates)
	if len(s) == 0 {
		return `[^\x00-\x{10FFFF}]`
	}
	if len(s) == 1 && s[0][0] == s[0][1] {
		return literal(s[0][0])
	}
	if name, neg := goCategory(s); name != "" {
		if neg {
			return `\P{` + name + `}`
		}
		return `\p{` + name + `}`
	}
	var b strings.Builder
	b.WriteByte('[')
	for _, r := range s {
		classRune(&b, r[0])
		if r[1] != r[0] {
			if r[1] != r[0]+1 {
				b.WriteByte('-')
			}
			classRune(&b, r[1])
		}
	}
	b.WriteByte(']')
	return b.String()
}

// goCategory returns the general category whose set (less surrogates) is
// s, or whose complement is, if one is: Go's regexp resolves each key of
// unicode.Categories to that table, so \p{name} means s exactly.
func goCategory(s runeSet) (name string, neg bool) {
	if len(s) < 16 {
		return "", false
	}
	catOnce.Do(func() {
		catSets = map[string][2]runeSet{}
		for name := range unicode.Categories {
			c := minus(categories(name), surrogates)
			catSets[name] = [2]runeSet{c, minus(complement(c), surrogates)}
		}
	})
	for name, c := range catSets {
		if slices.Equal(s, c[0]) {
			return name, false
		}
		if slices.Equal(s, c[1]) {
			return name, true
		}
	}
	return "", false
}

var (
	catOnce sync.Once
	catSets map[string][2]runeSet // a category's set and its complement, less surrogates
)

func classRune(b *strings.Builder, r rune) {
	if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
		b.WriteRune(r)
		return
	}
	fmt.Fprintf(b, `\x{%x}`, r)
}

func inSet(s runeSet, r rune) bool {
	lo, hi := 0, len(s)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < s[m][0]:
			hi = m
		case r > s[m][1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

func idStartSet() runeSet {
	s, _, _ := lookupProperty("ID_Start")
	return s
}

func idContinueSet() runeSet {
	s, _, _ := lookupProperty("ID_Continue")
	return s
}
