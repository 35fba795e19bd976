package redisbroker

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// BenchmarkConfirm measures a confirm's decision-to-waiting-replica latency
// on two replicas (two brokers, each on its own go-redis client): replica A
// requests, replica B resolves, and the latency is the time from the call of
// B's Resolve to the return of A's Request. Each round first measures the
// floor on the same clients, then one confirm (sequential) or a burst of 16
// confirms decided by 16 concurrent deciders (burst16), so floor and broker
// are measured alternately, in the same conditions.
//
// The floor is what any design that keeps "pub/sub only wakes; the decision
// is read from the confirm's key" must pay: the decision's PUBLISH reaching
// the waiting replica (deliver: B's PUBLISH → A's subscriber) plus one
// script round trip from A (eval: a trivial EVALSHA). ping is a PING's round
// trip. In burst16 the floor is taken the same way by 16 goroutines at once
// (floor-burst), which is where Redis and the two cores queue with no broker
// involved.
//
// Metrics: p50-us, p99-us (the broker's latency), floor-p50-us and
// floor-p99-us (deliver + eval, per sample), ping-us, eval-us, deliver-us
// (p50s), p50/floor, p99/floor (ratios of the p50s and of the p99s), the
// CPU per confirm of this process (go-cpu-us/confirm: both replicas and the
// benchmark) and of redis-server (redis-cpu-us/confirm), and the go-redis
// pool's checkout waits and new connections on A and B during the run
// (waits, dials), the allocations per confirm of this process
// (allocs/confirm: both replicas and the benchmark) and the GC cycles per
// 1000 confirms, and the tail (p90, p95, p99.9) of both and its ratios.
//
//	redis-server --port 6391 --bind 127.0.0.1 --save '' --appendonly no --daemonize yes
//	REDIS_ADDR=127.0.0.1:6391 go test -run '^$' -bench Confirm -benchtime 2000x ./redisbroker
func BenchmarkConfirm(b *testing.B) {
	addr := redistest.Addr(b)
	for _, burst := range []int{1, 16} {
		name := "sequential"
		if burst > 1 {
			name = fmt.Sprintf("burst%d", burst)
		}
		b.Run(name, func(b *testing.B) { benchConfirm(b, addr, burst) })
	}
}

func benchConfirm(b *testing.B, addr string, burst int) {
	ctx := context.Background()
	opt := steady(Options{Prefix: testPrefix()})
	ca := redis.NewClient(&redis.Options{Addr: addr})
	cb := redis.NewClient(&redis.Options{Addr: addr})
	defer ca.Close()
	defer cb.Close()
	ra, err := New(ca, opt)
	if err != nil {
		b.Fatal(err)
	}
	defer ra.Close()
	rb, err := New(cb, opt)
	if err != nil {
		b.Fatal(err)
	}
	defer rb.Close()
	waitUp(b, ra)
	waitUp(b, rb)

	announced := make(chan ocp.ConfirmRequest, 4*burst)
	stop := rb.Subscribe(func(r ocp.ConfirmRequest) { announced <- r })
	defer stop()
	// B's peer also follows the ends (as a gate's Subscribe does): B
	// decodes every end; A, with no subscriber, reads its end and drops it.
	stopEnded := rb.SubscribeEnded(func(ocp.ConfirmEnded) {})
	defer stopEnded()

	// The floor's own subscriber on A's client, and a trivial script.
	floorCh := opt.Prefix + "floor"
	ps := ca.Subscribe(ctx, floorCh)
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		b.Fatal(err)
	}
	delivered := ps.Channel(redis.WithChannelSize(4 * burst))
	trivial := redis.NewScript(`return 1`)
	if err := trivial.Load(ctx, ca).Err(); err != nil {
		b.Fatal(err)
	}
	floorOnce := func(tag string) (deliver, eval time.Duration) {
		t0 := time.Now()
		if err := cb.Publish(ctx, floorCh, tag).Err(); err != nil {
			b.Fatal(err)
		}
		for m := range delivered {
			if m.Payload == tag {
				break
			}
		}
		t1 := time.Now()
		if err := trivial.EvalSha(ctx, ca, nil).Err(); err != nil {
			b.Fatal(err)
		}
		return t1.Sub(t0), time.Since(t1)
	}
	// The burst's deliveries are routed to their goroutines by payload.
	var route sync.Map // tag → chan struct{}
	floorBurst := func(round int) (floor []time.Duration) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range burst {
			tag := fmt.Sprintf("f%d-%d", round, i)
			got := make(chan struct{}, 1)
			route.Store(tag, got)
			wg.Go(func() {
				<-start
				t0 := time.Now()
				if err := cb.Publish(ctx, floorCh, tag).Err(); err != nil {
					b.Error(err)
					return
				}
				<-got
				if err := trivial.EvalSha(ctx, ca, nil).Err(); err != nil {
					b.Error(err)
				}
				d := time.Since(t0)
				mu.Lock()
				floor = append(floor, d)
				mu.Unlock()
			})
		}
		done := make(chan struct{})
		go func() {
			for n := 0; n < burst; n++ {
				m := <-delivered
				if c, ok := route.LoadAndDelete(m.Payload); ok {
					c.(chan struct{}) <- struct{}{}
				} else {
					n-- // not ours
				}
			}
			close(done)
		}()
		close(start)
		wg.Wait()
		<-done
		return floor
	}

	var ping, eval, deliver, floor, lat []time.Duration
	var goCPU, redisCPUUsed time.Duration // of the confirms only
	var mallocs uint64                    // of the confirms only (both replicas and the benchmark)
	var gcs uint32                        // GC cycles that ended during the confirms
	round := func(r int) {
		// The floor, sequentially: PING, PUBLISH → subscriber, EVALSHA.
		t0 := time.Now()
		if err := ca.Ping(ctx).Err(); err != nil {
			b.Fatal(err)
		}
		ping = append(ping, time.Since(t0))
		dl, ev := floorOnce(fmt.Sprintf("s%d", r))
		deliver, eval = append(deliver, dl), append(eval, ev)
		if burst == 1 {
			floor = append(floor, dl+ev)
		} else {
			floor = append(floor, floorBurst(r)...)
		}

		// The confirms: burst requests pending on A, then burst deciders on B.
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		cpu0, rcpu0 := processCPU(), redisCPU(b, ca)
		type ret struct {
			at time.Time
			d  ocp.Decision
			e  error
		}
		rets := make([]chan ret, burst)
		for i := range burst {
			rets[i] = make(chan ret, 1)
			p := ocp.PendingConfirm{
				Request: ocp.ConfirmRequest{
					ID: fmt.Sprintf("c-%d-%d", r, i), Tool: "close_ticket", Requester: "alice",
					Args: []byte(`{"ticket":"T-1"}`), Digest: fmt.Sprintf("d-%d-%d", r, i),
					Expires: time.Now().Add(time.Hour),
				},
				RequesterPeer: "alice-chat",
			}
			go func() {
				d, err := ra.Request(ctx, p)
				rets[i] <- ret{time.Now(), d, err}
			}()
		}
		reqs := make(map[string]ocp.ConfirmRequest, burst)
		for len(reqs) < burst {
			select {
			case q := <-announced:
				reqs[q.ID] = q
			case <-time.After(time.Minute):
				b.Fatalf("round %d: %d of %d confirms announced", r, len(reqs), burst)
			}
		}
		decidedAt := make([]time.Time, burst)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range burst {
			q := reqs[fmt.Sprintf("c-%d-%d", r, i)]
			wg.Go(func() {
				<-start
				decidedAt[i] = time.Now()
				err := rb.Resolve(ctx, ocp.Principal{ID: "bob", Peer: "bob-phone"},
					ocp.ConfirmDecision{ID: q.ID, Approve: i%2 == 0, Digest: q.Digest})
				if err != nil {
					b.Errorf("resolve %s: %v", q.ID, err)
				}
			})
		}
		close(start)
		wg.Wait()
		for i := range burst {
			var rt ret
			select {
			case rt = <-rets[i]:
			case <-time.After(time.Minute):
				b.Fatalf("round %d: request %d never returned", r, i)
			}
			want := ocp.OutcomeDenied
			if i%2 == 0 {
				want = ocp.OutcomeApproved
			}
			if rt.e != nil || rt.d.Outcome != want {
				b.Fatalf("round %d: request %d: %+v, %v; want %s", r, i, rt.d, rt.e, want)
			}
			lat = append(lat, rt.at.Sub(decidedAt[i]))
		}
		goCPU += processCPU() - cpu0
		redisCPUUsed += redisCPU(b, ca) - rcpu0
		runtime.ReadMemStats(&m1)
		mallocs += m1.Mallocs - m0.Mallocs
		gcs += m1.NumGC - m0.NumGC
	}

	round(-1) // warm: scripts cached, connections dialled
	sa0, sb0 := *ca.PoolStats(), *cb.PoolStats()
	goCPU, redisCPUUsed, mallocs, gcs = 0, 0, 0, 0
	b.ResetTimer()
	rounds := 0
	for r := 0; b.Loop(); r++ {
		round(r)
		rounds++
	}
	b.StopTimer()
	sa1, sb1 := *ca.PoolStats(), *cb.PoolStats()

	p50, p99 := pct(lat, 50), pct(lat, 99)
	f50, f99 := pct(floor, 50), pct(floor, 99)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(p50), "p50-us")
	b.ReportMetric(us(p99), "p99-us")
	b.ReportMetric(us(f50), "floor-p50-us")
	b.ReportMetric(us(f99), "floor-p99-us")
	// The tail of both, in permille, and its ratio: what our path adds at
	// the tail against what the machine adds to the floor in the same run.
	for _, pm := range []int{900, 950, 999} {
		l, f := pctm(lat, pm), pctm(floor, pm)
		b.ReportMetric(us(l), fmt.Sprintf("p%s-us", permille(pm)))
		b.ReportMetric(us(f), fmt.Sprintf("floor-p%s-us", permille(pm)))
		b.ReportMetric(float64(l)/float64(f), fmt.Sprintf("p%s/floor", permille(pm)))
	}
	b.ReportMetric(us(pct(ping, 50)), "ping-us")
	b.ReportMetric(us(pct(eval, 50)), "eval-us")
	b.ReportMetric(us(pct(deliver, 50)), "deliver-us")
	b.ReportMetric(float64(p50)/float64(f50), "p50/floor")
	b.ReportMetric(float64(p99)/float64(f99), "p99/floor")
	b.ReportMetric(float64(sa1.WaitCount-sa0.WaitCount+sb1.WaitCount-sb0.WaitCount), "waits")
	b.ReportMetric(float64(sa1.Misses-sa0.Misses+sb1.Misses-sb0.Misses), "dials")
	// CPU per confirm (its whole life: open, announcements, decide,
	// wake-up, finish, end; not the floor's samples), of this process (both
	// replicas and the benchmark) and of redis-server.
	n := float64(rounds * burst)
	b.ReportMetric(us(goCPU)/n, "go-cpu-us/confirm")
	b.ReportMetric(us(redisCPUUsed)/n, "redis-cpu-us/confirm")
	b.ReportMetric(float64(mallocs)/n, "allocs/confirm")
	b.ReportMetric(1000*float64(gcs)/n, "gc/1000confirms")
	b.ReportMetric(0, "ns/op") // a round's wall time says nothing here
}

// processCPU is the CPU time this process has used (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// redisCPU is the CPU time the Redis server has used: its main thread's,
// from /proc/PID/schedstat (nanoseconds, and no command to Redis) when the
// server runs on this machine, else INFO cpu (which the INFO itself adds
// to).
func redisCPU(b *testing.B, c *redis.Client) time.Duration {
	if redisPID == "" {
		info, err := c.Info(context.Background(), "server").Result()
		if err != nil {
			b.Fatal(err)
		}
		redisPID = "-"
		if v := infoField(info, "process_id"); v != "" {
			if _, err := os.Stat("/proc/" + v + "/schedstat"); err == nil {
				redisPID = v
			}
		}
	}
	if redisPID != "-" {
		if data, err := os.ReadFile("/proc/" + redisPID + "/schedstat"); err == nil {
			if f := strings.Fields(string(data)); len(f) > 0 {
				ns, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return time.Duration(ns)
				}
			}
		}
	}
	info, err := c.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	user, _ := strconv.ParseFloat(infoField(info, "used_cpu_user"), 64)
	sys, _ := strconv.ParseFloat(infoField(info, "used_cpu_sys"), 64)
	return time.Duration((user + sys) * float64(time.Second))
}

// redisPID is the local redis-server's process id, "-" when it cannot be
// read, "" until looked up.
var redisPID string

// infoField is the value of field k in an INFO reply.
func infoField(info, k string) string {
	for _, line := range strings.Split(info, "\n") {
		if kk, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && kk == k {
			return v
		}
	}
	return ""
}

// pct is the p-th percentile of d (d is sorted in place).
func pct(d []time.Duration, p int) time.Duration { return pctm(d, 10*p) }

// pctm is the percentile of d at pm permille (d is sorted in place).
func pctm(d []time.Duration, pm int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)*pm/1000, len(d)-1)]
}

// permille names a percentile given in permille: 900 → "90", 999 → "99.9".
func permille(pm int) string {
	if pm%10 == 0 {
		return strconv.Itoa(pm / 10)
	}
	return strconv.Itoa(pm/10) + "." + strconv.Itoa(pm%10)
}

// The finish script announces a confirm's end itself, completing the JSON
// the Go side starts (endPrefix): subscribers on every replica decode the id
// exactly, whatever it holds, and the outcome. An approval without the
// request's digest, which the waiting replica refuses, is not announced.
func TestFinishAnnouncesEnd(t *testing.T) {
	a, b := newPair(t, redistest.Addr(t), Options{})
	ends := make(chan ocp.ConfirmEnded, 8)
	stop := b.SubscribeEnded(func(e ocp.ConfirmEnded) { ends <- e })
	defer stop()
	next := func() ocp.ConfirmEnded {
		t.Helper()
		select {
		case e := <-ends:
			return e
		case <-time.After(30 * time.Second):
			t.Fatal("no end announced")
		}
		panic("unreachable")
	}

	id := "c-\"quoted\"\\ é \u2028 <&> \x01"
	p := pending(id, time.Hour)
	p.Request.Args = []byte(`{"ticket":"T-1"}`)
	res := requestAsync(context.Background(), a, p)
	awaitPending(t, b, id)
	if err := b.Resolve(context.Background(), peer, ocp.ConfirmDecision{ID: id, Digest: p.Request.Digest}); err != nil {
		t.Fatal(err)
	}
	if r := await(t, res); r.err != nil || r.d.Outcome != ocp.OutcomeDenied {
		t.Fatalf("Request = %+v, %v", r.d, r.err)
	}
	if e := next(); e != (ocp.ConfirmEnded{ID: id, Outcome: ocp.OutcomeDenied}) {
		t.Fatalf("end announced: %+v", e)
	}

	// A forged approval, then a cancelled confirm: only the cancellation
	// is announced.
	p = pending("c-forged-end", time.Hour)
	res = requestAsync(context.Background(), a, p)
	awaitPending(t, b, p.Request.ID)
	rdb := newClient(t, redistest.Addr(t))
	ctx := context.Background()
	if err := rdb.HSet(ctx, a.keyPrefix+p.Request.ID, "state", "approved", "ddigest", "sha256:forged").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Publish(ctx, a.chDecided, p.Request.ID).Err(); err != nil {
		t.Fatal(err)
	}
	if r := await(t, res); r.err == nil {
		t.Fatalf("forged approval: Request = %+v", r.d)
	}
	cctx, cancel := context.WithCancel(ctx)
	p = pending("c-cancelled-end", time.Hour)
	res = requestAsync(cctx, a, p)
	awaitPending(t, b, p.Request.ID)
	cancel()
	if r := await(t, res); r.err != nil || r.d.Outcome != ocp.OutcomeCancelled {
		t.Fatalf("Request = %+v, %v", r.d, r.err)
	}
	if e := next(); e != (ocp.ConfirmEnded{ID: p.Request.ID, Outcome: ocp.OutcomeCancelled}) {
		t.Fatalf("end announced: %+v, want only the cancellation", e)
	}
}

// Calls that come while a round trip is in flight wait, then go together in
// one pipeline, each getting its own reply; a script Redis no longer has
// (SCRIPT FLUSH, as after a restart) is loaded and run.
func TestCombinerGroupsQueuedCalls(t *testing.T) {
	rdb := newClient(t, redistest.Addr(t))
	echo := redis.NewScript(`return ARGV[1] .. '/' .. redis.call('TIME')[1]`)
	c := &combiner{rdb: rdb, timeout: time.Minute}
	if got, err := c.run(echo, nil, "alone").Text(); err != nil || !strings.HasPrefix(got, "alone/") {
		t.Fatalf("alone: %q, %v", got, err)
	}
	if err := rdb.ScriptFlush(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	const n = 8
	c.mu.Lock()
	c.busy = true // a round trip in flight
	c.mu.Unlock()
	got := make([]chan string, n)
	for i := range n {
		got[i] = make(chan string, 1)
		go func() {
			v, err := c.run(echo, nil, strconv.Itoa(i)).Text()
			if err != nil {
				v = err.Error()
			}
			got[i] <- v
		}()
	}
	for queued := 0; queued < n; {
		time.Sleep(time.Millisecond)
		c.mu.Lock()
		queued = len(c.queue)
		c.mu.Unlock()
	}
	c.release() // the round trip in flight returns
	for i := range n {
		select {
		case v := <-got[i]:
			if !strings.HasPrefix(v, strconv.Itoa(i)+"/") {
				t.Errorf("call %d: %q", i, v)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("call %d never returned", i)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.busy || len(c.queue) != 0 {
		t.Errorf("after the calls: busy %v, %d queued", c.busy, len(c.queue))
	}
}
