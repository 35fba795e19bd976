package testwait

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTB records the failure of a wait instead of failing the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (*fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure runs wait as a test's goroutine would, and returns the message it
// failed with ("" if it returned).
func failure(t *testing.T, wait func(tb testing.TB)) string {
	t.Helper()
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait(f)
	}()
	select {
	case <-done:
	case <-time.After(Guard):
		t.Fatal("the wait under test did not return")
	}
	return f.failed
}

func TestRecv(t *testing.T) {
	ch := make(chan int, 1)
	ch <- 7
	if got := Recv(t, ch, "a number"); got != 7 {
		t.Errorf("Recv = %d, want 7", got)
	}
	msg := failure(t, func(tb testing.TB) { recv(tb, make(chan int), time.Millisecond, "the %s", "answer") })
	if !strings.Contains(msg, "for the answer: it never came") {
		t.Errorf("Recv that times out: %q", msg)
	}
	close(ch)
	msg = failure(t, func(tb testing.TB) { recv(tb, ch, Guard, "the answer") })
	if !strings.Contains(msg, "for the answer: the channel was closed") {
		t.Errorf("Recv of a closed channel: %q", msg)
	}
}

func TestClosed(t *testing.T) {
	done := make(chan struct{})
	close(done)
	Closed(t, done, "done")
	msg := failure(t, func(tb testing.TB) { closed(tb, make(chan struct{}), time.Millisecond, "the server to stop") })
	if !strings.Contains(msg, "for the server to stop: it never came") {
		t.Errorf("Closed that times out: %q", msg)
	}
}

func TestWait(t *testing.T) {
	var wg sync.WaitGroup
	wg.Go(func() {})
	Wait(t, &wg, "nothing")
}
