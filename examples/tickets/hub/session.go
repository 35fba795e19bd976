package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/examples/tickets/server"
	"github.com/ocpgen/ocpgen/examples/tickets/ticketsocp"
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
)

// The principals of the session. The model speaks for alice on the channel
// "model"; alice's phone is another connected peer, and only it may answer
// her confirms. guest is a visitor, on a model channel and on a kiosk: a
// peer too, but one that may not make alice's writes, so it may not
// confirm them either.
var (
	alice = ocp.Principal{ID: "alice", Tier: "operator", Scopes: []string{"tickets.read", "tickets.write", "tickets.escalate"}, Peer: "model"}
	phone = ocp.Principal{ID: "alice", Tier: "operator", Scopes: []string{"tickets.read", "tickets.write", "tickets.escalate"}, Peer: "phone"}
	guest = ocp.Principal{ID: "guest", Tier: "visitor", Scopes: []string{"tickets.read"}, Peer: "guest-model"}
	kiosk = ocp.Principal{ID: "guest", Tier: "visitor", Scopes: []string{"tickets.read"}, Peer: "kiosk"}
)

// acl is the Hub's resource rule: everyone may touch the desk's tickets.
// A real Hub would look the resources up in its own store.
var acl = ocp.ACL(func(ctx context.Context, p ocp.Principal, tool *ocp.Descriptor, resources []string) error {
	for _, r := range resources {
		if r != "tickets" && !strings.HasPrefix(r, "tickets/") {
			return fmt.Errorf("%s may not touch %s", p.ID, r)
		}
	}
	return nil
})

// session is the scripted Hub: the gate, the transcript, and the peer's
// view of pending confirms.
type session struct {
	w        io.Writer
	gate     *ocp.Gate
	confirms chan ocp.ConfirmRequest
	adverts  chan ocp.ToolsAdvertise
	audit    *auditLog
	n        int
	// page is the approval page's sign-in address when a person decides
	// in a browser; "" in the scripted session.
	page string
}

// personTTL is the least time to live of a confirm left to a person: one
// that expires sooner is decided by the phone, as in the scripted session.
const personTTL = 30 * time.Second

// run runs the session, printing its frames to w. With ready, the Hub also
// serves the approval page, calls ready with its sign-in address, and
// leaves to a person in a browser the decisions the phone would make on
// confirms with at least personTTL to live.
func run(ctx context.Context, w io.Writer, ready func(signIn string)) error {
	// The MCP server, as the Hub's operators already run it.
	mcpServer := server.New(server.NewDesk())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	httpServer := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, nil)}
	go httpServer.Serve(ln)
	defer httpServer.Close()
	endpoint := "http://" + ln.Addr().String()

	s := &session{
		w:        w,
		confirms: make(chan ocp.ConfirmRequest, 4),
		adverts:  make(chan ocp.ToolsAdvertise, 4),
		audit:    &auditLog{},
	}
	s.note("The Hub connects to the MCP server at %s and advertises the generated tools it lists.", endpoint)
	client, err := ocp.Dial(ctx, func(context.Context) (mcp.Transport, error) {
		return &mcp.StreamableClientTransport{Endpoint: endpoint}, nil
	}, ocp.ClientOptions{Audit: slog.New(s.audit), Name: "tickets-hub", Version: "1.0.0"})
	if err != nil {
		return err
	}
	defer client.Close()
	gate, err := ocp.NewGate(ocp.Config{
		Catalogue: ticketsocp.Catalogue,
		Server:    client,
		ACL:       acl,
		Broker:    ocp.NewMemoryBroker(),
		Audit:     slog.New(s.audit),
		Advertise: func(a ocp.ToolsAdvertise) { s.adverts <- a },
	})
	if err != nil {
		return err
	}
	// The peers learn of each confirm the gate opens; they answer through
	// gate.Resolve.
	stop := gate.Subscribe(func(r ocp.ConfirmRequest) { s.confirms <- r }, nil)
	defer stop()
	s.gate = gate
	if ready != nil {
		signIn, stop, err := approvalPage(gate)
		if err != nil {
			return err
		}
		defer stop()
		s.page = signIn
		ready(signIn)
	}
	if err := s.advertised(ctx); err != nil {
		return err
	}

	s.note("A read: no confirm; tier, scopes and resource are checked on the call.")
	s.request(ctx, alice, "list_tickets", `{"status":"open"}`)

	s.note("A read whose server returns the card / speech / figures triple: it passes through as is.")
	s.request(ctx, alice, "ticket_stats", `{}`)

	s.note("A write: the Hub holds it and asks the connected peers; alice's phone approves, and only then is the server called.")
	s.write(ctx, alice, "create_ticket", `{"title":"Badge reader at door 2 is dead","priority":"high"}`, approve)

	s.note("A write the phone denies: the server is never called.")
	s.write(ctx, alice, "close_ticket", `{"id":"T-101"}`, deny)

	s.note("A write nobody answers: its confirm expires (ttl 1s), which denies it.")
	s.write(ctx, alice, "escalate_ticket", `{"id":"T-102","team":"network"}`, ignore)

	s.note("The model tries to approve its own write on its own channel: refused, and the write still waits for a peer.")
	s.write(ctx, alice, "close_ticket", `{"id":"T-102"}`, selfApprove)

	s.note("A peer who may not make the call cannot confirm it either: the visitor's kiosk approves, and is refused.")
	s.write(ctx, alice, "close_ticket", `{"id":"T-103"}`, kioskApprove)

	s.note("An approved write the server fails: the model sees the classification's failure text and a reference; the server's error text goes to the audit log only.")
	ref := s.write(ctx, alice, "escalate_ticket", `{"id":"T-102","team":"network"}`, approve)
	if detail := s.audit.detail(ref); detail != "" {
		s.note("audit log (Hub only), ref %s: %s", ref, detail)
	}

	s.note("A visitor asks for a write that needs tier member: forbidden, before any confirm.")
	s.request(ctx, guest, "create_ticket", `{"title":"x"}`)

	s.note("Arguments beyond the tool's schema are refused, never forwarded.")
	s.request(ctx, alice, "list_tickets", `{"status":"open","session":"s-42"}`)

	s.note("The server is upgraded mid-session: merge_tickets added, escalate_ticket removed. The Hub re-lists and re-advertises.")
	server.AddMergeTool(mcpServer)
	mcpServer.RemoveTools("escalate_ticket")
	if err := s.advertised(ctx); err != nil {
		return err
	}
	s.note("merge_tickets is on the server but was never generated or classified: not callable. escalate_ticket is withdrawn.")
	s.request(ctx, alice, "merge_tickets", `{"from":"T-101","into":"T-102"}`)
	s.request(ctx, alice, "escalate_ticket", `{"id":"T-102","team":"network"}`)

	s.note("A title that hides a right-to-left override and a zero-width space: the confirm shows them as escapes, so the person sees what would be stored; the phone denies it.")
	s.write(ctx, alice, "create_ticket", `{"title":"Refund invoice 4411\u202efdp.exe\u200b","priority":"low"}`, deny)
	return nil
}

// advertised waits for the gate's next advertisement and prints it.
func (s *session) advertised(ctx context.Context) error {
	select {
	case a := <-s.adverts:
		// The frame carries each tool's description and input schema too;
		// the transcript shows names and write flags.
		var tools []string
		for _, t := range a.Tools {
			kind := "read"
			if t.Write {
				kind = "write"
			}
			tools = append(tools, t.Name+" ("+kind+")")
		}
		s.frame("hub → model", "tools.advertise", strings.Join(tools, ", "))
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("no tools.advertise within 10s")
	case <-ctx.Done():
		return ctx.Err()
	}
}

// request sends an action.request from p's channel and prints both frames.
func (s *session) request(ctx context.Context, p ocp.Principal, tool, args string) ocp.ActionResult {
	req := s.newRequest(tool, args)
	s.frame(p.Peer+" → hub", "action.request", req)
	res := s.gate.Dispatch(ctx, p, req)
	s.frame("hub → "+p.Peer, "action.result", res)
	return res
}

type peerAction int

const (
	approve peerAction = iota
	deny
	ignore
	selfApprove
	kioskApprove
)

// write sends a write's action.request and plays the phone's part in its
// confirm. It returns the failure reference, if any.
func (s *session) write(ctx context.Context, p ocp.Principal, tool, args string, act peerAction) string {
	req := s.newRequest(tool, args)
	s.frame(p.Peer+" → hub", "action.request", req)
	done := make(chan ocp.ActionResult, 1)
	go func() { done <- s.gate.Dispatch(ctx, p, req) }()

	var c ocp.ConfirmRequest
	select {
	case c = <-s.confirms:
	case res := <-done: // refused before any confirm
		s.frame("hub → "+p.Peer, "action.result", res)
		return res.Ref
	}
	s.frame("hub → peers", "confirm.request", c)
	decide := func(from ocp.Principal, yes bool) {
		d := ocp.ConfirmDecision{ID: c.ID, Approve: yes, Digest: c.Digest}
		s.frame(from.Peer+" → hub", "confirm.decision", d)
		if err := s.gate.Resolve(ctx, from, d); err != nil {
			s.frame("hub → "+from.Peer, "refused", err.Error())
		}
	}
	// The phone's part, or a person's in the approval page.
	byPhone := func(yes bool) {
		if s.page != "" && time.Until(c.Expires) >= personTTL {
			s.note("Waiting for a person to approve or deny it in the approval page (%s).", s.page)
			return
		}
		decide(phone, yes)
	}
	switch act {
	case approve:
		byPhone(true)
	case deny:
		byPhone(false)
	case selfApprove:
		decide(alice, true)
		byPhone(false)
	case kioskApprove:
		decide(kiosk, true)
		byPhone(false)
	case ignore:
	}
	res := <-done
	s.frame("hub → "+p.Peer, "action.result", res)
	return res.Ref
}

func (s *session) newRequest(tool, args string) ocp.ActionRequest {
	s.n++
	return ocp.ActionRequest{ID: fmt.Sprintf("r%d", s.n), Tool: tool, Args: json.RawMessage(args)}
}

func (s *session) frame(route, kind string, v any) {
	var body string
	switch x := v.(type) {
	case string:
		body = x
	default:
		b, err := json.Marshal(x)
		if err != nil {
			body = fmt.Sprintf("(%v)", err)
		} else {
			body = string(b)
		}
	}
	fmt.Fprintf(s.w, "%-19s %-17s %s\n", route, kind, body)
}

func (s *session) note(format string, args ...any) {
	fmt.Fprintf(s.w, "\n# "+format+"\n", args...)
}

// auditLog is a slog.Handler keeping the gate's audit events in memory, so
// the session can show what the Hub (and only the Hub) sees of a failure.
type auditLog struct {
	mu     sync.Mutex
	events []map[string]string
}

func (a *auditLog) Enabled(context.Context, slog.Level) bool { return true }
func (a *auditLog) WithAttrs([]slog.Attr) slog.Handler       { return a }
func (a *auditLog) WithGroup(string) slog.Handler            { return a }

func (a *auditLog) Handle(_ context.Context, r slog.Record) error {
	e := map[string]string{"msg": r.Message}
	r.Attrs(func(at slog.Attr) bool {
		e[at.Key] = at.Value.String()
		return true
	})
	a.mu.Lock()
	a.events = append(a.events, e)
	a.mu.Unlock()
	return nil
}

// detail returns the raw detail audited under a failure reference.
func (a *auditLog) detail(ref string) string {
	if ref == "" {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range a.events {
		if e["ref"] == ref && e["detail"] != "" {
			return e["detail"]
		}
	}
	return ""
}
