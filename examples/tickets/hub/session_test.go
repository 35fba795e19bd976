package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

var update = flag.Bool("update", false, "rewrite testdata/transcript.golden")

// normalize replaces what differs between runs (the port, confirm ids,
// expiry times, failure references) with stable names, in order of first
// appearance.
func normalize(s string) string {
	s = regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(s, "127.0.0.1:PORT")
	s = regexp.MustCompile(`"expires":"[^"]*"`).ReplaceAllString(s, `"expires":"EXPIRES"`)
	for _, r := range []struct {
		re     *regexp.Regexp
		prefix string
	}{
		{regexp.MustCompile(`\b[A-Z2-7]{26}\b`), "CONFIRM-"},
		{regexp.MustCompile(`\b[0-9a-f]{16}\b`), "REF-"},
	} {
		names := map[string]string{}
		s = r.re.ReplaceAllStringFunc(s, func(m string) string {
			if _, ok := names[m]; !ok {
				names[m] = fmt.Sprintf("%s%d", r.prefix, len(names)+1)
			}
			return names[m]
		})
	}
	return s
}

func TestTranscript(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent()) // not the browser another test started
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var buf bytes.Buffer
	if err := run(ctx, &buf, nil); err != nil {
		t.Fatalf("run: %v\n%s", err, buf.String())
	}
	got := normalize(buf.String())

	// What the model receives never holds the server's error text; only the
	// Hub's own audit line does.
	for _, line := range strings.Split(got, "\n") {
		if strings.Contains(line, "db-primary") && !strings.HasPrefix(line, "# audit log (Hub only)") {
			t.Errorf("server error text outside the audit log: %s", line)
		}
	}
	if !strings.Contains(got, "# audit log (Hub only), ref REF-1: ") || !strings.Contains(got, "db-primary.tickets.internal") {
		t.Error("the failure's raw error was not found in the audit log under its reference")
	}

	const golden = "testdata/transcript.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("transcript differs from %s (go test ./examples/tickets/hub -update rewrites it):\n%s", golden, got)
	}
}
