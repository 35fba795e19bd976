// Package redistest runs redis-server processes that a test owns: a single
// node, or a Redis Cluster of masters and replicas, on loopback ports of
// their own, with the faults the broker's failure tests and the load test
// inject (a node killed, restarted, a master failed over).
//
// Tests that only read and write may use the servers .ci/redis.sh starts; a
// test that kills or fails over a node owns its servers, so that tests of
// other packages, which go test runs at the same time, never see its
// faults.
//
// Under CI=true a missing redis-server or redis-cli fails the test; elsewhere
// it skips, saying why.
package redistest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Bound is how long a helper waits for a server to come up, a cluster to
// form or a failover to finish before it fails the test. It is a guard
// against a hang, not a measurement.
const Bound = 2 * time.Minute

// SkipOrFail skips t, or fails it under CI=true (where a missing tool or
// server is a failure), with msg.
func SkipOrFail(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: .ci/run must provide it, see .ci/redis.sh)")
	}
	t.Skip(msg)
}

// Binaries returns the paths of redis-server and redis-cli, skipping or
// failing t (see [SkipOrFail]) when one is missing.
func Binaries(t testing.TB) (server, cli string) {
	t.Helper()
	server, err := exec.LookPath("redis-server")
	if err != nil {
		SkipOrFail(t, "redis-server is not installed (Debian package redis-server)")
	}
	cli, err = exec.LookPath("redis-cli")
	if err != nil {
		SkipOrFail(t, "redis-cli is not installed (Debian package redis-tools)")
	}
	return server, cli
}

// Node is one redis-server process a test owns. Its directory (and with it
// a cluster node's nodes.conf) survives Kill, so Start brings the same node
// back on the same port.
type Node struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	args []string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// Addr is the node's host:port.
func (n *Node) Addr() string { return "127.0.0.1:" + strconv.Itoa(n.port) }

// Start starts the node (again) and waits until it answers PING. It fails
// the test if the node does not come up within [Bound].
func (n *Node) Start() {
	n.t.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		n.t.Fatalf("redistest: node %s is already running", n.Addr())
	}
	args := append([]string{
		"--port", strconv.Itoa(n.port), "--bind", "127.0.0.1", "--protected-mode", "yes",
		"--save", "", "--appendonly", "no", "--dir", n.dir,
		"--logfile", filepath.Join(n.dir, "redis.log"),
	}, n.args...)
	cmd := exec.Command(n.bin, args...)
	if err := cmd.Start(); err != nil {
		n.t.Fatalf("redistest: start redis-server on %s: %v", n.Addr(), err)
	}
	n.cmd = cmd
	deadline := time.Now().Add(Bound)
	for Ping(n.Addr()) != nil {
		if time.Now().After(deadline) {
			n.t.Fatalf("redistest: redis-server on %s never answered; its log:\n%s", n.Addr(), n.Log())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Kill ends the node as a crash would: SIGKILL, no shutdown, no save. It
// is a no-op on a node that is not running.
func (n *Node) Kill() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil && n.cmd.Process != nil {
		_ = n.cmd.Process.Kill()
		_ = n.cmd.Wait()
	}
	n.cmd = nil
}

// Running reports whether the node's process is running (as far as this
// package knows: it was started and not killed).
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.cmd != nil
}

// Log returns the node's log file, for a failure message.
func (n *Node) Log() string {
	b, err := os.ReadFile(filepath.Join(n.dir, "redis.log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	return string(b)
}

// Ping returns nil when a Redis node answers PING at addr within 5 s.
func Ping(addr string) error {
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Ping(ctx).Err()
}

// StartNode starts a single redis-server of t's own (no persistence),
// killed when t ends. args are extra redis-server arguments.
func StartNode(t testing.TB, args ...string) *Node {
	t.Helper()
	bin, _ := Binaries(t)
	n := newNode(t, bin, args)
	n.Start()
	return n
}

func newNode(t testing.TB, bin string, args []string) *Node {
	t.Helper()
	n := &Node{t: t, bin: bin, port: freePort(t), dir: t.TempDir(), args: args}
	t.Cleanup(n.Kill)
	return n
}

// usedPorts are the ports this process handed out, so two nodes of one
// test binary never get the same one between its probe and the server's
// bind.
var (
	portsMu   sync.Mutex
	usedPorts = map[int]bool{}
)

// freePort returns a loopback port that is free, and whose cluster bus
// port (port+10000) is free too.
func freePort(t testing.TB) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := 20000 + rand.IntN(20000)
		if usedPorts[p] || usedPorts[p+10000] || !portFree(p) || !portFree(p+10000) {
			continue
		}
		usedPorts[p], usedPorts[p+10000] = true, true
		return p
	}
	t.Fatal("redistest: no free port pair found")
	return 0
}

func portFree(p int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// Cluster is a Redis Cluster a test owns: its nodes, each a [Node].
type Cluster struct {
	t     testing.TB
	cli   string
	Nodes []*Node
}

// ClusterOptions configures [StartCluster].
type ClusterOptions struct {
	// Masters is the number of masters (at least 3, as redis-cli requires).
	// Zero means 3.
	Masters int
	// Replicas is the number of replicas of each master. A failover needs
	// at least one.
	Replicas int
	// NodeTimeout is cluster-node-timeout: how long a master may be
	// unreachable before its replica takes over. Zero means 2 s.
	NodeTimeout time.Duration
}

// StartCluster starts Masters×(1+Replicas) cluster-enabled nodes on
// loopback, joins them with redis-cli --cluster create, and waits until
// every node reports cluster_state:ok with every slot covered. The nodes
// are killed when t ends.
func StartCluster(t testing.TB, opt ClusterOptions) *Cluster {
	t.Helper()
	bin, cli := Binaries(t)
	if opt.Masters == 0 {
		opt.Masters = 3
	}
	if opt.Masters < 3 {
		t.Fatalf("redistest: a cluster needs at least 3 masters, not %d", opt.Masters)
	}
	if opt.NodeTimeout == 0 {
		opt.NodeTimeout = 2 * time.Second
	}
	c := &Cluster{t: t, cli: cli}
	for range opt.Masters * (1 + opt.Replicas) {
		n := newNode(t, bin, []string{
			"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", strconv.FormatInt(opt.NodeTimeout.Milliseconds(), 10),
			// A replica takes over however long it was cut off: a test's
			// failover must not hang on replica validity.
			"--cluster-replica-validity-factor", "0",
		})
		n.Start()
		c.Nodes = append(c.Nodes, n)
	}
	args := []string{"--cluster", "create"}
	for _, n := range c.Nodes {
		args = append(args, n.Addr())
	}
	args = append(args, "--cluster-replicas", strconv.Itoa(opt.Replicas), "--cluster-yes")
	if out, err := exec.Command(cli, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: redis-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	c.WaitHealthy()
	return c
}

// Addrs are the addresses of every node, for redis.ClusterOptions.Addrs.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Addr()
	}
	return out
}

// Client returns a cluster client on c, closed when the test ends. opt may
// be nil; its Addrs are set to c's.
func (c *Cluster) Client(opt *redis.ClusterOptions) *redis.ClusterClient {
	if opt == nil {
		opt = &redis.ClusterOptions{}
	}
	o := *opt
	o.Addrs = c.Addrs()
	rdb := redis.NewClusterClient(&o)
	c.t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// NodeInfo is one line of CLUSTER NODES, as a running node sees it.
type NodeInfo struct {
	ID, Addr string
	Master   bool
	MasterID string // of a replica
	Failed   bool   // flagged fail or pfail
	Slots    []string
}

// Topology returns CLUSTER NODES as seen by the first running node.
func (c *Cluster) Topology() ([]NodeInfo, error) {
	for _, n := range c.Nodes {
		if !n.Running() {
			continue
		}
		return topology(n.Addr())
	}
	return nil, errors.New("redistest: no node is running")
}

func topology(addr string) ([]NodeInfo, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := rdb.ClusterNodes(ctx).Result()
	if err != nil {
		return nil, err
	}
	var out []NodeInfo
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 {
			continue
		}
		addr, _, _ := strings.Cut(f[1], "@")
		flags := strings.Split(f[2], ",")
		ni := NodeInfo{
			ID:     f[0],
			Addr:   addr,
			Master: slices.Contains(flags, "master"),
			Failed: slices.Contains(flags, "fail") || slices.Contains(flags, "fail?"),
			Slots:  f[8:],
		}
		if f[3] != "-" {
			ni.MasterID = f[3]
		}
		out = append(out, ni)
	}
	return out, sc.Err()
}

// node returns c's node at addr.
func (c *Cluster) node(addr string) *Node {
	for _, n := range c.Nodes {
		if n.Addr() == addr {
			return n
		}
	}
	return nil
}

// MasterOf returns the node that is master of key's slot now.
func (c *Cluster) MasterOf(key string) *Node {
	c.t.Helper()
	slot := redisSlot(key)
	top, err := c.Topology()
	if err != nil {
		c.t.Fatal(err)
	}
	for _, ni := range top {
		if !ni.Master || ni.Failed {
			continue
		}
		for _, r := range ni.Slots {
			lo, hi, ok := strings.Cut(r, "-")
			if !ok {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 == nil && err2 == nil && a <= slot && slot <= b {
				if n := c.node(ni.Addr); n != nil {
					return n
				}
			}
		}
	}
	c.t.Fatalf("redistest: no master holds slot %d of %q", slot, key)
	return nil
}

// ReplicasOf returns the running replicas of master.
func (c *Cluster) ReplicasOf(master *Node) []*Node {
	c.t.Helper()
	top, err := c.Topology()
	if err != nil {
		c.t.Fatal(err)
	}
	var id string
	for _, ni := range top {
		if ni.Addr == master.Addr() {
			id = ni.ID
		}
	}
	var out []*Node
	for _, ni := range top {
		if ni.MasterID == id && id != "" {
			if n := c.node(ni.Addr); n != nil && n.Running() {
				out = append(out, n)
			}
		}
	}
	return out
}

// Failover makes a replica of master take over with CLUSTER FAILOVER (the
// master is running: a manual failover, which loses no acknowledged write)
// and waits until the replica is master and the cluster is healthy. It
// returns the new master.
func (c *Cluster) Failover(master *Node) *Node {
	c.t.Helper()
	r := c.successors(master)[0]
	rdb := redis.NewClient(&redis.Options{Addr: r.Addr(), MaxRetries: -1})
	defer rdb.Close()
	// Redis aborts a manual failover that does not finish within its own
	// timeout (5 s), silently: on a loaded machine the replica may not
	// catch up in time. Ask again until it takes over, within Bound.
	deadline := time.Now().Add(Bound)
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := rdb.Do(ctx, "CLUSTER", "FAILOVER").Err()
		cancel()
		if err != nil && !c.IsMaster(r) {
			c.t.Fatalf("redistest: CLUSTER FAILOVER on %s: %v", r.Addr(), err)
		}
		retry := time.Now().Add(15 * time.Second)
		for !c.IsMaster(r) && time.Now().Before(retry) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if c.IsMaster(r) {
			break
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("redistest: %s did not become master within %v (%d CLUSTER FAILOVER attempts)", r.Addr(), Bound, attempt)
		}
	}
	c.WaitHealthy()
	return r
}

// KillMaster kills master as a crash would and waits until one of its
// replicas has taken over (after the cluster's node timeout) and the
// cluster serves every slot again. It returns the new master. The killed
// node can be brought back with Start; it rejoins as a replica.
func (c *Cluster) KillMaster(master *Node) *Node {
	c.t.Helper()
	reps := c.successors(master)
	master.Kill()
	r := c.waitMaster(reps...)
	c.WaitHealthy()
	return r
}

// successors returns the running replicas of master, failing the test when
// it has none to take over from it.
func (c *Cluster) successors(master *Node) []*Node {
	c.t.Helper()
	reps := c.ReplicasOf(master)
	if len(reps) == 0 {
		c.t.Fatalf("redistest: master %s has no running replica to take over", master.Addr())
	}
	return reps
}

// IsMaster reports whether n answers ROLE as a master now.
func (c *Cluster) IsMaster(n *Node) bool {
	rdb := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	role, err := rdb.Do(ctx, "ROLE").Slice()
	return err == nil && len(role) > 0 && role[0] == "master"
}

// waitMaster waits until one of nodes answers ROLE as a master, and
// returns it. It fails the test if none does within [Bound].
func (c *Cluster) waitMaster(nodes ...*Node) *Node {
	c.t.Helper()
	deadline := time.Now().Add(Bound)
	for {
		for _, n := range nodes {
			if c.IsMaster(n) {
				return n
			}
		}
		if time.Now().After(deadline) {
			addrs := make([]string, len(nodes))
			for i, n := range nodes {
				addrs[i] = n.Addr()
			}
			c.t.Fatalf("redistest: none of %s became master within %v", strings.Join(addrs, ", "), Bound)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitHealthy waits until every running node reports cluster_state:ok and
// all 16384 slots assigned and ok.
func (c *Cluster) WaitHealthy() {
	c.t.Helper()
	deadline := time.Now().Add(Bound)
	for {
		err := c.healthy()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("redistest: the cluster is not healthy after %v: %v", Bound, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (c *Cluster) healthy() error {
	// Every running node must see the same masters with the same slots, so
	// that a test's view (MasterOf) and its clients' agree.
	var view, viewOf string
	for _, n := range c.Nodes {
		if !n.Running() {
			continue
		}
		top, err := topology(n.Addr())
		if err != nil {
			return fmt.Errorf("%s: %w", n.Addr(), err)
		}
		var masters []string
		serving := map[string]bool{} // ids of masters that hold slots
		for _, ni := range top {
			if ni.Master && !ni.Failed && len(ni.Slots) > 0 {
				masters = append(masters, ni.Addr+" "+strings.Join(ni.Slots, " "))
				serving[ni.ID] = true
			}
		}
		// And every running node is, in that view, a serving master or a
		// replica of one (a master demoted by a failover has rejoined).
		for _, ni := range top {
			if m := c.node(ni.Addr); m != nil && m.Running() && !serving[ni.ID] && !serving[ni.MasterID] {
				return fmt.Errorf("%s sees %s as neither a serving master nor its replica", n.Addr(), ni.Addr)
			}
		}
		slices.Sort(masters)
		v := strings.Join(masters, "; ")
		switch {
		case viewOf == "":
			view, viewOf = v, n.Addr()
		case v != view:
			return fmt.Errorf("%s sees masters %q, %s sees %q", viewOf, view, n.Addr(), v)
		}
	}
	for _, n := range c.Nodes {
		if !n.Running() {
			continue
		}
		rdb := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		info, err := rdb.ClusterInfo(ctx).Result()
		cancel()
		_ = rdb.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", n.Addr(), err)
		}
		if !strings.Contains(info, "cluster_state:ok") || !strings.Contains(info, "cluster_slots_ok:16384") {
			return fmt.Errorf("%s: %s", n.Addr(), strings.Join(strings.Fields(info)[:4], " "))
		}
	}
	return nil
}

// redisSlot is Redis Cluster's key slot: CRC16 (XMODEM) of the key's hash
// tag, or of the whole key, mod 16384.
func redisSlot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

// WaitReplicated waits until every running replica of master has
// processed master's replication stream up to where it is now, so that a
// failover that follows keeps every write acknowledged before the call.
func (c *Cluster) WaitReplicated(master *Node) {
	c.t.Helper()
	c.waitReplicated(master, 1)
}

// waitReplicated is WaitReplicated, with at least min replicas online.
func (c *Cluster) waitReplicated(master *Node, min int) {
	c.t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: master.Addr(), MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(Bound)
	var want int64 = -1
	for {
		info, err := infoFields(rdb, "replication")
		if err != nil {
			c.t.Fatalf("redistest: INFO replication on %s: %v", master.Addr(), err)
		}
		if want < 0 {
			want, _ = strconv.ParseInt(info["master_repl_offset"], 10, 64)
		}
		n, _ := strconv.Atoi(info["connected_slaves"])
		behind := n < min
		for i := range n {
			// slaveN:ip=...,port=...,state=online,offset=N,lag=0
			f := map[string]string{}
			for _, kv := range strings.Split(info["slave"+strconv.Itoa(i)], ",") {
				k, v, _ := strings.Cut(kv, "=")
				f[k] = v
			}
			off, _ := strconv.ParseInt(f["offset"], 10, 64)
			if f["state"] != "online" || off < want {
				behind = true
			}
		}
		if !behind {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("redistest: the replicas of %s did not reach offset %d within %v: %v", master.Addr(), want, Bound, info)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// infoFields returns the fields of INFO section on rdb.
func infoFields(rdb *redis.Client, section string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := rdb.Info(ctx, section).Result()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(s, "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out, nil
}

// Info returns the fields of INFO section (e.g. "cpu", "commandstats") of
// node n.
func (n *Node) Info(section string) (map[string]string, error) {
	rdb := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1})
	defer rdb.Close()
	return infoFields(rdb, section)
}

// RestartMaster restarts master in place, as a crash and a restart
// without persistence would: SIGKILL, then the same node again, empty. Its
// replicas are told not to fail over meanwhile (cluster-replica-no-failover,
// restored afterwards), so master stays master of its slots, and they
// resynchronise from it: the slots' data is gone on every node. It waits
// until the cluster is healthy.
func (c *Cluster) RestartMaster(master *Node) {
	c.t.Helper()
	reps := c.ReplicasOf(master)
	for _, r := range reps {
		c.configSet(r, "cluster-replica-no-failover", "yes")
	}
	master.Kill()
	master.Start()
	c.waitMaster(master)
	// As the new process sees them: resynchronised from it, so empty.
	c.waitReplicated(master, len(reps))
	for _, r := range reps {
		c.configSet(r, "cluster-replica-no-failover", "no")
	}
	c.WaitHealthy()
}

// Restart kills every node as a crash would and starts them all again
// (empty: no persistence), waiting until the cluster, which nodes.conf
// brings back with the same masters and slots, is healthy.
func (c *Cluster) Restart() {
	c.t.Helper()
	for _, n := range c.Nodes {
		n.Kill()
	}
	for _, n := range c.Nodes {
		n.Start()
	}
	c.WaitHealthy()
}

func (c *Cluster) configSet(n *Node, k, v string) {
	c.t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: n.Addr(), MaxRetries: -1})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.ConfigSet(ctx, k, v).Err(); err != nil {
		c.t.Fatalf("redistest: CONFIG SET %s %s on %s: %v", k, v, n.Addr(), err)
	}
}
