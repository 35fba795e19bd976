package brokertest

import (
	"bufio"
	"context"
	"embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// Traces of the confirm model (runtime/brokertest/model/confirm.pml): its
// named transitions, one "EV ..." line each, as spin prints them.
// model_test.go writes them (go test ./runtime/brokertest/model -run
// TestTraces -write-traces) and checks that they are current: random walks
// from fixed seeds (walk-NN) and the counterexamples found while writing
// the model (cex-*).
//
//go:embed testdata/traces/*.trace
var traces embed.FS

// redisOnly are the model's events a broker-level replay cannot cause: they
// are failures of Redis, of replica A or of its link, which need the
// Redis-specific tests (redisbroker: TestRedisRestartDeniesPending,
// TestReplicaDiesConfirmVanishes, TestCloseThatCannotReachRedisIsRetried,
// TestDecisionSurvivesPubSubDrop). A trace holding one is not replayed.
var redisOnly = []string{"redis_down", "redis_up", "link_down", "link_up", "a_dies", "lease_lapse", "open -> unavailable"}

// Replay replays every trace of the confirm model against the brokers,
// through the interface only: each decision and lookup of the trace is
// made on replica b, the confirm is requested on a, the caller cancels
// (or the catalogue changes: the gate cancels the wait) when the trace
// says, and the clock's passing of the confirm's expiry is waited for. It
// checks each answer against the model's, allowing what the broker may do
// on its own at any moment once the trace has made it possible (close the
// confirm as cancelled after a cancellation, as expired after the expiry):
// the broker's own timers are not under the replay's control. And it checks
// the model's invariant that the decision Request returns is the one the
// broker accepted.
//
// A trace that makes the model's seeded bug act (cex-seeded-*) is replayed
// up to the buggy step, which the broker must refuse.
func Replay(t *testing.T, newReplicas func(t *testing.T) (a, b ocp.ConfirmBroker)) {
	names, err := traces.ReadDir("testdata/traces")
	if err != nil {
		t.Fatal(err)
	}
	replayed := 0
	for _, e := range names {
		data, err := traces.ReadFile(path.Join("testdata/traces", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		tr := parseTrace(string(data))
		if tr.redisOnly != "" {
			t.Logf("%s: not replayed at broker level (%s)", e.Name(), tr.redisOnly)
			continue
		}
		replayed++
		t.Run(strings.TrimSuffix(e.Name(), ".trace"), func(t *testing.T) {
			for ttl := 300 * time.Millisecond; ; ttl *= 4 {
				a, b := newReplicas(t)
				if replayOnce(t, a, b, tr, ttl) {
					return
				}
				if ttl > 20*time.Second {
					t.Fatalf("could not replay the steps before expiry within a TTL of %v", ttl)
				}
				t.Logf("the machine was too slow for a TTL of %v: replaying again with a longer one", ttl)
			}
		})
	}
	if replayed == 0 {
		t.Fatal("no trace replayed")
	}
}

type trace struct {
	events    []string
	diverge   bool   // a seeded bug's counterexample: its last decision must be refused
	redisOnly string // an event that needs Redis-specific faults
}

func parseTrace(s string) trace {
	var tr trace
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(l, "# diverge"):
			tr.diverge = true
		case strings.HasPrefix(l, "EV "):
			ev := strings.TrimPrefix(l, "EV ")
			for _, r := range redisOnly {
				if strings.HasPrefix(ev, r) && tr.redisOnly == "" {
					tr.redisOnly = r
				}
			}
			tr.events = append(tr.events, ev)
		}
	}
	return tr
}

// replayOnce replays tr; it reports false if a step that the trace makes
// before the expiry ran after it (the machine was too slow), so that the
// caller replays it with a longer TTL.
func replayOnce(t *testing.T, a, b ocp.ConfirmBroker, tr trace, ttl time.Duration) bool {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := pendingFor("c-replay-"+rand8(), ttl)
	if !slices.ContainsFunc(tr.events, func(e string) bool { return strings.HasPrefix(e, "tick now=1") }) {
		p.Request.Expires = time.Now().Add(time.Hour)
	}
	var (
		res        <-chan result
		expired    bool // the trace's clock has passed the expiry
		gaveUp     bool // the trace cancelled the wait
		accepted   *ocp.ConfirmDecision
		lastDecide = -1
	)
	for i, ev := range tr.events {
		if strings.HasPrefix(ev, "decide ") {
			lastDecide = i
		}
	}
	inTime := func() bool { return expired || time.Now().Before(p.Request.Expires) }
	for i, ev := range tr.events {
		switch {
		case ev == "open":
			ann := announcements(t, b)
			res = startShortLived(ctx, t, a, ann, p)
			if !inTime() {
				return false
			}
		case strings.HasPrefix(ev, "tick now=1"):
			time.Sleep(time.Until(p.Request.Expires) + time.Millisecond)
			expired = true
		case ev == "cancel" || ev == "withdraw":
			cancel()
			gaveUp = true
		case strings.HasPrefix(ev, "lookup -> "):
			want := strings.TrimPrefix(ev, "lookup -> ")
			_, err := b.Lookup(context.Background(), p.Request.ID)
			if !inTime() {
				return false
			}
			got := "pending"
			if errors.Is(err, ocp.ErrConfirmNotPending) {
				got = "notpending"
			} else if err != nil {
				t.Fatalf("step %d %q: Lookup: %v", i, ev, err)
			}
			if got != want && !(want == "pending" && got == "notpending" && (gaveUp || expired)) {
				t.Fatalf("step %d %q: Lookup says %s", i, ev, got)
			}
		case strings.HasPrefix(ev, "decide "):
			var ap, good, ch int
			var want string
			if _, err := fmt.Sscanf(ev, "decide ap=%d good=%d ch=%d -> %s", &ap, &good, &ch, &want); err != nil {
				t.Fatalf("step %d %q: %v", i, ev, err)
			}
			d := ocp.ConfirmDecision{ID: p.Request.ID, Approve: ap == 1, Digest: p.Request.Digest}
			if good == 0 {
				d.Digest = "sha256:not-the-request"
			}
			who := phone
			if ch == 1 {
				who = ocp.Principal{ID: "u-alice", Tier: "member", Peer: RequesterPeer}
			}
			err := b.Resolve(context.Background(), who, d)
			if !inTime() {
				return false
			}
			if tr.diverge && i == lastDecide {
				// The seeded bug accepts this decision; the broker must not.
				if err == nil {
					t.Fatalf("step %d %q: the broker accepted the decision that the model's seeded bug accepts", i, ev)
				}
				wantOutcome(t, await(t, res), ocp.OutcomeExpired)
				return true
			}
			if err == nil {
				if accepted != nil {
					t.Fatalf("step %d %q: a second decision accepted", i, ev)
				}
				accepted = &d
			}
			if !decideMatches(want, err, gaveUp || expired) {
				t.Fatalf("step %d %q: Resolve = %v", i, ev, err)
			}
		case strings.HasPrefix(ev, "request -> "):
			want := strings.TrimPrefix(ev, "request -> ")
			r := await(t, res)
			res = nil
			switch {
			case accepted != nil:
				// The decision the broker accepted is the one Request returns.
				o := ocp.OutcomeDenied
				if accepted.Approve {
					o = ocp.OutcomeApproved
				}
				wantOutcome(t, r, o)
			case want == "error":
				if r.err == nil {
					t.Fatalf("step %d %q: Request = %+v, want an error", i, ev, r.d)
				}
			default:
				// Nothing accepted: the broker closed it on its own, as the
				// trace allows.
				var ok []ocp.Outcome
				if gaveUp {
					ok = append(ok, ocp.OutcomeCancelled)
				}
				if expired {
					ok = append(ok, ocp.OutcomeExpired)
				}
				if r.err != nil || !slices.Contains(ok, r.d.Outcome) {
					t.Fatalf("step %d %q: Request = %+v, %v; want one of %q", i, ev, r.d, r.err, ok)
				}
			}
		}
	}
	if res != nil {
		t.Fatal("the trace ends with the confirm still pending")
	}
	return true
}

// decideMatches says whether err is the model's answer want, or (once the
// broker may have closed the confirm on its own) a refusal of an ended one.
func decideMatches(want string, err error, mayHaveEnded bool) bool {
	switch want {
	case "ok":
		return err == nil || (mayHaveEnded && (errors.Is(err, ocp.ErrConfirmNotPending) || errors.Is(err, ocp.ErrConfirmExpired)))
	case "notpending":
		return errors.Is(err, ocp.ErrConfirmNotPending)
	case "expired":
		// The broker's timer may have closed it first.
		return errors.Is(err, ocp.ErrConfirmExpired) || errors.Is(err, ocp.ErrConfirmNotPending)
	case "self":
		return errors.Is(err, ocp.ErrConfirmSelf) || (mayHaveEnded && (errors.Is(err, ocp.ErrConfirmNotPending) || errors.Is(err, ocp.ErrConfirmExpired)))
	case "digest":
		return errors.Is(err, ocp.ErrConfirmDigest) || (mayHaveEnded && (errors.Is(err, ocp.ErrConfirmNotPending) || errors.Is(err, ocp.ErrConfirmExpired)))
	}
	return false
}

// rand8 is a short id suffix, so that replays of one trace do not collide.
func rand8() string { return fmt.Sprintf("%08x", time.Now().UnixNano()&0xffffffff) }
