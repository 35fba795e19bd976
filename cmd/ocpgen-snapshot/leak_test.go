package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when its tests pass but leave a goroutine
// running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
