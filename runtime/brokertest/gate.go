package brokertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/impl"
	"github.com/ocpgen/ocpgen/internal/testwait"
	"github.com/ocpgen/ocpgen/runtime/ocp"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// The suite's tools, hand-written exactly like ocpgen's generated code.

// closeTicketArgs are the arguments of close_ticket, a write.
type closeTicketArgs struct {
	ocpimpl.Write `json:"-"`
	Ticket        string `json:"ticket"`
}

// snoozeTicketArgs are the arguments of snooze_ticket, a write whose confirm
// expires quickly.
type snoozeTicketArgs struct {
	ocpimpl.Write `json:"-"`
	Ticket        string `json:"ticket"`
}

func descriptor(d ocpimpl.Descriptor) ocpimpl.Descriptor {
	c, err := canon.JSON([]byte(d.InputSchema))
	if err != nil {
		panic(err)
	}
	d.InputSchema = string(c)
	if d.Fingerprint, err = canon.SchemaFingerprint(c); err != nil {
		panic(err)
	}
	return d
}

// ticketResource is "tickets/{ticket}", bound as the generator binds it.
var ticketResource = ocpimpl.Template{{Text: "tickets/"}, {Arg: "ticket", Mode: ocpimpl.BindValue}}

// prompt is "<verb> ticket {ticket}?", bound as the generator binds it.
func prompt(verb string) ocpimpl.Template {
	return ocpimpl.Template{{Text: verb + " ticket "}, {Arg: "ticket", Mode: ocpimpl.BindJSON}, {Text: "?"}}
}

var tiers = []string{"visitor", "member", "operator"}

const ticketSchema = `{"type":"object","properties":{"ticket":{"type":"string","minLength":1}},"required":["ticket"],"additionalProperties":false}`

var (
	closeTicket = &ocpimpl.Tool{Args: (*closeTicketArgs)(nil), Desc: descriptor(ocpimpl.Descriptor{
		Name:        "close_ticket",
		Description: "Close a ticket.",
		InputSchema: ticketSchema,
		Policy: ocpimpl.Policy{
			Kind: ocpimpl.KindWrite, Classified: true, Tier: "member", Scopes: []string{"tickets.write"},
			Resource: ticketResource, ConfirmPrompt: prompt("Close"), ConfirmTTL: 2 * time.Minute,
			Failure: "Could not close the ticket.",
		},
	})}
	snoozeTicket = &ocpimpl.Tool{Args: (*snoozeTicketArgs)(nil), Desc: descriptor(ocpimpl.Descriptor{
		Name:        "snooze_ticket",
		Description: "Snooze a ticket.",
		InputSchema: ticketSchema,
		Policy: ocpimpl.Policy{
			Kind: ocpimpl.KindWrite, Classified: true, Tier: "member", Scopes: []string{"tickets.write"},
			Resource: ticketResource, ConfirmPrompt: prompt("Snooze"), ConfirmTTL: 300 * time.Millisecond,
			Failure: "Could not snooze the ticket.",
		},
	})}
	catalogue = ocpimpl.NewCatalogue(impl.Digest(tiers, &closeTicket.Desc, &snoozeTicket.Desc), tiers, closeTicket, snoozeTicket)
	// laxCatalogue is catalogue with a laxer classification of close_ticket
	// (any visitor): the same tools, another policy.
	laxCatalogue = func() *ocpimpl.Catalogue {
		d := closeTicket.Desc.Clone()
		d.Policy.Tier, d.Policy.Scopes = "visitor", nil
		lax := &ocpimpl.Tool{Args: (*closeTicketArgs)(nil), Desc: *d}
		return ocpimpl.NewCatalogue(impl.Digest(tiers, &lax.Desc, &snoozeTicket.Desc), tiers, lax, snoozeTicket)
	}()
)

// Requester asks for writes on the model's channel (Peer RequesterPeer); it
// may call every tool of the suite's catalogue.
var Requester = ocp.Principal{ID: "u-alice", Tier: "member", Scopes: []string{"tickets.write"}, Peer: RequesterPeer}

// Decider is a peer on another channel, who may decide Requester's
// confirms: it is authorized for the same calls.
var Decider = ocp.Principal{ID: "u-bob", Tier: "operator", Scopes: []string{"tickets.write"}, Peer: "desk-b2"}

// Guest is a peer on another channel who may not make Requester's calls
// (tier visitor, no scope), so it may not decide them either.
var Guest = ocp.Principal{ID: "u-guest", Tier: "visitor", Peer: "kiosk-3"}

// spy is the fronted MCP server: it records every call, and lists every
// tool of the suite's catalogue.
type spy struct {
	mu    sync.Mutex
	calls []string // "tool args"
}

func (s *spy) WatchTools(fn func([]ocp.LiveTool)) error {
	var live []ocp.LiveTool
	for _, h := range catalogue.Tools() {
		live = append(live, ocp.LiveTool{Tool: &mcp.Tool{Name: h.Desc.Name, InputSchema: json.RawMessage(h.Desc.InputSchema)}})
	}
	fn(live)
	return nil
}

func (s *spy) CallTool(_ context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.calls = append(s.calls, name+" "+string(args))
	s.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
}

func (s *spy) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

// Replica is one Hub replica for tests: a [ocp.Gate] over the suite's
// catalogue (close_ticket, a write with a 2-minute confirm, and
// snooze_ticket, a write whose confirm expires after 300ms; both take
// {"ticket": string}), with a spy in place of the MCP server.
type Replica struct {
	g   *ocp.Gate
	spy *spy
	ctx context.Context // cancelled when the test ends: no call outlives it
}

// NewReplica returns a Replica whose gate uses br, with its catalogue synced.
// Its calls end with the test.
func NewReplica(tb testing.TB, br ocp.ConfirmBroker) *Replica {
	tb.Helper()
	return newReplica(tb, br, catalogue, ocp.AllowAllResources)
}

// newReplica is NewReplica with the catalogue cat and the ACL acl.
func newReplica(tb testing.TB, br ocp.ConfirmBroker, cat *ocpimpl.Catalogue, acl ocp.ACL) *Replica {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	r := &Replica{spy: &spy{}, ctx: ctx}
	g, err := ocp.NewGate(ocp.Config{
		Catalogue: cat,
		Server:    r.spy,
		ACL:       acl,
		Broker:    br,
		Audit:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	r.g = g
	return r
}

// Gate returns the replica's gate.
func (r *Replica) Gate() *ocp.Gate { return r.g }

// Calls returns the calls the replica's server received, as "tool args".
func (r *Replica) Calls() []string { return r.spy.Calls() }

// Dispatch runs an action.request of tool with args for p in a goroutine and
// returns its result.
func (r *Replica) Dispatch(p ocp.Principal, tool, args string) <-chan ocp.ActionResult {
	out := make(chan ocp.ActionResult, 1)
	go func() {
		out <- r.g.Dispatch(r.ctx, p, ocp.ActionRequest{ID: "req-" + args, Tool: tool, Args: json.RawMessage(args)})
	}()
	return out
}

func awaitResult(t *testing.T, ch <-chan ocp.ActionResult) ocp.ActionResult {
	t.Helper()
	return testwait.Recv(t, ch, "Dispatch to return")
}

// nextAnnounced returns the next confirm announced on ch, that of the
// write whose result arrives on out. A write that returns first (it asked
// for no confirm, or its broker failed) fails the test at once.
func nextAnnounced(t *testing.T, ch <-chan ocp.ConfirmRequest, out <-chan ocp.ActionResult) ocp.ConfirmRequest {
	t.Helper()
	timer := time.NewTimer(HangGuard)
	defer timer.Stop()
	select {
	case r := <-ch:
		return r
	case res := <-out:
		t.Fatalf("the write returned before its confirm was announced: ok %v, reason %q, error %q, output %s", res.OK, res.Reason, res.Error, res.Output)
	case <-timer.C:
		t.Fatalf("waited %v for the write's confirm to be announced: it never came", HangGuard)
	}
	panic("unreachable")
}

func wantCalls(t *testing.T, what string, r *Replica, want ...string) {
	t.Helper()
	if got := r.spy.Calls(); !slices.Equal(got, want) {
		t.Fatalf("%s: server calls = %q, want %q", what, got, want)
	}
}

func wantDenied(t *testing.T, res ocp.ActionResult) {
	t.Helper()
	if res.OK || res.Reason != ocp.ReasonDenied || res.Output != nil {
		t.Fatalf("result = %+v, want denied", res)
	}
}

// openWrite has a replica on broker a (ra) ask, as Requester, for the write
// tool with args, and returns ra, a replica on broker b (rb), the call's
// result to come and the confirms b announces (subscribed before the call).
func openWrite(t *testing.T, a, b ocp.ConfirmBroker, tool, args string) (ra, rb *Replica, out <-chan ocp.ActionResult, ann <-chan ocp.ConfirmRequest) {
	ra, rb = NewReplica(t, a), NewReplica(t, b)
	ann = announcements(t, b)
	return ra, rb, ra.Dispatch(Requester, tool, args), ann
}

// refusal is a decision that every replica must refuse, with err.
type refusal struct {
	what string
	by   ocp.Principal
	d    ocp.ConfirmDecision
	err  error
}

// wantRefusedEverywhere has rb, then ra, refuse each decision, and checks
// that they changed nothing: the confirm seen is still pending on broker b,
// and ra has not called its server.
func wantRefusedEverywhere(t *testing.T, ra, rb *Replica, b ocp.ConfirmBroker, seen ocp.ConfirmRequest, rs ...refusal) {
	t.Helper()
	for _, r := range []*Replica{rb, ra} {
		for _, x := range rs {
			wantErr(t, x.what, r.g.Resolve(context.Background(), x.by, x.d), x.err)
		}
	}
	wantPending(t, b, seen.ID)
	wantCalls(t, "while pending", ra)
}

// Two gates play two replicas: the write asked on one is approved by a peer
// on the other, and only then does the requesting replica call its server.
func testGateApprove(t *testing.T, a, b ocp.ConfirmBroker) {
	ra, rb, out, ann := openWrite(t, a, b, "close_ticket", `{"ticket":"T-17"}`)
	seen := nextAnnounced(t, ann, out)
	if seen.Tool != "close_ticket" || string(seen.Args) != `{"ticket":"T-17"}` || seen.Prompt != `Close ticket "T-17"?` || seen.Requester != Requester.ID {
		t.Fatalf("announced %+v", seen)
	}
	wantCalls(t, "before the decision", ra)
	if err := rb.g.Resolve(context.Background(), desk, approve(seen)); err != nil {
		t.Fatalf("approve on the other replica: %v", err)
	}
	res := awaitResult(t, out)
	if !res.OK {
		t.Fatalf("result = %+v, want ok", res)
	}
	wantCalls(t, "the requesting replica", ra, `close_ticket {"ticket":"T-17"}`)
	wantCalls(t, "the deciding replica", rb)
}

func testGateDeny(t *testing.T, a, b ocp.ConfirmBroker) {
	ra, rb, out, ann := openWrite(t, a, b, "close_ticket", `{"ticket":"T-18"}`)
	seen := nextAnnounced(t, ann, out)
	if err := rb.g.Resolve(context.Background(), desk, deny(seen)); err != nil {
		t.Fatalf("deny on the other replica: %v", err)
	}
	wantDenied(t, awaitResult(t, out))
	wantCalls(t, "the requesting replica", ra)
	wantCalls(t, "the deciding replica", rb)
}

// The model's channel cannot approve its own write, on any replica; nor can
// a decision with another digest.
func testGateRequesterChannel(t *testing.T, a, b ocp.ConfirmBroker) {
	ra, rb, out, ann := openWrite(t, a, b, "close_ticket", `{"ticket":"T-19"}`)
	seen := nextAnnounced(t, ann, out)
	wantRefusedEverywhere(t, ra, rb, b, seen,
		refusal{"approval from the requester's channel", Requester, approve(seen), ocp.ErrConfirmSelf},
		refusal{"approval with another digest", desk, ocp.ConfirmDecision{ID: seen.ID, Approve: true, Digest: "sha256:forged"}, ocp.ErrConfirmDigest})
	if err := rb.g.Resolve(context.Background(), desk, deny(seen)); err != nil {
		t.Fatal(err)
	}
	wantDenied(t, awaitResult(t, out))
	wantCalls(t, "the requesting replica", ra)
}

// Only a principal authorized for the call may decide its confirm, on any
// replica: a guest's approval and denial are refused and change nothing.
func testGateUnauthorizedDecider(t *testing.T, a, b ocp.ConfirmBroker) {
	ra, rb, out, ann := openWrite(t, a, b, "close_ticket", `{"ticket":"T-21"}`)
	seen := nextAnnounced(t, ann, out)
	wantRefusedEverywhere(t, ra, rb, b, seen,
		refusal{"a guest's approval", Guest, approve(seen), ocp.ErrConfirmForbidden},
		refusal{"a guest's denial", Guest, deny(seen), ocp.ErrConfirmForbidden})
	if err := rb.g.Resolve(context.Background(), Decider, approve(seen)); err != nil {
		t.Fatal(err)
	}
	if res := awaitResult(t, out); !res.OK {
		t.Fatalf("approved by an authorized peer: %+v", res)
	}
	wantCalls(t, "the requesting replica", ra, `close_ticket {"ticket":"T-21"}`)
}

// A gate under another policy (the same tools, a laxer classification) on
// the other replica neither lists nor decides the confirm, even for a
// decider its own policy would let make the call; a gate under the
// confirm's policy there lists it, with its policy and resources, and
// decides it.
func testGateOtherPolicy(t *testing.T, a, b ocp.ConfirmBroker) {
	ra, rb, out, ann := openWrite(t, a, b, "close_ticket", `{"ticket":"T-23"}`)
	lax := newReplica(t, b, laxCatalogue, ocp.AllowAllResources)
	seen := nextAnnounced(t, ann, out)
	if seen.Policy != catalogue.PolicyDigest() || !slices.Equal(seen.Resources, []string{"tickets/T-23"}) {
		t.Fatalf("announced policy %q resources %q, want %q [tickets/T-23]", seen.Policy, seen.Resources, catalogue.PolicyDigest())
	}
	wantErr(t, "a guest's approval under the lax policy", lax.g.Resolve(context.Background(), Guest, approve(seen)), ocp.ErrConfirmForbidden)
	wantErr(t, "a decider's approval under the lax policy", lax.g.Resolve(context.Background(), Decider, approve(seen)), ocp.ErrConfirmForbidden)
	if p, err := lax.g.Pending(context.Background()); err != nil || len(p) != 0 {
		t.Fatalf("the lax gate lists %+v, %v", p, err)
	}
	p, err := rb.g.Pending(context.Background())
	if err != nil || len(p) != 1 {
		t.Fatalf("the other replica's gate lists %+v, %v", p, err)
	}
	sameRequest(t, "listed by the other replica's gate", p[0], seen)
	wantPending(t, b, seen.ID)
	wantCalls(t, "while pending", ra)
	if err := rb.g.Resolve(context.Background(), Decider, approve(seen)); err != nil {
		t.Fatal(err)
	}
	if res := awaitResult(t, out); !res.OK {
		t.Fatalf("approved under its own policy: %+v", res)
	}
	wantCalls(t, "the lax replica", lax)
}

// The ACL of the deciding replica is asked about the resources the
// requesting replica computed: they cross the broker with the confirm.
func testGateDeciderACL(t *testing.T, a, b ocp.ConfirmBroker) {
	ra := NewReplica(t, a)
	var mu sync.Mutex
	var asked []string
	rb := newReplica(t, b, catalogue, ocp.ACL(func(_ context.Context, p ocp.Principal, _ *ocp.Descriptor, rs []string) error {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p.ID+" "+fmt.Sprint(rs))
		if p.ID == Decider.ID {
			return fmt.Errorf("%s may not touch %v", p.ID, rs)
		}
		return nil
	}))
	ann := announcements(t, b)
	out := ra.Dispatch(Requester, "close_ticket", `{"ticket":"T-24"}`)
	seen := nextAnnounced(t, ann, out)
	wantErr(t, "an approval the ACL refuses", rb.g.Resolve(context.Background(), Decider, approve(seen)), ocp.ErrConfirmForbidden)
	mu.Lock()
	got := slices.Clone(asked)
	mu.Unlock()
	if want := []string{Decider.ID + " [tickets/T-24]"}; !slices.Equal(got, want) {
		t.Fatalf("the deciding replica's ACL was asked %q, want %q", got, want)
	}
	wantPending(t, b, seen.ID)
	if err := NewReplica(t, b).g.Resolve(context.Background(), Decider, deny(seen)); err != nil {
		t.Fatal(err)
	}
	wantDenied(t, awaitResult(t, out))
	wantCalls(t, "the requesting replica", ra)
}

func testGateExpiry(t *testing.T, a, b ocp.ConfirmBroker) {
	ra, rb, out, ann := openWrite(t, a, b, "snooze_ticket", `{"ticket":"T-20"}`)
	wantDenied(t, awaitResult(t, out))
	// The confirm was announced unless it arrived at the broker expired.
	select {
	case seen := <-ann:
		wantErr(t, "approval after expiry", rb.g.Resolve(context.Background(), desk, approve(seen)), ocp.ErrConfirmNotPending)
	default:
	}
	wantCalls(t, "the requesting replica", ra)
	wantCalls(t, "the deciding replica", rb)
}

// LoadResult is what [Load] measured.
type LoadResult struct {
	// N is the number of writes; Approved and Denied split it. Deciders is
	// how many peers decided at once.
	N, Approved, Denied, Deciders int
	// P50, P99 and Max are of the time from a peer's decision (just before
	// Resolve is called on replica b) to the waiting replica a's broker
	// returning it to the gate.
	P50, P99, Max time.Duration
	// Total is the wall time from the first dispatch to the last result.
	Total time.Duration
}

// String formats r for a test log.
func (r LoadResult) String() string {
	return fmt.Sprintf("%d writes (%d approved, %d denied), %d deciders: decision→waiter p50 %v, p99 %v, max %v; total %v",
		r.N, r.Approved, r.Denied, r.Deciders, r.P50.Round(time.Microsecond), r.P99.Round(time.Microsecond), r.Max.Round(time.Microsecond), r.Total.Round(time.Millisecond))
}

// timedBroker records when each Request returns.
type timedBroker struct {
	ocp.ConfirmBroker
	mu sync.Mutex
	at map[string]time.Time
}

func (t *timedBroker) Request(ctx context.Context, p ocp.PendingConfirm) (ocp.Decision, error) {
	d, err := t.ConfirmBroker.Request(ctx, p)
	now := time.Now()
	t.mu.Lock()
	t.at[p.Request.ID] = now
	t.mu.Unlock()
	return d, err
}

// Load runs n concurrent writes through a gate on replica a (broker a) and,
// once all n are pending, has peers on replica b (a gate on broker b),
// deciders of them at once, approve every even-numbered one and deny the
// others. It fails tb unless every
// result is right: each approved write called the server exactly once with
// its own arguments, and no denied one called it. It returns the latencies
// from decision to waiting replica.
func Load(tb testing.TB, a, b ocp.ConfirmBroker, n, deciders int) LoadResult {
	tb.Helper()
	ta := &timedBroker{ConfirmBroker: a, at: make(map[string]time.Time)}
	ra, rb := NewReplica(tb, ta), NewReplica(tb, b)
	ann := make(chan ocp.ConfirmRequest, n)
	stop := b.Subscribe(func(r ocp.ConfirmRequest) {
		select {
		case ann <- r:
		default:
		}
	})
	defer stop()

	begin := time.Now()
	results := make([]<-chan ocp.ActionResult, n)
	for i := range n {
		results[i] = ra.Dispatch(Requester, "close_ticket", fmt.Sprintf(`{"ticket":"T-%d"}`, i))
	}
	seen := make([]ocp.ConfirmRequest, 0, n)
	for len(seen) < n {
		select {
		case r := <-ann:
			seen = append(seen, r)
		case <-time.After(HangGuard):
			tb.Fatalf("only %d of %d confirms announced", len(seen), n)
		}
	}
	if p, err := b.Pending(context.Background()); err != nil || len(p) != n {
		tb.Fatalf("the deciding replica lists %d pending confirms (%v), want %d", len(p), err, n)
	}

	var mu sync.Mutex
	decidedAt := make(map[string]time.Time, n)
	work := make(chan ocp.ConfirmRequest)
	var wg sync.WaitGroup
	for range max(deciders, 1) {
		wg.Go(func() {
			for r := range work {
				var args struct{ Ticket string }
				if err := json.Unmarshal(r.Args, &args); err != nil {
					tb.Errorf("announced args %s: %v", r.Args, err)
					continue
				}
				var i int
				fmt.Sscanf(args.Ticket, "T-%d", &i)
				d := ocp.ConfirmDecision{ID: r.ID, Approve: i%2 == 0, Digest: r.Digest}
				now := time.Now()
				mu.Lock()
				decidedAt[r.ID] = now
				mu.Unlock()
				if err := rb.g.Resolve(context.Background(), desk, d); err != nil {
					tb.Errorf("decide %s: %v", args.Ticket, err)
				}
			}
		})
	}
	for _, r := range seen {
		work <- r
	}
	close(work)
	testwait.Wait(tb, &wg, "the deciders to decide the %d writes", n)

	res := LoadResult{N: n, Deciders: max(deciders, 1)}
	for i, ch := range results {
		var r ocp.ActionResult
		select {
		case r = <-ch:
		case <-time.After(HangGuard):
			tb.Fatalf("write %d never returned", i)
		}
		switch {
		case i%2 == 0 && r.OK:
			res.Approved++
		case i%2 == 1 && !r.OK && r.Reason == ocp.ReasonDenied:
			res.Denied++
		default:
			tb.Errorf("write T-%d: result %+v", i, r)
		}
	}
	res.Total = time.Since(begin)

	calls := ra.spy.Calls()
	slices.Sort(calls)
	var want []string
	for i := 0; i < n; i += 2 {
		want = append(want, fmt.Sprintf(`close_ticket {"ticket":"T-%d"}`, i))
	}
	slices.Sort(want)
	if !slices.Equal(calls, want) {
		tb.Errorf("server calls: %d, want the %d approved writes exactly once each", len(calls), len(want))
	}
	if c := rb.spy.Calls(); len(c) != 0 {
		tb.Errorf("the deciding replica called its server: %q", c)
	}

	lat := make([]time.Duration, 0, n)
	ta.mu.Lock()
	for id, t0 := range decidedAt {
		if t1, ok := ta.at[id]; ok {
			lat = append(lat, max(t1.Sub(t0), 0))
		}
	}
	ta.mu.Unlock()
	if len(lat) != n {
		tb.Fatalf("timed %d of %d decisions", len(lat), n)
	}
	slices.Sort(lat)
	res.P50, res.P99, res.Max = lat[len(lat)/2], lat[(len(lat)*99)/100], lat[len(lat)-1]
	return res
}
