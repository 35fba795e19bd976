// Package testwait bounds the waits of the project's tests. A test that
// waits for something the code under test must do (announce a confirm,
// return a decision, end a subscription) waits at most [Guard], and then
// fails saying what it waited for, instead of hanging until go test's
// timeout and dumping every goroutine.
//
// Guard is far above any delay of a loaded machine: reaching it means the
// awaited thing never happened. It is a guard against a hang, never a
// performance threshold.
//
// The functions call t.Fatalf, so they must be called from the test's own
// goroutine.
package testwait

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// Guard bounds every wait of the functions of this package.
const Guard = time.Minute

// Recv returns the next value received from ch. If none comes within
// Guard, or ch is closed, it fails t, naming what it waited for (what and
// args, formatted as by fmt.Sprintf).
func Recv[T any](t testing.TB, ch <-chan T, what string, args ...any) T {
	t.Helper()
	return recv(t, ch, Guard, what, args...)
}

func recv[T any](t testing.TB, ch <-chan T, guard time.Duration, what string, args ...any) T {
	t.Helper()
	timer := time.NewTimer(guard)
	defer timer.Stop()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("waited for %s: the channel was closed", fmt.Sprintf(what, args...))
		}
		return v
	case <-timer.C:
		t.Fatalf("waited %v for %s: it never came", guard, fmt.Sprintf(what, args...))
	}
	panic("unreachable")
}

// Closed waits until ch is closed or delivers a value (a done channel, a
// context's Done), and fails t, naming what, if neither happens within
// Guard.
func Closed[T any](t testing.TB, ch <-chan T, what string, args ...any) {
	t.Helper()
	closed(t, ch, Guard, what, args...)
}

func closed[T any](t testing.TB, ch <-chan T, guard time.Duration, what string, args ...any) {
	t.Helper()
	timer := time.NewTimer(guard)
	defer timer.Stop()
	select {
	case <-ch:
	case <-timer.C:
		t.Fatalf("waited %v for %s: it never came", guard, fmt.Sprintf(what, args...))
	}
}

// Wait waits for wg, and fails t, naming what it waited for, if wg is not
// done within Guard. The goroutine waiting for wg then stays blocked until
// it is done: the test has failed anyway.
func Wait(t testing.TB, wg *sync.WaitGroup, what string, args ...any) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	Closed(t, done, what, args...)
}
