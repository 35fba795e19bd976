// Command testrun runs go test and prints what go test's own summary hides:
// which tests were skipped, and why.
//
//	go run ./internal/testrun [go test flags] [packages]
//
// It runs "go test -json" with the given flags and packages and prints one
// line per package as it finishes:
//
//	ok      PKG  TIME                      every test ran and passed
//	ok      PKG  TIME  (K of N tests skipped)  some tests skipped; the
//	                                       reasons follow, indented
//	SKIPPED PKG  TIME  (all N tests skipped)   no test of the package ran;
//	                                       the reasons follow, indented
//	FAIL    PKG  TIME                      after the package's whole output
//	?       PKG  [no test files]
//
// then a last line counting the packages of each kind. A skipped test's
// reason is its skip message; skipped subtests are listed too. go test
// alone prints "ok" for a package whose every test skipped (its per-test
// output shows only under -v); this is the difference.
//
// TIME is the package's wall time as go test measured it, or "(cached)".
// With -v every package's whole output is printed when it finishes. The
// exit status is go test's; stderr is go test's.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs go test -json with args and summarizes its events on stdout. It
// returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	verbose := false
	for _, a := range args {
		if a == "--" {
			break // what follows is the test binary's
		}
		switch {
		case a == "-json" || a == "--json" || strings.HasPrefix(a, "-json=") || strings.HasPrefix(a, "--json="):
			fmt.Fprintln(stderr, "testrun: -json is testrun's own: it reads go test -json and prints a summary (run go test -json for the events)")
			return 2
		case a == "-v" || a == "--v" || a == "-v=true" || a == "--v=true":
			verbose = true
		}
	}
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = stderr
	events, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "testrun:", err)
		return 2
	}
	s := newSummary(stdout, verbose)
	readErr := s.read(events)
	if readErr != nil {
		// Drain what is left so that go test is not blocked on a full pipe.
		_, _ = io.Copy(io.Discard, events)
	}
	waitErr := cmd.Wait()
	s.finish()
	if readErr != nil {
		fmt.Fprintln(stderr, "testrun: reading go test -json:", readErr)
		return 2
	}
	if waitErr != nil {
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) && ee.Exited() {
			if s.failed == 0 {
				fmt.Fprintf(stdout, "testrun: go test exited %d (see its messages above)\n", ee.ExitCode())
			}
			return ee.ExitCode()
		}
		fmt.Fprintln(stderr, "testrun: go test:", waitErr)
		return 2
	}
	return 0
}
