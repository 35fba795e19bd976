package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/internal/browsertest"
)

// TestMain closes the browser of the browser test after the tests, and
// fails the package when its tests pass but leave a goroutine running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(browsertest.Main(m)) }
