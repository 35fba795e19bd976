package argengine

import (
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
)

// keyIndex finds a member of an object by name in constant expected time:
// an open-addressing table of the members' node indices, hashed by name
// with a seed chosen at random for the process (so that no input can be
// built to collide). It holds 4 bytes a slot, 1.25 slots a member and 8:
// its size is not a power of two, and a name's first slot is its hash
// scaled to the size (home). A slot holds 5 bits of its name's hash above
// its node, so that a probe reads a name only when those bits match.
//
// byName turns it, in place, into its members in name order, which a map's
// re-encoding writes them in (encodeTapeMap) and the round trip then reads
// (fwdScan), so that neither needs a table of its own; it then finds a
// name by binary search.
type keyIndex struct {
	slots []uint32 // tag | node index + 1; 0: empty
	// named is the number of members, in name order in slots[:named]
	// (node index + 1 each), once byName has run; 0 while hashed.
	named int
}

// slotNode masks a slot's node index + 1 (a tape has fewer nodes); the
// bits above it are the name's tag (tagOf).
const slotNode = 1<<27 - 1

func tagOf(h uint64) uint32 { return uint32(h) << 27 }

var keySeed = maphash.MakeSeed()

// reset empties ix, with room for n members.
func (ix *keyIndex) reset(n int) {
	size := n + n/4 + 8 // at most 80% full
	if cap(ix.slots) >= size {
		ix.slots = ix.slots[:size]
		clear(ix.slots)
	} else {
		ix.slots = make([]uint32, size)
	}
	ix.named = 0
}

// byName returns ix's members (node index + 1 each) in name order, which
// from then on ix holds in place of its table. ix holds the members of an
// object (none of the same name: the parse refused those).
func (ix *keyIndex) byName(t *tape) []uint32 {
	if ix.named == 0 {
		n := 0
		for _, v := range ix.slots {
			if v != 0 {
				ix.slots[n] = v & slotNode
				n++
			}
		}
		order := ix.slots[:n]
		clear(ix.slots[n:])
		slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(t.key(int(a)-1), t.key(int(b)-1)) })
		ix.named = n
	}
	return ix.slots[:ix.named]
}

// insert adds member j of t, whose name ix does not hold yet. ix has room
// for it (reset).
func (ix *keyIndex) insert(t *tape, j int) {
	h := maphash.String(keySeed, t.key(j))
	s := ix.home(h)
	for ix.slots[s] != 0 {
		s = ix.next(s)
	}
	ix.slots[s] = tagOf(h) | uint32(j+1)
}

// home returns the first slot of a name whose hash is h.
func (ix *keyIndex) home(h uint64) int {
	s, _ := bits.Mul64(h, uint64(len(ix.slots)))
	return int(s)
}

// next returns the slot after s, wrapping around.
func (ix *keyIndex) next(s int) int {
	if s++; s == len(ix.slots) {
		return 0
	}
	return s
}

// lookup returns the member of t named k, whose hash is h, or -1 and the
// empty slot where it would go. ix is hashed (not byName).
func lookup[S text](ix *keyIndex, t *tape, k S, h uint64) (j, free int) {
	tag, s := tagOf(h), ix.home(h)
	for v := ix.slots[s]; v != 0; v = ix.slots[s] {
		if v&^slotNode == tag && keyIs(t, int(v&slotNode)-1, k) {
			return int(v&slotNode) - 1, s
		}
		s = ix.next(s)
	}
	return -1, s
}

// add adds member j of t, named k, unless ix holds a member of that name
// (then it reports false). ix has room for it (reset) and is hashed.
func (ix *keyIndex) add(t *tape, k string, j int) bool {
	h := maphash.String(keySeed, k)
	found, s := lookup(ix, t, k, h)
	if found >= 0 {
		return false
	}
	ix.slots[s] = tagOf(h) | uint32(j+1)
	return true
}

// find returns the member of t named k, or -1. ix is hashed.
func (ix *keyIndex) find(t *tape, k string) int {
	j, _ := lookup(ix, t, k, maphash.String(keySeed, k))
	return j
}

// findBytes is find for a name held in bytes, in ix hashed or byName. In
// one byName it first tries the member after the one it found last (*after
// is that place in name order, 0 at first: a map's round trip reads its
// members in that order), then searches.
func (ix *keyIndex) findBytes(t *tape, k []byte, after *int) int {
	if ix.named == 0 {
		j, _ := lookup(ix, t, k, maphash.Bytes(keySeed, k))
		return j
	}
	order := ix.slots[:ix.named]
	p := *after
	if p >= len(order) || !keyIs(t, int(order[p])-1, k) {
		var found bool
		p, found = slices.BinarySearchFunc(order, k, func(v uint32, k []byte) int { return compareName(t.key(int(v)-1), k) })
		if !found {
			return -1
		}
	}
	*after = p + 1
	return int(order[p]) - 1
}

// compareName is strings.Compare of a and k, without copying k.
func compareName(a string, k []byte) int {
	switch {
	case a == string(k):
		return 0
	case a < string(k):
		return -1
	}
	return 1
}

// valueSet finds two equal items of an array (uniqueItems): a table laid
// out as keyIndex's (4-byte slots of an item's node tagged with 5 bits of
// its hash, hashTape, at most 80% full), which starts small and doubles,
// so that an array whose duplicate comes early costs little, and one of
// distinct items about 5 bytes an item (each distinct item has at least
// two bytes of text, most many more).
type valueSet struct {
	keyIndex
	n int
}

// add adds item p of t, unless s holds an equal value (then it reports
// false).
func (s *valueSet) add(t *tape, p int) bool {
	if (s.n+1)*5 > len(s.slots)*4 {
		old := s.slots
		s.slots = make([]uint32, max(16, 2*len(old)))
		for _, v := range old {
			if v != 0 {
				s.put(hashTape(t, int(v&slotNode)-1), v&slotNode)
			}
		}
	}
	h := hashTape(t, p)
	tag, k := tagOf(h), s.home(h)
	for v := s.slots[k]; v != 0; v = s.slots[k] {
		if v&^slotNode == tag && tapeDiff(t, p, t, int(v&slotNode)-1) < 0 {
			return false
		}
		k = s.next(k)
	}
	s.slots[k] = tag | uint32(p+1)
	s.n++
	return true
}

// put stores node (index + 1), whose value's hash is h, in the first free
// slot from its home.
func (s *valueSet) put(h uint64, node uint32) {
	k := s.home(h)
	for s.slots[k] != 0 {
		k = s.next(k)
	}
	s.slots[k] = tagOf(h) | node
}

// memoSet remembers the verdicts of a validation's memo nodes (snode.memo)
// by memo node (snode.memoID) and instance node, in the common case (no
// signature of a dynamic scope, no annotations). A memo node's first
// verdicts go to a table the memo nodes share, open-addressing, of 8-byte
// slots (a key and its verdict, hashed with the process's random seed);
// once a memo node has more than 1/memoDenseShare of the tape's nodes
// there, its verdicts go to a table of its own of 2 bits a tape node
// (known, verdict), which it then reads first. So a validation remembers
// at most about 3 bits a tape node for each memo node it used, however
// many instance nodes a shared subschema is applied to.
type memoSet struct {
	slots []uint64 // (memo id<<32 | instance node) << 1 | verdict; 0: empty
	n     int
	// count is, by memo id, its entries in slots; dense, nil or its table
	// of 2 bits a tape node. Both are made at the first put.
	count []int32
	dense [][]uint64
}

// memoDenseShare: a memo node whose entries in the shared table pass
// 1/memoDenseShare of the tape's nodes gets its own table, of 2 bits a node.
const memoDenseShare = 256

var memoSeed = uint64(maphash.Comparable(keySeed, "memo"))

func memoKey64(id int32, i int) uint64 { return (uint64(uint32(id))<<32 | uint64(uint32(i))) << 1 }

func memoHash(k uint64) uint64 {
	k ^= memoSeed
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	return k
}

// get returns the verdict remembered for memo node id at instance node i.
func (m *memoSet) get(id int32, i int) (ok, hit bool) {
	if m.dense != nil {
		if d := m.dense[id]; d != nil {
			w := d[i/32] >> (2 * (i % 32))
			return w&2 != 0, w&1 != 0
		}
	}
	if m.n == 0 {
		return false, false
	}
	k := memoKey64(id, i)
	mask := len(m.slots) - 1
	for s := int(memoHash(k)) & mask; m.slots[s] != 0; s = (s + 1) & mask {
		if m.slots[s]&^1 == k {
			return m.slots[s]&1 == 1, true
		}
	}
	return false, false
}

// put remembers ok for memo node id (of memos) at instance node i (of
// nodes), which m does not hold.
func (m *memoSet) put(id int32, i int, ok bool, memos, nodes int) {
	if m.dense == nil {
		m.count, m.dense = make([]int32, memos), make([][]uint64, memos)
	}
	d := m.dense[id]
	if d == nil && int(m.count[id]) >= nodes/memoDenseShare {
		// Its own table, with what the shared one holds of it.
		d = make([]uint64, (nodes+31)/32)
		for _, v := range m.slots {
			if v != 0 && int32(v>>33) == id {
				setMemoBits(d, int(uint32(v>>1)), v&1 == 1)
			}
		}
		m.dense[id] = d
	}
	if d != nil {
		setMemoBits(d, i, ok)
		return
	}
	m.count[id]++
	if (m.n+1)*5 > len(m.slots)*4 {
		old := m.slots
		m.slots, m.n = make([]uint64, max(16, 2*len(old))), 0
		for _, v := range old {
			if v != 0 {
				m.insert(v)
			}
		}
	}
	v := memoKey64(id, i)
	if ok {
		v |= 1
	}
	m.insert(v)
}

// setMemoBits marks node i known, with its verdict ok, in a dense table.
func setMemoBits(d []uint64, i int, ok bool) {
	b := uint64(1)
	if ok {
		b = 3
	}
	d[i/32] |= b << (2 * (i % 32))
}

func (m *memoSet) insert(v uint64) {
	mask := len(m.slots) - 1
	for s := int(memoHash(v&^1)) & mask; ; s = (s + 1) & mask {
		if m.slots[s] == 0 {
			m.slots[s] = v
			m.n++
			return
		}
	}
}
