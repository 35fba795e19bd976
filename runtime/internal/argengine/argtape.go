package argengine

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// The engine's argument parser parses the arguments once into a flat tape:
// one node per JSON value, in document order, each 8 bytes: an offset into
// one private copy of the arguments (src), a length or an index, and the
// value's kind; a string with escapes is decoded once, into the tape's
// arena (dec). A member's name is read from src, before its value's text
// (or from dec when it has escapes).
//
// The parser accepts exactly the JSON that encoding/json accepts (RFC 8259;
// the caller has already refused invalid UTF-8), decodes string escapes as
// encoding/json does (TestTapeAgrees, FuzzTape), and refuses what the gate
// refuses: duplicate keys in an object, nesting deeper than MaxArgsDepth,
// more values than the tape's limit, trailing data, and numbers out of
// float64's range (encoding/json refuses those when it decodes into an any).
//
// Its memory is bounded by the arguments: 8 bytes a value, the decoded
// text of the strings and member names with escapes (fewer bytes than
// their text), 8 bytes a member name with escapes, and an index of a few
// bytes a member for an object of more than smallObject members while it
// is parsed. The nodes and the arena are each allocated
// at most once a parse, no larger than the arguments and the limit of
// values require.

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
// the next sibling of node i is t.end(i).
type tapeNode struct {
	// at is the offset of the value's text: in src, a string's first
	// character (past its quote) or any other value's first byte; in dec,
	// for a string with escapes (meta has strEscaped), its decoded text,
	// which the offset in src of its characters precedes (4 bytes,
	// little-endian).
	at uint32
	// aux is the kind (above kindShift), the flags keyEscaped (a member
	// whose name has escapes) and strEscaped, and below them (auxLen) for
	// an array or object the index past its last descendant, for a number
	// the length of its literal, for a string the length of its text
	// (decoded).
	aux uint32
}

const (
	kindShift  = 29
	keyEscaped = 1 << 28
	strEscaped = 1 << 27
	auxLen     = strEscaped - 1
	// maxTapeBytes bounds what a tape parses: lengths are held in the bits
	// of aux below the flags.
	maxTapeBytes = auxLen
)

func (x *tapeNode) kind() tapeKind { return tapeKind(x.aux >> kindShift) }

// len is the length or the index that aux holds.
func (x *tapeNode) len() int { return int(x.aux & auxLen) }

type tape struct {
	nodes []tapeNode
	src   string
	pos   int
	// dec holds the decoded text of the strings and member names that have
	// escapes, and decs is what it holds, as a string. Its strings are
	// views of one buffer that only grows, so a string read from it stays
	// valid after the parse appends more.
	dec  strings.Builder
	decs string
	// keys has, for each member whose name has escapes, in the order of
	// the nodes, the member's node (the high half) and the offset in dec of
	// its decoded name, which the name's length precedes (4 bytes,
	// little-endian).
	keys []uint64
	// maxValues, when positive, bounds the number of values (errTapeValues).
	maxValues int
	// strictUTF8 makes the parse refuse a string that is not valid UTF-8
	// (errTapeUTF8), for the error of arguments the gate already found
	// invalid (badUTF8); otherwise the parser passes over non-ASCII bytes.
	strictUTF8 bool
	// seen is the scratch of dupKey for objects of more than smallObject
	// members, one per object being parsed (the innermost last).
	seen []keyIndex
}

// pooledNodes is the most nodes a pooled tape keeps.
const pooledNodes = 4096

var tapePool = sync.Pool{New: func() any { return &tape{nodes: make([]tapeNode, 0, 64)} }}

func getTape() *tape { return tapePool.Get().(*tape) }

func putTape(t *tape) {
	t.src, t.pos, t.maxValues, t.strictUTF8 = "", 0, 0, false
	t.dec.Reset()
	t.decs = ""
	t.keys = t.keys[:0]
	if cap(t.keys) > pooledNodes {
		t.keys = nil
	}
	for _, ix := range t.seen[:cap(t.seen)] {
		if cap(ix.slots) > pooledNodes {
			t.seen = nil // let unusually large tables go
			break
		}
	}
	t.seen = t.seen[:0]
	if cap(t.nodes) > pooledNodes {
		return // let an unusually large tape go
	}
	t.nodes = t.nodes[:0]
	tapePool.Put(t)
}

var (
	errTapeSyntax   = errors.New("arguments are not valid JSON: invalid character")
	errTapeEOF      = errors.New("arguments are not valid JSON: unexpected end of input")
	errTapeTrailing = errors.New("trailing data after the arguments")
	errTapeUTF8     = errors.New("a string or member name is not valid UTF-8")
	errTapeDeep     = errors.New("arguments nest too deeply")
	errTapeRange    = errors.New("arguments hold a number out of float64 range")
	errTapeLarge    = errors.New("the value is too large to parse")
)

// errTapeValues is the refusal of a value past the limit of values.
func errTapeValues(limit int) error {
	return &Refusal{Rule: RuleValues, Err: fmt.Errorf("arguments hold more than %d JSON values", limit)}
}

// parseOwned is parse of the text of own, a private copy of the arguments
// that nothing writes while t holds it (or anything read from t is in
// use): t reads it in place, without another copy.
func (t *tape) parseOwned(own []byte) error {
	return t.parse(unsafe.String(unsafe.SliceData(own), len(own)))
}

// parse fills t with the one JSON value of s. Its error is a *Refusal
// at the value whose parse failed.
func (t *tape) parse(s string) error {
	t.nodes, t.src, t.pos = t.nodes[:0], s, 0
	t.dec.Reset()
	t.decs = ""
	t.keys = t.keys[:0]
	if len(s) > maxTapeBytes {
		return refusal("", RuleSize, errTapeLarge)
	}
	if len(s)/2+1 > cap(t.nodes) {
		// More values may come than the nodes hold: count them, and
		// allocate once.
		values, dec := sizeOf(s)
		if t.maxValues > 0 {
			values = min(values, t.maxValues)
		}
		if values > cap(t.nodes) {
			t.nodes = make([]tapeNode, 0, values)
		}
		t.dec.Grow(dec)
	}
	if err := t.value(0, 0); err != nil {
		return parseError(err)
	}
	t.skipSpace()
	if t.pos != len(t.src) {
		return refusal("", RuleSyntax, errTapeTrailing)
	}
	return nil
}

// sizeOf returns, for the JSON text s, how many values it holds and a
// bound on the bytes its strings with escapes take in a tape's dec. For
// text that is not JSON the figures mean nothing (the parse refuses it).
// A value is the root, or follows a comma, or is the first of a non-empty
// array or object: s holds 1 + commas + non-empty containers values.
func sizeOf(s string) (values, dec int) {
	values = 1
	for p := 0; p < len(s); p++ {
		switch s[p] {
		case ',':
			values++
		case '[', '{':
			q := p + 1
			for q < len(s) && (s[q] == ' ' || s[q] == '\t' || s[q] == '\n' || s[q] == '\r') {
				q++
			}
			if q < len(s) && s[q] != ']' && s[q] != '}' {
				values++
			}
		case '"':
			// A string: an escape decodes to fewer bytes than its text,
			// \uXXXX to at most 3 (two of a surrogate pair to 4).
			start, saved := p+1, 0
			for p++; p < len(s); p++ {
				for p < len(s) && strText[s[p]] {
					p++
				}
				if p >= len(s) || s[p] == '"' {
					break
				}
				// a backslash
				if p+1 < len(s) && s[p+1] == 'u' {
					saved += 3
				} else {
					saved++
				}
				p++
			}
			if saved > 0 {
				dec += 4 + max(0, p-start-saved)
			}
		}
	}
	return values, dec
}

// strText marks the bytes that sizeOf passes over in a string: all but
// '"' and '\\'.
var strText = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// next consumes what follows a member or an element (scanNext).
func (t *tape) next(closing byte) (bool, error) {
	p, more, err := scanNext(t.src, t.pos, closing)
	if err == nil {
		t.pos = p
	}
	return more, err
}

func (t *tape) skipSpace() { t.pos = skipSpace(t.src, t.pos) }

// value parses one value; flags are its node's flags (keyEscaped, for a
// member whose name has escapes).
func (t *tape) value(flags uint32, depth int) error {
	if depth > MaxArgsDepth {
		return errTapeDeep
	}
	t.skipSpace()
	if t.pos >= len(t.src) {
		return errTapeEOF
	}
	i := len(t.nodes)
	if t.maxValues > 0 && i >= t.maxValues {
		return errTapeValues(t.maxValues)
	}
	t.nodes = append(t.nodes, tapeNode{at: uint32(t.pos), aux: flags})
	var kind tapeKind
	switch c := t.src[t.pos]; c {
	case '{':
		t.pos++
		kind = tObject
		members := uint32(0)
		seen := -1         // t.seen's index for this object, once it is large
		names := uint64(0) // the filter of its names, while it is small
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
				m := len(t.nodes) // the member's node, to come
				name, escaped, err := t.scanKey(m)
				if err != nil {
					if err == errLoneSurrogate {
						return &Refusal{Rule: RuleLoneSurrogate, Err: errors.New("a member name holds " + err.Error())}
					}
					return err
				}
				flags := uint32(0)
				if escaped {
					flags = keyEscaped
				}
				if t.dupKey(i, members, name, &seen, &names) {
					return &Refusal{Rule: RuleDuplicateKey, Err: errors.New("duplicate key " + truncQuote(name)), segs: []string{name}}
				}
				t.skipSpace()
				if t.pos >= len(t.src) {
					return errTapeEOF
				}
				if t.src[t.pos] != ':' {
					return errTapeSyntax
				}
				t.pos++
				if err := t.value(flags, depth+1); err != nil {
					return at(err, name)
				}
				if seen >= 0 {
					t.seen[seen].insert(t, m)
				}
				members++
				if more, err := t.next('}'); err != nil {
					return err
				} else if !more {
					break
				}
			}
		}
		if seen >= 0 {
			if cap(t.seen[seen].slots) > pooledNodes {
				t.seen[seen] = keyIndex{} // let a large table go now
			}
			t.seen = t.seen[:seen]
		}
		t.nodes[i].aux |= uint32(len(t.nodes))
	case '[':
		t.pos++
		kind = tArray
		n := uint32(0)
		t.skipSpace()
		if t.pos < len(t.src) && t.src[t.pos] == ']' {
			t.pos++
		} else {
			for {
				if err := t.value(0, depth+1); err != nil {
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
		t.nodes[i].aux |= uint32(len(t.nodes))
	case '"':
		at, n, escaped, err := t.scanStr()
		if err != nil {
			return err
		}
		x := &t.nodes[i]
		x.at = at
		x.aux |= uint32(tString)<<kindShift | n
		if escaped {
			x.aux |= strEscaped
		}
		return nil
	case 't', 'f', 'n':
		p, k, err := scanLiteral(t.src, t.pos)
		if err != nil {
			return err
		}
		t.pos, kind = p, k
	default:
		if c != '-' && (c < '0' || c > '9') {
			return errTapeSyntax
		}
		p, err := scanNumber(t.src, t.pos)
		if err != nil {
			return err
		}
		lit := t.src[t.pos:p]
		t.pos = p
		if len(lit) > MaxNumberLen {
			return errNumberLong
		}
		if _, err := parseFloatLiteral(lit); err != nil {
			return errTapeRange
		}
		if notInt(lit) && !fractionOnly(lit) {
			if _, ok := parseDecimal(lit); !ok {
				return errNumberExp
			}
		}
		t.nodes[i].aux |= uint32(len(lit))
		kind = tNumber
	}
	t.nodes[i].aux |= uint32(kind) << kindShift
	return nil
}

// end returns the index past the last descendant of node i: its next
// sibling's.
func (t *tape) end(i int) int {
	if x := &t.nodes[i]; x.kind() >= tArray {
		return x.len()
	}
	return i + 1
}

// count returns the number of elements or members of node i, an array or
// an object.
func (t *tape) count(i int) int {
	n := 0
	for p, end := i+1, t.end(i); p < end; p = t.end(p) {
		n++
	}
	return n
}

// moreThan reports whether node i, an array or an object, has more than k
// elements or members; it counts no further than k+1.
func (t *tape) moreThan(i, k int) bool {
	n := 0
	for p, end := i+1, t.end(i); p < end; p = t.end(p) {
		if n++; n > k {
			return true
		}
	}
	return false
}

// str returns the value of node i, a string or a number: a string's
// characters (decoded), a number's literal.
func (t *tape) str(i int) string {
	x := &t.nodes[i]
	s := t.src
	if x.aux&strEscaped != 0 {
		s = t.decs
	}
	return s[x.at : int(x.at)+x.len()]
}

// key returns the member name of node i, a member of an object: read back
// in src from the value's text, past the colon and the white space around
// it, to the name's quotes (a name without escapes holds no quote); or,
// for a name with escapes, its decoded text in dec.
func (t *tape) key(i int) string {
	if t.nodes[i].aux&keyEscaped != 0 {
		k, _ := slices.BinarySearchFunc(t.keys, uint32(i), func(e uint64, i uint32) int { return cmp.Compare(uint32(e>>32), i) })
		return decText(t.decs, int(uint32(t.keys[k])))
	}
	p := t.nameEnd(i)
	q := strings.LastIndexByte(t.src[:p], '"')
	return t.src[q+1 : p]
}

// nameEnd returns the offset in src of the closing quote of the name of
// member i.
func (t *tape) nameEnd(i int) int {
	p := t.srcAt(i) - 1
	if t.src[p] == ' ' {
		p-- // "name": value
	}
	if t.src[p] == ':' && t.src[p-1] == '"' {
		return p - 1 // "name":value
	}
	for t.src[p] != ':' {
		p--
	}
	for p--; t.src[p] != '"'; p-- {
	}
	return p
}

// keyIs reports whether the member name of node i of t is k, reading no
// more of src than k's length. (A name without escapes holds no quote: it
// is k when the bytes before its closing quote are k's and a quote, and k
// has none.)
func keyIs[S text](t *tape, i int, k S) bool {
	if t.nodes[i].aux&keyEscaped != 0 {
		return t.key(i) == string(k)
	}
	p := t.nameEnd(i)
	q := p - len(k)
	return q >= 1 && t.src[q-1] == '"' && t.src[q:p] == string(k) && strings.IndexByte(t.src[q:p], '"') < 0
}

// decText returns the text at off in dec (decs), which its length
// precedes.
func decText(decs string, off int) string {
	d := decs[off-4 : off]
	n := int(uint32(d[0]) | uint32(d[1])<<8 | uint32(d[2])<<16 | uint32(d[3])<<24)
	return decs[off : off+n]
}

// srcAt returns the offset in src of the text of value i (a string's
// opening quote).
func (t *tape) srcAt(i int) int {
	x := &t.nodes[i]
	switch {
	case x.kind() != tString:
		return int(x.at)
	case x.aux&strEscaped == 0:
		return int(x.at) - 1
	}
	d := t.decs[x.at-4 : x.at]
	return int(uint32(d[0])|uint32(d[1])<<8|uint32(d[2])<<16|uint32(d[3])<<24) - 1
}

// num returns the float64 of node i, a number, as encoding/json gives it
// to an any (the parse refused a number out of range).
func (t *tape) num(i int) float64 {
	f, _ := parseFloatLiteral(t.str(i))
	return f
}

// raw returns the text of value i in src (a string with its quotes).
func (t *tape) raw(i int) string {
	x := &t.nodes[i]
	at := t.srcAt(i)
	switch x.kind() {
	case tNull, tTrue:
		return t.src[at : at+4]
	case tFalse:
		return t.src[at : at+5]
	case tNumber:
		return t.src[at : at+x.len()]
	case tString:
		if x.aux&strEscaped == 0 {
			return t.src[at : at+x.len()+2]
		}
		// Past the escapes, to the closing quote.
		p := at + 1
		for t.src[p] != '"' {
			if t.src[p] == '\\' {
				p++
			}
			p++
		}
		return t.src[at : p+1]
	}
	// An array or an object: past its last descendant, and the space, to
	// the closing bracket.
	p := at + 1
	if end := x.len(); end > i+1 {
		last := i + 1
		for q := last; q < end; q = t.end(q) {
			last = q
		}
		p = t.srcAt(last) + len(t.raw(last))
	}
	for t.src[p] == ' ' || t.src[p] == '\t' || t.src[p] == '\n' || t.src[p] == '\r' {
		p++
	}
	return t.src[at : p+1]
}

// smallObject is the size up to which duplicate keys (and lookups) are found
// by a linear scan.
const smallObject = 16

// dupKey reports whether the object at obj, whose first n members are
// parsed, already has key k. Up to smallObject members it scans them, when
// k passes the filter of their names (*names, a bit for each name's
// length and last byte); from there on it looks k up in an index of the
// object's members, t.seen[*seen], which it builds once per large object
// (and value inserts each member into once parsed).
func (t *tape) dupKey(obj int, n uint32, k string, seen *int, names *uint64) bool {
	if n < smallObject {
		bit := uint64(1) << (len(k) & 63)
		if len(k) > 0 {
			bit = 1 << ((uint(len(k)) + 7*uint(k[len(k)-1])) & 63)
		}
		if *names&bit == 0 {
			*names |= bit
			return false
		}
		for j := obj + 1; j < len(t.nodes); j = t.end(j) {
			if keyIs(t, j, k) {
				return true
			}
		}
		return false
	}
	if *seen < 0 {
		*seen = len(t.seen)
		if len(t.seen) < cap(t.seen) {
			t.seen = t.seen[:len(t.seen)+1] // reuse its table
		} else {
			t.seen = append(t.seen, keyIndex{})
		}
		ix := &t.seen[*seen]
		ix.reset(2 * smallObject)
		for j := obj + 1; j < len(t.nodes); j = t.end(j) {
			ix.insert(t, j)
		}
	}
	return t.seen[*seen].find(t, k) >= 0
}

// scanStr scans the string at t.pos (which is '"'): its text is n bytes
// at at, in src, or in dec when it has escapes (escaped), decoded as
// encoding/json decodes it.
func (t *tape) scanStr() (at, n uint32, escaped bool, err error) {
	start := t.pos + 1
	end, escaped, size, err := scanString(t.src, t.pos)
	if err != nil {
		return 0, 0, false, err
	}
	t.pos = end + 1
	if t.strictUTF8 && !utf8.ValidString(t.src[start:end]) {
		return 0, 0, false, errTapeUTF8
	}
	if !escaped {
		return uint32(start), uint32(end - start), false, nil
	}
	return t.unescape(t.src[start:end], start, size), uint32(size), true, nil
}

// scanKey scans the member name at t.pos (which is '"') of the member
// whose node will be m, as scanStr scans a string: its decoded text, and
// whether it has escapes (then its text is in dec, and in t.keys).
func (t *tape) scanKey(m int) (name string, escaped bool, err error) {
	start := t.pos + 1
	end, escaped, size, err := scanString(t.src, t.pos)
	if err != nil {
		return "", false, err
	}
	t.pos = end + 1
	if t.strictUTF8 && !utf8.ValidString(t.src[start:end]) {
		return "", false, errTapeUTF8
	}
	if !escaped {
		return t.src[start:end], false, nil
	}
	off := t.unescape(t.src[start:end], size, size)
	t.keys = append(t.keys, uint64(m)<<32|uint64(off))
	return t.decs[off : int(off)+size], true, nil
}

// unescape appends to t.dec a 4-byte number (little-endian), head: for a
// string, the offset in src of its characters s; for a member name, the
// length of its decoded text; then the decoded text of s, n bytes. It
// returns the offset of the text.
func (t *tape) unescape(s string, head, n int) uint32 {
	d := &t.dec
	d.Grow(4 + n)
	for k := range 4 {
		d.WriteByte(byte(head >> (8 * k)))
	}
	off := d.Len()
	for run, r := range unescaped(s) {
		if r < 0 {
			d.WriteString(run)
		} else {
			d.WriteRune(r)
		}
	}
	t.decs = d.String()
	return uint32(off)
}

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
	return t.rawInputTo(raw, 0, func() []byte { return make([]byte, 0, len(t.src)) })
}

// rawInput is src[at:stop] of value i as decodeInput writes it: the bytes
// encoding/json gives a json.RawMessage there (a copy).
func (t *tape) rawInput(i int) []byte {
	r := t.raw(i)
	return t.rawInputTo(nil, i, func() []byte { return make([]byte, 0, len(r)) })
}

// rawInputTo writes the text of value i with its integer-valued literals
// as integers into a buffer from buf. When no literal changes it returns
// same, if not nil, or a copy of the text in a buffer from buf.
func (t *tape) rawInputTo(same []byte, i int, buf func() []byte) []byte {
	text := t.raw(i)
	base := t.srcAt(i)
	var out []byte
	last := 0
	for p := i; p < t.end(i); p++ {
		if t.nodes[p].kind() != tNumber {
			continue
		}
		lit := t.str(p)
		it := integerText(lit)
		if it == lit {
			continue
		}
		if out == nil {
			out = buf()
		}
		at := int(t.nodes[p].at) - base
		out = append(out, text[last:at]...)
		out = append(out, it...)
		last = at + len(lit)
	}
	if out == nil {
		if same != nil {
			return same
		}
		return append(buf(), text...)
	}
	return append(out, text[last:]...)
}

// member returns the index of the member k of the object at i, or -1.
func (t *tape) member(i int, k string) int {
	for j, end := i+1, t.end(i); j < end; j = t.end(j) {
		if keyIs(t, j, k) {
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
	if x.kind() != y.kind() {
		return i
	}
	switch x.kind() {
	case tString:
		if a.str(i) != b.str(j) {
			return i
		}
	case tNumber:
		if !literalsEqual(a.str(i), b.str(j)) { // exact, linear in the literals' lengths
			return i
		}
	case tArray:
		if a.count(i) != b.count(j) {
			return i
		}
		for p, q := i+1, j+1; p < a.end(i); p, q = a.end(p), b.end(q) {
			if d := tapeDiff(a, p, b, q); d >= 0 {
				return d
			}
		}
	case tObject:
		n := a.count(i)
		if n != b.count(j) {
			// The member of x that y lacks, if there is one (the cold path).
			for p := i + 1; p < a.end(i); p = a.end(p) {
				if b.member(j, a.key(p)) < 0 {
					return p
				}
			}
			return i
		}
		if n > smallObject {
			return objectDiffLarge(a, i, b, j, n)
		}
		// Members are unique on both sides and equal in number, so every
		// member of x found in y with an equal value means equal objects.
		// The common case, the same order, costs one comparison per member.
		q := j + 1
		for p := i + 1; p < a.end(i); p = a.end(p) {
			k := a.key(p)
			if q >= b.end(j) || !keyIs(b, q, k) {
				if q = b.member(j, k); q < 0 {
					return p
				}
			}
			if d := tapeDiff(a, p, b, q); d >= 0 {
				return d
			}
			q = b.end(q)
		}
	}
	return -1 // equal; null, false, true
}

func objectDiffLarge(a *tape, i int, b *tape, j, n int) int {
	var ix keyIndex
	ix.reset(n)
	for q := j + 1; q < b.end(j); q = b.end(q) {
		ix.insert(b, q)
	}
	for p := i + 1; p < a.end(i); p = a.end(p) {
		q := ix.find(b, a.key(p))
		if q < 0 {
			return p
		}
		if d := tapeDiff(a, p, b, q); d >= 0 {
			return d
		}
	}
	return -1
}
