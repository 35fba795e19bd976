package loadtest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// plan is what the test has the peers do with a write.
type plan string

const (
	planApprove   plan = "approve"   // a peer approves it through another replica
	planDeny      plan = "deny"      // a peer denies it through another replica
	planExpire    plan = "expire"    // nobody answers: escalate_ticket's 1 s confirm expires
	planWithdraw  plan = "withdraw"  // the model cancels the call while its confirm is pending
	planForbidden plan = "forbidden" // a visitor asks: refused before any confirm
)

// session is one model session: a principal on its own channel, served by
// its home replica (or the next live one).
type session struct {
	id    int
	home  int
	model ocp.Principal // may make every call
	guest ocp.Principal // a visitor on the same channel: reads only
}

var allScopes = []string{"tickets.read", "tickets.write", "tickets.escalate"}

func newSession(i int) *session {
	peer := fmt.Sprintf("model-%d", i)
	return &session{
		id:    i,
		home:  i % replicas,
		model: ocp.Principal{ID: fmt.Sprintf("user-%d", i), Tier: "operator", Scopes: allScopes, Peer: peer},
		guest: ocp.Principal{ID: fmt.Sprintf("guest-%d", i), Tier: "visitor", Scopes: []string{"tickets.read"}, Peer: peer},
	}
}

// desk is the deciding peer: authorized for every call, on a channel of
// its own.
var desk = ocp.Principal{ID: "desk", Tier: "operator", Scopes: allScopes, Peer: "desk-1"}

// write is one write of the run, as the test planned it and as the model
// and the deciding peer saw it.
type write struct {
	key     string // the server ledger's key: tool and unique argument
	tool    string
	args    string
	plan    plan
	phase   string
	call    string // the action.request id
	replica int    // the replica it was requested on

	withdraw     chan struct{} // closed by the decider for planWithdraw
	withdrawOnce sync.Once

	mu         sync.Mutex
	confirm    *ocp.ConfirmRequest // as announced to the peer
	accepted   bool                // the peer's decision (plan) was accepted
	refused    string              // the gate's error when it was not
	decidedAt  time.Time           // just before the accepted Resolve was sent
	decidedVia int
	late       string // the error of an approval sent after the write ended
	// attempts are the peer's decisions sent for it and what each got:
	// "" (accepted), a gate error class, or "no answer" (the deciding
	// replica died under the call).
	attempts []string

	// The model's side.
	answered bool // an action.result came back
	died     bool // the replica died under the call: no result
	res      ocp.ActionResult
	doneAt   time.Time
}

// run is the state of one TestLoad run.
type run struct {
	t *testing.T
	d *deployment

	mu     sync.Mutex
	writes map[string]*write // by key

	gatedNanos, rawNanos, e2eGated, e2eRaw samples
	readsDied, readsFailed                 atomic.Int64
	readsSent                              atomic.Int64 // gated and raw, answered
	lost                                   atomic.Int64 // calls to a live replica that got no answer
	withdrawLate                           atomic.Int64 // withdrawals that found the call ended
	progress                               atomic.Int64 // steps done in the current phase
}

func (r *run) add(w *write) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.writes[w.key] != nil {
		r.t.Errorf("write key %q used twice", w.key)
	}
	r.writes[w.key] = w
}

func (r *run) lookup(c ocp.ConfirmRequest) *write {
	key, _ := writeKey(c.Tool, c.Args)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.writes[key]
}

// samples is a concurrent list of durations.
type samples struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *samples) add(d time.Duration) {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
}

func (s *samples) reset() {
	s.mu.Lock()
	s.d = nil
	s.mu.Unlock()
}

func (s *samples) sorted() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.d)
	slices.Sort(out)
	return out
}

// pct is the q-quantile of sorted (nearest rank).
func pct(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// read runs one read through the gate and the same read raw, on the
// session's replica, in an order that alternates with k.
func (r *run) read(s *session, k int) {
	// list_tickets of the closed tickets: the two that setup closed. (Not
	// ticket_stats, nor the open tickets: the example's desk copies and
	// sorts every ticket under one lock, and the approved writes grow it to
	// thousands, so those reads would measure the desk's lock.)
	tool, args := "list_tickets", `{"status":"closed"}`
	if (s.id+k)%2 == 1 {
		args = `{"status":"closed","limit":5}`
	}
	rep := r.d.route(s.home)
	p := r.d.reps[rep]
	gated := func() {
		var out dispatchOut
		t0 := time.Now()
		err := p.post(context.Background(), "/dispatch", dispatchIn{
			Call:      fmt.Sprintf("read-%d-%d", s.id, k),
			Principal: s.model,
			Request:   ocp.ActionRequest{ID: fmt.Sprintf("read-%d-%d", s.id, k), Tool: tool, Args: json.RawMessage(args)},
		}, &out)
		switch {
		case err != nil && p.killed.Load():
			r.readsDied.Add(1)
		case err != nil:
			r.lost.Add(1)
			r.t.Errorf("session %d: gated read on %s got no answer: %v", s.id, p.name, err)
		case !out.Result.OK:
			r.readsFailed.Add(1)
			r.t.Errorf("session %d: gated %s on %s: %+v", s.id, tool, p.name, out.Result)
		default:
			r.readsSent.Add(1)
			r.gatedNanos.add(time.Duration(out.Nanos))
			r.e2eGated.add(time.Since(t0))
		}
	}
	raw := func() {
		var out rawOut
		t0 := time.Now()
		err := p.post(context.Background(), "/raw", rawIn{Tool: tool, Args: json.RawMessage(args)}, &out)
		switch {
		case err != nil && p.killed.Load():
			r.readsDied.Add(1)
		case err != nil:
			r.lost.Add(1)
			r.t.Errorf("session %d: raw read on %s got no answer: %v", s.id, p.name, err)
		case !out.OK:
			r.readsFailed.Add(1)
			r.t.Errorf("session %d: raw %s on %s: %s", s.id, tool, p.name, out.Error)
		default:
			r.readsSent.Add(1)
			r.rawNanos.add(time.Duration(out.Nanos))
			r.e2eRaw.add(time.Since(t0))
		}
	}
	if k%2 == 0 {
		gated()
		raw()
	} else {
		raw()
		gated()
	}
}

// newWrite plans write k of session s in phase.
func newWrite(s *session, phase string, k int, pl plan) *write {
	w := &write{plan: pl, phase: phase, call: fmt.Sprintf("w-%s-%d-%d", phase, s.id, k), withdraw: make(chan struct{})}
	if pl == planExpire {
		// escalate_ticket: its confirm's ttl is 1 s (tickets.ocp.yaml).
		w.tool, w.args = "escalate_ticket", fmt.Sprintf(`{"id":"E-%s-%d-%d","team":"network"}`, phase, s.id, k)
	} else {
		w.tool, w.args = "create_ticket", fmt.Sprintf(`{"title":"load %s %d %d","priority":"low"}`, phase, s.id, k)
	}
	w.key, _ = writeKey(w.tool, json.RawMessage(w.args))
	return w
}

// doWrite has session s make write w and records what came back.
func (r *run) doWrite(s *session, w *write) {
	r.add(w)
	p := s.model
	if w.plan == planForbidden {
		p = s.guest
	}
	w.replica = r.d.route(s.home)
	rep := r.d.reps[w.replica]
	done := make(chan struct{})
	defer close(done)
	if w.plan == planWithdraw {
		go func() {
			select {
			case <-w.withdraw:
				var ok struct{ Found bool }
				// Not found: the call had ended already (a fault denied
				// it after its confirm was announced).
				if err := rep.post(context.Background(), "/withdraw", struct{ Call string }{w.call}, &ok); err == nil && !ok.Found {
					r.withdrawLate.Add(1)
				}
			case <-done:
			}
		}()
	}
	var out dispatchOut
	err := rep.post(context.Background(), "/dispatch", dispatchIn{
		Call:      w.call,
		Principal: p,
		Request:   ocp.ActionRequest{ID: w.call, Tool: w.tool, Args: json.RawMessage(w.args)},
	}, &out)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.doneAt = time.Now()
	switch {
	case err != nil && rep.killed.Load():
		w.died = true
	case err != nil:
		r.lost.Add(1)
		r.t.Errorf("%s on %s got no answer: %v", w.key, rep.name, err)
	default:
		w.answered, w.res = true, out.Result
	}
}

// decider is the deciding peer: it learns of confirms from the /events
// streams of two replicas and from /pending, and decides each by its
// write's plan through a replica other than the requester's.
type decider struct {
	r    *run
	work chan ocp.ConfirmRequest

	mu   sync.Mutex
	seen map[string]bool // confirm id → offered (queued, or handled for good)

	via     [replicas]atomic.Int64 // accepted decisions by deciding replica
	retries atomic.Int64
}

func (r *run) startDecider(ctx context.Context, workers int) *decider {
	dc := &decider{r: r, work: make(chan ocp.ConfirmRequest, 1<<16), seen: map[string]bool{}}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case c := <-dc.work:
					if !dc.handle(c) {
						dc.mu.Lock()
						delete(dc.seen, c.ID) // offered again by the next poll
						dc.mu.Unlock()
						dc.retries.Add(1)
					}
				}
			}
		})
	}
	ready := make(chan struct{}, 2)
	for _, i := range []int{0, 1} { // not replica 3, which the run kills
		wg.Go(func() { dc.stream(ctx, i, ready) })
	}
	for range 2 {
		select {
		case <-ready:
		case <-time.After(hangGuard):
			r.t.Fatal("an /events stream never subscribed")
		}
	}
	wg.Go(func() {
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			p, err := r.d.pending(ctx)
			if err != nil {
				continue // a failover: the next poll
			}
			for _, c := range p {
				dc.offer(c)
			}
		}
	})
	r.t.Cleanup(wg.Wait)
	return dc
}

func (dc *decider) offer(c ocp.ConfirmRequest) {
	dc.mu.Lock()
	if dc.seen[c.ID] {
		dc.mu.Unlock()
		return
	}
	dc.seen[c.ID] = true
	dc.mu.Unlock()
	dc.work <- c
}

// stream reads replica i's /events until ctx ends, reconnecting.
func (dc *decider) stream(ctx context.Context, i int, ready chan<- struct{}) {
	first := true
	for ctx.Err() == nil && dc.r.d.alive(i) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+dc.r.d.reps[i].addr+"/events", nil)
		resp, err := hc.Do(req)
		if err == nil {
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if first {
					first = false
					ready <- struct{}{}
				}
				var c ocp.ConfirmRequest
				if json.Unmarshal(sc.Bytes(), &c) == nil && c.ID != "" {
					dc.offer(c)
				}
			}
			resp.Body.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// handle acts on confirm c by its write's plan. It returns false when the
// decision could not be made (Redis failing over, the deciding replica
// killed): the next poll offers c again if it is still pending.
func (dc *decider) handle(c ocp.ConfirmRequest) bool {
	r := dc.r
	w := r.lookup(c)
	if w == nil {
		r.t.Errorf("confirm %s announced for no write of the run: %s %s", c.ID, c.Tool, c.Args)
		return true
	}
	w.mu.Lock()
	if w.confirm == nil {
		w.confirm = &c
	}
	w.mu.Unlock()
	switch w.plan {
	case planExpire:
		return true
	case planWithdraw:
		w.withdrawOnce.Do(func() { close(w.withdraw) })
		return true
	case planForbidden:
		r.t.Errorf("%s: a forbidden write's confirm was announced", w.key)
		return true
	}
	via := r.d.other(w.replica)
	if via < 0 || via == w.replica {
		r.t.Errorf("%s: no other replica to decide on", w.key)
		return true
	}
	t0 := time.Now()
	var out resolveOut
	err := r.d.reps[via].post(context.Background(), "/resolve", resolveIn{
		Principal: desk,
		Decision:  ocp.ConfirmDecision{ID: c.ID, Approve: w.plan == planApprove, Digest: c.Digest},
	}, &out)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err != nil && r.d.reps[via].killed.Load():
		w.attempts = append(w.attempts, "no answer")
		return false
	case err != nil:
		r.lost.Add(1)
		r.t.Errorf("%s: the decision sent through %s got no answer: %v", w.key, r.d.reps[via].name, err)
		return false
	}
	w.attempts = append(w.attempts, out.Err)
	switch out.Err {
	case "unavailable":
		return false
	case "":
		w.accepted, w.decidedAt, w.decidedVia = true, t0, via
		dc.via[via].Add(1)
	case "not_pending", "expired":
		// It ended first: its requester died, or was cancelled by a fault.
		w.refused = out.Err
	default:
		w.refused = out.Err
		r.t.Errorf("%s: the peer's decision through replica %d was refused: %s", w.key, via, out.Err)
	}
	return true
}

// lateApprovals sends an approval for every write that ended without
// running (denied, expired, withdrawn): each must be refused.
func (r *run) lateApprovals() (sent int) {
	for _, w := range r.writes {
		w.mu.Lock()
		c, ended := w.confirm, w.answered && !w.res.OK
		w.mu.Unlock()
		if c == nil || !ended {
			continue
		}
		via := r.d.other(w.replica)
		var out resolveOut
		err := r.d.reps[via].post(context.Background(), "/resolve", resolveIn{
			Principal: desk,
			Decision:  ocp.ConfirmDecision{ID: c.ID, Approve: true, Digest: c.Digest},
		}, &out)
		if err != nil {
			r.t.Errorf("late approval of %s: %v", w.key, err)
			continue
		}
		sent++
		w.mu.Lock()
		w.late = out.Err
		w.mu.Unlock()
		if out.Err != "not_pending" && out.Err != "expired" {
			r.t.Errorf("a late approval of %s (%s, ended %s) was not refused: %q", w.key, w.plan, w.res.Reason, out.Err)
		}
	}
	return sent
}

// textClass names a refusal's fixed text, for the report.
func textClass(res ocp.ActionResult) string {
	switch {
	case res.OK:
		return "ok"
	case strings.Contains(res.Error, "denied by the person"):
		return "denied"
	case strings.Contains(res.Error, "nobody confirmed the write in time"):
		return "expired"
	case strings.Contains(res.Error, "cancelled before it was confirmed"):
		return "withdrawn"
	case strings.Contains(res.Error, "could not be obtained"):
		return "denied: broker unavailable"
	}
	return string(res.Reason)
}
