package loadtest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runChild(role))
	}
	redis.SetLogger(quietLogger{})
	os.Exit(m.Run())
}

const (
	// sessions is the number of concurrent model sessions.
	sessions = 1000
	// lease is the broker's lease: a killed replica's confirms vanish
	// within it.
	lease = 5 * time.Second
	// deciders is the number of peers deciding at once.
	deciders = 16
)

// config is how much each session does. The race detector slows every
// process about fivefold: under it (.ci/run's go test -race ./...),
// each session makes one read and one write in the mixed run, and the
// warm-up burst is left out; the figures come from a run without it.
type config struct {
	stepsB int           // calls of each session in phase B: read, write, read, ...
	think  time.Duration // a session's mean pause before each call (uniform in [0, 2×think])
	warm   bool          // a first burst, so that the memory baseline has its pools grown
}

func loadConfig() config {
	if raceEnabled {
		return config{stepsB: 2, think: time.Second}
	}
	return config{stepsB: 6, think: 3 * time.Second, warm: true}
}

// planB is the plan of write j of session s in the mixed run: of every
// ten writes five are approved, two denied, one expires, one is withdrawn
// and one is forbidden.
func planB(s, j, perSession int) plan {
	cycle := [...]plan{planApprove, planDeny, planApprove, planExpire, planApprove, planWithdraw, planApprove, planDeny, planApprove, planForbidden}
	return cycle[(s*perSession+j)%len(cycle)]
}

// think is session s's pause before its call k: a model reading the last
// result. Deterministic, uniform in [0, 2×mean].
func think(s, k int, mean time.Duration) time.Duration {
	h := uint64(s)*0x9E3779B97F4A7C15 ^ uint64(k+1)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	return time.Duration(h%1000) * 2 * mean / 1000
}

// burstResult is what a burst measured.
type burstResult struct {
	pending     int           // confirms pending at once
	allPending  time.Duration // from the first request to all pending
	decide      time.Duration // from the first decision to the last accepted
	total       time.Duration
	redisBefore redisMem
	redisAfter  redisMem
	redisEnd    redisMem // after every write ended
	memBefore   memOut
	memAfter    memOut
	dc          *decider
}

// burst has every session ask for a write at once (approved for even
// sessions, denied for odd), waits until each is pending or has ended,
// measures memory, and has the peers decide them all through other
// replicas. A write that could not be registered (the broker timed out
// under load) ends denied and is not counted as pending.
func (r *run) burst(ss []*session, phase string) burstResult {
	t := r.t
	t.Helper()
	var res burstResult
	var err error
	master := r.d.slotMaster()
	if res.memBefore, err = r.d.mem(); err != nil {
		t.Fatal(err)
	}
	if res.redisBefore, err = redisMemory(master, r.d.prefix); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	var wg sync.WaitGroup
	ws := make([]*write, len(ss))
	for i, s := range ss {
		pl := planApprove
		if s.id%2 == 1 {
			pl = planDeny
		}
		ws[i] = newWrite(s, phase, 0, pl)
		wg.Go(func() { r.doWrite(s, ws[i]) })
	}
	var pending []ocp.ConfirmRequest
	for deadline := time.Now().Add(hangGuard); ; {
		pending, err = r.d.pending(context.Background())
		ended := 0
		for _, w := range ws {
			w.mu.Lock()
			if w.answered || w.died {
				ended++
			}
			w.mu.Unlock()
		}
		if err == nil && len(pending)+ended == len(ws) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("phase %s: %d of %d writes pending, %d ended (%v)", phase, len(pending), len(ws), ended, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	res.pending, res.allPending = len(pending), time.Since(t0)
	if res.memAfter, err = r.d.mem(); err != nil {
		t.Fatal(err)
	}
	if res.redisAfter, err = redisMemory(master, r.d.prefix); err != nil {
		t.Fatal(err)
	}
	res.dc = &decider{r: r, seen: map[string]bool{}}
	work := make(chan ocp.ConfirmRequest, len(pending))
	for _, c := range pending {
		work <- c
	}
	close(work)
	tDecide := time.Now()
	var wgD sync.WaitGroup
	for range deciders {
		wgD.Go(func() {
			for c := range work {
				for !res.dc.handle(c) {
					time.Sleep(50 * time.Millisecond)
				}
			}
		})
	}
	waitGroup(t, &wgD, "phase "+phase+" decisions")
	res.decide = time.Since(tDecide)
	waitGroup(t, &wg, "phase "+phase+" writes")
	res.total = time.Since(t0)
	if res.redisEnd, err = redisMemory(master, r.d.prefix); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLoad runs a deployment under load and asserts its ledger; the
// figures are logged (see the package doc and BENCHMARKS.md §7).
//
// Phase A: every session asks for a write at once; with all 1,000
// confirms pending, memory is measured, then 16 peers decide them all
// (half approved, half denied) through other replicas. (Without -race a
// first burst, A0, grows the connection pools before the baseline.) Phase
// B: each session alternates reads (each through the gate and raw) and
// writes of every plan, pausing before each call; a quarter of the way
// through, replica 3 is killed (SIGKILL); half-way, the Redis master of
// the confirms' slot is failed over. Phase C: after both faults, each
// session makes one approved write.
// TestLoad runs the load once per MCP revision the Hub speaks: the current
// one, to a stateless server (the replicas' requests carry no session, and
// any of them is served alike), and the previous one, to a stateful server
// (a session per replica). The ledger must hold under both.
//
// Under -race only the current revision runs: the previous one's run is
// breadth (the same deployment, ledger and faults under the other
// revision), which the race detector slows fivefold over again; it is
// skipped under -race (testcorpus.SkipUnderRace) and .ci/breadth.sh runs
// both revisions without -race, with the figures' full load.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a Redis Cluster and five processes and runs 1,000 sessions, once per MCP revision")
	}
	redistest.Binaries(t)
	for _, revision := range []string{ocp.ProtocolVersion, ocp.LegacyProtocolVersion} {
		t.Run(revision, func(t *testing.T) {
			if revision != ocp.ProtocolVersion {
				testcorpus.SkipUnderRace(t)
			}
			loadRun(t, revision)
		})
	}
}

// loadRun is one run of TestLoad, under an MCP revision.
func loadRun(t *testing.T, revision string) {
	cfg := loadConfig()
	begin := time.Now()
	d := startDeployment(t, lease, revision)
	r := &run{t: t, d: d, writes: map[string]*write{}}
	ss := make([]*session, sessions)
	for i := range ss {
		ss[i] = newSession(i)
	}
	each := func(what string, f func(s *session)) time.Duration {
		t.Helper()
		t0 := time.Now()
		var wg sync.WaitGroup
		for _, s := range ss {
			wg.Go(func() { f(s) })
		}
		waitGroup(t, &wg, what)
		return time.Since(t0)
	}

	// Setup: close the desk's two tickets, so the sessions' reads (the
	// closed tickets) return them. Raw calls, outside the gate: the ledger
	// expects each once.
	setup := map[string]bool{}
	for _, id := range []string{"T-101", "T-102"} {
		args := fmt.Sprintf(`{"id":%q}`, id)
		var out rawOut
		if err := d.reps[0].post(context.Background(), "/raw", rawIn{Tool: "close_ticket", Args: []byte(args)}, &out); err != nil || !out.OK {
			t.Fatalf("setup: close %s: %v %+v", id, err, out)
		}
		key, _ := writeKey("close_ticket", []byte(args))
		setup[key] = true
	}

	// Warm-up: every session opens its connection with a read.
	each("warm-up", func(s *session) { r.read(s, 0) })
	for _, s := range []*samples{&r.gatedNanos, &r.rawNanos, &r.e2eGated, &r.e2eRaw} {
		s.reset()
	}

	// Phase A.
	if cfg.warm {
		r.burst(ss, "A0")
	}
	a := r.burst(ss, "A")
	master := d.slotMaster()

	// Phase B, with the faults injected from here (the test goroutine).
	ctx, stopDecider := context.WithCancel(context.Background())
	defer stopDecider()
	dc := r.startDecider(ctx, deciders)
	r.progress.Store(0)
	tB := time.Now()
	var wgB sync.WaitGroup
	for _, s := range ss {
		wgB.Go(func() {
			for k := range cfg.stepsB {
				time.Sleep(think(s.id, k, cfg.think))
				if k%2 == 0 {
					r.read(s, k)
				} else {
					r.doWrite(s, newWrite(s, "B", k, planB(s.id, k/2, cfg.stepsB/2)))
				}
				r.progress.Add(1)
			}
		})
	}
	total := int64(sessions * cfg.stepsB)
	victim := d.reps[replicas-1]
	waitProgress(t, r, total/4)
	victim.kill()
	killAt := time.Since(tB)
	waitProgress(t, r, total/2)
	failAt := time.Since(tB)
	t0 := time.Now()
	newMaster := d.cluster.Failover(master)
	failover := time.Since(t0)
	waitGroup(t, &wgB, "phase B")
	phaseB := time.Since(tB)

	// Phase C: after both faults.
	tC := time.Now()
	var wC []*write
	var muC sync.Mutex
	each("phase C", func(s *session) {
		w := newWrite(s, "C", 0, planApprove)
		muC.Lock()
		wC = append(wC, w)
		muC.Unlock()
		r.doWrite(s, w)
	})
	phaseC := time.Since(tC)
	stopDecider()

	late := r.lateApprovals()
	led, err := d.ledger()
	if err != nil {
		t.Fatal(err)
	}

	// The ledger.
	type tally map[string]int
	outcomes := map[string]tally{} // plan → outcome → count
	count := func(pl plan, what string) {
		if outcomes[string(pl)] == nil {
			outcomes[string(pl)] = tally{}
		}
		outcomes[string(pl)][what]++
	}
	ran := -len(setup)
	for key, n := range led.Writes {
		ran += n
		if setup[key] {
			if n != 1 {
				t.Errorf("ledger: setup's %s ran %d times", key, n)
			}
			continue
		}
		if r.writes[key] == nil {
			t.Errorf("ledger: the server ran %q (%d times), which no session asked for", key, n)
		}
	}
	killedAt := time.Unix(0, victim.killedAt.Load())
	var diedRan, diedNotRan, approvedThenFault, okWrites int
	var approvedUnanswered []string
	var decA, denA, decB []time.Duration
	for _, w := range r.writes {
		n := led.Writes[w.key]
		if n > 1 {
			t.Errorf("ledger: %s ran %d times", w.key, n)
		}
		if w.plan != planApprove && n != 0 {
			t.Errorf("ledger: %s (%s) ran %d times", w.key, w.plan, n)
		}
		// An approval may have taken effect: accepted while the
		// requester lived, or sent with its answer lost.
		mayApprove := (w.accepted && !w.decidedAt.After(killedAt)) ||
			slices.Contains(w.attempts, "no answer") || slices.Contains(w.attempts, "unavailable")
		switch {
		case w.answered && w.res.OK:
			okWrites++
			count(w.plan, "ok: ran once")
			if n != 1 {
				t.Errorf("ledger: %s: the model was told it ran, the server ran it %d times", w.key, n)
			}
			switch {
			case w.accepted:
			case mayApprove:
				approvedUnanswered = append(approvedUnanswered, fmt.Sprintf("%s %q", w.key, w.attempts))
			default:
				t.Errorf("ledger: %s ran without an approval (decisions sent: %q)", w.key, w.attempts)
			}
		case w.answered && (w.res.Reason == ocp.ReasonOutcomeUnknown || w.res.Reason == ocp.ReasonFailed):
			count(w.plan, fmt.Sprintf("%s (ran %d)", w.res.Reason, n))
		case w.answered:
			count(w.plan, textClass(w.res))
			if n != 0 {
				t.Errorf("ledger: %s was refused (%s) and ran %d times", w.key, w.res.Reason, n)
			}
			want := ocp.ReasonDenied
			if w.plan == planForbidden {
				want = ocp.ReasonForbidden
			}
			if w.res.Reason != want {
				t.Errorf("ledger: %s (%s) ended %+v, want %s", w.key, w.plan, w.res, want)
			}
			if w.plan == planApprove {
				if textClass(w.res) == "denied" {
					t.Errorf("ledger: %s was approved and reads as denied by the person: %+v", w.key, w.res)
				}
				if w.accepted {
					approvedThenFault++
				}
			}
		case w.died:
			if !mayApprove && n != 0 {
				t.Errorf("ledger: %s: nothing approved it while its replica lived, and it ran %d times", w.key, n)
			}
			if n == 1 {
				diedRan++
				count(w.plan, "replica died: ran")
			} else {
				diedNotRan++
				count(w.plan, "replica died: did not run")
			}
		default:
			count(w.plan, "LOST: no result")
		}
		if w.accepted && w.answered {
			lat := w.doneAt.Sub(w.decidedAt)
			switch {
			case w.phase == "A" && w.plan == planApprove:
				decA = append(decA, lat)
			case w.phase == "A":
				denA = append(denA, lat)
			case w.phase == "B":
				decB = append(decB, lat)
			}
		}
	}
	if n := r.lost.Load(); n != 0 {
		t.Errorf("ledger: %d calls to a live replica ended without a result", n)
	}
	for _, w := range wC {
		if !w.answered {
			t.Errorf("phase C: %s got no result", w.key)
		}
	}
	if led.Reads["list_tickets"] < int(r.readsSent.Load()) {
		t.Errorf("ledger: the server received %v reads, the sessions were answered %d", led.Reads, r.readsSent.Load())
	}
	// The revision: under the current one no request named a session and
	// every POST spoke it; under the previous one each client had one.
	if revision == ocp.ProtocolVersion {
		if led.Sessions != 0 {
			t.Errorf("ledger: %d requests named an MCP session under %s", led.Sessions, revision)
		}
		for rev, n := range led.Revisions {
			if rev != revision {
				t.Errorf("ledger: %d POSTs under MCP-Protocol-Version %q, want all %s", n, rev, revision)
			}
		}
	} else if led.Sessions == 0 || led.Revisions[revision] == 0 {
		t.Errorf("ledger: %d requests named a session, POSTs by revision %v; want sessions of %s", led.Sessions, led.Revisions, revision)
	}

	// The figures.
	slices.Sort(decA)
	slices.Sort(denA)
	slices.Sort(decB)
	g, rw := r.gatedNanos.sorted(), r.rawNanos.sorted()
	eg, er := r.e2eGated.sorted(), r.e2eRaw.sorted()
	np := float64(max(a.pending, 1))
	per := func(after, before uint64) string {
		return fmt.Sprintf("%.0f B", (float64(after)-float64(before))/np)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "TestLoad figures, MCP %s (%d sessions, %d replica processes, Redis Cluster 3 masters + 3 replicas, lease %v, race %v; total %v)\n",
		revision, sessions, replicas, lease, raceEnabled, time.Since(begin).Round(time.Millisecond))
	fmt.Fprintf(&b, "  MCP: %d requests named a session; POSTs by revision %v\n", led.Sessions, led.Revisions)
	fmt.Fprintf(&b, "  phase A %v: %d of %d writes pending at once after %v, decided in %v\n",
		a.total.Round(time.Millisecond), a.pending, sessions, a.allPending.Round(time.Millisecond), a.decide.Round(time.Millisecond))
	fmt.Fprintf(&b, "  phase B %v: %d calls (+%d raw reads), mean pause %v before each: %.0f calls/s through the gates; phase C %v\n",
		phaseB.Round(time.Millisecond), total, total/2, cfg.think, float64(total)/phaseB.Seconds(), phaseC.Round(time.Millisecond))
	fmt.Fprintf(&b, "  gated read, Gate.Dispatch in the replica: p50 %s  p99 %s  (n %d)\n", ms(pct(g, .5)), ms(pct(g, .99)), len(g))
	fmt.Fprintf(&b, "  raw read, tools/call on the replica's own session: p50 %s  p99 %s  (n %d); gated/raw p50 %.2f×, p99 %.2f×\n",
		ms(pct(rw, .5)), ms(pct(rw, .99)), len(rw), ratio(pct(g, .5), pct(rw, .5)), ratio(pct(g, .99), pct(rw, .99)))
	fmt.Fprintf(&b, "  as the session sees them (through the replica's HTTP API): gated p50 %s p99 %s, raw p50 %s p99 %s\n",
		ms(pct(eg, .5)), ms(pct(eg, .99)), ms(pct(er, .5)), ms(pct(er, .99)))
	fmt.Fprintf(&b, "  decision → the model's result, %d pending decided by %d peers: approvals p50 %s p99 %s (n %d, incl. the server call); denials p50 %s p99 %s (n %d)\n",
		a.pending, deciders, ms(pct(decA, .5)), ms(pct(decA, .99)), len(decA), ms(pct(denA, .5)), ms(pct(denA, .99)), len(denA))
	fmt.Fprintf(&b, "  decisions per second (the burst): %.0f (%d in %v)\n", float64(a.pending)/a.decide.Seconds(), a.pending, a.decide.Round(time.Millisecond))
	cpu := a.redisEnd.cpu - a.redisBefore.cpu
	cpuDecide := a.redisEnd.cpu - a.redisAfter.cpu
	fmt.Fprintf(&b, "  Redis master CPU for the burst: %.0f µs a write (registered and announced to 4 replicas: %.0f µs with the test's Pending polls; decided, collected, ended: %.0f µs): one master saturates near %.0f writes/s\n",
		float64(cpu.Microseconds())/np, float64((cpu-cpuDecide).Microseconds())/np, float64(cpuDecide.Microseconds())/np, np/cpu.Seconds())
	fmt.Fprintf(&b, "  decision → result, mixed run with faults: p50 %s p99 %s (n %d); decisions retried %d\n",
		ms(pct(decB, .5)), ms(pct(decB, .99)), len(decB), dc.retries.Load())
	// (INFO's used_memory is not used: it moves with client buffers that
	// Redis frees lazily, and fell across the burst in some runs.)
	fmt.Fprintf(&b, "  memory per pending confirm (%d pending): Redis %.0f B (MEMORY USAGE of its key and index entry); replicas' Go heap %s, stacks %s, goroutines %.2f (the gate's wait and its HTTP request)\n",
		a.pending, float64(a.redisAfter.keys-a.redisBefore.keys)/np,
		per(a.memAfter.HeapAlloc, a.memBefore.HeapAlloc), per(a.memAfter.StackInuse, a.memBefore.StackInuse),
		float64(a.memAfter.Goroutines-a.memBefore.Goroutines)/np)
	fmt.Fprintf(&b, "  faults: %s killed at %v (a quarter of phase B's calls done); master %s failed over to %s at %v (half), took %v\n",
		victim.name, killAt.Round(time.Millisecond), master.Addr(), newMaster.Addr(), failAt.Round(time.Millisecond), failover.Round(time.Millisecond))
	fmt.Fprintf(&b, "  approvals accepted by deciding replica: %v (never the requester's); approved, then denied by a fault: %d\n", dc.viaCounts(a.dc), approvedThenFault)
	fmt.Fprintf(&b, "  approvals that took effect while the peer got no answer or an error: %d %v\n", len(approvedUnanswered), approvedUnanswered)
	fmt.Fprintf(&b, "  ledger: %d writes, %d ran exactly once (told ok), %d executions in all; replica died under %d (ran %d, did not run %d); reads died %d; late approvals refused %d/%d; withdrawals too late %d\n",
		len(r.writes), okWrites, ran, diedRan+diedNotRan, diedRan, diedNotRan, r.readsDied.Load(), late, late, r.withdrawLate.Load())
	for _, pl := range slices.Sorted(maps.Keys(outcomes)) {
		fmt.Fprintf(&b, "    %-9s", pl)
		for _, o := range slices.Sorted(maps.Keys(outcomes[pl])) {
			fmt.Fprintf(&b, "  %s %d;", o, outcomes[pl][o])
		}
		b.WriteByte('\n')
	}
	t.Log("\n" + b.String())
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// viaCounts sums the accepted decisions by deciding replica of dc and more.
func (dc *decider) viaCounts(more ...*decider) [replicas]int64 {
	var out [replicas]int64
	for _, x := range append([]*decider{dc}, more...) {
		for i := range out {
			out[i] += x.via[i].Load()
		}
	}
	return out
}

// waitGroup waits for wg, failing t after the hang guard.
func waitGroup(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatalf("%s: still running after %v", what, hangGuard)
	}
}

// waitProgress waits until r's sessions have made n steps.
func waitProgress(t *testing.T, r *run, n int64) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for r.progress.Load() < n {
		if time.Now().After(deadline) {
			t.Fatalf("the sessions made %d of %d steps within %v", r.progress.Load(), n, hangGuard)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
