package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
)

// Environment variables the tests read.
const (
	// envNodeModules names the node_modules directory that holds the pinned
	// npm servers (.ci/node.sh exports it). Default: node/node_modules.
	envNodeModules = "OCPGEN_E2E_NODE_MODULES"
	// envCI, when "true", turns a missing tool or input into a failure.
	envCI = "CI"
)

// Fixed texts of the gate's refusals, as a model reads them. They are
// repeated here, not imported, so that a change of wording is a visible
// change of this contract.
const (
	textUnknown   = "Not performed: this tool is not available."
	textDenied    = "Not performed: the write was denied by the person asked to confirm it. Nothing was changed."
	textCatalogue = "Not performed: the tool catalogue changed while the write awaited its confirm, so it was denied. Nothing was changed."
)

// bound is how long a test waits for something that must happen (a
// confirm to be published, a catalogue to be re-synced) before it gives up
// and fails, so that a bug hangs nothing. It is a bound, not a measurement.
const bound = 2 * time.Minute

var (
	scratch string // removed after the tests

	ocpgenOnce sync.Once
	ocpgenBin  string
	ocpgenErr  error

	snapshotOnce sync.Once
	snapshotBin  string
	snapshotErr  error

	ticketsOnce sync.Once
	ticketsBin  string
	ticketsErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ocpgen-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	scratch = dir
	// Every test cleans up after itself; nothing may outlive the run.
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		_ = os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// endToEnd skips the test under -short: it builds binaries and runs MCP
// servers as processes, which the fast loop leaves to the full suite.
func endToEnd(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: an end-to-end test (builds ocpgen and a server and runs them as processes); the full suite runs it")
	}
}

// missing fails the test under CI=true and skips it otherwise.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(envCI) == "true" {
		t.Fatalf("%s (CI=true: required; .ci/node.sh installs it)", msg)
	}
	t.Skipf("%s; run: npm ci --prefix e2e/node --no-audit --no-fund", msg)
}

// goTool returns the go command.
func goTool(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is not on PATH: %v", err)
	}
	return p
}

// buildOnce builds the main package pkg into the scratch directory.
func buildOnce(t *testing.T, once *sync.Once, bin *string, errp *error, pkg, name string) string {
	t.Helper()
	once.Do(func() {
		out := filepath.Join(scratch, name)
		cmd := exec.Command(goTool(t), "build", "-o", out, pkg)
		if b, err := cmd.CombinedOutput(); err != nil {
			*errp = fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
			return
		}
		*bin = out
	})
	if *errp != nil {
		t.Fatal(*errp)
	}
	return *bin
}

// ocpgen returns the path of the ocpgen binary, built once per run.
func ocpgen(t *testing.T) string {
	t.Helper()
	return buildOnce(t, &ocpgenOnce, &ocpgenBin, &ocpgenErr, "github.com/ocpgen/ocpgen/cmd/ocpgen", "ocpgen")
}

// ticketsServer returns the path of the example ticket desk's server
// binary, built once per run.
func ticketsServer(t *testing.T) string {
	t.Helper()
	return buildOnce(t, &ticketsOnce, &ticketsBin, &ticketsErr, "github.com/ocpgen/ocpgen/examples/tickets/server/cmd/tickets-server", "tickets-server")
}

// ocpgenSnapshot returns the path of the ocpgen-snapshot binary, built once
// per run.
func ocpgenSnapshot(t *testing.T) string {
	t.Helper()
	return buildOnce(t, &snapshotOnce, &snapshotBin, &snapshotErr, "github.com/ocpgen/ocpgen/cmd/ocpgen-snapshot", "ocpgen-snapshot")
}

// runOcpgen runs the ocpgen binary in dir with extra environment variables
// and returns its stdout; a non-zero exit fails the test.
func runOcpgen(t *testing.T, dir string, env []string, args ...string) []byte {
	t.Helper()
	return runBinary(t, ocpgen(t), dir, env, args...)
}

// runSnapshot runs the ocpgen-snapshot binary as runOcpgen runs ocpgen.
func runSnapshot(t *testing.T, dir string, env []string, args ...string) []byte {
	t.Helper()
	return runBinary(t, ocpgenSnapshot(t), dir, env, args...)
}

// runBinary runs bin in dir with extra environment variables and returns
// its stdout; a non-zero exit fails the test.
func runBinary(t *testing.T, bin, dir string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstderr:\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.Bytes()
}

// nodeServer is a pinned npm MCP server, located for the test.
type nodeServer struct {
	node  string // the node binary
	entry string // absolute path of the server's dist/index.js
	// rel is entry relative to the e2e directory when the packages are in
	// their default place (node/node_modules), else entry: a snapshot made
	// with it names the same command line on every machine.
	rel string
}

// npmServer locates the npm package pkg (e.g. "server-memory" for
// @modelcontextprotocol/server-memory) and node, or skips (fails under
// CI=true).
func npmServer(t *testing.T, pkg string) nodeServer {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not on PATH")
	}
	def, err := filepath.Abs(filepath.Join("node", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv(envNodeModules)
	if dir == "" {
		dir = def
	}
	if dir, err = filepath.Abs(dir); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(dir, "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		missing(t, "npm package @modelcontextprotocol/%s is not installed (%v)", pkg, err)
	}
	checkPinned(t, dir, pkg)
	s := nodeServer{node: node, entry: entry, rel: entry}
	if dir == def {
		s.rel = filepath.ToSlash(filepath.Join("node", "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"))
	}
	return s
}

// checkPinned fails the test when the installed package is not the version
// node/package.json pins: the committed snapshot and bridge are for that one.
func checkPinned(t *testing.T, modules, pkg string) {
	t.Helper()
	var manifest struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	readJSON(t, filepath.Join("node", "package.json"), &manifest)
	name := "@modelcontextprotocol/" + pkg
	want, ok := manifest.Dependencies[name]
	if !ok {
		t.Fatalf("node/package.json does not pin %s", name)
	}
	var installed struct {
		Version string `json:"version"`
	}
	readJSON(t, filepath.Join(modules, "@modelcontextprotocol", pkg, "package.json"), &installed)
	if installed.Version != want {
		t.Fatalf("%s %s is installed in %s, but node/package.json pins %s: run npm ci --prefix e2e/node", name, installed.Version, modules, want)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// genDir makes a scratch Go module outside the repository, built against
// this checkout (testcorpus.ScratchModule), so that a generated package in
// it compiles as in a Hub module; its import path is
// testcorpus.ScratchModulePath.
func genDir(t *testing.T) string {
	t.Helper()
	return testcorpus.ScratchModule(t)
}

// goBuild compiles the package in dir (a directory of genDir's module).
func goBuild(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command(goTool(t), "build", ".")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", dir, err, b)
	}
}

// gofmtClean fails the test (without stopping it) for every .go file in dir
// that gofmt would change: generated code is committed, and CI runs gofmt -l
// on every committed Go file.
func gofmtClean(t *testing.T, dir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no Go files in %s", dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := format.Source(b)
		if err != nil {
			t.Errorf("%s does not parse: %v", f, err)
			continue
		}
		if !bytes.Equal(out, b) {
			t.Errorf("gofmt would change the generated %s:\n%s", filepath.Base(f), lineDiff(string(b), string(out)))
		}
	}
}

// lineDiff shows the lines of a that b changes, and their replacements
// (enough to see what gofmt does; not a minimal diff).
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			fmt.Fprintf(&out, "line %d:\n-%s\n+%s\n", i+1, x, y)
			if out.Len() > 2000 {
				out.WriteString("…\n")
				break
			}
		}
	}
	return out.String()
}

// snapshotFile is the layout of a snapshot, each part kept as its bytes.
type snapshotFile struct {
	Server json.RawMessage `json:"server"`
	Source string          `json:"source"`
	Tools  json.RawMessage `json:"tools"`
}

func parseSnapshot(t *testing.T, name string, b []byte) snapshotFile {
	t.Helper()
	var s snapshotFile
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// toolNames returns the names of a snapshot's tools, in file order.
func toolNames(t *testing.T, s snapshotFile) []string {
	t.Helper()
	var tools []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(s.Tools, &tools); err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(tools))
	for i, tl := range tools {
		names[i] = tl.Name
	}
	return names
}

// confirms collects the confirm requests a broker publishes.
type confirms struct {
	ch   chan ocp.ConfirmRequest
	stop func()
}

func watchConfirms(t *testing.T, b ocp.ConfirmBroker) *confirms {
	t.Helper()
	c := &confirms{ch: make(chan ocp.ConfirmRequest, 16)}
	c.stop = b.Subscribe(func(r ocp.ConfirmRequest) { c.ch <- r })
	t.Cleanup(c.stop)
	return c
}

// next returns the next published confirm request, for the write whose
// result call will deliver: if the write returns first (its confirm was
// skipped), the test fails at once, not at the bound.
func (c *confirms) next(t *testing.T, call <-chan ocp.ActionResult) ocp.ConfirmRequest {
	t.Helper()
	select {
	case r := <-c.ch:
		return r
	case r := <-call:
		t.Fatalf("the write returned before a confirm request was published: ok %v, reason %q, error %q", r.OK, r.Reason, r.Error)
	case <-time.After(bound):
		t.Fatalf("no confirm request was published within %v", bound)
	}
	return ocp.ConfirmRequest{}
}

// none fails the test if a confirm request was published. Subscribers run
// on the requesting goroutine, so once a call has returned, anything it
// published is already in the channel.
func (c *confirms) none(t *testing.T) {
	t.Helper()
	select {
	case r := <-c.ch:
		t.Fatalf("unexpected confirm request for %s: %q", r.Tool, r.Prompt)
	default:
	}
}

// async runs a call on its own goroutine; the result arrives on the channel.
func async(call func() ocp.ActionResult) <-chan ocp.ActionResult {
	ch := make(chan ocp.ActionResult, 1)
	go func() { ch <- call() }()
	return ch
}

// await returns the result of an async call.
func await(t *testing.T, ch <-chan ocp.ActionResult) ocp.ActionResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(bound):
		t.Fatalf("the call did not return within %v", bound)
		return ocp.ActionResult{}
	}
}

// mustOK fails the test unless r is ok, and returns its output.
func mustOK(t *testing.T, what string, r ocp.ActionResult) json.RawMessage {
	t.Helper()
	if !r.OK {
		t.Fatalf("%s: not ok: reason %q, error %q", what, r.Reason, r.Error)
	}
	return r.Output
}

// mustRefuse fails the test unless r is a refusal for reason with exactly
// the error text want and no output.
func mustRefuse(t *testing.T, what string, r ocp.ActionResult, reason ocp.Reason, want string) {
	t.Helper()
	if r.OK || r.Reason != reason || r.Error != want || len(r.Output) != 0 {
		t.Fatalf("%s: got ok=%v reason=%q error=%q output=%s; want a refusal %q with error %q", what, r.OK, r.Reason, r.Error, r.Output, reason, want)
	}
}

// mustFail fails the test unless r is reason "failed" with exactly the
// tool's safe failure text and a reference id, and none of the canaries
// (bits of the server's error or its address) appears anywhere in it.
func mustFail(t *testing.T, what string, r ocp.ActionResult, failure string, canaries ...string) {
	t.Helper()
	if r.OK || r.Reason != ocp.ReasonFailed || r.Ref == "" || r.Error != failure+" (ref "+r.Ref+")" || len(r.Output) != 0 {
		t.Fatalf("%s: got ok=%v reason=%q error=%q ref=%q output=%s; want failed with %q and a ref", what, r.OK, r.Reason, r.Error, r.Ref, r.Output, failure)
	}
	noLeak(t, what, r, canaries...)
}

// noLeak fails the test if any canary appears in the wire form of r.
func noLeak(t *testing.T, what string, r ocp.ActionResult, canaries ...string) {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range canaries {
		if strings.Contains(strings.ToLower(string(b)), strings.ToLower(c)) {
			t.Fatalf("%s: the action.result leaks %q: %s", what, c, b)
		}
	}
}

// decode unmarshals an ok result's output into a typed result.
func decode[T any](t *testing.T, what string, out json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s: output %s: %v", what, out, err)
	}
	return v
}

// advertisements records what a gate advertises, in order.
type advertisements struct {
	mu     sync.Mutex
	all    []ocp.ToolsAdvertise
	notify chan struct{} // capacity 1: "something new"
}

func newAdvertisements() *advertisements {
	return &advertisements{notify: make(chan struct{}, 1)}
}

// record is a Config.Advertise callback.
func (a *advertisements) record(adv ocp.ToolsAdvertise) {
	a.mu.Lock()
	a.all = append(a.all, adv)
	a.mu.Unlock()
	select {
	case a.notify <- struct{}{}:
	default:
	}
}

// snapshot returns the advertisements so far.
func (a *advertisements) snapshot() []ocp.ToolsAdvertise {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ocp.ToolsAdvertise(nil), a.all...)
}

// waitFor waits until cond holds for the advertisements so far.
func (a *advertisements) waitFor(ctx context.Context, t *testing.T, what string, cond func([]ocp.ToolsAdvertise) bool) {
	t.Helper()
	for {
		if cond(a.snapshot()) {
			return
		}
		select {
		case <-a.notify:
		case <-ctx.Done():
			t.Fatalf("%s: not advertised within the bound; advertisements so far: %s", what, advNames(a.snapshot()))
		}
	}
}

// names returns the tool names of adv.
func names(adv ocp.ToolsAdvertise) []string {
	out := make([]string, len(adv.Tools))
	for i, td := range adv.Tools {
		out[i] = td.Name
	}
	return out
}

func advNames(all []ocp.ToolsAdvertise) string {
	parts := make([]string, len(all))
	for i, a := range all {
		parts[i] = fmt.Sprint(names(a))
	}
	return strings.Join(parts, " ")
}

// snapshotTwice runs ocpgen-snapshot on the server that the source flags
// name (-command or -url) into first and then into second, fails unless the
// two files are byte for byte the same, and returns the snapshot.
func snapshotTwice(t *testing.T, env []string, first, second string, source ...string) []byte {
	t.Helper()
	runSnapshot(t, ".", env, append(append([]string{}, source...), "-o", first)...)
	runSnapshot(t, ".", env, append(append([]string{}, source...), "-o", second)...)
	a, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(second)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("two snapshots of the same server differ:\n--- first\n%s\n--- second\n%s", a, b)
	}
	return a
}
