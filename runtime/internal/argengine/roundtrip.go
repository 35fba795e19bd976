package argengine

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// The round-trip comparison: the re-encoding of the typed arguments must be
// the arguments, as a JSON value. It reads the re-encoding once, with the
// parser's grammar (jsonlex.go), against the tape of the arguments, and
// builds nothing of it: no second tape, no decoded string. What it
// allocates is bounded by the widest object whose members come in another
// order (an index of its members, as the parser's for duplicate keys) and
// one bit per node of the tape.

// sameAsTape reports whether fwd is the value t holds, as JSON values
// (numbers compared exactly); a difference, or fwd that is not one JSON
// value the parser would take, is refused (RuleRoundTrip) at its place in
// t.
func sameAsTape(t *tape, fwd []byte) error {
	c := fwdScan{t: t, s: fwd}
	d, err := c.value(0, 0)
	if err == nil && d < 0 {
		if c.pos = skipSpace(fwd, c.pos); c.pos != len(fwd) {
			err = errTapeTrailing
		}
	}
	if err != nil {
		return refusal("", RuleRoundTrip, fmt.Errorf("re-encode: %w", err))
	}
	if d >= 0 {
		return refusal(t.pointer(d), RuleRoundTrip, errors.New("the value does not survive the typed round trip (a key in another case, a lost value or precision)"))
	}
	return nil
}

// fwdScan reads a re-encoding, s, against the tape t.
type fwdScan struct {
	t   *tape
	s   []byte
	pos int
	// name holds a member name of s with escapes, decoded.
	name []byte
	// marks has a bit for every node of t that is a member of an object
	// of more than 64 members matched by a member of s.
	marks []uint64
}

// value reads the next value of s, and compares it with node i of t, or
// with nothing when i < 0 (it is only read). It returns -1 when they are
// equal, else the node of t where they first differ, the deepest one (a
// member s lacks, a scalar s has otherwise, an array of another length),
// and then stops reading.
func (c *fwdScan) value(i, depth int) (int, error) {
	if depth > MaxArgsDepth {
		return 0, errTapeDeep
	}
	c.pos = skipSpace(c.s, c.pos)
	if c.pos >= len(c.s) {
		return 0, errTapeEOF
	}
	var kind tapeKind
	if i >= 0 {
		kind = c.t.kind(i)
	}
	switch c.s[c.pos] {
	case '{':
		if i >= 0 && kind != tObject {
			return i, nil
		}
		return c.object(i, depth)
	case '[':
		if i >= 0 && kind != tArray {
			return i, nil
		}
		return c.array(i, depth)
	case '"':
		start := c.pos + 1
		end, escaped, n, err := scanString(c.s, c.pos)
		if err != nil {
			return 0, err
		}
		c.pos = end + 1
		if i < 0 {
			return -1, nil
		}
		if kind != tString {
			return i, nil
		}
		want := c.t.str(i)
		if n != len(want) || !sameText(c.s[start:end], escaped, want) {
			return i, nil
		}
		return -1, nil
	case 't', 'f', 'n':
		p, k, err := scanLiteral(c.s, c.pos)
		if err != nil {
			return 0, err
		}
		c.pos = p
		if i >= 0 && kind != k {
			return i, nil
		}
		return -1, nil
	}
	if b := c.s[c.pos]; b != '-' && (b < '0' || b > '9') {
		return 0, errTapeSyntax
	}
	p, err := scanNumber(c.s, c.pos)
	if err != nil {
		return 0, err
	}
	lit := c.s[c.pos:p]
	c.pos = p
	if len(lit) > MaxNumberLen {
		return 0, errNumberLong
	}
	if i < 0 {
		return -1, nil
	}
	if kind != tNumber {
		return i, nil
	}
	if want := c.t.str(i); string(lit) != want && !literalsEqual(string(lit), want) {
		return i, nil
	}
	return -1, nil
}

// sameText reports whether the characters s of a string, with escapes or
// not, decode to want, whose length is their decoded length.
func sameText(s []byte, escaped bool, want string) bool {
	if !escaped {
		return string(s) == want
	}
	var buf [utf8.UTFMax]byte
	for run, r := range unescaped(s) {
		if r >= 0 {
			run = utf8.AppendRune(buf[:0], r)
		}
		if len(run) > len(want) || string(run) != want[:len(run)] {
			return false
		}
		want = want[len(run):]
	}
	return want == ""
}

func (c *fwdScan) next(closing byte) (bool, error) {
	p, more, err := scanNext(c.s, c.pos, closing)
	if err == nil {
		c.pos = p
	}
	return more, err
}

// array reads an array at s[pos] against node i, an array (or none).
func (c *fwdScan) array(i, depth int) (int, error) {
	c.pos++
	p := -1 // the element of i to compare with the next one of s
	if i >= 0 {
		p = c.t.first(i)
	}
	c.pos = skipSpace(c.s, c.pos)
	if c.pos < len(c.s) && c.s[c.pos] == ']' {
		c.pos++
	} else {
		for {
			q := -1
			if i >= 0 {
				if p >= c.t.end(i) {
					return i, nil // s has more elements
				}
				q, p = p, c.t.end(p)
			}
			if d, err := c.value(q, depth+1); err != nil || d >= 0 {
				return d, err
			}
			if more, err := c.next(']'); err != nil {
				return 0, err
			} else if !more {
				break
			}
		}
	}
	if i >= 0 && p < c.t.end(i) {
		return i, nil // s has fewer elements
	}
	return -1, nil
}

// object reads an object at s[pos] against node i, an object (or none).
// Its members are looked up by name: in order first, then by a scan of
// i's members from there, or through an index of them when i has more
// than 64 (the parse's, for the largest object: tape.indexed, hashed or,
// after a map's re-encoding, in name order, keyIndex.byName). A
// member of s that i lacks, or that s has twice, makes them differ; so
// does a member of i that s lacks.
func (c *fwdScan) object(i, depth int) (int, error) {
	c.pos++
	t := c.t
	var (
		ix      keyIndex
		indexed bool
		after   int    // ix.findBytes's place in name order
		small   uint64 // members matched, by position, when n <= 64
		n       = 0
		next    = -1 // the member expected next, and its position
		nextPos = 0
		missing = false
		read    = 0
	)
	if i >= 0 {
		n, next = t.count(i), t.first(i)
	}
	c.pos = skipSpace(c.s, c.pos)
	if c.pos < len(c.s) && c.s[c.pos] == '}' {
		c.pos++
	} else {
		for {
			c.pos = skipSpace(c.s, c.pos)
			if c.pos >= len(c.s) {
				return 0, errTapeEOF
			}
			if c.s[c.pos] != '"' {
				return 0, errTapeSyntax
			}
			start := c.pos + 1
			end, escaped, _, err := scanString(c.s, c.pos)
			if err != nil {
				return 0, err
			}
			c.pos = end + 1
			name := c.s[start:end]
			if escaped && i >= 0 {
				c.name = c.name[:0]
				for run, r := range unescaped(name) {
					if r >= 0 {
						c.name = utf8.AppendRune(c.name, r)
					} else {
						c.name = append(c.name, run...)
					}
				}
				name = c.name
			}
			if c.pos = skipSpace(c.s, c.pos); c.pos >= len(c.s) {
				return 0, errTapeEOF
			}
			if c.s[c.pos] != ':' {
				return 0, errTapeSyntax
			}
			c.pos++
			read++
			// The member of i with this name (-1: none).
			j := -1
			switch {
			case i < 0:
			case next < t.end(i) && keyIs(t, next, name):
				j = next
			case n <= 64:
				// The members after the one expected next, then those
				// before it.
				from, k := t.first(i), 0
				if next < t.end(i) {
					from, k = t.end(next), nextPos+1
				}
				for q := from; q < t.end(i); q, k = t.end(q), k+1 {
					if keyIs(t, q, name) {
						j, nextPos = q, k
						break
					}
				}
				for q, k := t.first(i), 0; j < 0 && q < next && from != t.first(i); q, k = t.end(q), k+1 {
					if keyIs(t, q, name) {
						j, nextPos = q, k
					}
				}
			default:
				if !indexed {
					if t.indexed == i+1 {
						ix = t.index // the parse's index of i's members
					} else {
						ix.reset(n)
						for q := t.first(i); q < t.end(i); q = t.end(q) {
							ix.insert(t, q)
						}
					}
					indexed = true
				}
				j = ix.findBytes(t, name, &after)
			}
			switch {
			case i < 0:
			case j < 0:
				missing = true
			case n <= 64:
				if small&(1<<nextPos) != 0 {
					return i, nil // s has the member twice
				}
				small |= 1 << nextPos
				next, nextPos = t.end(j), nextPos+1
			default:
				if c.marks == nil {
					c.marks = make([]uint64, (len(t.nodes)+63)/64)
				}
				if c.marks[j/64]&(1<<(j%64)) != 0 {
					return i, nil // s has the member twice
				}
				c.marks[j/64] |= 1 << (j % 64)
				next = t.end(j)
			}
			if d, err := c.value(j, depth+1); err != nil || d >= 0 {
				return d, err
			}
			if more, err := c.next('}'); err != nil {
				return 0, err
			} else if !more {
				break
			}
		}
	}
	if i < 0 || !missing && read == n {
		return -1, nil
	}
	// The first member of i that s lacks, if there is one.
	for q, k := t.first(i), 0; q < t.end(i); q, k = t.end(q), k+1 {
		if n <= 64 && small&(1<<k) == 0 || n > 64 && (c.marks == nil || c.marks[q/64]&(1<<(q%64)) == 0) {
			return q, nil
		}
	}
	return i, nil
}

// Member returns the text of the member named name of b, a JSON object as
// the engine forwards it (Check's bytes, escaped or not), exactly as it is
// written there, and whether b has it. It reads b up to that member, once,
// and allocates nothing. Text that does not begin as a JSON object has no
// member; of other text that is not JSON, b's members up to the first
// error are found.
func Member(b []byte, name string) ([]byte, bool) {
	c := fwdScan{s: b}
	if c.pos = skipSpace(b, 0); c.pos >= len(b) || b[c.pos] != '{' {
		return nil, false
	}
	c.pos++
	if c.pos = skipSpace(b, c.pos); c.pos < len(b) && b[c.pos] == '}' {
		return nil, false
	}
	for {
		if c.pos = skipSpace(b, c.pos); c.pos >= len(b) || b[c.pos] != '"' {
			return nil, false
		}
		start := c.pos + 1
		end, escaped, n, err := scanString(b, c.pos)
		if err != nil {
			return nil, false
		}
		if c.pos = skipSpace(b, end+1); c.pos >= len(b) || b[c.pos] != ':' {
			return nil, false
		}
		c.pos = skipSpace(b, c.pos+1)
		at := c.pos
		if _, err := c.value(-1, 1); err != nil {
			return nil, false
		}
		if n == len(name) && sameText(b[start:end], escaped, name) {
			return b[at:c.pos], true
		}
		if more, err := c.next('}'); err != nil || !more {
			return nil, false
		}
	}
}
