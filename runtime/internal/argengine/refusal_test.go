package argengine

import "testing"

// The pointer of a node is the path to it, with RFC 6901 escapes.
func TestTapePointer(t *testing.T) {
	tp := getTape()
	defer putTape(tp)
	if err := tp.parse(`{"a":[1,{"b/c":[true,{"~":null}]}],"d":{}}`); err != nil {
		t.Fatal(err)
	}
	want := []string{"", "/a", "/a/0", "/a/1", "/a/1/b~1c", "/a/1/b~1c/0", "/a/1/b~1c/1", "/a/1/b~1c/1/~0", "/d"}
	if len(tp.nodes) != len(want) {
		t.Fatalf("%d nodes", len(tp.nodes))
	}
	for i, w := range want {
		if got := tp.pointer(i); got != w {
			t.Errorf("node %d: %q, want %q", i, got, w)
		}
	}
}
