package ocpweb

// The page in a real browser (headless Chromium, internal/browsertest):
// what it shows is what the server receives, approving runs the write
// once, a stale page's decision is refused, and hostile values are inert
// and visible.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/ocpgen/ocpgen/internal/browsertest"
	"github.com/ocpgen/ocpgen/internal/invisible"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// browse opens a tab on the page, signed in as who (the test Hub's
// cookie), with the URLs of block blocked, and returns it once the page
// has loaded.
func (h *testHub) browse(t *testing.T, who string, block ...string) context.Context {
	t.Helper()
	tab := browsertest.Tab(t)
	var pats []*network.BlockPattern
	for _, b := range block {
		pats = append(pats, &network.BlockPattern{URLPattern: b, Block: true})
	}
	run(t, tab, "opening the page as "+who, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if len(pats) > 0 {
			if _, err := cdp.Call(ctx, tg, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: pats}); err != nil {
				return err
			}
		}
		_, err := cdp.Call(ctx, tg, network.SetCookie, network.SetCookieParams{Name: "who", Value: who, URL: h.srv.URL, HTTPOnly: new(true), SameSite: network.CookieSameSiteStrict})
		return err
	}), chromedp.Navigate(h.page))
	return tab
}

// run runs the actions on tab, bounded by waitFor.
func run(t *testing.T, tab context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, waitFor)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates the JavaScript expression in tab's page.
func eval[T any](t *testing.T, tab context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, waitFor)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// until waits, bounded by waitFor, until the expression is true in tab's
// page.
func until(t *testing.T, tab context.Context, what, expr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, waitFor+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(waitFor), chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("waiting %v for %s: %v", waitFor, what, err)
	}
}

// js is s as a JavaScript string literal.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// shownCard is a confirm as the page shows it: the text of each part.
type shownCard struct {
	Tool, Server, Requester, Prompt, Args, Left, Status, Outcome string
	NotSet, Marks, Resources                                     []string
	Ended, Buttons                                               bool
}

// cardJS returns the expression of the card of the confirm id as a
// shownCard, or null.
func cardJS(id string) string {
	return `(() => {
		const c = Array.from(document.querySelectorAll('section.confirm')).find((c) => c.dataset.id === ` + js(id) + `);
		if (!c) return null;
		const text = (sel) => { const e = c.querySelector(sel); return e ? e.textContent : ''; };
		const all = (sel) => Array.from(c.querySelectorAll(sel)).map((e) => e.textContent);
		return {
			Tool: text('.tool'), Server: text('.server'), Requester: text('.requester'), Prompt: text('.prompt'),
			Args: text('.args'), Left: text('.left'), Status: text('.status'), Outcome: text('.outcome'),
			NotSet: all('.notset .name'), Marks: all('mark.esc'), Resources: all('.resource'),
			Ended: c.classList.contains('ended'), Buttons: c.querySelectorAll('form.decide button:not([disabled])').length === 2,
		};
	})()`
}

// cardOn waits for the confirm id's card on tab's page and returns it.
func cardOn(t *testing.T, tab context.Context, id string) shownCard {
	t.Helper()
	until(t, tab, "the card of "+id, cardJS(id)+" !== null")
	c := eval[*shownCard](t, tab, cardJS(id))
	if c == nil {
		t.Fatalf("the card of %s went away", id)
	}
	return *c
}

// click clicks the card's button ("approve" or "deny").
func click(t *testing.T, tab context.Context, id, button string) {
	t.Helper()
	run(t, tab, "clicking "+button+" on "+id, chromedp.Click(chromedp.CSS(fmt.Sprintf(`section.confirm[data-id=%q] button.%s`, id, button))))
}

// statusIs waits until the card's status says text.
func statusIs(t *testing.T, tab context.Context, id, text string) {
	t.Helper()
	until(t, tab, fmt.Sprintf("the card of %s to say %q", id, text), `(() => { const c = `+cardJS(id)+`; return c !== null && c.Status === `+js(text)+`; })()`)
}

// compact is JSON text without whitespace between tokens.
func compact(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("the page's arguments are not JSON: %v\n%s", err, s)
	}
	return b.Bytes()
}

// sameMembers checks that the page's arguments and the server's hold the
// same members, each with the same bytes.
func sameMembers(t *testing.T, page, server []byte) {
	t.Helper()
	var p, s map[string]json.RawMessage
	if err := json.Unmarshal(page, &p); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(server, &s); err != nil {
		t.Fatal(err)
	}
	if len(p) != len(s) {
		t.Errorf("the page shows %d arguments, the server received %d", len(p), len(s))
	}
	for k, v := range s {
		if !bytes.Equal(p[k], v) {
			t.Errorf("argument %q: the page shows %s, the server received %s", k, p[k], v)
		}
	}
}

// What a person sees is what runs: each confirm's card, opened live while
// the page is open, shows the prompt the gate rendered and the arguments
// the server then receives, value by value (null as null, an absent
// argument as not sent); approving in the page runs the write once,
// denying runs nothing, and each card shows how its confirm ended.
func TestBrowserShowsWhatRuns(t *testing.T) {
	h := newHub(t, nil)
	tab := h.browse(t, "alice")
	until(t, tab, "the page to say nothing is waiting", `!document.getElementById('none').hidden`)
	until(t, tab, "the live stream", `document.getElementById('live').textContent.startsWith('Live')`)

	writes := []*write{
		h.ask(t, `{"title":"Q3 report","note":null,"count":3,"tags":["a","b"],"meta":{"owner":"alice","x":"<b>y</b>"}}`),
		h.ask(t, `{"title":"draft","body":"line one\nline two","meta":{}}`),
		h.ask(t, `{"title":"naïve café — 日本語 שלום","count":-42,"tags":[]}`),
	}
	notSet := [][]string{
		{`"body"`},
		{`"count"`, `"note"`, `"tags"`},
		{`"body"`, `"meta"`, `"note"`},
	}
	prompts := []string{
		`Store the record "Q3 report" with the note null?`,
		`Store the record "draft" with the note (not set)?`,
		`Store the record "naïve café — 日本語 שלום" with the note (not set)?`,
	}
	shown := make([]shownCard, len(writes))
	for i, w := range writes {
		c := cardOn(t, tab, w.req.ID)
		shown[i] = c
		if c.Prompt != w.req.Prompt || c.Prompt != prompts[i] {
			t.Errorf("write %d: the page's prompt %q, the gate's %q, want %q", i, c.Prompt, w.req.Prompt, prompts[i])
		}
		if got := compact(t, c.Args); !bytes.Equal(got, w.req.Args) {
			t.Errorf("write %d: the page's arguments %s, the confirm's %s", i, got, w.req.Args)
		}
		if strings.Join(c.NotSet, " ") != strings.Join(notSet[i], " ") {
			t.Errorf("write %d: not sent %q, want %q", i, c.NotSet, notSet[i])
		}
		if c.Tool != "put_record" || c.Requester != "alice" || c.Server != "" || strings.Join(c.Resources, " ") != "records" || len(c.Marks) != 0 || !c.Buttons || c.Ended {
			t.Errorf("write %d: card %+v", i, c)
		}
	}
	if eval[bool](t, tab, `!document.getElementById('none').hidden`) {
		t.Error("the page still says nothing is waiting")
	}

	click(t, tab, writes[0].req.ID, "approve")
	statusIs(t, tab, writes[0].req.ID, textApproved)
	if r := writes[0].await(t); !r.OK {
		t.Fatalf("the approved write: %+v", r)
	}
	click(t, tab, writes[1].req.ID, "deny")
	statusIs(t, tab, writes[1].req.ID, textDenied)
	wantDenied(t, writes[1].await(t))
	click(t, tab, writes[2].req.ID, "approve")
	statusIs(t, tab, writes[2].req.ID, textApproved)
	if r := writes[2].await(t); !r.OK {
		t.Fatalf("the approved write: %+v", r)
	}

	got := h.received()
	if len(got) != 2 {
		t.Fatalf("the server received %d calls, want the 2 approved once each: %+v", len(got), got)
	}
	for i, k := range []int{0, 2} {
		page := compact(t, shown[k].Args)
		if got[i].Tool != "put_record" || !bytes.Equal(got[i].Args, page) {
			t.Errorf("call %d: the server received %s %s, the page showed %s", i, got[i].Tool, got[i].Args, page)
		}
		sameMembers(t, page, got[i].Args)
	}
	// A card this page decided keeps saying what the person decided.
	for i, said := range []string{textApproved, textDenied, textApproved} {
		id := writes[i].req.ID
		until(t, tab, "the card of "+id+" to end", `(() => { const c = `+cardJS(id)+`; return c !== null && c.Ended; })()`)
		if c := cardOn(t, tab, id); c.Status != said || c.Outcome != "" || c.Buttons {
			t.Errorf("write %d, ended: %+v", i, c)
		}
	}
	// A card another peer decides says how it ended.
	other := h.ask(t, `{"title":"the phone's"}`)
	cardOn(t, tab, other.req.ID)
	phone := aliceWeb
	phone.Peer = "phone-alice"
	if err := h.gate.Resolve(t.Context(), phone, ocp.ConfirmDecision{ID: other.req.ID, Digest: other.req.Digest}); err != nil {
		t.Fatal(err)
	}
	wantDenied(t, other.await(t))
	until(t, tab, "the card of "+other.req.ID+" to show its end", `(() => { const c = `+cardJS(other.req.ID)+`; return c !== null && c.Ended && c.Outcome === `+js(endedText(ocp.OutcomeDenied))+` && c.Status === ''; })()`)
	until(t, tab, "the page to say nothing is waiting", `!document.getElementById('none').hidden`)
	if n := len(h.received()); n != 2 {
		t.Fatalf("the server received %d calls, want 2", n)
	}
}

// A page that was not told a confirm changed or ended (its live stream
// blocked) sends its decision anyway: the decision is refused and says
// why, and nothing runs.
func TestBrowserStalePageIsRefused(t *testing.T) {
	h := newHub(t, nil)
	ended := h.ask(t, `{"title":"ends elsewhere"}`)
	changed := h.ask(t, `{"title":"changes"}`)
	tab := h.browse(t, "alice", h.page+"events")
	cardOn(t, tab, ended.req.ID)
	cardOn(t, tab, changed.req.ID)
	until(t, tab, "the page to say it is not live", `document.getElementById('live').classList.contains('bad')`)

	// Another peer denies the first while the page shows it.
	phone := aliceWeb
	phone.Peer = "phone-alice"
	if err := h.gate.Resolve(t.Context(), phone, ocp.ConfirmDecision{ID: ended.req.ID, Digest: ended.req.Digest}); err != nil {
		t.Fatal(err)
	}
	wantDenied(t, ended.await(t))
	click(t, tab, ended.req.ID, "approve")
	text, _ := decisionText(true, ocp.ErrConfirmNotPending)
	statusIs(t, tab, ended.req.ID, text)

	// The second, as the page has it, is not the confirm pending now.
	run(t, tab, "changing the digest the page holds", chromedp.SetValue(chromedp.CSS(fmt.Sprintf(`section.confirm[data-id=%q] input[name=digest]`, changed.req.ID)), "sha256:"+strings.Repeat("1", 64)))
	click(t, tab, changed.req.ID, "approve")
	text, _ = decisionText(true, ocp.ErrConfirmDigest)
	statusIs(t, tab, changed.req.ID, text)
	if !h.pending(t, changed.req.ID) {
		t.Fatal("the confirm is no longer pending after a refused decision")
	}
	if n := len(h.received()); n != 0 {
		t.Fatalf("the server was called %d times", n)
	}
	if c := cardOn(t, tab, changed.req.ID); c.Buttons {
		t.Error("the buttons of a refused card are enabled")
	}
}

// hostile is the arguments of a write whose values try to restyle the page
// or run in it, and a value of 100 KiB.
var hostile = map[string]any{
	"title": "invoice\u202efdp.exe\u2066x\u2069 \u200bpay\u200d\ufeff",
	"body":  "</script><script>window.pwned=1</script><img src=x onerror=\"window.pwned=2\"><style>body{display:none}</style>",
	"note":  "\u3164\u115f\u1160\uffa0 a\u034fb\ufe0f \U000E0041\U000E007F \u2028\u2029 \u0085",
	"tags":  []string{"</pre><b>not bold</b>", "a\u200eb\u200fc\u061c", "\ue000\u2065\ufff0"},
	"meta":  map[string]string{"long": strings.Repeat("A", 100<<10) + "END", "k\u202e": "v"},
}

// Hostile argument values render inert and visible: no script of theirs
// runs and no markup of theirs is made, every invisible character the
// gate escapes is shown as its escape, marked, no such character reaches
// the page's text, and the 100 KiB value is shown whole in a box that
// scrolls. Approving runs exactly what was shown.
func TestBrowserHostileValuesAreInertAndVisible(t *testing.T) {
	args, err := json.Marshal(hostile)
	if err != nil {
		t.Fatal(err)
	}
	h := newHub(t, nil)
	w := h.ask(t, string(args))
	tab := h.browse(t, "alice")
	c := cardOn(t, tab, w.req.ID)

	if got := compact(t, c.Args); !bytes.Equal(got, w.req.Args) {
		t.Fatalf("the page's arguments differ from the confirm's (%d and %d bytes)", len(got), len(w.req.Args))
	}
	if !strings.Contains(c.Args, strings.Repeat("A", 100<<10)+"END") {
		t.Error("the 100 KiB value is not shown whole")
	}
	if c.Prompt != w.req.Prompt {
		t.Errorf("the page's prompt %q, the gate's %q", c.Prompt, w.req.Prompt)
	}

	// Every invisible character is marked, as its escape, in the order
	// the prompt and the arguments hold them.
	var want []string
	for _, s := range []string{w.req.Prompt, c.Args} {
		for _, p := range visible(s, true) {
			if p.Esc {
				want = append(want, p.Text)
			}
		}
	}
	if strings.Join(c.Marks, " ") != strings.Join(want, " ") || len(want) < 20 {
		t.Errorf("marked %q, want %q", c.Marks, want)
	}
	for _, r := range []rune{0x202E, 0x2066, 0x2069, 0x200B, 0x200D, 0xFEFF, 0x3164, 0x115F, 0x1160, 0xFFA0, 0x034F, 0xFE0F, 0xE0041, 0x2028, 0x0085, 0x200E, 0x061C, 0xE000, 0x2065} {
		if esc := string(invisible.AppendEscape(nil, r)); !strings.Contains(strings.Join(c.Marks, " "), esc) {
			t.Errorf("U+%04X is not shown marked as %s", r, esc)
		}
	}
	text := eval[string](t, tab, `document.documentElement.textContent`)
	for _, r := range text {
		if invisible.Is(r) && r != '\n' {
			t.Errorf("the page's text holds U+%04X", r)
		}
	}

	inert := eval[map[string]any](t, tab, `({
		pwned: typeof window.pwned,
		scripts: Array.from(document.scripts).map((s) => s.getAttribute('src')),
		imgs: document.images.length,
		bold: document.querySelectorAll('.args b, .prompt b').length,
		styles: document.querySelectorAll('style').length,
		visible: getComputedStyle(document.body).display,
	})`)
	if fmt.Sprint(inert) != "map[bold:0 imgs:0 pwned:undefined scripts:[app.js] styles:0 visible:block]" {
		t.Errorf("the page is not inert: %v", inert)
	}
	box := eval[map[string]any](t, tab, `(() => {
		const a = document.querySelector('section.confirm .args');
		const m = document.querySelector('section.confirm mark.esc');
		const r = m.getBoundingClientRect();
		return {overflow: getComputedStyle(a).overflowY, scrolls: a.scrollHeight > a.clientHeight * 10,
			mark: getComputedStyle(m).backgroundColor, markShown: r.width > 0 && r.height > 0};
	})()`)
	if fmt.Sprint(box) != "map[mark:rgb(255, 224, 138) markShown:true overflow:auto scrolls:true]" {
		t.Errorf("the arguments' box or the marks: %v", box)
	}

	click(t, tab, w.req.ID, "approve")
	statusIs(t, tab, w.req.ID, textApproved)
	if r := w.await(t); !r.OK {
		t.Fatalf("result %+v", r)
	}
	got := h.received()
	if len(got) != 1 || !bytes.Equal(got[0].Args, compact(t, c.Args)) {
		t.Fatalf("the server received %d calls, not the arguments shown", len(got))
	}
	sameMembers(t, compact(t, c.Args), got[0].Args)
}

// The model's own channel has no page: its credential is no person's
// sign-in, so the page answers with nothing of the confirms. A Hub that
// wrongly signs a browser in on the model's channel gets a page whose
// decisions the gate refuses. A visitor's page shows only what a visitor
// may decide: alice's writes never reach it, live or on reload.
func TestBrowserOnlyDecidersSeeConfirms(t *testing.T) {
	h := newHub(t, nil)
	w := h.ask(t, `{"title":"secret plan"}`)

	model := h.browse(t, "model")
	until(t, model, "the refusal", `document.body !== null && document.body.textContent.includes(`+js(textNoPrincipal)+`)`)
	if n := eval[int](t, model, `document.querySelectorAll('section.confirm, form').length + document.scripts.length`); n != 0 {
		t.Errorf("the model's page has %d confirms, forms or scripts", n)
	}
	if strings.Contains(eval[string](t, model, `document.documentElement.outerHTML`), "secret plan") {
		t.Error("the model's page shows the write's arguments")
	}

	wrong := h.browse(t, "model-peer")
	cardOn(t, wrong, w.req.ID)
	click(t, wrong, w.req.ID, "approve")
	text, _ := decisionText(true, ocp.ErrConfirmSelf)
	statusIs(t, wrong, w.req.ID, text)
	if !h.pending(t, w.req.ID) || len(h.received()) != 0 {
		t.Fatal("the model's channel decided its own write")
	}

	guest := h.browse(t, "guest")
	until(t, guest, "the live stream", `document.getElementById('live').textContent.startsWith('Live')`)
	hidden := h.ask(t, `{"title":"another secret"}`)
	// flag_record is a visitor's to decide, and opens after the write the
	// visitor may not see: once it is shown, the other has been passed over.
	flag := h.askFor(t, "flag_record", `{"id":"r-1","reason":"spam"}`)
	if c := cardOn(t, guest, flag.req.ID); c.Prompt != `Flag the record "r-1"?` {
		t.Errorf("the visitor's card: %+v", c)
	}
	for _, page := range []string{eval[string](t, guest, `document.documentElement.outerHTML`), func() string {
		_, body := h.do(t, "guest", "GET", "", nil, nil)
		return body
	}()} {
		if n := strings.Count(page, `class="confirm"`); n != 1 {
			t.Errorf("the visitor's page shows %d confirms, want the one flag", n)
		}
		if strings.Contains(page, "secret") || strings.Contains(page, w.req.ID) || strings.Contains(page, hidden.req.ID) {
			t.Error("the visitor's page shows alice's put_record writes")
		}
	}
}
