package argengine

import (
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The engine's argument parser parses the arguments once into a flat tape:
// one node per JSON value, in document order, with strings and numbers as
// substrings of one private copy of the arguments.
//
// The parser accepts exactly the JSON that encoding/json accepts (RFC 8259;
// the caller has already refused invalid UTF-8), decodes string escapes as
// encoding/json does (it calls it for any string with a backslash), parses
// numbers with strconv.ParseFloat as encoding/json does for an any, and
// refuses what the gate refuses: duplicate keys in an object, nesting deeper
// than MaxArgsDepth, trailing data, and numbers out of float64's range
// (encoding/json refuses those when it decodes into an any).

type tapeKind uint8

const (
	tNull tapeKind = iota
	tFalse
	tTrue
	tNumber
	tString
	tArray
	tObject
)

// tapeNode is one JSON value. An array's or object's elements follow it;
// end is the index just past its last descendant, so the next sibling of
// node i is at tape[i].end.
type tapeNode struct {
	key string  // member name, when the parent is an object
	str string  // string value, or the literal of a number
	num float64 // a number's value as encoding/json gives it to an any
	end int32   // index past the last descendant (i+1 for a scalar)
	n   int32   // number of elements or members
	// at and stop are the value's bytes in src, src[at:stop] (what a
	// json.RawMessage decodes to).
	at, stop int32
	kind     tapeKind
}

type tape struct {
	nodes []tapeNode
	src   string
	pos   int
	// ints are the integer-valued literals not written as integers (1.0,
	// 1e2), with the integer each is: the typed decode reads them so.
	ints []intLiteral
	// strictUTF8 makes the parse refuse a string that is not valid UTF-8
	// (errTapeUTF8), for the error of arguments the gate already found
	// invalid (badUTF8); otherwise the parser passes over non-ASCII bytes.
	strictUTF8 bool
}

// intLiteral is src[start:end], an integer-valued number literal with a
// fraction or an exponent, and its integer form.
type intLiteral struct {
	start, end int
	text       string
}

var tapePool = sync.Pool{New: func() any { return &tape{nodes: make([]tapeNode, 0, 64)} }}

func getTape() *tape { return tapePool.Get().(*tape) }

func putTape(t *tape) {
	if cap(t.nodes) > 4096 {
		return // let an unusually large tape go
	}
	clear(t.nodes) // drop references into the arguments
	t.nodes, t.src, t.pos, t.ints, t.strictUTF8 = t.nodes[:0], "", 0, t.ints[:0], false
	tapePool.Put(t)
}

var (
	errTapeSyntax   = errors.New("arguments are not valid JSON: invalid character")
	errTapeEOF      = errors.New("arguments are not valid JSON: unexpected end of input")
	errTapeTrailing = errors.New("trailing data after the arguments")
	errTapeUTF8     = errors.New("a string or member name is not valid UTF-8")
	errTapeDeep     = errors.New("arguments nest too deeply")
	errTapeRange    = errors.New("arguments hold a number out of float64 range")
)

// parse fills t with the one JSON value of s. Its error is a *Refusal
// at the value whose parse failed.
func (t *tape) parse(s string) error {
	t.nodes, t.src, t.pos, t.ints = t.nodes[:0], s, 0, t.ints[:0]
	if err := t.value("", 0); err != nil {
		return parseError(err)
	}
	t.skipSpace()
	if t.pos != len(t.src) {
		return refusal("", RuleSyntax, errTapeTrailing)
	}
	return nil
}

// next consumes what follows a member or an element: a comma (another
// follows: true) or the closing byte of its object or array (false).
func (t *tape) next(closing byte) (bool, error) {
	t.skipSpace()
	if t.pos >= len(t.src) {
		return false, errTapeEOF
	}
	switch t.src[t.pos] {
	case ',':
		t.pos++
		return true, nil
	case closing:
		t.pos++
		return false, nil
	}
	return false, errTapeSyntax
}

func (t *tape) skipSpace() {
	for t.pos < len(t.src) {
		switch t.src[t.pos] {
		case ' ', '\t', '\n', '\r':
			t.pos++
		default:
			return
		}
	}
}

func (t *tape) value(key string, depth int) error {
	if depth > MaxArgsDepth {
		return errTapeDeep
	}
	t.skipSpace()
	if t.pos >= len(t.src) {
		return errTapeEOF
	}
	i := len(t.nodes)
	t.nodes = append(t.nodes, tapeNode{key: key, at: int32(t.pos)})
	switch c := t.src[t.pos]; c {
	case '{':
		t.pos++
		t.nodes[i].kind = tObject
		n := int32(0)
		var seen map[string]struct{}
		t.skipSpace()
		if t.pos < len(t.src) && t.src[t.pos] == '}' {
			t.pos++
		} else {
			for {
				t.skipSpace()
				if t.pos >= len(t.src) {
					return errTapeEOF
				}
				if t.src[t.pos] != '"' {
					return errTapeSyntax
				}
				k, err := t.str()
				if err != nil {
					if err == errLoneSurrogate {
						return &Refusal{Rule: RuleLoneSurrogate, Err: errors.New("a member name holds " + err.Error())}
					}
					return err
				}
				if t.dupKey(i, n, k, &seen) {
					return &Refusal{Rule: RuleDuplicateKey, Err: errors.New("duplicate key " + truncQuote(k)), segs: []string{k}}
				}
				t.skipSpace()
				if t.pos >= len(t.src) {
					return errTapeEOF
				}
				if t.src[t.pos] != ':' {
					return errTapeSyntax
				}
				t.pos++
				if err := t.value(k, depth+1); err != nil {
					return at(err, k)
				}
				n++
				if more, err := t.next('}'); err != nil {
					return err
				} else if !more {
					break
				}
			}
		}
		t.nodes[i].n = n
	case '[':
		t.pos++
		t.nodes[i].kind = tArray
		n := int32(0)
		t.skipSpace()
		if t.pos < len(t.src) && t.src[t.pos] == ']' {
			t.pos++
		} else {
			for {
				if err := t.value("", depth+1); err != nil {
					return at(err, strconv.Itoa(int(n)))
				}
				n++
				if more, err := t.next(']'); err != nil {
					return err
				} else if !more {
					break
				}
			}
		}
		t.nodes[i].n = n
	case '"':
		s, err := t.str()
		if err != nil {
			return err
		}
		t.nodes[i].kind, t.nodes[i].str = tString, s
	case 't':
		if err := t.lit("true"); err != nil {
			return err
		}
		t.nodes[i].kind = tTrue
	case 'f':
		if err := t.lit("false"); err != nil {
			return err
		}
		t.nodes[i].kind = tFalse
	case 'n':
		if err := t.lit("null"); err != nil {
			return err
		}
		t.nodes[i].kind = tNull
	default:
		if c != '-' && (c < '0' || c > '9') {
			return errTapeSyntax
		}
		start := t.pos
		lit, err := t.number()
		if err != nil {
			return err
		}
		if len(lit) > MaxNumberLen {
			return errNumberLong
		}
		f, err := parseFloatLiteral(lit)
		if err != nil {
			return errTapeRange
		}
		if notInt(lit) && !fractionOnly(lit) {
			d, ok := parseDecimal(lit)
			if !ok {
				return errNumberExp
			}
			if it, ok := d.integerText(); ok {
				t.ints = append(t.ints, intLiteral{start, t.pos, it})
			}
		}
		t.nodes[i].kind, t.nodes[i].str, t.nodes[i].num = tNumber, lit, f
	}
	t.nodes[i].end, t.nodes[i].stop = int32(len(t.nodes)), int32(t.pos)
	return nil
}

// smallObject is the size up to which duplicate keys (and lookups) are found
// by a linear scan.
const smallObject = 16

// dupKey reports whether the object at obj, whose first n members are
// parsed, already has key k. Up to smallObject members it scans them; from
// there on it keeps them in *seen, which it builds once per large object.
func (t *tape) dupKey(obj int, n int32, k string, seen *map[string]struct{}) bool {
	if n < smallObject {
		for j := obj + 1; j < len(t.nodes); j = int(t.nodes[j].end) {
			if t.nodes[j].key == k {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*smallObject)
		for j := obj + 1; j < len(t.nodes); j = int(t.nodes[j].end) {
			(*seen)[t.nodes[j].key] = struct{}{}
		}
	}
	if _, dup := (*seen)[k]; dup {
		return true
	}
	(*seen)[k] = struct{}{}
	return false
}

func (t *tape) lit(want string) error {
	if len(t.src)-t.pos < len(want) {
		if t.src[t.pos:] == want[:len(t.src)-t.pos] {
			return errTapeEOF
		}
		return errTapeSyntax
	}
	if t.src[t.pos:t.pos+len(want)] != want {
		return errTapeSyntax
	}
	t.pos += len(want)
	return nil
}

// number scans a number literal (RFC 8259 grammar).
func (t *tape) number() (string, error) {
	s, p := t.src, t.pos
	start := p
	if p < len(s) && s[p] == '-' {
		p++
	}
	switch {
	case p >= len(s):
		return "", errTapeEOF
	case s[p] == '0':
		p++
	case s[p] >= '1' && s[p] <= '9':
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
	default:
		return "", errTapeSyntax
	}
	if p < len(s) && s[p] == '.' {
		p++
		if p >= len(s) {
			return "", errTapeEOF
		}
		if s[p] < '0' || s[p] > '9' {
			return "", errTapeSyntax
		}
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
	}
	if p < len(s) && (s[p] == 'e' || s[p] == 'E') {
		p++
		if p < len(s) && (s[p] == '+' || s[p] == '-') {
			p++
		}
		if p >= len(s) {
			return "", errTapeEOF
		}
		if s[p] < '0' || s[p] > '9' {
			return "", errTapeSyntax
		}
		for p < len(s) && s[p] >= '0' && s[p] <= '9' {
			p++
		}
	}
	t.pos = p
	return s[start:p], nil
}

// str scans a string at t.pos (which is '"') and returns its value: a
// substring of the source when it has no escapes, else what encoding/json
// decodes it to.
func (t *tape) str() (string, error) {
	s := t.src
	start := t.pos + 1
	escaped := false
	for p := start; p < len(s); p++ {
		// Most bytes are neither a quote, a backslash nor a control.
		for p < len(s) && strPlain[s[p]] {
			p++
		}
		if p >= len(s) {
			break
		}
		c := s[p]
		switch {
		case c == '"':
			t.pos = p + 1
			if t.strictUTF8 && !utf8.ValidString(s[start:p]) {
				return "", errTapeUTF8
			}
			if !escaped {
				return s[start:p], nil
			}
			var v string
			if err := json.Unmarshal([]byte(s[start-1:p+1]), &v); err != nil {
				return "", errTapeSyntax
			}
			return v, nil
		case c == '\\':
			escaped = true
			p++
			if p >= len(s) {
				return "", errTapeEOF
			}
			switch s[p] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				r, err := hex4(s, p+1)
				if err != nil {
					return "", err
				}
				p += 4
				switch {
				case 0xDC00 <= r && r <= 0xDFFF:
					return "", errLoneSurrogate
				case 0xD800 <= r && r <= 0xDBFF:
					// A high surrogate must be followed by a low one.
					if p+2 >= len(s) || s[p+1] != '\\' || s[p+2] != 'u' {
						return "", errLoneSurrogate
					}
					lo, err := hex4(s, p+3)
					if err != nil {
						return "", err
					}
					if lo < 0xDC00 || lo > 0xDFFF {
						return "", errLoneSurrogate
					}
					p += 6
				}
			default:
				return "", errTapeSyntax
			}
		case c < 0x20:
			return "", errTapeSyntax
		}
	}
	return "", errTapeEOF
}

// strPlain marks the bytes that str passes over: all but '"', '\\' and
// the controls below 0x20.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// hex4 reads the four hex digits of a \u escape at s[p:].
func hex4(s string, p int) (rune, error) {
	var r rune
	for k := p; k < p+4; k++ {
		if k >= len(s) {
			return 0, errTapeEOF
		}
		c := s[k]
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, errTapeSyntax
		}
	}
	return r, nil
}

// errLoneSurrogate is a \u escape of a UTF-16 surrogate that is not half of
// a pair. encoding/json would decode it to U+FFFD, so what was validated
// and what is forwarded would differ; the gate refuses it, naming where
// (RuleLoneSurrogate).
var errLoneSurrogate = errors.New("a \\u escape of a lone UTF-16 surrogate (not a character; it would be rewritten to U+FFFD)")

// fractionOnly reports whether a literal has no exponent and a fraction
// with a digit other than 0 (0.25): it is not an integer, and parseDecimal,
// which fails only on an exponent, has nothing to say about it.
func fractionOnly(lit string) bool {
	dot, nonzero := false, false
	for i := 0; i < len(lit); i++ {
		switch c := lit[i]; {
		case c == 'e' || c == 'E':
			return false
		case c == '.':
			dot = true
		case dot && c >= '1' && c <= '9':
			nonzero = true
		}
	}
	return nonzero
}

// notInt reports whether a literal has a fraction or an exponent.
func notInt(lit string) bool {
	for i := 0; i < len(lit); i++ {
		if c := lit[i]; c == '.' || c == 'e' || c == 'E' {
			return true
		}
	}
	return false
}

// decodeInput is what the typed decode reads: src, with each
// integer-valued literal written as an integer (1.0 and 1e2 are integers in
// JSON Schema, which encoding/json refuses for an int64). The value is the
// same JSON value; nothing else changes. raw is src's bytes.
func (t *tape) decodeInput(raw []byte) []byte {
	if len(t.ints) == 0 {
		return raw
	}
	out := make([]byte, 0, len(t.src))
	last := 0
	for _, r := range t.ints {
		out = append(out, t.src[last:r.start]...)
		out = append(out, r.text...)
		last = r.end
	}
	return append(out, t.src[last:]...)
}

// rawInput is src[at:stop] of value i as decodeInput writes it: the bytes
// encoding/json gives a json.RawMessage there.
func (t *tape) rawInput(i int) []byte {
	at, stop := int(t.nodes[i].at), int(t.nodes[i].stop)
	out := make([]byte, 0, stop-at)
	last := at
	for _, r := range t.ints {
		if r.start >= at && r.end <= stop {
			out = append(out, t.src[last:r.start]...)
			out = append(out, r.text...)
			last = r.end
		}
	}
	return append(out, t.src[last:stop]...)
}

// member returns the index of the member k of the object at i, or -1.
func (t *tape) member(i int, k string) int {
	for j, end := i+1, int(t.nodes[i].end); j < end; j = int(t.nodes[j].end) {
		if t.nodes[j].key == k {
			return j
		}
	}
	return -1
}

// tapeDiff compares value i of a with value j of b as JSON values, numbers
// compared exactly (as rationals); neither tape has duplicate keys. It
// returns -1 when they are equal, else the node of a where they differ: the
// deepest value of a that b does not have as it is (a member b lacks, a
// scalar b has otherwise, an array or object of another size).
func tapeDiff(a *tape, i int, b *tape, j int) int {
	x, y := &a.nodes[i], &b.nodes[j]
	if x.kind != y.kind {
		return i
	}
	switch x.kind {
	case tString:
		if x.str != y.str {
			return i
		}
	case tNumber:
		if !literalsEqual(x.str, y.str) { // exact, linear in the literals' lengths
			return i
		}
	case tArray:
		if x.n != y.n {
			return i
		}
		for p, q := i+1, j+1; p < int(x.end); p, q = int(a.nodes[p].end), int(b.nodes[q].end) {
			if d := tapeDiff(a, p, b, q); d >= 0 {
				return d
			}
		}
	case tObject:
		if x.n != y.n {
			// The member of x that y lacks, if there is one (the cold path).
			for p := i + 1; p < int(x.end); p = int(a.nodes[p].end) {
				if b.member(j, a.nodes[p].key) < 0 {
					return p
				}
			}
			return i
		}
		if x.n > smallObject {
			return objectDiffLarge(a, i, b, j)
		}
		// Members are unique on both sides and equal in number, so every
		// member of x found in y with an equal value means equal objects.
		// The common case, the same order, costs one comparison per member.
		q := j + 1
		for p := i + 1; p < int(x.end); p = int(a.nodes[p].end) {
			k := a.nodes[p].key
			if q >= int(y.end) || b.nodes[q].key != k {
				if q = b.member(j, k); q < 0 {
					return p
				}
			}
			if d := tapeDiff(a, p, b, q); d >= 0 {
				return d
			}
			q = int(b.nodes[q].end)
		}
	}
	return -1 // equal; null, false, true
}

func objectDiffLarge(a *tape, i int, b *tape, j int) int {
	idx := make(map[string]int, b.nodes[j].n)
	for q := j + 1; q < int(b.nodes[j].end); q = int(b.nodes[q].end) {
		idx[b.nodes[q].key] = q
	}
	for p := i + 1; p < int(a.nodes[i].end); p = int(a.nodes[p].end) {
		q, ok := idx[a.nodes[p].key]
		if !ok {
			return p
		}
		if d := tapeDiff(a, p, b, q); d >= 0 {
			return d
		}
	}
	return -1
}
