package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/examples/tickets/server"
	"github.com/ocpgen/ocpgen/gen"
)

// ocpgen runs the command line in-process, as main does.
func ocpgen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func ticketsHTTP(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	s := server.New(server.NewDesk())
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	if wrap != nil {
		h = wrap(h)
	}
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

func TestUsageAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string // substring of stdout+stderr
	}{
		{nil, exitTrouble, "usage: ocpgen <command>"},
		{[]string{"frobnicate"}, exitTrouble, `unknown command "frobnicate"`},
		{[]string{"help"}, exitOK, "commands:"},
		{[]string{"version"}, exitOK, "ocpgen "},
		{[]string{"generate"}, exitTrouble, "no ocpgen.yaml in"},
		{[]string{"generate", "-classify", "x"}, exitTrouble, "-snapshot is required"},
		{[]string{"generate", "-snapshot", "x"}, exitTrouble, "-out is required"},
		{[]string{"generate", "-h"}, exitOK, "-classify"},
		{[]string{"generate", "-bogus"}, exitTrouble, "flag provided but not defined"},
		{[]string{"init", "-snapshot", "x", "extra"}, exitTrouble, `unexpected argument "extra"`},
		{[]string{"snapshot", "-o", "x"}, exitTrouble, "exactly one of -url and -command"},
		{[]string{"snapshot", "-url", "u", "-command", "c", "-o", "x"}, exitTrouble, "exactly one of -url and -command"},
		{[]string{"snapshot", "-command", "c", "-header", "A: b", "-o", "x"}, exitTrouble, "-header goes with -url"},
		{[]string{"generate", "-snapshot", "does-not-exist.json", "-out", "x"}, exitTrouble, "does-not-exist.json"},
	} {
		code, out, errs := ocpgen(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.out) {
			t.Errorf("ocpgen %q: exit %d, output %q; want exit %d with %q", tc.args, code, out+errs, tc.code, tc.out)
		}
	}
}

func TestSnapshotHTTPIsStableAndKeepsHeadersOut(t *testing.T) {
	t.Setenv("OCPGEN_TEST_TOKEN", "s3cret-token")
	url := ticketsHTTP(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer s3cret-token" {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	dir := t.TempDir()
	var files [2][]byte
	for i := range files {
		out := filepath.Join(dir, "tickets.tools.json")
		code, _, errs := ocpgen(t, "snapshot", "-url", url, "-header", "Authorization: Bearer $OCPGEN_TEST_TOKEN", "-o", out)
		if code != exitOK {
			t.Fatalf("snapshot: exit %d: %s", code, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("two snapshots of an unchanged server differ")
	}
	// The line when done: file, server, tools, time; none under -q.
	out := filepath.Join(dir, "tickets.tools.json")
	_, _, errs := ocpgen(t, "snapshot", "-url", url, "-header", "Authorization: Bearer $OCPGEN_TEST_TOKEN", "-o", out)
	if !regexp.MustCompile(`^wrote ` + regexp.QuoteMeta(out) + `: server tickets 1\.0\.0, 5 tools, in [0-9.]+(ns|µs|ms|s)\n$`).MatchString(errs) {
		t.Errorf("snapshot's line: %q", errs)
	}
	if code, _, errs := ocpgen(t, "snapshot", "-q", "-url", url, "-header", "Authorization: Bearer $OCPGEN_TEST_TOKEN", "-o", out); code != exitOK || errs != "" {
		t.Errorf("snapshot -q: exit %d, stderr %q", code, errs)
	}
	if bytes.Contains(files[0], []byte("s3cret")) {
		t.Fatal("a header value was written into the snapshot")
	}
	// Without the header the server refuses, and no file is written.
	out = filepath.Join(dir, "refused.tools.json")
	if code, _, _ := ocpgen(t, "snapshot", "-url", url, "-o", out); code != exitTrouble {
		t.Fatalf("snapshot without credentials: exit %d, want %d", code, exitTrouble)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a failed snapshot left a file")
	}
	// An unset variable in a header is an error, not an empty credential.
	if code, _, errs := ocpgen(t, "snapshot", "-url", url, "-header", "Authorization: Bearer $OCPGEN_UNSET_VAR", "-o", out); code != exitTrouble || !strings.Contains(errs, "OCPGEN_UNSET_VAR is not set") {
		t.Fatalf("unset header variable: exit %d, %s", code, errs)
	}
}

func TestSnapshotStdioMatchesHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the example server to snapshot it over stdio; the full suite runs it")
	}
	bin := filepath.Join(t.TempDir(), "tickets-server")
	build := exec.Command("go", "build", "-o", bin, "github.com/ocpgen/ocpgen/examples/tickets/server/cmd/tickets-server")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	stdio, web := filepath.Join(dir, "stdio.tools.json"), filepath.Join(dir, "http.tools.json")
	if code, _, errs := ocpgen(t, "snapshot", "-command", bin, "-o", stdio); code != exitOK {
		t.Fatalf("snapshot -command: exit %d: %s", code, errs)
	}
	if code, _, errs := ocpgen(t, "snapshot", "-url", ticketsHTTP(t, nil), "-o", web); code != exitOK {
		t.Fatalf("snapshot -url: exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(stdio)
	b, _ := os.ReadFile(web)
	// Only the source line may differ between the two transports.
	strip := func(b []byte) string {
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), `"source"`) {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(a) != strip(b) {
		t.Fatalf("stdio and HTTP snapshots of the same server differ:\n%s\n---\n%s", a, b)
	}
}

func TestSnapshotErrors(t *testing.T) {
	// A port nobody listens on.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/mcp"
	l.Close()

	notMCP := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>hello</html>"))
	}))
	defer notMCP.Close()
	hang := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer hanging.Close()
	defer close(hang)

	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unreachable", []string{"-url", closed}, "connect"},
		{"not MCP", []string{"-url", notMCP.URL}, "connect"},
		{"server exits", []string{"-command", "sh -c 'exit 3'"}, "snapshot of stdio sh -c exit 3: the server exited (exit status 3) before answering"},
		{"no such program", []string{"-command", "/nonexistent/mcp-server"}, "snapshot of stdio /nonexistent/mcp-server: fork/exec /nonexistent/mcp-server: no such file or directory"},
		{"timeout", []string{"-url", hanging.URL, "-timeout", "300ms"}, "no complete answer within 300ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".tools.json")
			code, _, errs := ocpgen(t, append(append([]string{"snapshot"}, tc.args...), "-o", out)...)
			if code != exitTrouble || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, errs, exitTrouble, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Fatal("a failed snapshot left a file")
			}
		})
	}
}

// TestSnapshotStdioServerErrors: a stdio server that exits at start is
// named by its full path, with its exit status and its stderr; one that
// never answers is killed when -timeout is reached, not asked to stop with
// a closed stdin and, 5 s later, SIGTERM (which made -timeout 3s return
// after 8 s). The script records a SIGTERM it gets.
func TestSnapshotStdioServerErrors(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := filepath.Join(t.TempDir(), "servers", "bin")
	term := filepath.Join(dir, "term.log")
	writeFiles(t, dir, map[string]string{
		"exits.sh": "#!/bin/sh\necho 'exits: no config file' >&2\nexit 3\n",
		"hangs.sh": "#!/bin/sh\ntrap 'echo TERM >> " + term + "' TERM\nwhile :; do sleep 1; done\n",
	})
	for _, f := range []string{"exits.sh", "hangs.sh"} {
		if err := os.Chmod(filepath.Join(dir, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "x.tools.json")
	exits := filepath.Join(dir, "exits.sh")
	code, _, errs := ocpgen(t, "snapshot", "-command", exits+" --api-key s3cret", "-o", out)
	want := "ocpgen: snapshot of stdio " + exits + " --api-key REDACTED: the server exited (exit status 3) before answering; its stderr, if any, is above"
	if code != exitTrouble || !strings.Contains(errs, "exits: no config file\n") || !strings.Contains(errs, want) || strings.Contains(errs, "s3cret") {
		t.Errorf("server that exits: exit %d, stderr %q; want %q", code, errs, want)
	}

	code, _, errs = ocpgen(t, "snapshot", "-command", filepath.Join(dir, "hangs.sh"), "-timeout", "300ms", "-o", out)
	if code != exitTrouble || !strings.Contains(errs, "hangs.sh: no complete answer within 300ms (-timeout)") {
		t.Errorf("server that hangs: exit %d, stderr %q", code, errs)
	}
	if b, err := os.ReadFile(term); err == nil {
		t.Errorf("at the -timeout deadline the server was sent SIGTERM (%q), not killed", b)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed snapshot left a file")
	}
}

func TestEncodeSnapshotRefusesDuplicates(t *testing.T) {
	tool := &mcp.Tool{Name: "a", InputSchema: map[string]any{"type": "object"}}
	_, err := gen.EncodeSnapshot("x.tools.json", gen.SnapshotServer{Name: "s"}, "test", []*mcp.Tool{tool, tool})
	if err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("duplicate tools: err = %v", err)
	}
	_, err = gen.EncodeSnapshot("x.tools.json", gen.SnapshotServer{Name: "s"}, "test", []*mcp.Tool{{Name: "b"}})
	if err == nil {
		t.Fatal("a tool without inputSchema was accepted")
	}
}

func TestOversizedInputIsRefusedBeforeReading(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.tools.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file larger than the limit: reading it all would cost its size.
	if err := f.Truncate(gen.MaxSnapshotSize + 1<<20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, args := range [][]string{
		{"generate", "-snapshot", big, "-out", t.TempDir()},
		{"init", "-snapshot", big},
		{"check", "-snapshot", big, "-out", t.TempDir()},
	} {
		code, _, errs := ocpgen(t, args...)
		if code != exitTrouble || !strings.Contains(errs, "over the limit of 16 MiB") {
			t.Errorf("ocpgen %v: exit %d, stderr %q", args[0], code, errs)
		}
	}
}

// TestHelpTopics checks that "help COMMAND" shows that command's help on
// stdout, that an unknown topic is trouble (exit 2), and that every
// command's help says what it does with an example.
func TestHelpTopics(t *testing.T) {
	for _, c := range commands() {
		if c.run == nil {
			continue
		}
		code, out, errs := ocpgen(t, "help", c.name)
		if code != exitOK || errs != "" || !strings.Contains(out, "usage: ocpgen "+c.name) || !strings.Contains(out, "example: ocpgen "+c.name) {
			t.Errorf("ocpgen help %s: exit %d, stdout %q, stderr %q", c.name, code, out, errs)
		}
		if _, _, h := ocpgen(t, c.name, "-h"); !strings.Contains(h, "example: ocpgen "+c.name) {
			t.Errorf("ocpgen %s -h has no example:\n%s", c.name, h)
		}
	}
	// help's own help, and a command without flags has no empty "flags:".
	if code, out, errs := ocpgen(t, "help", "help"); code != exitOK || errs != "" ||
		!strings.HasPrefix(out, "usage: ocpgen help [COMMAND]\n") || !strings.Contains(out, "example: ocpgen help diff") {
		t.Errorf("ocpgen help help: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, out, _ := ocpgen(t, "help", "version"); strings.Contains(out, "flags:") || !strings.HasPrefix(out, "usage: ocpgen version\n\n") {
		t.Errorf("ocpgen help version:\n%s", out)
	}
	if _, out, _ := ocpgen(t, "help", "diff"); !strings.Contains(out, "\nflags:\n  -classify") {
		t.Errorf("ocpgen help diff lists no flags:\n%s", out)
	}
	for _, args := range [][]string{{"help", "bogus"}, {"help", "generate", "extra"}, {"help", "help", "extra"}} {
		if code, _, errs := ocpgen(t, args...); code != exitTrouble || !strings.Contains(errs, "unknown command") {
			t.Errorf("ocpgen %q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestPackageDefault checks that generate names the package after -out,
// not after $GOPACKAGE (the go:generate line's package, often main), and
// that a generated package is never main.
func TestPackageDefault(t *testing.T) {
	dir := t.TempDir()
	snap := filepath.Join(dir, "s.tools.json")
	if err := os.WriteFile(snap, []byte(`{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOPACKAGE", "main")
	out := filepath.Join(dir, "echoocp")
	if code, _, errs := ocpgen(t, "generate", "-snapshot", snap, "-out", out); code != exitOK {
		t.Fatalf("generate: exit %d\n%s", code, errs)
	}
	data, err := os.ReadFile(filepath.Join(out, "doc.go"))
	if err != nil || !strings.Contains(string(data), "\npackage echoocp\n") {
		t.Errorf("doc.go: %v\n%s", err, data)
	}
	for _, args := range [][]string{
		{"generate", "-snapshot", snap, "-out", filepath.Join(dir, "main")},
		{"generate", "-snapshot", snap, "-package", "main", "-out", filepath.Join(dir, "x")},
	} {
		if code, _, errs := ocpgen(t, args...); code != exitTrouble || !strings.Contains(errs, "cannot be package main") {
			t.Errorf("ocpgen %q: exit %d, stderr %q", args, code, errs)
		}
	}
	if code, _, errs := ocpgen(t, "generate", "-snapshot", snap, "-out", filepath.Join(dir, "my-bridge")); code != exitTrouble || !strings.Contains(errs, "set -package") {
		t.Errorf("generate into my-bridge: exit %d, stderr %q", code, errs)
	}
	// A warning says each thing once.
	_, _, errs := ocpgen(t, "generate", "-snapshot", snap, "-out", out)
	if strings.Count(errs, "classification") > 1 {
		t.Errorf("warning repeats itself: %q", errs)
	}
}

// TestSnapshotKeepsNumbersAndKeepsURLCredentialsOut: a snapshot keeps the
// server's numbers exactly (issue 15 item 7), and the "source" of a -url
// snapshot holds neither its query nor its path (item 8).
func TestSnapshotKeepsNumbersAndKeepsURLCredentialsOut(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993,"minimum":-9223372036854775808}}}`)
	s.AddTool(&mcp.Tool{Name: "big", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	out := filepath.Join(t.TempDir(), "big.tools.json")
	if code, _, errs := ocpgen(t, "snapshot", "-url", ts.URL+"/s3cret-path/mcp?api_key=s3cret-key", "-o", out); code != exitOK {
		t.Fatalf("snapshot: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"maximum": 9007199254740993`, `"minimum": -9223372036854775808`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("snapshot lacks %s:\n%s", want, b)
		}
	}
	if bytes.Contains(b, []byte("s3cret")) {
		t.Errorf("a URL credential was written into the snapshot:\n%s", b)
	}
}

func TestCommandSource(t *testing.T) {
	for cmd, want := range map[string]string{
		"npx -y @modelcontextprotocol/server-memory":              "stdio npx -y @modelcontextprotocol/server-memory",
		"/usr/local/bin/node /home/alice/acme/index.js --port 3":  "stdio node index.js --port 3",
		"./server --api-key=s3cret --token s3cret -v":             "stdio server --api-key=REDACTED --token REDACTED -v",
		"go run github.com/ocpgen/ocpgen/examples/tickets/server": "stdio go run github.com/ocpgen/ocpgen/examples/tickets/server",
	} {
		argv, err := splitCommand(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if got := commandSource(argv); got != want {
			t.Errorf("commandSource(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// TestEncodeSnapshotRawKeepsWhatTheServerSaid: members mcp.Tool lacks
// ("execution") and exact numbers are kept; text encoding/json would
// rewrite, and a key given twice, are refused (issue 15 items 7, 9, 11).
func TestEncodeSnapshotRawKeepsWhatTheServerSaid(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"z","inputSchema":{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}},"execution":{"taskSupport":"optional"}}`),
		json.RawMessage(`{"name":"a","inputSchema":{"type":"object"}}`),
	}
	b, err := gen.EncodeSnapshotRaw("x.tools.json", gen.SnapshotServer{Name: "s"}, "test", tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"maximum": 9007199254740993`, `"taskSupport": "optional"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("snapshot lacks %s:\n%s", want, b)
		}
	}
	if bytes.Index(b, []byte(`"name": "a"`)) > bytes.Index(b, []byte(`"name": "z"`)) {
		t.Errorf("tools not sorted:\n%s", b)
	}
	for raw, want := range map[string]string{
		`{"name":"a","description":"caf` + "\xe9" + `","inputSchema":{"type":"object"}}`: `tools[0]/description: a string holds invalid UTF-8`,
		`{"name":"a","inputSchema":{"type":"object","type":"object"}}`:                   `key "type" twice in the object at "/inputSchema"`,
	} {
		_, err := gen.EncodeSnapshotRaw("x.tools.json", gen.SnapshotServer{Name: "s"}, "test", []json.RawMessage{json.RawMessage(raw)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", raw, err, want)
		}
	}
}
