package argengine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"
)

// The engine's argument parser parses the arguments once into a flat tape:
// one node per JSON value, in document order: a word of 4 bytes, the
// value's kind and the offset of its text in one private copy of the
// arguments (src), and for a non-empty object or a non-empty array that is
// a member's value a second word, the index past its last descendant. Any
// other non-empty array has one word, its kind and that index: its offset
// is read back from its first element's (past the white space and the
// brackets of the arrays that open with it). A string with escapes is
// decoded once, into the tape's arena (dec). The length of a number or a string is read again
// from its text (a string without escapes holds no quote; one with escapes
// is scanned again for the length of its decoded text), and a member's
// name is read back from its value's text (or from dec when it has
// escapes).
//
// The parser accepts exactly the JSON that encoding/json accepts (RFC 8259;
// the caller has already refused invalid UTF-8), decodes string escapes as
// encoding/json does (TestTapeAgrees, FuzzTape), and refuses what the gate
// refuses: duplicate keys in an object, nesting deeper than MaxArgsDepth,
// more values than the tape's limit, trailing data, and numbers out of
// float64's range (encoding/json refuses those when it decodes into an any).
//
// Its memory is bounded by the arguments: 4 bytes a value, 4 more a
// non-empty object or a member's non-empty array, the decoded text of the
// strings and member names with escapes (fewer bytes than their text),
// with 4 bytes more each, and an index of the members of an object of
// more than smallObject members, once it closes (4 bytes a slot, 1.25
// slots a member and 8): the tape keeps that of the largest such object,
// and the parse has one more, for the others, which it lets go at its end
// (so the two never index a member twice). For a text of more than
// pooledNodes bytes the nodes and the arena are each allocated at most
// once a parse, no larger than the arguments and the limit of values
// require.

type tapeKind uint8

const (
	tNull tapeKind = iota
	tFalse
	tTrue
	tNumber
	tString
	tArray
	tObject
	// tArrayEnd is the kind in the word of a non-empty array that is not a
	// member's value: its offset bits hold its end (kind reads it as tArray).
	tArrayEnd
)

// kindOf maps the kind bits of a word to its kind.
var kindOf = [8]tapeKind{tNull, tFalse, tTrue, tNumber, tString, tArray, tObject, tArray}

// A node's first word is its kind (above kindShift), the flags keyEscaped
// (a member whose name has escapes) and strEscaped (a string with escapes)
// or contEmpty (an empty array or object), and (offMask) the offset of its
// text: in src, a string's first character (past its quote) or any other
// value's first byte; in dec, for a string with escapes, its decoded text,
// which the offset in src of its characters precedes (4 bytes,
// little-endian); for a member whose name has escapes, the decoded name,
// which the offset in src of its value's text precedes (a string's
// decoded text, if it has escapes, follows the name, after its own head).
// A tArrayEnd word has no flags and
// holds the index past its last descendant instead, and its elements
// follow; a non-empty object or a member's non-empty array has that index
// in a second word, and its members or elements follow that.
const (
	kindShift  = 29
	keyEscaped = 1 << 28
	strEscaped = 1 << 27
	contEmpty  = strEscaped
	offMask    = strEscaped - 1
	// maxTapeBytes bounds what a tape parses: offsets are held in the bits
	// of a word below the flags, and so is an index of the tape, which has
	// no more words than the text has bytes. (A text whose decoded strings
	// would take dec beyond them is refused too.)
	maxTapeBytes = offMask
)

type tape struct {
	nodes []uint32
	src   string
	pos   int
	// dec holds the decoded text of the strings and member names that have
	// escapes, and decs is what it holds, as a string. Its strings are
	// views of one buffer that only grows, so a string read from it stays
	// valid after the parse appends more.
	dec  strings.Builder
	decs string
	// maxValues, when positive, bounds the number of values (errTapeValues);
	// values is the number parsed.
	maxValues, values int
	// strictUTF8 makes the parse refuse a string that is not valid UTF-8
	// (errTapeUTF8), for the error of arguments the gate already found
	// invalid (badUTF8); otherwise the parser passes over non-ASCII bytes.
	strictUTF8 bool
	// index holds the members of the largest object of more than
	// smallObject members (node indexed-1, of indexedMembers members; 0:
	// none; the first of that size to close), by name (largeDup); a map's
	// re-encoding and the round trip read it again. scratch is where the
	// parse checks another such object's names, and lets go of at its end,
	// so that the parse's two tables together hold each member at most
	// once.
	index          keyIndex
	indexed        int
	indexedMembers uint32
	scratch        keyIndex
}

// pooledNodes is the most nodes a pooled tape keeps.
const pooledNodes = 4096

var tapePool = sync.Pool{New: func() any { return &tape{nodes: make([]uint32, 0, 64)} }}

func getTape() *tape { return tapePool.Get().(*tape) }

func putTape(t *tape) {
	t.src, t.pos, t.maxValues, t.strictUTF8 = "", 0, 0, false
	t.dec.Reset()
	t.decs = ""
	t.indexed = 0
	if cap(t.index.slots) > pooledNodes {
		t.index = keyIndex{} // let an unusually large table go
	}
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
	t.nodes, t.src, t.pos, t.values, t.indexed = t.nodes[:0], s, 0, 0, 0
	t.dec.Reset()
	t.decs = ""
	if len(s) > maxTapeBytes {
		return refusal("", RuleSize, errTapeLarge)
	}
	if len(s) > pooledNodes && len(s)+1 > cap(t.nodes) {
		// More words may come than the nodes hold (at most one a byte):
		// count them, and allocate once. (A short text's nodes grow as they
		// come, up to what a pooled tape keeps.)
		values, second, dec := sizeOf(s)
		if t.maxValues > 0 {
			values, second = min(values, t.maxValues), min(second, t.maxValues)
		}
		if dec > offMask {
			return refusal("", RuleSize, errTapeLarge) // its offsets would not fit
		}
		if values+second > cap(t.nodes) {
			t.nodes = make([]uint32, 0, values+second)
		}
		t.dec.Grow(dec)
	}
	err := t.value(0, false, 0)
	t.scratch = keyIndex{}
	if err != nil {
		return parseError(err)
	}
	t.skipSpace()
	if t.pos != len(t.src) {
		return refusal("", RuleSyntax, errTapeTrailing)
	}
	return nil
}

// sizeOf returns, for the JSON text s, how many values it holds, how many
// of them have a second word in a tape (a non-empty object, a member's
// non-empty array), and a bound on the bytes its strings and member names
// with escapes take in a tape's dec. For text that is not JSON the figures mean nothing (the
// parse refuses it). A value is the root, or follows a comma, or is the
// first of a non-empty array or object: s holds 1 + commas + non-empty
// containers values.
func sizeOf(s string) (values, second, dec int) {
	values = 1
	var last byte // the last byte before p that is not white space
	for p := 0; p < len(s); p++ {
		switch c := s[p]; c {
		case ' ', '\t', '\n', '\r':
			continue
		case ',':
			values++
		case '[', '{':
			q := p + 1
			for q < len(s) && (s[q] == ' ' || s[q] == '\t' || s[q] == '\n' || s[q] == '\r') {
				q++
			}
			if q < len(s) && s[q] != ']' && s[q] != '}' {
				values++
				if c == '{' || last == ':' {
					second++
				}
			}
		case '"':
			// A string: an escape decodes to fewer bytes than its text,
			// \uXXXX to at most 3 (two of a surrogate pair to 4), after 4
			// bytes of head.
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
		last = s[min(p, len(s)-1)]
	}
	return values, second, dec
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

// value parses one value, a member's value if member; flags are its node's
// flags (keyEscaped, for a member whose name has escapes).
func (t *tape) value(flags uint32, member bool, depth int) error {
	if depth > MaxArgsDepth {
		return errTapeDeep
	}
	t.skipSpace()
	if t.pos >= len(t.src) {
		return errTapeEOF
	}
	if t.maxValues > 0 && t.values >= t.maxValues {
		return errTapeValues(t.maxValues)
	}
	t.values++
	i := len(t.nodes)
	t.nodes = append(t.nodes, flags|uint32(t.pos))
	var kind tapeKind
	switch c := t.src[t.pos]; c {
	case '{':
		t.nodes[i] |= uint32(tObject) << kindShift
		if t.pos++; t.empty('}') {
			t.nodes[i] |= contEmpty
			return nil
		}
		t.nodes = append(t.nodes, 0) // its end, below
		if err := t.object(i, depth); err != nil {
			return err
		}
		t.nodes[i+1] = uint32(len(t.nodes))
		return nil
	case '[':
		t.nodes[i] |= uint32(tArray) << kindShift
		if t.pos++; t.empty(']') {
			t.nodes[i] |= contEmpty
			return nil
		}
		if member {
			t.nodes = append(t.nodes, 0) // its end, below
		}
		for n := 0; ; n++ {
			if err := t.value(0, false, depth+1); err != nil {
				return at(err, strconv.Itoa(n))
			}
			if more, err := t.next(']'); err != nil {
				return err
			} else if !more {
				break
			}
		}
		if member {
			t.nodes[i+1] = uint32(len(t.nodes))
		} else {
			t.nodes[i] = uint32(tArrayEnd)<<kindShift | uint32(len(t.nodes))
		}
		return nil
	case '"':
		at, escaped, err := t.scanStr()
		if err != nil {
			return err
		}
		t.nodes[i] = flags | uint32(tString)<<kindShift | at
		if escaped {
			t.nodes[i] |= strEscaped
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
		kind = tNumber
	}
	t.nodes[i] |= uint32(kind) << kindShift
	return nil
}

// empty consumes the white space after an array's or object's opening
// bracket and, if closing follows, that too: it reports whether it did
// (the array or object is empty).
func (t *tape) empty(closing byte) bool {
	t.skipSpace()
	if t.pos < len(t.src) && t.src[t.pos] == closing {
		t.pos++
		return true
	}
	return false
}

// kind returns the kind of node i.
func (t *tape) kind(i int) tapeKind { return kindOf[t.nodes[i]>>kindShift] }

// end returns the index past the last descendant of node i: its next
// sibling's.
func (t *tape) end(i int) int {
	switch w := t.nodes[i]; {
	case w>>kindShift < uint32(tArray) || w&contEmpty != 0:
		return i + 1 // a scalar, an empty array or object
	case w>>kindShift == uint32(tArrayEnd):
		return int(w & offMask)
	default:
		return int(t.nodes[i+1])
	}
}

// first returns the index of the first element or member of node i, an
// array or an object (its end when it has none).
func (t *tape) first(i int) int { return t.follow(i) }

// follow returns the node after node i in document order: its first
// element or member, or its next sibling.
func (t *tape) follow(i int) int {
	if w := t.nodes[i]; w>>kindShift >= uint32(tArray) && w>>kindShift != uint32(tArrayEnd) && w&contEmpty == 0 {
		return i + 2 // past its second word
	}
	return i + 1
}

// count returns the number of elements or members of node i, an array or
// an object.
func (t *tape) count(i int) int {
	n := 0
	for p, end := t.first(i), t.end(i); p < end; p = t.end(p) {
		n++
	}
	return n
}

// moreThan reports whether node i, an array or an object, has more than k
// elements or members; it counts no further than k+1.
func (t *tape) moreThan(i, k int) bool {
	n := 0
	for p, end := t.first(i), t.end(i); p < end; p = t.end(p) {
		if n++; n > k {
			return true
		}
	}
	return false
}

// str returns the value of node i, a string or a number: a string's
// characters (decoded), a number's literal.
func (t *tape) str(i int) string {
	w := t.nodes[i]
	at := int(w & offMask)
	if w&(strEscaped|keyEscaped) != 0 {
		src, dec := t.text(i)
		if dec >= 0 {
			return t.decs[dec : dec+decodedLen(t.src, src-1)]
		}
		at = src
	}
	switch {
	case tapeKind(w>>kindShift) == tString:
		return t.src[at : at+strings.IndexByte(t.src[at:], '"')]
	}
	p := at
	for p < len(t.src) && numByte[t.src[p]] {
		p++
	}
	return t.src[at:p]
}

// numByte marks the bytes of a number literal.
var numByte = func() (t [256]bool) {
	for _, c := range "0123456789+-.eE" {
		t[c] = true
	}
	return t
}()

// key returns the member name of node i, a member of an object: read back
// in src from the value's text, past the colon and the white space around
// it, to the name's quotes (a name without escapes holds no quote); or,
// for a name with escapes, its decoded text in dec.
func (t *tape) key(i int) string {
	if w := t.nodes[i]; w&keyEscaped != 0 {
		at := int(w & offMask)
		return t.decs[at : at+decodedLen(t.src, openingQuote(t.src, t.nameEnd(i)))]
	}
	p := t.nameEnd(i)
	q := strings.LastIndexByte(t.src[:p], '"')
	return t.src[q+1 : p]
}

// nameEnd returns the offset in src of the closing quote of the name of
// member i.
func (t *tape) nameEnd(i int) int { return nameBefore(t.src, t.srcAt(i)) }

// nameBefore returns the offset in src of the closing quote of the name of
// the member whose value's text begins at v.
func nameBefore(src string, v int) int {
	p := v - 1
	if src[p] == ' ' {
		p-- // "name": value
	}
	if src[p] == ':' && src[p-1] == '"' {
		return p - 1 // "name":value
	}
	for src[p] != ':' {
		p--
	}
	for p--; src[p] != '"'; p-- {
	}
	return p
}

// keyIs reports whether the member name of node i of t is k, reading no
// more of src than k's length. (A name without escapes holds no quote: it
// is k when the bytes before its closing quote are k's and a quote, and k
// has none.)
func keyIs[S text](t *tape, i int, k S) bool {
	if t.nodes[i]&keyEscaped != 0 {
		return t.key(i) == string(k)
	}
	p := t.nameEnd(i)
	q := p - len(k)
	return q >= 1 && t.src[q-1] == '"' && t.src[q:p] == string(k) && strings.IndexByte(t.src[q:p], '"') < 0
}

// text returns, for node i, neither a tArrayEnd nor without flags, the
// offset in src of its text (a string's first character, past its quote)
// and, for a string with escapes, the offset in dec of its decoded text
// (else -1).
func (t *tape) text(i int) (src, dec int) {
	w := t.nodes[i]
	at := int(w & offMask)
	esc := w&strEscaped != 0 && tapeKind(w>>kindShift) == tString
	switch {
	case w&keyEscaped == 0:
		if esc {
			return decWord(t.decs, at-4), at
		}
		return at, -1
	case !esc:
		return decWord(t.decs, at-4), -1
	}
	// A string with escapes whose name has escapes: its head and decoded
	// text follow the name's.
	src = decWord(t.decs, at-4)
	return src, at + decodedLen(t.src, openingQuote(t.src, nameBefore(t.src, src-1))) + 4
}

// decodedLen returns the length of the decoded text of the string whose
// opening quote is src[q] (scanString parsed it).
func decodedLen(src string, q int) int {
	_, _, n, _ := scanString(src, q)
	return n
}

// openingQuote returns the offset in src of the opening quote of the
// string whose closing quote is src[q]: the first quote before it that an
// even number of backslashes precedes (none precedes a string).
func openingQuote(src string, q int) int {
	for {
		q = strings.LastIndexByte(src[:q], '"')
		b := q
		for src[b-1] == '\\' {
			b--
		}
		if (q-b)%2 == 0 {
			return q
		}
	}
}

// decWord returns the 4-byte number (little-endian) at off in dec (decs).
func decWord(decs string, off int) int {
	d := decs[off : off+4]
	return int(uint32(d[0]) | uint32(d[1])<<8 | uint32(d[2])<<16 | uint32(d[3])<<24)
}

// srcAt returns the offset in src of the text of value i (a string's
// opening quote).
func (t *tape) srcAt(i int) int {
	w := t.nodes[i]
	at := int(w & offMask)
	if w&(strEscaped|keyEscaped) != 0 && w>>kindShift != uint32(tArrayEnd) {
		at, _ = t.text(i)
	}
	switch tapeKind(w >> kindShift) {
	case tString:
		return at - 1
	case tArrayEnd:
		// Its word holds its end: read back from the first element that is
		// not such an array (its own word holds its offset; it is not a
		// member), past the white space and '[' of each array that opens
		// with it, up to i's.
		k := i + 1
		for t.nodes[k]>>kindShift == uint32(tArrayEnd) {
			k++
		}
		p := t.srcAt(k)
		for ; k > i; k-- {
			for p--; t.src[p] != '['; p-- {
			}
		}
		return p
	default:
		return at
	}
}

// num returns the float64 of node i, a number, as encoding/json gives it
// to an any (the parse refused a number out of range).
func (t *tape) num(i int) float64 {
	f, _ := parseFloatLiteral(t.str(i))
	return f
}

// raw returns the text of value i in src (a string with its quotes).
func (t *tape) raw(i int) string {
	at := t.srcAt(i)
	switch t.kind(i) {
	case tNull, tTrue:
		return t.src[at : at+4]
	case tFalse:
		return t.src[at : at+5]
	case tNumber:
		return t.src[at : at+len(t.str(i))]
	case tString:
		if t.nodes[i]&strEscaped == 0 {
			return t.src[at : at+len(t.str(i))+2]
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
	// An array or an object: past its last descendant, a scalar or an
	// empty array or object, and then past the white space and the closing
	// bracket of each array or object that ends with it, up to its own.
	// (Linear in the last elements' path: the offset of a tArrayEnd on it
	// is never read.)
	p, closes := at+1, 1
	for j := i; t.end(j) > t.first(j); closes++ {
		last := t.first(j)
		for q := last; q < t.end(j); q = t.end(q) {
			last = q
		}
		if t.kind(last) < tArray || t.end(last) == t.first(last) {
			p = t.srcAt(last) + len(t.raw(last))
			break
		}
		j = last
	}
	for ; ; p++ {
		if c := t.src[p]; c == ']' || c == '}' {
			if closes--; closes == 0 {
				return t.src[at : p+1]
			}
		}
	}
}

// object parses the members of the object at node i (its '{' and what
// follows it up to its first member are read), up to and past its '}'
// (value then writes its end). Its first
// smallObject names are checked for duplicates as they come (dupKey); an
// object of more members has its names checked once it closes, or once a
// later error ends its parse, in one index of its size (largeDup). Either
// way the refusal is the one at the first name that repeats one before it,
// if no other error comes before that name.
func (t *tape) object(i, depth int) error {
	members := uint32(0)
	names := uint64(0) // the filter of its names, while it is small
	for {
		pending, named, err := t.objMember(i, members, &names, depth)
		if err != nil {
			if members >= smallObject { // names past the first smallObject are not checked yet
				if d := t.largeDup(i, members, pending, named); d != nil {
					return d
				}
			}
			return err
		}
		members++
		if more, err := t.next('}'); err != nil {
			if members > smallObject {
				if d := t.largeDup(i, members, "", false); d != nil {
					return d
				}
			}
			return err
		} else if !more {
			break
		}
	}
	if members > smallObject {
		if d := t.largeDup(i, members, "", false); d != nil {
			return d
		}
	}
	return nil
}

// objMember parses the member of the object at node i that follows its
// first n members. When its name is read but the member is not (err is
// not nil), named is true and pending is its name.
func (t *tape) objMember(i int, n uint32, names *uint64, depth int) (pending string, named bool, err error) {
	t.skipSpace()
	if t.pos >= len(t.src) {
		return "", false, errTapeEOF
	}
	if t.src[t.pos] != '"' {
		return "", false, errTapeSyntax
	}
	m := len(t.nodes) // the member's node, to come
	name, nameAt, err := t.scanKey()
	escaped := nameAt > 0
	if err != nil {
		if err == errLoneSurrogate {
			return "", false, &Refusal{Rule: RuleLoneSurrogate, Err: errors.New("a member name holds " + err.Error())}
		}
		return "", false, err
	}
	flags := uint32(0)
	if escaped {
		flags = keyEscaped
	}
	if n < smallObject && t.dupKey(i, name, names) {
		return "", false, dupRefusal(name)
	}
	t.skipSpace()
	if t.pos >= len(t.src) {
		return name, true, errTapeEOF
	}
	if t.src[t.pos] != ':' {
		return name, true, errTapeSyntax
	}
	t.pos++
	if err := t.value(flags, true, depth+1); err != nil {
		return name, true, at(err, name)
	}
	if escaped {
		// Its word holds its name's place in dec, whose head holds what
		// it held.
		t.nodes[m] = t.nodes[m]&^offMask | nameAt
	}
	return "", false, nil
}

func dupRefusal(name string) error {
	return &Refusal{Rule: RuleDuplicateKey, Err: errors.New("duplicate key " + truncQuote(name)), segs: []string{name}}
}

// smallObject is the size up to which duplicate keys (and lookups) are found
// by a linear scan.
const smallObject = 16

// dupKey reports whether the object at obj, whose members parsed so far
// are fewer than smallObject, already has key k: it scans them, when k
// passes the filter of their names (*names, a bit for each name's length
// and last byte).
func (t *tape) dupKey(obj int, k string, names *uint64) bool {
	bit := uint64(1) << (len(k) & 63)
	if len(k) > 0 {
		bit = 1 << ((uint(len(k)) + 7*uint(k[len(k)-1])) & 63)
	}
	if *names&bit == 0 {
		*names |= bit
		return false
	}
	for j := t.first(obj); j < len(t.nodes); j = t.end(j) {
		if keyIs(t, j, k) {
			return true
		}
	}
	return false
}

// largeDup returns the refusal of the first duplicate name of the object at
// obj, among its first n members (parsed) and then, if named, pending (a
// name read whose member is not), or nil. It indexes the n members in
// t.index, which holds them after it, when obj is larger than the object
// it holds (then obj is t.indexed), else in t.scratch.
func (t *tape) largeDup(obj int, n uint32, pending string, named bool) error {
	ix := &t.scratch
	if t.indexed == 0 || n > t.indexedMembers {
		ix, t.indexed, t.indexedMembers = &t.index, obj+1, n
	}
	ix.reset(int(n) + 1)
	for j, k := t.first(obj), uint32(0); k < n; j, k = t.end(j), k+1 {
		if name := t.key(j); !ix.add(t, name, j) {
			return dupRefusal(name)
		}
	}
	if named && ix.find(t, pending) >= 0 {
		return dupRefusal(pending)
	}
	return nil
}

// scanStr scans the string at t.pos (which is '"'): its text is at at, in
// src, or in dec when it has escapes (escaped), decoded as encoding/json
// decodes it.
func (t *tape) scanStr() (at uint32, escaped bool, err error) {
	start := t.pos + 1
	end, escaped, size, err := scanString(t.src, t.pos)
	if err != nil {
		return 0, false, err
	}
	t.pos = end + 1
	if t.strictUTF8 && !utf8.ValidString(t.src[start:end]) {
		return 0, false, errTapeUTF8
	}
	if !escaped {
		return uint32(start), false, nil
	}
	return t.unescape(t.src[start:end], size, start), true, nil
}

// scanKey scans the member name at t.pos (which is '"'), as scanStr
// scans a string: its decoded text and, when it has escapes, its offset in
// dec, where it is (else 0).
func (t *tape) scanKey() (name string, at uint32, err error) {
	start := t.pos + 1
	end, escaped, size, err := scanString(t.src, t.pos)
	if err != nil {
		return "", 0, err
	}
	t.pos = end + 1
	if t.strictUTF8 && !utf8.ValidString(t.src[start:end]) {
		return "", 0, errTapeUTF8
	}
	if !escaped {
		return t.src[start:end], 0, nil
	}
	// Its head is the offset of its value's text, past the colon (a
	// string's first character): what the member's word would hold. (If
	// the member is not well-formed, the parse fails and no one reads it.)
	v := skipSpace(t.src, t.pos)
	if v < len(t.src) && t.src[v] == ':' {
		v = skipSpace(t.src, v+1)
	}
	if v < len(t.src) && t.src[v] == '"' {
		v++
	}
	off := t.unescape(t.src[start:end], size, v)
	return t.decs[off : int(off)+size], off, nil
}

// unescape appends to t.dec the 4-byte numbers (little-endian) of head
// and the decoded text of s, n bytes, and returns the offset of the text.
// The head of a string is the offset in src of its characters s; a member
// name has none.
func (t *tape) unescape(s string, n int, head ...int) uint32 {
	d := &t.dec
	d.Grow(4*len(head) + n)
	for _, h := range head {
		for k := range 4 {
			d.WriteByte(byte(h >> (8 * k)))
		}
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
	if !t.rewritesInts(i) {
		if same != nil {
			return same
		}
		return append(buf(), t.raw(i)...)
	}
	out := buf()
	t.rawInputParts(i, func(part string) { out = append(out, part...) })
	return out
}

// rewritesInts reports whether the text of value i holds an integer-valued
// literal that decodeInput writes otherwise (1.0, 1e2).
func (t *tape) rewritesInts(i int) bool {
	for p := i; p < t.end(i); p = t.follow(p) {
		if t.kind(p) == tNumber {
			if _, ok := integerParts(t.str(p)); ok {
				return true
			}
		}
	}
	return false
}

// rawInputParts gives emit, in order, the parts of the text of value i as
// decodeInput writes it: its text up to each integer-valued literal written
// otherwise, that literal as an integer, and the rest. Each part begins and
// ends between two characters.
func (t *tape) rawInputParts(i int, emit func(part string)) {
	text := t.raw(i)
	base := t.srcAt(i)
	last := 0
	for p := i; p < t.end(i); p = t.follow(p) {
		if t.kind(p) != tNumber {
			continue
		}
		lit := t.str(p)
		if ps, ok := integerParts(lit); ok {
			at := t.srcAt(p) - base
			emit(text[last:at])
			for _, part := range ps {
				if part != "" {
					emit(part)
				}
			}
			last = at + len(lit)
		}
	}
	emit(text[last:])
}

// member returns the index of the member k of the object at i, or -1.
func (t *tape) member(i int, k string) int {
	for j, end := t.first(i), t.end(i); j < end; j = t.end(j) {
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
	xk, yk := a.kind(i), b.kind(j)
	if xk != yk {
		return i
	}
	switch xk {
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
		for p, q := a.first(i), b.first(j); p < a.end(i); p, q = a.end(p), b.end(q) {
			if d := tapeDiff(a, p, b, q); d >= 0 {
				return d
			}
		}
	case tObject:
		n := a.count(i)
		if n != b.count(j) {
			// The member of x that y lacks, if there is one (the cold path).
			for p := a.first(i); p < a.end(i); p = a.end(p) {
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
		q := b.first(j)
		for p := a.first(i); p < a.end(i); p = a.end(p) {
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
	for q := b.first(j); q < b.end(j); q = b.end(q) {
		ix.insert(b, q)
	}
	for p := a.first(i); p < a.end(i); p = a.end(p) {
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
