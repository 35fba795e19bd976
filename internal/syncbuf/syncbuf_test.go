package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// Concurrent writers lose nothing (and -race finds no race); Reset empties.
func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("x"))
			}
		})
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("x", 800) {
		t.Fatalf("%d bytes, want 800", len(got))
	}
	b.Reset()
	if b.String() != "" {
		t.Fatal("not empty after Reset")
	}
}
