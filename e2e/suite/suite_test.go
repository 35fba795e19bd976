package suite_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/e2e/suite/internal/suitecases"
	"github.com/ocpgen/ocpgen/e2e/suite/suiteocp"
	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/internal/canon"
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
)

var updateExceptions = flag.Bool("update-exceptions", false, "rewrite "+exceptionsFile+" from what happens, keeping the reasons of the entries that remain")

// exceptionsFile is the one table of the cases whose outcome is not the
// suite's verdict, each with its reason.
const exceptionsFile = "exceptions.txt"

// todoReason is the reason -update-exceptions gives a new entry. The test
// refuses it (outside -update-exceptions): nobody lands an unexplained
// exception.
const todoReason = "TODO: unexplained"

func loadGroups(t *testing.T) []suitecases.Group {
	t.Helper()
	groups, err := suitecases.Load(os.DirFS(filepath.Join("..", "..", suitecases.Dir)))
	if err != nil {
		t.Fatal(err)
	}
	return groups
}

// TestSuiteGenerated checks that suite.tools.json, suite.ocp.yaml and
// suiteocp are what go generate ./e2e/suite makes of the suite files now.
func TestSuiteGenerated(t *testing.T) {
	groups := loadGroups(t)
	snap, class, _, err := suitecases.Inputs(groups)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]byte{suitecases.SnapshotFile: snap, suitecases.ClassifyFile: class} {
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the suite files make: run go generate ./e2e/suite", name)
		}
	}
	res, err := gen.Generate(gen.Input{SnapshotFile: suitecases.SnapshotFile, Snapshot: snap, ClassifyFile: suitecases.ClassifyFile, Classify: class}, gen.Options{Package: suitecases.Package})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(suitecases.Package)
	if err != nil {
		t.Fatal(err)
	}
	var committed []string
	for _, e := range entries {
		committed = append(committed, e.Name())
		want, ok := res.Files[e.Name()]
		if !ok {
			t.Errorf("%s/%s is not generated any more: run go generate ./e2e/suite", suitecases.Package, e.Name())
			continue
		}
		got, err := os.ReadFile(filepath.Join(suitecases.Package, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s/%s is out of date: run go generate ./e2e/suite", suitecases.Package, e.Name())
		}
	}
	for name := range res.Files {
		if !slices.Contains(committed, name) {
			t.Errorf("%s/%s is generated but not committed: run go generate ./e2e/suite", suitecases.Package, name)
		}
	}
}

// spyServer is the fronted MCP server: it lists every generated tool with
// its generated fingerprint and records the exact bytes of every call.
type spyServer struct {
	live []ocp.LiveTool

	mu      sync.Mutex
	watched bool
	calls   []spyCall
}

type spyCall struct {
	tool string
	args json.RawMessage
}

func (s *spyServer) CallTool(_ context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.calls = append(s.calls, spyCall{name, bytes.Clone(args)})
	s.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

func (s *spyServer) WatchTools(fn func([]ocp.LiveTool)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watched {
		return errors.New("spy: a second watcher")
	}
	s.watched = true
	fn(s.live)
	return nil
}

// take returns the calls recorded since the last take.
func (s *spyServer) take() []spyCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.calls
	s.calls = nil
	return c
}

// detailHandler keeps the audited detail of the last refusal.
type detailHandler struct {
	mu     *sync.Mutex
	detail *string
}

func (h detailHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h detailHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h detailHandler) WithGroup(string) slog.Handler            { return h }
func (h detailHandler) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "detail" {
			h.mu.Lock()
			*h.detail = r.Message + ": " + a.Value.String()
			h.mu.Unlock()
		}
		return true
	})
	return nil
}

// A case's outcome, when it is not the suite's verdict. An accepted
// invalid instance has no outcome: it is never an exception.
const (
	outNotGenerated = "not generated"
	outChanged      = "forwarded changed"
	outRefusedFmt   = "refused (%s)"
)

// exception is one row of the table: file, group, test, outcome, reason.
type exception struct {
	file, group, test string
	outcome           string // "valid: ..." or "invalid: ..."
	reason            string
}

func (e exception) key() string { return e.file + "\t" + e.group + "\t" + e.test }

// category is the part of the reason before the first ": ".
func (e exception) category() string {
	c, _, _ := strings.Cut(e.reason, ": ")
	return c
}

// readExceptions reads the table. A line is five fields separated by tabs;
// "#" starts a comment line.
func readExceptions(t *testing.T) map[string]exception {
	t.Helper()
	data, err := os.ReadFile(exceptionsFile)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]exception{}
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]exception{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 || f[4] == "" {
			t.Fatalf("%s:%d: want 5 tab-separated fields (file, group, test, outcome, reason), got %d", exceptionsFile, n, len(f))
		}
		e := exception{f[0], f[1], f[2], f[3], f[4]}
		if !validOutcome(e.outcome) {
			t.Fatalf("%s:%d: outcome %q is none of \"valid: %s\", \"valid: %s\", \"valid: refused (REASON)\", \"invalid: %s\", \"invalid: refused (REASON)\" (REASON not invalid): an accepted invalid instance is never an exception", exceptionsFile, n, e.outcome, outNotGenerated, outChanged, outNotGenerated)
		}
		if _, dup := out[e.key()]; dup {
			t.Fatalf("%s:%d: a second entry for %s / %s / %s", exceptionsFile, n, e.file, e.group, e.test)
		}
		out[e.key()] = e
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func validOutcome(o string) bool {
	verdict, what, ok := strings.Cut(o, ": ")
	if !ok || verdict != "valid" && verdict != "invalid" {
		return false
	}
	if what == outNotGenerated || verdict == "valid" && what == outChanged {
		return true
	}
	r, ok1 := strings.CutPrefix(what, "refused (")
	r, ok2 := strings.CutSuffix(r, ")")
	if !ok1 || !ok2 || r == "" {
		return false
	}
	return verdict == "valid" || r != string(ocp.ReasonInvalid)
}

func writeExceptions(t *testing.T, rows []exception) {
	t.Helper()
	var b strings.Builder
	b.WriteString(`# The suite test's exceptions: the cases of the JSON Schema Test Suite whose
# outcome through Gate.Dispatch is not the suite's verdict, each with its
# reason ("CATEGORY: detail"). Columns, separated by one tab: suite file,
# group description, test description, outcome, reason. The test fails on a
# mismatch not listed here, on a listed one that no longer happens, and on
# the reason "` + todoReason + `". An accepted invalid instance is never an
# exception. Rewrite it from what happens, keeping the reasons of the
# entries that remain, with
#
#	go test ./e2e/suite -run 'TestSuite$' -update-exceptions
`)
	for _, e := range rows {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", e.file, e.group, e.test, e.outcome, e.reason)
	}
	if err := os.WriteFile(exceptionsFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSuite sends every case of the suite through Gate.Dispatch of
// suiteocp, as an authorized principal, to a spy server: a valid instance
// must reach the spy as the same JSON value (canonical JSON, every number
// exact), an invalid one must be refused as invalid without calling it.
// Every other outcome must be an entry of exceptions.txt.
func TestSuite(t *testing.T) {
	groups := loadGroups(t)
	spy := &spyServer{}
	for _, tool := range suiteocp.Catalogue.Tools() {
		spy.live = append(spy.live, ocp.LiveTool{Tool: &mcp.Tool{Name: tool.Desc.Name, InputSchema: json.RawMessage(tool.Desc.InputSchema)}})
	}
	var mu sync.Mutex
	var detail string
	g, err := ocp.NewGate(ocp.Config{
		Catalogue: suiteocp.Catalogue,
		Server:    spy,
		ACL:       ocp.AllowAllResources,
		Audit:     slog.New(detailHandler{&mu, &detail}),
	})
	if err != nil {
		t.Fatal(err)
	}
	who := ocp.Principal{ID: "suite", Tier: "visitor", Scopes: []string{"suite.read"}, Peer: "model"}
	warned := documentedWarnings(t, groups)

	listed := readExceptions(t)
	seen := map[string]bool{}
	var rows []exception
	var cases, valid, invalid, validOK, invalidOK int
	byCategory := map[string]int{}
	for _, grp := range groups {
		_, generated := suiteocp.Catalogue.Lookup(grp.Tool)
		for _, tc := range grp.Tests {
			cases++
			verdict := "invalid"
			if tc.Valid {
				verdict = "valid"
				valid++
			} else {
				invalid++
			}
			where := fmt.Sprintf("%s group %d (%s), test %d (%s)", grp.File, grp.Index, grp.Description, tc.Index, tc.Description)
			outcome := ""
			if !generated {
				outcome = outNotGenerated
			} else {
				mu.Lock()
				detail = ""
				mu.Unlock()
				res := g.Dispatch(context.Background(), who, ocp.ActionRequest{ID: "suite", Tool: grp.Tool, Args: tc.Args()})
				calls := spy.take()
				mu.Lock()
				why := detail
				mu.Unlock()
				switch {
				case !tc.Valid && len(calls) > 0:
					t.Errorf("%s: an invalid instance was forwarded: sent %s, the server received %s", where, tc.Args(), calls[0].args)
					continue
				case !tc.Valid && res.OK:
					t.Errorf("%s: an invalid instance was accepted (the server was not called): %+v", where, res)
					continue
				case !tc.Valid && res.Reason == ocp.ReasonInvalid:
					invalidOK++
					continue
				case !tc.Valid:
					outcome = fmt.Sprintf(outRefusedFmt, res.Reason)
				case !res.OK && len(calls) == 0:
					outcome = fmt.Sprintf(outRefusedFmt, res.Reason)
				case len(calls) != 1 || calls[0].tool != grp.Tool:
					t.Errorf("%s: the server received %d calls, want 1 of %q: %+v", where, len(calls), grp.Tool, calls)
					continue
				case !res.OK:
					t.Errorf("%s: forwarded, then failed: %+v (%s)", where, res, why)
					continue
				default:
					want, err := canon.JSON(tc.Args())
					if err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					got, err := canon.JSON(calls[0].args)
					if err != nil {
						t.Errorf("%s: the server received %s, not JSON: %v", where, calls[0].args, err)
						continue
					}
					if bytes.Equal(got, want) {
						validOK++
						continue
					}
					outcome = outChanged
					why = fmt.Sprintf("sent %s, the server received %s", tc.Args(), calls[0].args)
				}
				if testing.Verbose() || *updateExceptions {
					t.Logf("%s: %s: %s: %s", where, verdict, outcome, why)
				}
			}
			e := exception{file: grp.File, group: grp.Description, test: tc.Description, outcome: verdict + ": " + outcome}
			seen[e.key()] = true
			old, ok := listed[e.key()]
			switch {
			case ok && old.outcome == e.outcome:
				e.reason = old.reason
			case grp.Remote != "" && outcome != outChanged:
				// Not generated or refused: what the schema means depends
				// on a document that is not kept. A changed value is no
				// remote's doing.
				e.reason = "remote ref: the schema needs " + grp.Remote + ", a document it does not hold; the gate fetches none"
			default:
				e.reason = todoReason
			}
			rows = append(rows, e)
			byCategory[e.category()]++
			// generate reports every tool whose valid calls a documented
			// rule can refuse: such an exception without its warning is
			// a refusal nobody was told of.
			if tc.Valid && e.category() == "documented rule" && !warned[grp.Tool] {
				t.Errorf("%s: %s by a documented rule, but generate gave tool %q no warning of a documented refusal (%s, %s, %s)", where, e.outcome, grp.Tool, gen.CodeIntegerRange, gen.CodeNumberPrecision, gen.CodePatternUntranslatable)
			}
			if *updateExceptions {
				continue
			}
			switch {
			case !ok:
				t.Errorf("%s: %s, and exceptions.txt does not list it (go test ./e2e/suite -run 'TestSuite$' -update-exceptions, then give it a reason)", where, e.outcome)
			case old.outcome != e.outcome:
				t.Errorf("%s: %s, but exceptions.txt lists %q (update it)", where, e.outcome, old.outcome)
			case old.reason == todoReason || strings.HasPrefix(old.reason, "TODO"):
				t.Errorf("%s: %s: the exception in exceptions.txt has no reason: explain it", where, e.outcome)
			}
		}
	}
	if *updateExceptions {
		writeExceptions(t, rows)
	} else {
		var stale []string
		for k, e := range listed {
			if !seen[k] {
				stale = append(stale, fmt.Sprintf("%s / %s / %s (%s)", e.file, e.group, e.test, e.outcome))
			}
		}
		sort.Strings(stale)
		for _, s := range stale {
			t.Errorf("exceptions.txt lists %s, which no longer happens: remove it (-update-exceptions)", s)
		}
	}
	cats := make([]string, 0, len(byCategory))
	for c := range byCategory {
		cats = append(cats, c)
	}
	sort.Slice(cats, func(i, j int) bool {
		if byCategory[cats[i]] != byCategory[cats[j]] {
			return byCategory[cats[i]] > byCategory[cats[j]]
		}
		return cats[i] < cats[j]
	})
	var sum strings.Builder
	for _, c := range cats {
		fmt.Fprintf(&sum, ", %s %d", c, byCategory[c])
	}
	t.Logf("suite: %d cases (%d valid, %d invalid) in %d groups, %d tools: %d passed (%d valid forwarded unchanged, %d invalid refused), %d exceptions%s",
		cases, valid, invalid, len(groups), len(suiteocp.Catalogue.Tools()), validOK+invalidOK, validOK, invalidOK, len(rows), sum.String())
}

// documentedWarnings returns the tools generate warns may refuse a valid
// call by a documented rule (integer-range, number-precision,
// pattern-untranslatable).
func documentedWarnings(t *testing.T, groups []suitecases.Group) map[string]bool {
	t.Helper()
	snap, class, _, err := suitecases.Inputs(groups)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gen.Generate(gen.Input{SnapshotFile: suitecases.SnapshotFile, Snapshot: snap, ClassifyFile: suitecases.ClassifyFile, Classify: class}, gen.Options{Package: suitecases.Package})
	if err != nil {
		t.Fatal(err)
	}
	warned := map[string]bool{}
	for _, d := range res.Diagnostics {
		switch d.Code {
		case gen.CodeIntegerRange, gen.CodeNumberPrecision, gen.CodePatternUntranslatable:
			warned[d.Tool] = true
		}
	}
	return warned
}
