package ocp

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
		live = append(live, LiveTool{Name: fmt.Sprintf("%04d%s", i, strings.Repeat("n", 8<<10)), Fingerprint: "x"})
	}
	h.g.syncCatalogue(live)
	ev := h.audit.events(t, AuditSync)
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
// a server may send megabytes, once a second.
func TestClientServerLogIsBounded(t *testing.T) {
	noLeaksAfter(t)
	audit := newAuditSpy()
	srv, _, syncs := connectSpy(t, nil, ClientOptions{Audit: slog.New(audit), LogLevel: "debug"}, spyTool{Name: "a", Schema: spyObjSchema})
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
