package ocp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/invisible"
)

// auditLines returns the JSON audit events written to b, one per line.
func auditLines(b *syncBuffer) []string {
	return strings.Split(strings.TrimSpace(b.String()), "\n")
}

// maxLine returns the length of the longest line of lines.
func maxLine(lines []string) (n int, longest string) {
	for _, l := range lines {
		if len(l) > n {
			n, longest = len(l), l
		}
	}
	return n, longest
}

// The action.request id is bounded in every event of the call, as every
// other text is: a 1 MiB id used to be copied whole into each of the six
// events of an approved write.
func TestAuditCallIDIsBounded(t *testing.T) {
	h := newHarness(t, true, nil)
	stop := autoDecide(t, h, alicePhone, true)
	defer stop()
	id := strings.Repeat("i", 1<<20)
	if r := h.g.Dispatch(context.Background(), alice, req(id, "create_note", `{"title":"t"}`)); !r.OK {
		t.Fatalf("write: %+v", r)
	}
	// And a call to no tool, refused at step 1.
	wantRefused(t, h.g.Dispatch(context.Background(), alice, req(id, "no_such_tool", `{}`)), ReasonUnknown)
	lines := auditLines(h.audit)
	calls := 0
	for _, l := range lines {
		if strings.Contains(l, `"call":"iiii`) {
			calls++
		}
	}
	if calls < 5 {
		t.Fatalf("%d audit events name the call, want the steps of a write and a refusal: %.300s", calls, h.audit.String())
	}
	if n, l := maxLine(lines); n > 2*maxAuditText {
		t.Errorf("an audit event of %d bytes: %.200s…", n, l)
	}
	if !strings.Contains(h.audit.String(), fmt.Sprintf("(%d bytes in all)", len(id))) {
		t.Errorf("the cut is not said: %.300s", h.audit.String())
	}
}

// A sync's tool lists are bounded by count and each name by length, with
// the count of the whole list: 300 tools with 8 KiB names used to make one
// event of 2.46 MB.
func TestAuditSyncListsAreBounded(t *testing.T) {
	h := newHarness(t, false, nil)
	live := liveOf(testCatalogue)
	for i := range 300 {
		live = append(live, otherTool(fmt.Sprintf("%04d%s", i, strings.Repeat("n", 8<<10)), "x"))
	}
	h.g.one().syncCatalogue(live)
	ev := h.audit.events(t, "ocp.sync")
	if len(ev) != 1 {
		t.Fatalf("%d sync events", len(ev))
	}
	so, _ := ev[0]["server_only_not_callable"].([]any)
	if len(so) != maxAuditList+1 || so[maxAuditList] != "… (300 in all)" {
		t.Errorf("server_only_not_callable has %d items, last %v; want %d names and the count", len(so), so[len(so)-1], maxAuditList)
	}
	if s, _ := so[0].(string); !strings.HasPrefix(s, "0000nnn") || !strings.HasSuffix(s, fmt.Sprintf("(%d bytes in all)", 4+8<<10)) || len(s) > maxAuditName+32 {
		t.Errorf("first name %.100s… of %d bytes, want it cut to %d bytes saying how long it was", s, len(s), maxAuditName)
	}
	if n, _ := maxLine(auditLines(h.audit)); n > 8*maxAuditList*maxAuditName {
		t.Errorf("a sync event of %d bytes", n)
	}
}

// A server's notifications/message data is bounded like every audit text:
// a server may send megabytes, once a second. (A log message outside any
// request is of the previous revision: under the current one a server logs
// only within a request, which TestClientServerLogGoesToAudit shows.)
func TestClientServerLogIsBounded(t *testing.T) {
	noLeaksAfter(t)
	audit := newAuditSpy()
	srv, _, syncs := connectSpy(t, onlyRevision(LegacyProtocolVersion, nil), ClientOptions{Audit: slog.New(audit), LogLevel: "debug"}, spyTool{Name: "a", Schema: spyObjSchema})
	syncs.until(t, "a")
	data := map[string]any{"dump": strings.Repeat("d", 1<<20), "rows": make([]int, 100_000)}
	if err := srv.Session.Log(t.Context(), &mcp.LoggingMessageParams{Level: "error", Logger: strings.Repeat("L", 1<<16), Data: data}); err != nil {
		t.Fatal(err)
	}
	r := audit.waitFor(t, "mcp server log")
	var b bytes.Buffer
	if err := slog.NewJSONHandler(&b, nil).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 2*maxAuditText {
		t.Errorf("a server log event of %d bytes: %.200s…", b.Len(), b.String())
	}
	a := recordAttrs(r)
	if !strings.HasPrefix(a["data"], `{"dump":"ddd`) || !strings.Contains(a["data"], "bytes in all)") {
		t.Errorf("data = %.200s…, want the JSON cut saying how long it was", a["data"])
	}
	if !strings.HasPrefix(a["logger"], "LLL") || len(a["logger"]) > maxAuditName+32 {
		t.Errorf("logger of %d bytes", len(a["logger"]))
	}
}

// resultRewriter wraps a client's transport and replaces the result of
// every tools/call response with a fixed JSON text: what a go-sdk server
// cannot be made to send.
type resultRewriter struct {
	inner  mcp.Transport
	result string
}

func (rt *resultRewriter) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := rt.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rewriteConn{Connection: c, result: rt.result, calls: map[string]bool{}}, nil
}

type rewriteConn struct {
	mcp.Connection
	result string
	mu     sync.Mutex
	calls  map[string]bool // ids of the tools/call requests sent
}

func (rc *rewriteConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "tools/call" {
		rc.mu.Lock()
		rc.calls[fmt.Sprint(r.ID.Raw())] = true
		rc.mu.Unlock()
	}
	return rc.Connection.Write(ctx, msg)
}

func (rc *rewriteConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := rc.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && err == nil {
		rc.mu.Lock()
		call := rc.calls[fmt.Sprint(r.ID.Raw())]
		rc.mu.Unlock()
		if call {
			r.Result, r.Error = json.RawMessage(rc.result), nil
		}
	}
	return msg, err
}

// A tools/call result that says nothing (null, {}, an empty content list
// and no structuredContent) is outcome_unknown, audited as malformed: the
// server may have acted. It used to reach the model as ok:true, output [].
func TestEmptyResultIsOutcomeUnknown(t *testing.T) {
	noLeaksAfter(t)
	for _, tc := range []struct {
		result string
		ok     bool
		output string
	}{
		{`null`, false, ""},
		{`{}`, false, ""},
		{`{"content":[]}`, false, ""},
		{`{"content":null,"structuredContent":null}`, false, ""},
		{`{"isError":false}`, false, ""},
		// What does say something still passes.
		{`{"content":[{"type":"text","text":"done"}]}`, true, `[{"type":"text","text":"done"}]`},
		{`{"content":[],"structuredContent":{}}`, true, `{}`},
	} {
		_, ct := newSpyServer(t, nil, spyToolsOf(testCatalogue)...)
		cl, err := Connect(t.Context(), &resultRewriter{inner: ct, result: tc.result}, ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		audit := &syncBuffer{}
		g, err := NewGate(Config{Catalogue: testCatalogue, Server: cl, ACL: AllowAllResources, Broker: newMemoryBroker(),
			Audit: slog.New(slog.NewJSONHandler(audit, nil))})
		if err != nil {
			t.Fatal(err)
		}
		r := g.Dispatch(t.Context(), alice, req("e", "read_graph", `{}`))
		_ = cl.Close()
		if tc.ok {
			if !r.OK || string(r.Output) != tc.output {
				t.Errorf("result %s: %+v, want ok with output %s", tc.result, r, tc.output)
			}
			continue
		}
		wantRefused(t, r, ReasonOutcomeUnknown)
		if r.Error != textOutcomeUnknown+" (ref "+r.Ref+")" {
			t.Errorf("result %s: error %q", tc.result, r.Error)
		}
		ev := audit.events(t, "ocp.call")
		if len(ev) != 1 || ev[0]["outcome"] != string(ReasonOutcomeUnknown) || ev[0]["malformed"] != true || ev[0]["ref"] != r.Ref ||
			!strings.Contains(fmt.Sprint(ev[0]["detail"]), "malformed result") {
			t.Errorf("result %s: audit %v, want one ocp.call event, outcome_unknown, malformed", tc.result, ev)
		}
	}
}

// The prompt and the arguments a peer is shown escape the whole of
// Unicode's Default_Ignorable_Code_Point set and unassigned code points,
// not only controls and format characters: "report\u034f.txt" used to read
// as "report.txt". The server still receives the caller's exact string.
func TestPromptEscapesDefaultIgnorable(t *testing.T) {
	hidden := []rune{0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, 0xFE0F, 0xE0100, 0x2065, 0xFFF0, 0x00AD, 0x17B4, 0x180B, 0x0378, 0xE000}
	var b strings.Builder
	b.WriteString("report")
	for _, r := range hidden {
		b.WriteRune(r)
	}
	b.WriteString(".txt é 日本 😀")
	evil := b.String()
	h := newHarness(t, true, nil)
	ch, stop := announced(h)
	defer stop()
	args, _ := json.Marshal(map[string]any{"entityNames": []string{evil}})
	res := dispatchAsync(h, alice, req("w", "delete_entities", string(args)))
	cr := awaitConfirm(t, ch, res)
	for _, r := range hidden {
		if strings.ContainsRune(cr.Prompt, r) || strings.ContainsRune(string(cr.Args), r) {
			t.Errorf("U+%04X shown raw: prompt %q args %s", r, cr.Prompt, cr.Args)
		}
	}
	for _, esc := range []string{`\u034f`, `\u3164`, `\ufe0f`, `\udb40\udd00`, `\u2065`, `\ufff0`, `\u0378`} {
		if !strings.Contains(cr.Prompt, esc) || !strings.Contains(string(cr.Args), esc) {
			t.Errorf("%s not in prompt %q or args %s", esc, cr.Prompt, cr.Args)
		}
	}
	if !strings.Contains(cr.Prompt, "é 日本 😀") {
		t.Errorf("visible text escaped: %q", cr.Prompt)
	}
	if err := h.g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest}); err != nil {
		t.Fatal(err)
	}
	if r := awaitResult(t, res); !r.OK {
		t.Fatalf("%+v", r)
	}
	calls := h.spy.Calls()
	var got struct{ EntityNames []string }
	if len(calls) != 1 || string(calls[0].Args) != string(cr.Args) || json.Unmarshal([]byte(calls[0].Args), &got) != nil || got.EntityNames[0] != evil {
		t.Errorf("forwarded %+v, shown %s", calls, cr.Args)
	}
}

// escapeInvisible escapes every code point of the Default_Ignorable table,
// and the result is the same JSON value.
func TestEscapeInvisibleCoversDefaultIgnorable(t *testing.T) {
	for _, rg := range invisible.DefaultIgnorable.R16 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r++ {
			checkEscaped(t, r)
		}
	}
	for _, rg := range invisible.DefaultIgnorable.R32 {
		for r := rune(rg.Lo); r <= rune(rg.Hi); r++ {
			checkEscaped(t, r)
		}
	}
}

func checkEscaped(t *testing.T, r rune) {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"a" + string(r): "x" + string(r)})
	out := escapeInvisible(in)
	if bytes.ContainsRune(out, r) {
		t.Errorf("U+%04X left raw: %s", r, out)
	}
	var m map[string]string
	if json.Unmarshal(out, &m) != nil || m["a"+string(r)] != "x"+string(r) {
		t.Errorf("U+%04X: %s does not mean %s", r, out, in)
	}
}
