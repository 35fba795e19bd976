package e2e_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/internal/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/examples/tickets/ticketsocp"
	"github.com/ocpgen/ocpgen/internal/testwait"
	"github.com/ocpgen/ocpgen/ocpgentest"
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
)

// ticketTools are the example desk's tools, all generated and classified.
var ticketTools = []string{"close_ticket", "create_ticket", "escalate_ticket", "list_tickets", "ticket_stats"}

// ticketsServerProc is the example's tickets-server, run as its own process
// serving Streamable HTTP on a fixed address, so that it can be killed and
// started again on the same address: a real restart, with the server's
// sessions and state gone.
type ticketsServerProc struct {
	t      *testing.T
	bin    string
	addr   string
	cmd    *exec.Cmd
	exited chan struct{}
	stderr *syncbuf.Buffer
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// start starts the server and returns once it accepts connections.
func (s *ticketsServerProc) start() {
	s.t.Helper()
	s.stderr = &syncbuf.Buffer{}
	s.cmd = exec.Command(s.bin, "-http", s.addr)
	s.cmd.Stderr = s.stderr
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start tickets-server: %v", err)
	}
	s.exited = make(chan struct{})
	go func(cmd *exec.Cmd, exited chan struct{}) {
		_ = cmd.Wait()
		close(exited)
	}(s.cmd, s.exited)
	deadline := time.Now().Add(bound)
	for {
		c, err := net.DialTimeout("tcp", s.addr, time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		select {
		case <-s.exited:
			s.t.Fatalf("tickets-server exited: %s", s.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("tickets-server does not accept connections on %s: %v\n%s", s.addr, err, s.stderr.String())
		}
	}
}

// kill kills the server (no graceful shutdown: its connections break) and
// waits until it is gone.
func (s *ticketsServerProc) kill() {
	s.t.Helper()
	if s.cmd == nil {
		return
	}
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Kill()
		testwait.Closed(s.t, s.exited, "tickets-server to exit after SIGKILL")
	}
	s.cmd = nil
}

// ticketList is list_tickets' structured output.
type ticketList struct {
	Tickets []struct {
		ID     string `json:"id"`
		Title  string `json:"title"`
		Status string `json:"status"`
	} `json:"tickets"`
}

// status returns the status of ticket id, or "" if it is not listed.
func (l ticketList) status(id string) string {
	for _, tk := range l.Tickets {
		if tk.ID == id {
			return tk.Status
		}
	}
	return ""
}

func (l ticketList) titles() []string {
	var out []string
	for _, tk := range l.Tickets {
		out = append(out, tk.Title)
	}
	return out
}

// TestTicketsHTTP runs the pipeline's flow over Streamable HTTP against the
// example's Go server: ocpgen-snapshot -url (twice, byte for byte the same,
// and the same tools as the committed stdio snapshot the bridge was
// generated from), then the committed ticketsocp bridge through the gate: a
// read, an approved write read back, a denied write, a redacted server
// error. Then the server is killed in mid-session, with a write awaiting
// its confirm: calls fail (reason "failed" while the gate still advertises
// the tools, "unknown" once it has withdrawn them), without a word of the
// connection error; the pending write is denied, never performed; after
// the server restarts on the same address, the catalogue is withdrawn and
// re-advertised by the reconnected client, and calls work again against the
// new server. Nothing outlives the test.
func TestTicketsHTTP(t *testing.T) {
	endToEnd(t)
	srv := &ticketsServerProc{t: t, bin: ticketsServer(t), addr: freeAddr(t)}
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	_, port, _ := net.SplitHostPort(srv.addr)
	url := "http://" + srv.addr + "/mcp"
	srv.start()
	defer srv.kill()

	// Snapshot over HTTP, twice.
	tmp := t.TempDir()
	first, second := filepath.Join(tmp, "first.tools.json"), filepath.Join(tmp, "second.tools.json")
	a := snapshotTwice(t, nil, first, second, "-url", url)
	committed, err := os.ReadFile(filepath.Join("..", "examples", "tickets", "tickets.tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	live, want := parseSnapshot(t, "HTTP snapshot", a), parseSnapshot(t, "tickets.tools.json", committed)
	if !bytes.Equal(live.Server, want.Server) || !bytes.Equal(live.Tools, want.Tools) {
		t.Fatalf("over HTTP the server lists other tools than examples/tickets/tickets.tools.json:\n%s", a)
	}
	// The source names the scheme and host only: a URL's path and query can
	// carry credentials.
	if u, err := neturl.Parse(url); err != nil || live.Source != "streamable-http "+u.Scheme+"://"+u.Host {
		t.Errorf("snapshot source %q for %s", live.Source, url)
	}
	t.Run("bridge is current", func(t *testing.T) {
		t.Chdir(filepath.Join("..", "examples", "tickets"))
		ocpgentest.Check(t, "tickets.tools.json", "tickets.ocp.yaml", "ticketsocp", ocpgentest.Strict())
	})

	// The gate over Streamable HTTP, with its own HTTP client so that its
	// idle connections can be closed at the end.
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	broker := ocp.NewMemoryBroker()
	confirms := watchConfirms(t, broker)
	advs := newAdvertisements()
	audit := &syncbuf.Buffer{}
	logger := slog.New(slog.NewJSONHandler(audit, nil))
	client, err := ocp.Dial(ctx, func(context.Context) (mcp.Transport, error) {
		return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil
	}, ocp.ClientOptions{Audit: logger})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Logf("the tickets server (stateful Streamable HTTP) negotiated MCP revision %s", client.ProtocolVersion())
	g, err := ocp.NewGate(ocp.Config{
		Server:    client,
		Catalogue: ticketsocp.Catalogue,
		ACL:       ocp.AllowAllResources,
		Broker:    broker,
		Audit:     logger,
		Advertise: advs.record,
	})
	if err != nil {
		client.Close()
		t.Fatalf("NewGate: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			_ = client.Close()
		}
	}()
	if got := names(g.Advertisement()); !slices.Equal(got, ticketTools) {
		t.Fatalf("advertised %v, want %v", got, ticketTools)
	}

	list := func(what string) ticketList {
		t.Helper()
		out := mustOK(t, what, g.Call(ctx, visitor, ticketsocp.ListTicketsArgs{}))
		return decode[ticketList](t, what, out)
	}
	approve := func(req ocp.ConfirmRequest, yes bool) {
		t.Helper()
		decider := approver
		if req.Tool == "escalate_ticket" {
			decider = escalator
		}
		if err := g.Resolve(ctx, decider, ocp.ConfirmDecision{ID: req.ID, Approve: yes, Digest: req.Digest}); err != nil {
			t.Fatalf("decision on %s: %v", req.Tool, err)
		}
	}

	// A read.
	l := list("list_tickets")
	if len(l.Tickets) != 2 || l.status("T-101") != "open" || l.status("T-102") != "open" {
		t.Fatalf("list_tickets: %+v", l)
	}
	stats := decode[struct {
		Speech  string         `json:"speech"`
		Figures map[string]int `json:"figures"`
	}](t, "ticket_stats", mustOK(t, "ticket_stats", g.Call(ctx, visitor, ticketsocp.TicketStatsArgs{})))
	if stats.Figures["open"] != 2 || stats.Speech == "" {
		t.Fatalf("ticket_stats: the {card, speech, figures} triple did not pass through: %+v", stats)
	}

	// An approved write, read back.
	pending := async(func() ocp.ActionResult {
		return g.Call(ctx, member, ticketsocp.CreateTicketArgs{Title: "Badge reader broken"})
	})
	req := confirms.next(t, pending)
	if req.Prompt != `Open a ticket titled "Badge reader broken"?` {
		t.Fatalf("confirm prompt %q", req.Prompt)
	}
	if n := len(list("list_tickets while create_ticket awaits its confirm").Tickets); n != 2 {
		t.Fatalf("the server was called before the confirm resolved: %d tickets", n)
	}
	approve(req, true)
	mustOK(t, "approved create_ticket", await(t, pending))
	if l := list("list_tickets after the approved write"); l.status("T-103") != "open" || !slices.Contains(l.titles(), "Badge reader broken") {
		t.Fatalf("the approved write is not on the server: %+v", l)
	}

	// A denied write.
	pending = async(func() ocp.ActionResult {
		return g.Call(ctx, member, ticketsocp.CloseTicketArgs{ID: "T-101"})
	})
	approve(confirms.next(t, pending), false)
	mustRefuse(t, "denied close_ticket", await(t, pending), ocp.ReasonDenied, textDenied)
	if s := list("list_tickets after the denied write").status("T-101"); s != "open" {
		t.Fatalf("the denied write changed T-101 to %q", s)
	}

	// A server error names an internal host: it is redacted.
	pending = async(func() ocp.ActionResult {
		return g.Call(ctx, operator, ticketsocp.EscalateTicketArgs{ID: "T-102", Team: ticketsocp.EscalateTicketArgsTeamNetwork})
	})
	approve(confirms.next(t, pending), true)
	mustFail(t, "escalate_ticket", await(t, pending), "The escalation did not go through.", "db-primary", "tickets.internal", "5432", "refused", "escalation failed")

	// A write awaits its confirm when the server dies.
	stranded := async(func() ocp.ActionResult {
		return g.Call(ctx, member, ticketsocp.CloseTicketArgs{ID: "T-102"})
	})
	strandedReq := confirms.next(t, stranded)

	mark := len(advs.snapshot())
	withdrawn := func() bool {
		for _, a := range advs.snapshot()[mark:] {
			if len(a.Tools) == 0 {
				return true
			}
		}
		return false
	}
	srv.kill()

	// While the server is down: the gate still advertises the tools until
	// its client notices the session is gone, and a call of an advertised
	// tool reaches for the server and fails ("failed"); once withdrawn, a
	// call is "unknown". Either way the model reads a fixed text only.
	leaks := []string{srv.addr, port, "127.0.0.1", "refused", "connect", "dial", "EOF", "session"}
	sawFailed := false
	for i := range 3 {
		before := withdrawn()
		r := g.Call(ctx, visitor, ticketsocp.ListTicketsArgs{})
		after := withdrawn()
		switch {
		case r.Reason == ocp.ReasonFailed && !before:
			mustFail(t, "list_tickets while the server is down", r, "The ticket desk could not do that.", leaks...)
			sawFailed = true
		case r.Reason == ocp.ReasonUnknown && after:
			mustRefuse(t, "list_tickets once the catalogue is withdrawn", r, ocp.ReasonUnknown, textUnknown)
			noLeak(t, "list_tickets once the catalogue is withdrawn", r, leaks...)
		default:
			t.Fatalf("call %d while the server is down (catalogue withdrawn before: %v, after: %v): ok=%v reason=%q error=%q", i, before, after, r.OK, r.Reason, r.Error)
		}
	}
	t.Logf("while down: a call reached for the server and failed: %v; catalogue withdrawn: %v", sawFailed, withdrawn())

	// Restart on the same address: the client's next contact meets a
	// server that does not know its session, which ends it; the catalogue
	// is withdrawn and, after the client reconnects, re-advertised.
	srv.start()
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	advs.waitFor(wctx, t, "the catalogue re-synced after the restart", func(all []ocp.ToolsAdvertise) bool {
		all = all[mark:]
		i := slices.IndexFunc(all, func(a ocp.ToolsAdvertise) bool { return len(a.Tools) == 0 })
		return i >= 0 && slices.ContainsFunc(all[i+1:], func(a ocp.ToolsAdvertise) bool { return slices.Equal(names(a), ticketTools) })
	})
	if got := names(g.Advertisement()); !slices.Equal(got, ticketTools) {
		t.Fatalf("after the restart the gate advertises %v", got)
	}

	// The write that was waiting when the server died was denied, because
	// the catalogue it was confirmed against is gone; its confirm cannot be
	// approved any more.
	mustRefuse(t, "the write pending across the restart", await(t, stranded), ocp.ReasonDenied, textCatalogue)
	if err := g.Resolve(ctx, approver, ocp.ConfirmDecision{ID: strandedReq.ID, Approve: true, Digest: strandedReq.Digest}); !errors.Is(err, ocp.ErrConfirmNotPending) {
		t.Fatalf("approving the voided confirm: %v, want ErrConfirmNotPending", err)
	}

	// Calls work again, against the new server (whose desk starts afresh).
	l = list("list_tickets after the restart")
	if len(l.Tickets) != 2 || l.status("T-102") != "open" || slices.Contains(l.titles(), "Badge reader broken") {
		t.Fatalf("after the restart list_tickets gives %+v; want the new server's two tickets", l)
	}
	pending = async(func() ocp.ActionResult {
		return g.Call(ctx, member, ticketsocp.CloseTicketArgs{ID: "T-102"})
	})
	approve(confirms.next(t, pending), true)
	mustOK(t, "close_ticket after the restart", await(t, pending))
	if s := list("list_tickets after the restart and a write").status("T-102"); s != "closed" {
		t.Fatalf("after the restart the approved close left T-102 %q", s)
	}
	if !strings.Contains(audit.String(), "catalogue withdrawn") {
		t.Errorf("the audit log does not record the withdrawal")
	}

	closed = true
	if err := client.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	if got := g.Advertisement(); len(got.Tools) != 0 {
		t.Fatalf("after Close the gate still advertises %v", names(got))
	}
	srv.kill()
	hc.CloseIdleConnections()
}
