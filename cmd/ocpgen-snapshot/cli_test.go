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
	"github.com/ocpgen/ocpgen/internal/cli"
)

// snapshotCmd runs the command line in-process, as main does, and returns
// its exit status and what it printed.
func snapshotCmd(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	var errb bytes.Buffer
	code = run(args, &errb)
	return code, errb.String()
}

// TestUsage: the flags' errors are usage errors (exit 2, the usage after
// the message), a malformed -header is an error naming it, and -h shows
// what the command does, an example and the flags.
func TestUsage(t *testing.T) {
	const usage = "usage: ocpgen-snapshot (-url URL | -command \"PROG ARGS...\")"
	for _, tc := range []struct {
		args  []string
		code  int
		want  string
		usage bool // the usage follows
	}{
		{nil, cli.ExitTrouble, "ocpgen-snapshot: -o is required", true},
		{[]string{"-o", "x"}, cli.ExitTrouble, "ocpgen-snapshot: give exactly one of -url and -command", true},
		{[]string{"-url", "u", "-command", "c", "-o", "x"}, cli.ExitTrouble, "ocpgen-snapshot: give exactly one of -url and -command", true},
		{[]string{"-command", "c", "-header", "A: b", "-o", "x"}, cli.ExitTrouble, "ocpgen-snapshot: -header goes with -url", true},
		{[]string{"-command", "c", "-o", "x", "extra"}, cli.ExitTrouble, `ocpgen-snapshot: unexpected argument "extra"`, true},
		{[]string{"-bogus"}, cli.ExitTrouble, "flag provided but not defined: -bogus", true},
		{[]string{"-url", "http://127.0.0.1:1/mcp", "-header", "no colon", "-o", "x"}, cli.ExitTrouble, `ocpgen-snapshot: -header "no colon": want "Name: value"`, false},
		{[]string{"-h"}, cli.ExitOK, "example: ocpgen-snapshot -command", true},
	} {
		code, errs := snapshotCmd(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Contains(errs, usage) != tc.usage {
			t.Errorf("ocpgen-snapshot %q: exit %d, stderr %q; want exit %d with %q (usage: %v)", tc.args, code, errs, tc.code, tc.want, tc.usage)
		}
	}
	if _, h := snapshotCmd(t, "-h"); !strings.HasPrefix(h, usage) || !strings.Contains(h, "\nflags:\n  -command") {
		t.Errorf("ocpgen-snapshot -h:\n%s", h)
	}
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
		code, errs := snapshotCmd(t, "-url", url, "-header", "Authorization: Bearer $OCPGEN_TEST_TOKEN", "-o", out)
		if code != cli.ExitOK {
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
	_, errs := snapshotCmd(t, "-url", url, "-header", "Authorization: Bearer $OCPGEN_TEST_TOKEN", "-o", out)
	if !regexp.MustCompile(`^wrote ` + regexp.QuoteMeta(out) + `: server tickets 1\.0\.0, 5 tools, in [0-9.]+(ns|µs|ms|s)\n$`).MatchString(errs) {
		t.Errorf("snapshot's line: %q", errs)
	}
	if code, errs := snapshotCmd(t, "-q", "-url", url, "-header", "Authorization: Bearer $OCPGEN_TEST_TOKEN", "-o", out); code != cli.ExitOK || errs != "" {
		t.Errorf("snapshot -q: exit %d, stderr %q", code, errs)
	}
	if bytes.Contains(files[0], []byte("s3cret")) {
		t.Fatal("a header value was written into the snapshot")
	}
	// Without the header the server refuses, and no file is written.
	out = filepath.Join(dir, "refused.tools.json")
	if code, _ := snapshotCmd(t, "-url", url, "-o", out); code != cli.ExitTrouble {
		t.Fatalf("snapshot without credentials: exit %d, want %d", code, cli.ExitTrouble)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a failed snapshot left a file")
	}
	// An unset variable in a header is an error, not an empty credential.
	if code, errs := snapshotCmd(t, "-url", url, "-header", "Authorization: Bearer $OCPGEN_UNSET_VAR", "-o", out); code != cli.ExitTrouble || !strings.Contains(errs, "OCPGEN_UNSET_VAR is not set") {
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
	if code, errs := snapshotCmd(t, "-command", bin, "-o", stdio); code != cli.ExitOK {
		t.Fatalf("snapshot -command: exit %d: %s", code, errs)
	}
	if code, errs := snapshotCmd(t, "-url", ticketsHTTP(t, nil), "-o", web); code != cli.ExitOK {
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
			code, errs := snapshotCmd(t, append(append([]string{}, tc.args...), "-o", out)...)
			if code != cli.ExitTrouble || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d with %q", code, errs, cli.ExitTrouble, tc.want)
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, script := range map[string]string{
		"exits.sh": "#!/bin/sh\necho 'exits: no config file' >&2\nexit 3\n",
		"hangs.sh": "#!/bin/sh\ntrap 'echo TERM >> " + term + "' TERM\nwhile :; do sleep 1; done\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "x.tools.json")
	exits := filepath.Join(dir, "exits.sh")
	code, errs := snapshotCmd(t, "-command", exits+" --api-key s3cret", "-o", out)
	want := "ocpgen-snapshot: snapshot of stdio " + exits + " --api-key REDACTED: the server exited (exit status 3) before answering; its stderr, if any, is above"
	if code != cli.ExitTrouble || !strings.Contains(errs, "exits: no config file\n") || !strings.Contains(errs, want) || strings.Contains(errs, "s3cret") {
		t.Errorf("server that exits: exit %d, stderr %q; want %q", code, errs, want)
	}

	code, errs = snapshotCmd(t, "-command", filepath.Join(dir, "hangs.sh"), "-timeout", "300ms", "-o", out)
	if code != cli.ExitTrouble || !strings.Contains(errs, "hangs.sh: no complete answer within 300ms (-timeout)") {
		t.Errorf("server that hangs: exit %d, stderr %q", code, errs)
	}
	if b, err := os.ReadFile(term); err == nil {
		t.Errorf("at the -timeout deadline the server was sent SIGTERM (%q), not killed", b)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed snapshot left a file")
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
	if code, errs := snapshotCmd(t, "-url", ts.URL+"/s3cret-path/mcp?api_key=s3cret-key", "-o", out); code != cli.ExitOK {
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
