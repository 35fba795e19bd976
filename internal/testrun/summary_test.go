package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ev encodes events as go test -json prints them, one a line.
func ev(t *testing.T, events ...event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// testEvents are the events of one top-level test: run, its log lines
// framed as the testing package frames them, and its end.
func testEvents(pkg, test, action string, log ...string) []event {
	evs := []event{{Action: "run", Package: pkg, Test: test}, {Action: "output", Package: pkg, Test: test, Output: "=== RUN   " + test + "\n"}}
	for _, l := range log {
		evs = append(evs, event{Action: "output", Package: pkg, Test: test, Output: l + "\n"})
	}
	return append(evs,
		event{Action: "output", Package: pkg, Test: test, Output: "--- " + strings.ToUpper(action) + ": " + test + " (0.00s)\n"},
		event{Action: action, Package: pkg, Test: test})
}

var closing = regexp.MustCompile(`(?m)^testrun: (\d+) packages in [^:]+: `)

// summarize runs the summary over stream and returns what it printed, with
// the closing line's duration replaced by "T".
func summarize(t *testing.T, stream string, verbose bool) string {
	t.Helper()
	var out strings.Builder
	s := newSummary(&out, verbose)
	if err := s.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	s.finish()
	return closing.ReplaceAllString(out.String(), "testrun: $1 packages in T: ")
}

// A package whose every test skipped is SKIPPED, not ok, and says why; a
// package with some skipped says how many and why, and a subtest's skip
// counts too.
func TestSkippedPackagesSaySo(t *testing.T) {
	const redis, partial, sub = "example/redisbroker", "example/e2e", "example/gen"
	var evs []event
	evs = append(evs, event{Action: "start", Package: redis})
	evs = append(evs, testEvents(redis, "TestA", "skip", "    a_test.go:10: REDIS_ADDR is not set; to run: source .ci/redis.sh")...)
	evs = append(evs, testEvents(redis, "TestB", "skip", "    b_test.go:20: REDIS_ADDR is not set; to run: source .ci/redis.sh")...)
	evs = append(evs, testEvents(redis, "TestC", "skip", "    c_test.go:5: redis-server is not installed", "        (Debian package redis-server)")...)
	evs = append(evs,
		event{Action: "output", Package: redis, Output: "PASS\n"},
		event{Action: "output", Package: redis, Output: "ok  \t" + redis + "\t0.412s\n"},
		event{Action: "pass", Package: redis, Elapsed: 0.412})
	evs = append(evs, event{Action: "start", Package: partial})
	evs = append(evs, testEvents(partial, "TestRuns", "pass", "    r_test.go:3: a log line of a passing test")...)
	evs = append(evs, testEvents(partial, "TestNode", "skip", "    n_test.go:7: first log line", "    n_test.go:9: node not found; set OCPGEN_E2E_NODE_MODULES")...)
	evs = append(evs, event{Action: "pass", Package: partial, Elapsed: 12.34})
	evs = append(evs, event{Action: "start", Package: sub},
		event{Action: "run", Package: sub, Test: "TestAll"},
		event{Action: "run", Package: sub, Test: "TestAll/big"},
		event{Action: "output", Package: sub, Test: "TestAll/big", Output: "        all_test.go:40: -short: a big input\n"},
		event{Action: "skip", Package: sub, Test: "TestAll/big"},
		event{Action: "run", Package: sub, Test: "TestAll/small"},
		event{Action: "pass", Package: sub, Test: "TestAll/small"},
		event{Action: "pass", Package: sub, Test: "TestAll"},
		event{Action: "output", Package: sub, Output: "ok  \t" + sub + "\t(cached)\n"},
		event{Action: "pass", Package: sub, Elapsed: 0.01})
	evs = append(evs, event{Action: "start", Package: "example/none"},
		event{Action: "output", Package: "example/none", Output: "?   \texample/none\t[no test files]\n"},
		event{Action: "skip", Package: "example/none"})
	got := summarize(t, ev(t, evs...), false)
	want := `SKIPPED	example/redisbroker	0.4s	(all 3 tests skipped)
	skipped TestA, TestB: REDIS_ADDR is not set; to run: source .ci/redis.sh
	skipped TestC: redis-server is not installed (Debian package redis-server)
ok  	example/e2e	12.3s	(1 of 2 tests skipped)
	skipped TestNode: node not found; set OCPGEN_E2E_NODE_MODULES
ok  	example/gen	(cached)	(1 of 2 subtests skipped)
	skipped TestAll/big: -short: a big input
?   	example/none	[no test files]
testrun: 4 packages in T: 0 ok, 2 ok with tests skipped, 1 SKIPPED (every test skipped), 0 FAIL, 1 without tests; 5 tests and subtests skipped
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A failing package prints its whole output, not go test's own summary
// line, and a build failure its compiler messages; a passing package's
// output shows only under -v.
func TestFailuresPrintTheirOutput(t *testing.T) {
	const pass, fail, broken = "example/pass", "example/fail", "example/broken"
	var evs []event
	evs = append(evs,
		event{Action: "build-output", ImportPath: broken + " [" + broken + ".test]", Output: "# " + broken + "\n"},
		event{Action: "build-output", ImportPath: broken + " [" + broken + ".test]", Output: "x_test.go:3:2: undefined: y\n"},
		event{Action: "build-fail", ImportPath: broken + " [" + broken + ".test]"},
		event{Action: "start", Package: pass})
	evs = append(evs, testEvents(pass, "TestOK", "pass", "    ok_test.go:1: quiet unless -v")...)
	evs = append(evs, event{Action: "output", Package: pass, Output: "PASS\n"},
		event{Action: "output", Package: pass, Output: "ok  \t" + pass + "\t1.000s\n"},
		event{Action: "pass", Package: pass, Elapsed: 1})
	evs = append(evs, event{Action: "start", Package: fail})
	evs = append(evs, testEvents(fail, "TestBad", "fail", "    bad_test.go:8: got 1, want 2")...)
	evs = append(evs, event{Action: "output", Package: fail, Output: "FAIL\n"},
		event{Action: "output", Package: fail, Output: "FAIL\t" + fail + "\t2.000s\n"},
		event{Action: "fail", Package: fail, Elapsed: 2})
	evs = append(evs, event{Action: "start", Package: broken},
		event{Action: "output", Package: broken, Output: "FAIL\t" + broken + " [build failed]\n"},
		event{Action: "fail", Package: broken, FailedBuild: broken + " [" + broken + ".test]"})
	stream := ev(t, evs...)

	got := summarize(t, stream, false)
	want := `ok  	example/pass	1.0s
=== RUN   TestBad
    bad_test.go:8: got 1, want 2
--- FAIL: TestBad (0.00s)
FAIL
FAIL	example/fail	2.0s
# example/broken
x_test.go:3:2: undefined: y
FAIL	example/broken	[build failed]
testrun: 3 packages in T: 1 ok, 0 ok with tests skipped, 0 SKIPPED (every test skipped), 2 FAIL, 0 without tests; 0 tests and subtests skipped
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := summarize(t, stream, true); !strings.Contains(got, "    ok_test.go:1: quiet unless -v\n--- PASS: TestOK (0.00s)\nPASS\nok  \texample/pass\t1.0s\n") {
		t.Errorf("-v does not print the passing package's output:\n%s", got)
	}
}

// A package the stream leaves unfinished (go test killed) is a failure
// with its output; a line that is not an event is printed as it is; more
// skip reasons than maxReasons are counted, not dropped.
func TestCutShortAndNoise(t *testing.T) {
	var evs []event
	evs = append(evs, event{Action: "start", Package: "example/many"})
	for i := range maxReasons + 3 {
		evs = append(evs, testEvents("example/many", fmt.Sprintf("Test%d", i), "skip", fmt.Sprintf("    m_test.go:%d: reason %d", i+1, i))...)
	}
	evs = append(evs, event{Action: "pass", Package: "example/many", Elapsed: 0.5})
	evs = append(evs, event{Action: "start", Package: "example/hang"},
		event{Action: "run", Package: "example/hang", Test: "TestHang"},
		event{Action: "output", Package: "example/hang", Test: "TestHang", Output: "=== RUN   TestHang\n"})
	got := summarize(t, "go: downloading example.com/m v1.0.0\n"+ev(t, evs...), false)
	for _, want := range []string{
		"go: downloading example.com/m v1.0.0\n",
		"SKIPPED\texample/many\t0.5s\t(all 13 tests skipped)\n\tskipped Test0: reason 0\n",
		"\tskipped Test9: reason 9\n\t... and 3 more skip reasons (go test -v example/many shows every one)\n",
		"=== RUN   TestHang\nFAIL\texample/hang\t(no result: go test ended before the package finished)\n",
		"testrun: 2 packages in T: 0 ok, 0 ok with tests skipped, 1 SKIPPED (every test skipped), 1 FAIL, 0 without tests; 13 tests and subtests skipped\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestWithGoTest runs testrun's run over the go command's own go test
// -json, on a scratch module of one passing, one all-skipped and one
// failing package: the events it reads are the installed go's, not a
// recording.
func TestWithGoTest(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":             "module scratch\n\ngo 1.26\n",
		"pass/p_test.go":     "package pass\n\nimport \"testing\"\n\nfunc TestPass(t *testing.T) {}\n",
		"skip/s_test.go":     "package skip\n\nimport \"testing\"\n\nfunc TestNeedsRedis(t *testing.T) { t.Skip(\"REDIS_ADDR is not set\") }\n",
		"fail/f_test.go":     "package fail\n\nimport \"testing\"\n\nfunc TestFails(t *testing.T) { t.Error(\"the message of a failure\") }\n",
		"notests/notests.go": "package notests\n",
	}
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	var stdout, stderr strings.Builder
	code := run([]string{"-count=1", "./..."}, &stdout, &stderr)
	got := stdout.String()
	if code != 1 {
		t.Errorf("exit %d, want go test's 1\nstdout:\n%s\nstderr:\n%s", code, got, stderr.String())
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile("(?m)^FAIL\tscratch/fail\t[0-9.]+s\n"),
		regexp.MustCompile(`f_test.go:5: the message of a failure`),
		regexp.MustCompile("(?m)^\\?   \tscratch/notests\t\\[no test files\\]\n"),
		regexp.MustCompile("(?m)^ok  \tscratch/pass\t[0-9.]+s\n"),
		regexp.MustCompile("(?m)^SKIPPED\tscratch/skip\t[0-9.]+s\t\\(all 1 tests skipped\\)\n\tskipped TestNeedsRedis: REDIS_ADDR is not set\n"),
		regexp.MustCompile("(?m)^testrun: 4 packages in .*: 1 ok, 0 ok with tests skipped, 1 SKIPPED \\(every test skipped\\), 1 FAIL, 1 without tests; 1 tests and subtests skipped\n"),
	} {
		if !want.MatchString(got) {
			t.Errorf("output does not match %q:\n%s", want.String(), got)
		}
	}
	if code := run([]string{"-json", "./..."}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "-json is testrun's own") {
		t.Errorf("-json: exit %d, stderr %q", code, stderr.String())
	}
}
