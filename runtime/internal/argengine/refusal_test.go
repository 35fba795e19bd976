package argengine

import (
	"slices"
	"testing"
)

// The pointer of a node is the path to it, with RFC 6901 escapes.
func TestTapePointer(t *testing.T) {
	tp := getTape()
	defer putTape(tp)
	if err := tp.parse(`{"a":[1,{"b/c":[true,{"~":null}]}],"d":{}}`); err != nil {
		t.Fatal(err)
	}
	want := []string{"", "/a", "/a/0", "/a/1", "/a/1/b~1c", "/a/1/b~1c/0", "/a/1/b~1c/1", "/a/1/b~1c/1/~0", "/d"}
	var got []string
	for i := 0; i < len(tp.nodes); i = tp.follow(i) {
		got = append(got, tp.pointer(i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("pointers %q, want %q", got, want)
	}
}
