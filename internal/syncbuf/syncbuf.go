// Package syncbuf is a bytes.Buffer safe for concurrent use, for the tests
// that read what a gate or a Hub logged from other goroutines.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer safe for concurrent use. The zero value is empty
// and ready.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Reset forgets what was written.
func (s *Buffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}
