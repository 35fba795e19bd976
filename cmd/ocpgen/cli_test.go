package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/internal/cli"
)

// ocpgen runs the command line in-process, as main does.
func ocpgen(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsageAndVersion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		out  string // substring of stdout+stderr
	}{
		{nil, cli.ExitTrouble, "usage: ocpgen <command>"},
		{[]string{"frobnicate"}, cli.ExitTrouble, `unknown command "frobnicate"`},
		{[]string{"help"}, cli.ExitOK, "commands:"},
		{[]string{"version"}, cli.ExitOK, "ocpgen "},
		{[]string{"generate"}, cli.ExitTrouble, "no ocpgen.yaml in"},
		{[]string{"generate", "-classify", "x"}, cli.ExitTrouble, "-snapshot is required"},
		{[]string{"generate", "-snapshot", "x"}, cli.ExitTrouble, "-out is required"},
		{[]string{"generate", "-h"}, cli.ExitOK, "-classify"},
		{[]string{"generate", "-bogus"}, cli.ExitTrouble, "flag provided but not defined"},
		{[]string{"init", "-snapshot", "x", "extra"}, cli.ExitTrouble, `unexpected argument "extra"`},
		{[]string{"generate", "-snapshot", "does-not-exist.json", "-out", "x"}, cli.ExitTrouble, "does-not-exist.json"},
	} {
		code, out, errs := ocpgen(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.out) {
			t.Errorf("ocpgen %q: exit %d, output %q; want exit %d with %q", tc.args, code, out+errs, tc.code, tc.out)
		}
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
		if code != cli.ExitTrouble || !strings.Contains(errs, "over the limit of 16 MiB") {
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
		if code != cli.ExitOK || errs != "" || !strings.Contains(out, "usage: ocpgen "+c.name) || !strings.Contains(out, "example: ocpgen "+c.name) {
			t.Errorf("ocpgen help %s: exit %d, stdout %q, stderr %q", c.name, code, out, errs)
		}
		if _, _, h := ocpgen(t, c.name, "-h"); !strings.Contains(h, "example: ocpgen "+c.name) {
			t.Errorf("ocpgen %s -h has no example:\n%s", c.name, h)
		}
	}
	// help's own help, and a command without flags has no empty "flags:".
	if code, out, errs := ocpgen(t, "help", "help"); code != cli.ExitOK || errs != "" ||
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
		if code, _, errs := ocpgen(t, args...); code != cli.ExitTrouble || !strings.Contains(errs, "unknown command") {
			t.Errorf("ocpgen %q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestSnapshotMoved: "ocpgen snapshot", with any flags, neither runs nor is
// an unknown command: it exits 2 with one line naming the command it is now
// (the same flags) and why, and writes nothing; "ocpgen help" lists it so,
// and "ocpgen help snapshot" prints the line.
func TestSnapshotMoved(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.tools.json")
	for _, args := range [][]string{
		{"snapshot"},
		{"snapshot", "-command", "tickets-server", "-o", out},
		{"snapshot", "-url", "http://127.0.0.1:1/mcp", "-o", out},
		{"snapshot", "-h"},
	} {
		code, stdout, stderr := ocpgen(t, args...)
		if code != cli.ExitTrouble || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, "go tool ocpgen-snapshot") || !strings.Contains(stderr, "same flags") ||
			!strings.Contains(stderr, "does not link the network stack") {
			t.Errorf("ocpgen %q: exit %d, stdout %q, stderr %q; want exit 2 and one line naming go tool ocpgen-snapshot, the same flags and why", args, code, stdout, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("ocpgen snapshot wrote a file")
	}
	code, stdout, _ := ocpgen(t, "help")
	if code != cli.ExitOK || !strings.Contains(stdout, "\n  snapshot  go tool ocpgen-snapshot: ") {
		t.Errorf("ocpgen help does not list snapshot as moved to go tool ocpgen-snapshot:\n%s", stdout)
	}
	_, _, moved := ocpgen(t, "snapshot")
	code, stdout, stderr := ocpgen(t, "help", "snapshot")
	if code != cli.ExitOK || stderr != "" || stdout == "" || stdout != moved {
		t.Errorf("ocpgen help snapshot: exit %d, stdout %q, stderr %q", code, stdout, stderr)
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
	if code, _, errs := ocpgen(t, "generate", "-snapshot", snap, "-out", out); code != cli.ExitOK {
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
		if code, _, errs := ocpgen(t, args...); code != cli.ExitTrouble || !strings.Contains(errs, "cannot be package main") {
			t.Errorf("ocpgen %q: exit %d, stderr %q", args, code, errs)
		}
	}
	if code, _, errs := ocpgen(t, "generate", "-snapshot", snap, "-out", filepath.Join(dir, "my-bridge")); code != cli.ExitTrouble || !strings.Contains(errs, "set -package") {
		t.Errorf("generate into my-bridge: exit %d, stderr %q", code, errs)
	}
	// A warning says each thing once.
	_, _, errs := ocpgen(t, "generate", "-snapshot", snap, "-out", out)
	if strings.Count(errs, "classification") > 1 {
		t.Errorf("warning repeats itself: %q", errs)
	}
}
