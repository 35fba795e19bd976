package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/internal/syncbuf"

	"github.com/chromedp/chromedp"

	"github.com/ocpgen/ocpgen/internal/browsertest"
)

var screenshot = flag.String("screenshot", "", "write a PNG of the approval page, as TestServeInBrowser shows it, to this file (docs/approving.png)")

// js is s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestServeInBrowser is "go run ./examples/tickets/hub -serve" with a
// person in a real browser: the session waits for the page, and the
// person's decisions are the ones that run (the ticket approved is
// created; the writes denied are not), including the write whose title
// hides a right-to-left override, which the page shows escaped.
func TestServeInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	signIn := make(chan string, 1)
	var out syncbuf.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, &out, func(u string) { signIn <- u }) }()
	var u string
	select {
	case u = <-signIn:
	case err := <-done:
		t.Fatalf("the session ended before serving the page: %v\n%s", err, out.String())
	case <-time.After(30 * time.Second):
		t.Fatal("timed out waiting for the approval page's address")
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/sign-in\?key=[A-Z2-7]{26}$`).MatchString(u) {
		t.Fatalf("sign-in address %q", u)
	}

	tab := browsertest.Tab(t)
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		c, cancel := context.WithTimeout(tab, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(c, steps...); err != nil {
			t.Fatalf("%s: %v\nsession so far:\n%s", what, err, out.String())
		}
	}
	do("opening the page", chromedp.EmulateViewport(1000, 1400), chromedp.Navigate(u))

	// The writes a person decides, in the session's order (the others,
	// whose confirms live 1 second, are the phone's or expire).
	for _, step := range []struct {
		prompt, button, says string
		shot                 bool
	}{
		{`Open a ticket titled "Badge reader at door 2 is dead"?`, "approve", "Approved.", false},
		{`Close ticket "T-101"?`, "deny", "Denied.", false},
		{`Close ticket "T-102"?`, "deny", "Denied.", false},
		{`Close ticket "T-103"?`, "deny", "Denied.", false},
		{`Open a ticket titled "Refund invoice 4411\u202efdp.exe\u200b"?`, "deny", "Denied.", true},
	} {
		// The card of a confirm still pending whose prompt reads so.
		find := `Array.from(document.querySelectorAll('section.confirm:not(.ended)')).find((c) => c.querySelector('.prompt').textContent === ` + js(step.prompt) + `)`
		do("waiting for the card "+step.prompt, poll(`Boolean(`+find+`)`))
		if step.shot && *screenshot != "" {
			var png []byte
			do("taking the screenshot", chromedp.Evaluate[chromedp.Void](find+`.scrollIntoView({block: 'end'})`), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				var err error
				png, err = chromedp.FullScreenshot(100)(ctx, tg)
				return err
			}))
			if err := os.WriteFile(*screenshot, png, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		do("deciding "+step.prompt, chromedp.Evaluate[chromedp.Void](find+`.querySelector('button.`+step.button+`').click()`))
		do("waiting for the decision on "+step.prompt, poll(`Array.from(document.querySelectorAll('section.confirm')).some((c) => c.querySelector('.prompt').textContent === `+js(step.prompt)+` && c.querySelector('.status').textContent.startsWith(`+js(step.says)+`))`))
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("session: %v", err)
		}
	case <-ctx.Done():
		t.Fatalf("timed out waiting for the session to end:\n%s", out.String())
	}

	// What the person decided is what ran.
	got := out.String()
	for _, want := range []string{
		`hub → model         action.result     {"id":"r3","ok":true,"output":{"id":"T-103","priority":"high","status":"open","title":"Badge reader at door 2 is dead"}}`,
		`hub → model         action.result     {"id":"r4","ok":false,"reason":"denied","error":"Not performed: the write was denied by the person asked to confirm it. Nothing was changed."}`,
		`hub → model         refused           ocp confirm: a decision cannot come from the requesting channel`,
		`hub → model         action.result     {"id":"r6","ok":false,"reason":"denied","error":"Not performed: the write was denied by the person asked to confirm it. Nothing was changed."}`,
		`hub → kiosk         refused           ocp confirm: the decider may not make this call`,
		`hub → model         action.result     {"id":"r7","ok":false,"reason":"denied","error":"Not performed: the write was denied by the person asked to confirm it. Nothing was changed."}`,
		`hub → model         action.result     {"id":"r13","ok":false,"reason":"denied","error":"Not performed: the write was denied by the person asked to confirm it. Nothing was changed."}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the session lacks\n%s\n", want)
		}
	}
	if n := strings.Count(got, "# Waiting for a person to approve or deny it in the approval page ("+u+")."); n != 5 {
		t.Errorf("the session waited for a person %d times, want 5:\n%s", n, got)
	}
	if strings.Contains(got, `phone → hub         confirm.decision  {"id":"`+confirmOf(got, "r3")) {
		t.Error("the phone decided a write left to the person")
	}
}

// poll waits until the expression is true in the page (bounded by the
// caller's context).
func poll(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(25*time.Second), chromedp.WithPollingInterval(20*time.Millisecond))(ctx, tg)
		return err
	})
}

// confirmOf is the confirm id of the request id in a session's output.
func confirmOf(out, req string) string {
	i := strings.Index(out, `"id":"`+req+`","tool"`)
	if i < 0 {
		return fmt.Sprintf("(no request %s)", req)
	}
	m := regexp.MustCompile(`confirm\.request   \{"id":"([A-Z2-7]+)"`).FindStringSubmatch(out[i:])
	if m == nil {
		return "(no confirm)"
	}
	return m[1]
}
