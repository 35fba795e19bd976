package argengine

import "hash/maphash"

// keyIndex finds a member of an object by name in constant expected time:
// an open-addressing table of the members' node indices, hashed by name
// with a seed chosen at random for the process (so that no input can be
// built to collide). It holds 4 bytes a slot, at most 2.5 slots a member.
type keyIndex struct {
	slots []int32 // node index + 1; 0: empty
	n     int
}

var keySeed = maphash.MakeSeed()

// reset empties ix, with room for about n members.
func (ix *keyIndex) reset(n int) {
	size := 8
	for size*4 < n*5 {
		size *= 2
	}
	if cap(ix.slots) >= size {
		ix.slots = ix.slots[:size]
		clear(ix.slots)
	} else {
		ix.slots = make([]int32, size)
	}
	ix.n = 0
}

// insert adds member j of t, whose name ix does not hold yet.
func (ix *keyIndex) insert(t *tape, j int) {
	if (ix.n+1)*5 > len(ix.slots)*4 {
		old := ix.slots
		ix.slots, ix.n = make([]int32, 2*len(old)), 0
		for _, v := range old {
			if v != 0 {
				ix.put(t.key(int(v-1)), v)
			}
		}
	}
	ix.put(t.key(j), int32(j+1))
}

func (ix *keyIndex) put(k string, v int32) {
	mask := len(ix.slots) - 1
	for s := int(maphash.String(keySeed, k)) & mask; ; s = (s + 1) & mask {
		if ix.slots[s] == 0 {
			ix.slots[s] = v
			ix.n++
			return
		}
	}
}

// find returns the member of t named k, or -1.
func (ix *keyIndex) find(t *tape, k string) int {
	mask := len(ix.slots) - 1
	for s := int(maphash.String(keySeed, k)) & mask; ix.slots[s] != 0; s = (s + 1) & mask {
		if j := int(ix.slots[s] - 1); t.key(j) == k {
			return j
		}
	}
	return -1
}
