package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/internal/redistest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// hangGuard bounds every wait of the test: a guard against a hang, never a
// measurement or an expectation.
const hangGuard = 2 * time.Minute

// proc is a child process of the test (see procs_test.go).
type proc struct {
	name  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string // host:port it serves on
	log   string // its stderr

	killed   atomic.Bool
	killedAt atomic.Int64 // unix nanos, once killed and reaped
}

// spawn starts the test binary as a child with role and env, and waits
// for its READY line. The caller stops it (see stop) when the test ends; a
// child that fails to start is killed here.
func spawn(dir, name, role string, env ...string) (*proc, error) {
	p := &proc{name: name, log: filepath.Join(dir, name+".log")}
	stderr, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	defer stderr.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), roleEnv+"="+role), env...)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p.cmd = cmd
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case s := <-line:
		addr, ok := strings.CutPrefix(strings.TrimSpace(s), "READY ")
		if ok {
			p.addr = addr
			return p, nil
		}
		p.stop()
		return nil, fmt.Errorf("%s said %q; its log:\n%s", name, s, p.tail())
	case <-time.After(hangGuard):
		p.stop()
		return nil, fmt.Errorf("%s never became ready; its log:\n%s", name, p.tail())
	}
}

// stop ends p, unless it was killed already.
func (p *proc) stop() {
	_ = p.stdin.Close()
	if !p.killed.Swap(true) {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
}

// kill ends p as a crash would (SIGKILL) and reaps it.
func (p *proc) kill() {
	if p.killed.Swap(true) {
		return
	}
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
	p.killedAt.Store(time.Now().UnixNano())
}

// tail is the end of p's stderr, for a failure message.
func (p *proc) tail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// hc is the HTTP client of every connection to the children: the model
// sessions keep their connections to their replica open between calls.
var hc = &http.Client{Transport: &http.Transport{
	MaxIdleConnsPerHost: 2048,
	IdleConnTimeout:     10 * time.Minute,
	DisableCompression:  true,
}}

// post sends in as JSON to p's path and decodes the answer into out. An
// error means no answer came (p died, or the hang guard passed).
func (p *proc) post(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, hangGuard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+p.addr+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", p.name, path, resp.Status, b)
	}
	return json.Unmarshal(b, out)
}

// deployment is what TestLoad runs on: the cluster, the MCP server process
// and the replica processes.
type deployment struct {
	t       *testing.T
	cluster *redistest.Cluster
	server  *proc
	reps    []*proc
	prefix  string
}

// replicas is the number of Hub replica processes.
const replicas = 4

func startDeployment(t *testing.T, lease time.Duration, revision string) *deployment {
	t.Helper()
	d := &deployment{t: t, prefix: "{ocp-load}:"}
	t0 := time.Now()
	d.cluster = redistest.StartCluster(t, redistest.ClusterOptions{Masters: 3, Replicas: 1})
	t.Logf("redis cluster (3 masters, 3 replicas) up in %v", time.Since(t0).Round(time.Millisecond))
	dir := t.TempDir()
	var err error
	if d.server, err = spawn(dir, "mcp-server", "server", revisionEnv+"="+revision); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.server.stop)
	env := []string{
		redisEnv + "=" + strings.Join(d.cluster.Addrs(), ","),
		mcpEnv + "=http://" + d.server.addr + "/mcp",
		prefixEnv + "=" + d.prefix,
		leaseEnv + "=" + lease.String(),
		revisionEnv + "=" + revision,
	}
	d.reps = make([]*proc, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { d.reps[i], errs[i] = spawn(dir, fmt.Sprintf("replica-%d", i), "replica", env...) })
	}
	wg.Wait()
	for i, p := range d.reps {
		if p != nil {
			t.Cleanup(p.stop)
		}
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
	}
	t.Logf("MCP server and %d replicas up in %v", replicas, time.Since(t0).Round(time.Millisecond))
	return d
}

// alive reports whether replica i was not killed.
func (d *deployment) alive(i int) bool { return !d.reps[i].killed.Load() }

// route is the load balancer: a session's home replica, or the next live
// one once it was killed.
func (d *deployment) route(home int) int {
	for k := range replicas {
		if i := (home + k) % replicas; d.alive(i) {
			return i
		}
	}
	return -1
}

// other is a live replica that is not i: where a peer decides a confirm
// requested on i.
func (d *deployment) other(i int) int {
	for k := 1; k < replicas; k++ {
		if j := (i + k) % replicas; d.alive(j) {
			return j
		}
	}
	return -1
}

// slotMaster is the Redis master that holds every confirm (their keys
// share the prefix's hash tag).
func (d *deployment) slotMaster() *redistest.Node { return d.cluster.MasterOf(d.prefix + "pending") }

// redisMem is what a Redis node holds and has spent: INFO's used_memory
// and CPU time, and the MEMORY USAGE of every key of the broker's prefix.
type redisMem struct {
	used, keys int64
	cpu        time.Duration // used_cpu_user + used_cpu_sys of INFO cpu
}

func redisMemory(node *redistest.Node, prefix string) (redisMem, error) {
	var m redisMem
	rdb := redis.NewClient(&redis.Options{Addr: node.Addr()})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	info, err := rdb.Info(ctx, "memory", "cpu").Result()
	if err != nil {
		return m, err
	}
	found := 0
	for line := range strings.Lines(info) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch k {
		case "used_memory":
			if m.used, err = strconv.ParseInt(v, 10, 64); err == nil {
				found++
			}
		case "used_cpu_user", "used_cpu_sys":
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				m.cpu += time.Duration(f * float64(time.Second))
				found++
			}
		}
	}
	if found != 3 {
		return m, fmt.Errorf("INFO memory cpu of %s: no used_memory, used_cpu_user or used_cpu_sys", node.Addr())
	}
	iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		n, err := rdb.MemoryUsage(ctx, iter.Val(), 0).Result()
		if err != nil && err != redis.Nil {
			return m, err
		}
		m.keys += n
	}
	return m, iter.Err()
}

// mem sums /mem over the live replicas.
func (d *deployment) mem() (memOut, error) {
	var sum memOut
	for i, p := range d.reps {
		if !d.alive(i) {
			continue
		}
		var m memOut
		if err := p.post(context.Background(), "/mem", struct{}{}, &m); err != nil {
			return sum, err
		}
		sum.HeapAlloc += m.HeapAlloc
		sum.StackInuse += m.StackInuse
		sum.Goroutines += m.Goroutines
	}
	return sum, nil
}

// pending lists the pending confirms through a live replica.
func (d *deployment) pending(ctx context.Context) ([]ocp.ConfirmRequest, error) {
	i := d.route(1)
	var out pendingOut
	if err := d.reps[i].post(ctx, "/pending", struct{}{}, &out); err != nil {
		return nil, err
	}
	if out.Err != "" {
		return nil, fmt.Errorf("pending: %s", out.Err)
	}
	return out.Confirms, nil
}

// ledger fetches the MCP server's count of the calls it received.
func (d *deployment) ledger() (ledgerDump, error) {
	var l ledgerDump
	err := d.server.post(context.Background(), "/ledger", struct{}{}, &l)
	return l, err
}
