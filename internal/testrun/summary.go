package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"
)

// event is one line of go test -json (cmd/test2json's TestEvent, with the
// build events go test adds).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string // build-output and build-fail events
	FailedBuild string // a package's fail event when its build failed
}

// pkgState is what the summary keeps of a package until it finishes.
type pkgState struct {
	// output is every line the package printed, for a failure or -v.
	output []string
	// running holds the log of each test that has not finished yet.
	running map[string][]string
	// tests and subtests count those that ran; skipped and subSkipped
	// those of them that skipped.
	tests, subtests, skipped, subSkipped int
	// reasons are the distinct skip reasons in the order first seen, each
	// with the tests that gave it.
	reasons []*skipReason
	cached  bool
}

type skipReason struct {
	text  string
	tests []string
}

// summary reads go test -json events and prints one line per package.
type summary struct {
	w       io.Writer
	verbose bool
	pkgs    map[string]*pkgState
	// build holds build output by import path until a package's failure
	// names it.
	build      map[string][]string
	buildOrder []string
	start      time.Time

	ok, okSkipping, allSkipped, failed, noTests, skippedTests int
}

func newSummary(w io.Writer, verbose bool) *summary {
	return &summary{w: w, verbose: verbose, pkgs: map[string]*pkgState{}, build: map[string][]string{}, start: time.Now()}
}

// read consumes the event stream. A line that is not an event is printed
// as it is.
func (s *summary) read(r io.Reader) error {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var e event
			if line[0] != '{' || json.Unmarshal(line, &e) != nil {
				if _, werr := s.w.Write(line); werr != nil {
					return werr
				}
			} else {
				s.handle(e)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (s *summary) pkg(name string) *pkgState {
	p := s.pkgs[name]
	if p == nil {
		p = &pkgState{running: map[string][]string{}}
		s.pkgs[name] = p
	}
	return p
}

func (s *summary) handle(e event) {
	switch e.Action {
	case "build-output":
		if _, seen := s.build[e.ImportPath]; !seen {
			s.buildOrder = append(s.buildOrder, e.ImportPath)
		}
		s.build[e.ImportPath] = append(s.build[e.ImportPath], e.Output)
		return
	case "build-fail":
		return
	}
	if e.Package == "" {
		return
	}
	p := s.pkg(e.Package)
	if e.Test == "" {
		switch e.Action {
		case "output":
			p.output = append(p.output, e.Output)
			if strings.HasPrefix(e.Output, "ok  \t"+e.Package+"\t(cached)") {
				p.cached = true
			}
		case "pass", "fail", "skip":
			s.end(e, p)
		}
		return
	}
	switch e.Action {
	case "run":
		p.running[e.Test] = nil
		if strings.Contains(e.Test, "/") {
			p.subtests++
		} else {
			p.tests++
		}
	case "output":
		p.output = append(p.output, e.Output)
		if !framing(e.Output) {
			p.running[e.Test] = append(p.running[e.Test], e.Output)
		}
	case "skip":
		if strings.Contains(e.Test, "/") {
			p.subSkipped++
		} else {
			p.skipped++
		}
		p.addReason(e.Test, reasonOf(p.running[e.Test]))
		delete(p.running, e.Test)
	case "pass", "fail":
		delete(p.running, e.Test)
	}
}

func (p *pkgState) addReason(test, text string) {
	for _, r := range p.reasons {
		if r.text == text {
			r.tests = append(r.tests, test)
			return
		}
	}
	p.reasons = append(p.reasons, &skipReason{text: text, tests: []string{test}})
}

// framing reports whether a test's output line is test2json's framing
// (=== RUN, --- PASS, ...) rather than the test's own log.
func framing(line string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- FAIL", "--- SKIP", "--- BENCH"} {
		if strings.HasPrefix(strings.TrimLeft(line, " "), p) {
			return true
		}
	}
	return false
}

// logStart matches the first line of a t.Log entry: its indent, then
// "file.go:LINE: ".
var logStart = regexp.MustCompile(`^(\s*)\S+\.go:\d+: `)

// reasonOf returns a skipped test's skip message: the last entry of its
// log (t.Skip logs its message last), with the file:line removed and
// continuation lines joined.
func reasonOf(log []string) string {
	last := -1
	for i, l := range log {
		if logStart.MatchString(l) {
			last = i
		}
	}
	if last < 0 {
		return "(no message)"
	}
	m := logStart.FindStringSubmatch(log[last])
	parts := []string{strings.TrimSpace(log[last][len(m[0]):])}
	for _, l := range log[last+1:] {
		if t := strings.TrimSpace(l); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, " ")
}

// end prints a finished package's line (and, for a failure or under -v,
// its output first).
func (s *summary) end(e event, p *pkgState) {
	delete(s.pkgs, e.Package)
	if e.Action == "skip" {
		s.noTests++
		fmt.Fprintf(s.w, "?   \t%s\t[no test files]\n", e.Package)
		return
	}
	if e.FailedBuild != "" {
		if out, ok := s.build[e.FailedBuild]; ok {
			s.printLines(out)
			delete(s.build, e.FailedBuild)
		}
	}
	if e.Action == "fail" || s.verbose {
		s.printLines(ownOutput(e.Package, p.output))
	}
	elapsed := fmt.Sprintf("%.1fs", e.Elapsed)
	switch {
	case e.FailedBuild != "":
		elapsed = "[build failed]"
	case p.cached:
		elapsed = "(cached)"
	}
	var notes []string
	if p.skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d tests skipped", p.skipped, p.tests))
	}
	if p.subSkipped > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d subtests skipped", p.subSkipped, p.subtests))
	}
	status := "ok  "
	switch {
	case e.Action == "fail":
		status = "FAIL"
		s.failed++
	case p.tests > 0 && p.skipped == p.tests:
		status = "SKIPPED"
		notes[0] = fmt.Sprintf("all %d tests skipped", p.tests)
		s.allSkipped++
	case len(notes) > 0:
		s.okSkipping++
	case p.tests == 0:
		notes = append(notes, "no tests to run")
		s.ok++
	default:
		s.ok++
	}
	s.skippedTests += p.skipped + p.subSkipped
	note := ""
	if len(notes) > 0 {
		note = "\t(" + strings.Join(notes, ", ") + ")"
	}
	fmt.Fprintf(s.w, "%s\t%s\t%s%s\n", status, e.Package, elapsed, note)
	for i, r := range p.reasons {
		if i == maxReasons {
			fmt.Fprintf(s.w, "\t... and %d more skip reasons (go test -v %s shows every one)\n", len(p.reasons)-maxReasons, e.Package)
			break
		}
		fmt.Fprintf(s.w, "\tskipped %s: %s\n", names(r.tests), r.text)
	}
}

// maxReasons is the most distinct skip reasons printed for one package.
const maxReasons = 10

// ownOutput drops go test's own summary lines for pkg from its output:
// the summary prints its own.
func ownOutput(pkg string, out []string) []string {
	kept := out[:0:0]
	for _, l := range out {
		if strings.HasPrefix(l, "ok  \t"+pkg+"\t") || strings.HasPrefix(l, "FAIL\t"+pkg+"\t") || strings.HasPrefix(l, "FAIL\t"+pkg+" ") {
			continue
		}
		kept = append(kept, l)
	}
	return kept
}

// names lists tests, up to four by name.
func names(tests []string) string {
	const show = 4
	if len(tests) <= show {
		return strings.Join(tests, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(tests[:show], ", "), len(tests)-show)
}

func (s *summary) printLines(lines []string) {
	for _, l := range lines {
		io.WriteString(s.w, l)
		if !strings.HasSuffix(l, "\n") {
			io.WriteString(s.w, "\n")
		}
	}
}

// finish prints what no package's end printed (build output of a package
// that never started, packages cut short) and the closing count.
func (s *summary) finish() {
	for _, ip := range s.buildOrder {
		if out, ok := s.build[ip]; ok {
			s.printLines(out)
		}
	}
	unfinished := make([]string, 0, len(s.pkgs))
	for name := range s.pkgs {
		unfinished = append(unfinished, name)
	}
	sort.Strings(unfinished)
	for _, name := range unfinished {
		s.printLines(s.pkgs[name].output)
		fmt.Fprintf(s.w, "FAIL\t%s\t(no result: go test ended before the package finished)\n", name)
		s.failed++
	}
	fmt.Fprintf(s.w, "testrun: %d packages in %s: %d ok, %d ok with tests skipped, %d SKIPPED (every test skipped), %d FAIL, %d without tests; %d tests and subtests skipped\n",
		s.ok+s.okSkipping+s.allSkipped+s.failed+s.noTests, time.Since(s.start).Round(time.Second),
		s.ok, s.okSkipping, s.allSkipped, s.failed, s.noTests, s.skippedTests)
}
