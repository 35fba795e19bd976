package ocpweb

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// do sends a request to the test Hub as who ("" for nobody signed in),
// with extra headers, and returns the response with its body read.
func (h *testHub) do(t *testing.T, who, method, path string, form url.Values, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, h.page+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if who != "" {
		req.AddCookie(&http.Cookie{Name: "who", Value: who})
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

var tokenField = regexp.MustCompile(`name="token" value="([^"]*)"`)

// tokenOf returns the token of the page served to who (the Hub must have
// a confirm who may decide pending, so that the page has a form).
func (h *testHub) tokenOf(t *testing.T, who string) string {
	t.Helper()
	_, body := h.do(t, who, "GET", "", nil, nil)
	m := tokenField.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the page served to %s has no decision form:\n%s", who, body)
	}
	return html.UnescapeString(m[1])
}

// decision is the form of a decision on w.
func decision(w *write, approve bool, token string) url.Values {
	d := "deny"
	if approve {
		d = "approve"
	}
	return url.Values{"id": {w.req.ID}, "digest": {w.req.Digest}, "decision": {d}, "token": {token}}
}

func TestHandlerOptions(t *testing.T) {
	h := newHub(t, nil)
	for _, c := range []struct {
		name string
		x    Confirms
		opt  Options
		want string
	}{
		{"no confirms", nil, Options{Principal: signIn}, "no Confirms"},
		{"no principal", h.gate, Options{}, "Options.Principal is required"},
		{"short key", h.gate, Options{Principal: signIn, Key: make([]byte, 31)}, "Options.Key has 31 bytes, fewer than 32"},
	} {
		if _, err := Handler(c.x, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
	if _, err := Handler(h.gate, Options{Principal: signIn, Key: make([]byte, 32)}); err != nil {
		t.Errorf("a 32-byte key: %v", err)
	}
}

// Every response, refusals included, is never cached and carries the
// security headers.
func TestEveryResponseHasTheSecurityHeaders(t *testing.T) {
	h := newHub(t, nil)
	w := h.ask(t, `{"title":"a"}`)
	token := h.tokenOf(t, "alice")
	for _, c := range []struct {
		who, method, path string
		form              url.Values
		status            int
	}{
		{"alice", "GET", "", nil, 200},
		{"alice", "GET", "app.js", nil, 200},
		{"alice", "GET", "app.css", nil, 200},
		{"", "GET", "", nil, 401},
		{"alice", "GET", "decide", nil, 405},
		{"alice", "GET", "nothing", nil, 404},
		{"alice", "POST", "decide", url.Values{"id": {"x"}}, 403},
		{"alice", "POST", "decide", decision(w, false, token), 200},
	} {
		res, _ := h.do(t, c.who, c.method, c.path, c.form, nil)
		if res.StatusCode != c.status {
			t.Errorf("%s %s as %q: status %d, want %d", c.method, c.path, c.who, res.StatusCode, c.status)
		}
		for k, want := range map[string]string{
			"Cache-Control":           "no-store",
			"X-Content-Type-Options":  "nosniff",
			"X-Frame-Options":         "DENY",
			"Referrer-Policy":         "no-referrer",
			"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; require-trusted-types-for 'script'; trusted-types ocpweb",
		} {
			if got := res.Header.Get(k); got != want {
				t.Errorf("%s %s as %q: %s: %q, want %q", c.method, c.path, c.who, k, got, want)
			}
		}
	}
	wantDenied(t, w.await(t))
}

func wantDenied(t *testing.T, r ocp.ActionResult) {
	t.Helper()
	if r.OK || r.Reason != ocp.ReasonDenied {
		t.Errorf("result %+v, want denied", r)
	}
}

// No decision is taken by GET, and none without the token of the page
// served to the decider, nor from another origin; each refusal leaves the
// confirm pending and tells the truth.
func TestDecisionsNeedAPostFromThePage(t *testing.T) {
	h := newHub(t, nil)
	w := h.ask(t, `{"title":"a"}`)
	aliceToken := h.tokenOf(t, "alice")
	other, err := Handler(h.gate, Options{Principal: signIn}) // another key
	if err != nil {
		t.Fatal(err)
	}
	otherToken := other.(*handler).token(aliceWeb)
	guestToken := h.web.token(guestWeb) // valid, for guest
	ok := decision(w, true, aliceToken)

	for _, c := range []struct {
		name   string
		method string
		path   string
		form   url.Values
		hdr    map[string]string
		status int
		text   string
	}{
		{"GET with the decision in the query", "GET", "decide?" + ok.Encode(), nil, nil, 405, ""},
		{"no token", "POST", "decide", without(ok, "token"), nil, 403, textForged},
		{"another principal's token", "POST", "decide", with(ok, "token", guestToken), nil, 403, textForged},
		{"a token of another key", "POST", "decide", with(ok, "token", otherToken), nil, 403, textForged},
		{"cross-site", "POST", "decide", ok, map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, textCrossOrigin},
		{"same-site, not same-origin", "POST", "decide", ok, map[string]string{"Sec-Fetch-Site": "same-site"}, 403, textCrossOrigin},
		{"another origin", "POST", "decide", ok, map[string]string{"Origin": "http://evil.example"}, 403, textCrossOrigin},
		{"no decision word", "POST", "decide", with(ok, "decision", "yes"), nil, 400, textMalformed},
		{"no digest", "POST", "decide", without(ok, "digest"), nil, 400, textMalformed},
		{"a body over the bound", "POST", "decide", with(ok, "pad", strings.Repeat("x", maxForm)), nil, 400, textMalformed},
		{"another digest", "POST", "decide", with(ok, "digest", "sha256:"+strings.Repeat("0", 64)), nil, 409, "this write is not the one the page showed you"},
	} {
		res, body := h.do(t, "alice", c.method, c.path, c.form, c.hdr)
		if res.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, res.StatusCode, c.status)
		}
		if !strings.Contains(html.UnescapeString(body), c.text) {
			t.Errorf("%s: the answer does not say %q:\n%s", c.name, c.text, body)
		}
		if !h.pending(t, w.req.ID) {
			t.Fatalf("%s: the confirm is no longer pending", c.name)
		}
	}
	if n := len(h.received()); n != 0 {
		t.Fatalf("the server was called %d times", n)
	}
	for _, why := range []string{"cross-origin decision", "a decision without the principal's token", "malformed decision"} {
		if !strings.Contains(h.audit.String(), why) {
			t.Errorf("the audit log does not have %q", why)
		}
	}

	// The page's own decision, as its script sends it.
	res, body := h.do(t, "alice", "POST", "decide", ok, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": h.srv.URL, "Accept": "application/json"})
	var answer struct {
		OK      bool
		Message string
	}
	if err := json.Unmarshal([]byte(body), &answer); err != nil || res.StatusCode != 200 || !answer.OK || answer.Message != textApproved {
		t.Fatalf("the page's decision: %d %s", res.StatusCode, body)
	}
	if r := w.await(t); !r.OK {
		t.Fatalf("result %+v", r)
	}
	if n := len(h.received()); n != 1 {
		t.Fatalf("the server was called %d times", n)
	}
	// The same decision again: the write has run once.
	res, body = h.do(t, "alice", "POST", "decide", ok, nil)
	if res.StatusCode != 409 || !strings.Contains(body, "no longer waiting") {
		t.Errorf("the decision again: %d %s", res.StatusCode, body)
	}
	if n := len(h.received()); n != 1 {
		t.Fatalf("the server was called %d times", n)
	}
}

func with(v url.Values, k, s string) url.Values {
	out := url.Values{}
	for key, vs := range v {
		out[key] = vs
	}
	out.Set(k, s)
	return out
}

func without(v url.Values, k string) url.Values {
	out := with(v, k, "")
	out.Del(k)
	return out
}

// A Gate of NewMux: its page names each confirm's server, and decides
// through that Gate.
func TestMuxPage(t *testing.T) {
	h := startHub(t, nil, true)
	w := h.ask(t, `{"title":"via the mux"}`)
	if w.req.Server != "records" {
		t.Fatalf("confirm for server %q", w.req.Server)
	}
	_, body := h.do(t, "alice", "GET", "", nil, nil)
	if !strings.Contains(body, `<span class="on">on</span> <span class="server">records</span>`) {
		t.Errorf("the page does not name the server:\n%s", body)
	}
	res, body := h.do(t, "alice", "POST", "decide", decision(w, true, h.tokenOf(t, "alice")), nil)
	if res.StatusCode != 200 || !strings.Contains(html.UnescapeString(body), textApproved) {
		t.Fatalf("approving: %d %s", res.StatusCode, body)
	}
	if r := w.await(t); !r.OK {
		t.Fatalf("result %+v", r)
	}
	if got := h.received(); len(got) != 1 || string(got[0].Args) != `{"title":"via the mux"}` {
		t.Fatalf("the server received %+v", got)
	}
}

// flood is a Confirms that, while the page lists its confirms, announces
// more confirm events than a stream holds.
type flood struct {
	Confirms
	ended func(ocp.ConfirmEnded)
}

func (f *flood) Subscribe(_ func(ocp.ConfirmRequest), ended func(ocp.ConfirmEnded)) func() {
	f.ended = ended
	return func() {}
}

func (f *flood) Pending(context.Context) ([]ocp.ConfirmRequest, error) {
	for i := range streamBuffer + 1 {
		f.ended(ocp.ConfirmEnded{ID: fmt.Sprint(i), Outcome: ocp.OutcomeExpired})
	}
	return nil, nil
}

// A stream whose browser falls behind by more events than it holds ends
// (the browser reconnects and starts from a sync), so a slow reader costs
// the Hub a bounded buffer, and the Hub's announcements never wait for it.
func TestStreamThatFallsBehindEnds(t *testing.T) {
	page, err := Handler(&flood{}, Options{Principal: signIn})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/events", nil)
	req.AddCookie(&http.Cookie{Name: "who", Value: "alice"})
	rec := httptest.NewRecorder()
	done := make(chan struct{})
	go func() {
		defer close(done)
		page.ServeHTTP(rec, req)
	}()
	select {
	case <-done:
	case <-time.After(waitFor):
		t.Fatal("timed out waiting for the stream that fell behind to end")
	}
	if got, want := rec.Body.String(), "event: sync\ndata: {\"cards\":[],\"gone\":\"No longer waiting for a decision.\"}\n\n"; got != want {
		t.Errorf("the stream sent %q, want only %q", got, want)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
}
