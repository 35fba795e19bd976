package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/examples/tickets/server"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

type frame struct {
	name string
	body any
}

// testChannel is a channel whose frames the test reads from the returned
// channel.
func testChannel(id, user, tier string, model bool) (*channel, chan frame) {
	frames := make(chan frame, 16)
	send := func(name string, body any) { frames <- frame{name, body} }
	return &channel{id: id, user: user, tier: tier, model: model, send: send}, frames
}

// next returns the next frame on frames other than a tools.advertise (which
// the gate may send at any time), and fails unless it is named name.
func next(t *testing.T, frames <-chan frame, name string) any {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case f := <-frames:
			if f.name == "tools.advertise" && name != f.name {
				continue
			}
			if f.name != name {
				t.Fatalf("waiting for a %s frame, got %s: %+v", name, f.name, f.body)
			}
			return f.body
		case <-timeout:
			t.Fatalf("no %s frame within 30s", name)
		}
	}
}

// result waits for an action.result and returns it, failing unless it is ok.
func result(t *testing.T, frames <-chan frame, id string) ocp.ActionResult {
	t.Helper()
	res := next(t, frames, "action.result").(ocp.ActionResult)
	if res.ID != id || !res.OK {
		t.Fatalf("action.result for %s: want ok, got %+v", id, res)
	}
	return res
}

// TestGatedCall runs the hub of main.go in front of the ticket desk, served
// in-process by the go-sdk: a read is answered at once, and a write reaches
// the server only after a peer approves it.
func TestGatedCall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The ticket desk the snapshot was recorded from; yours would be your
	// server, or a stand-in with the same tools.
	clientT, serverT := mcp.NewInMemoryTransports()
	session, err := server.New(server.NewDesk()).Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	audit := slog.New(slog.NewTextHandler(io.Discard, nil))
	client, err := ocp.Connect(ctx, clientT, ocp.ClientOptions{Audit: audit})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	h, stop, err := newHub(client, audit)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	model, modelFrames := testChannel("model-1", "alice", "member", true)
	watcher, watcherFrames := testChannel("model-2", "alice", "member", true)
	phone, phoneFrames := testChannel("phone-1", "alice", "member", false)
	for _, ch := range []*channel{model, watcher, phone} {
		if err := h.join(ctx, ch); err != nil {
			t.Fatal(err)
		}
	}
	advertised := next(t, modelFrames, "tools.advertise").(ocp.ToolsAdvertise)
	if b, _ := json.Marshal(advertised); !strings.Contains(string(b), `"create_ticket"`) {
		t.Fatalf("tools.advertise without create_ticket: %s", b)
	}

	// A read: answered at once.
	h.onActionRequest(ctx, model, ocp.ActionRequest{ID: "r1", Tool: "list_tickets", Args: json.RawMessage(`{"status":"open"}`)})
	if res := result(t, modelFrames, "r1"); !strings.Contains(string(res.Output), "T-101") {
		t.Fatalf("list_tickets: %s", res.Output)
	}

	// A write: held until a peer decides.
	go h.onActionRequest(ctx, model, ocp.ActionRequest{ID: "w1", Tool: "create_ticket", Args: json.RawMessage(`{"title":"Printer on fire","priority":"high"}`)})
	confirm := next(t, phoneFrames, "confirm.request").(ocp.ConfirmRequest)
	if confirm.Tool != "create_ticket" || !strings.Contains(confirm.Prompt, "Printer on fire") {
		t.Fatalf("confirm.request: %+v", confirm)
	}
	decision := ocp.ConfirmDecision{ID: confirm.ID, Approve: true, Digest: confirm.Digest}

	// The model cannot approve its own write, and the server has not been
	// called: the desk has no such ticket yet.
	h.onConfirmDecision(ctx, model, decision)
	if got := next(t, modelFrames, "error"); got != "a model cannot confirm" {
		t.Fatalf("a model's decision: %v", got)
	}
	h.onActionRequest(ctx, watcher, ocp.ActionRequest{ID: "r2", Tool: "list_tickets", Args: json.RawMessage(`{}`)})
	if res := result(t, watcherFrames, "r2"); strings.Contains(string(res.Output), "Printer on fire") {
		t.Fatalf("the server created the ticket before a peer approved: %s", res.Output)
	}

	// The phone approves: only now is the server called.
	h.onConfirmDecision(ctx, phone, decision)
	if res := result(t, modelFrames, "w1"); !strings.Contains(string(res.Output), "Printer on fire") {
		t.Fatalf("create_ticket: %s", res.Output)
	}
	if ended := next(t, phoneFrames, "confirm.ended").(ocp.ConfirmEnded); ended.ID != confirm.ID {
		t.Fatalf("confirm.ended: %+v", ended)
	}
}
