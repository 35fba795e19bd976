package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ocpgen/ocpgen/internal/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
	"go.yaml.in/yaml/v3"

	"github.com/ocpgen/ocpgen/e2e/memoryocp"
	"github.com/ocpgen/ocpgen/ocpgentest"
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
)

// The memory server's nine tools, and the ones memory.ocp.yaml makes reads.
var (
	memoryTools = []string{"add_observations", "create_entities", "create_relations", "delete_entities", "delete_observations", "delete_relations", "open_nodes", "read_graph", "search_nodes"}
	memoryReads = []string{"open_nodes", "read_graph", "search_nodes"}
)

// TestMemoryPipeline runs the generator's pipeline on the real, pinned
// @modelcontextprotocol/server-memory: ocpgen-snapshot (twice, byte for
// byte the same, and the same as the committed memory.tools.json), ocpgen
// init (every tool a write, whatever the server hints), ocpgen generate with
// the committed classification (byte for byte the committed memoryocp, which
// the test binary compiles), and a compile of the freshly generated package.
func TestMemoryPipeline(t *testing.T) {
	endToEnd(t)
	srv := npmServer(t, "server-memory")
	tmp := t.TempDir()
	env := []string{"MEMORY_FILE_PATH=" + filepath.Join(tmp, "memory.jsonl")}
	command := "node " + srv.rel

	// snapshot, twice.
	first, second := filepath.Join(tmp, "first.tools.json"), filepath.Join(tmp, "second.tools.json")
	a := snapshotTwice(t, env, first, second, "-command", command)
	if _, err := os.Stat(filepath.Join(tmp, "memory.jsonl")); err == nil {
		t.Errorf("listing the tools made the server write its memory file")
	}
	live := parseSnapshot(t, "snapshot", a)
	if got := toolNames(t, live); !slices.Equal(got, memoryTools) {
		t.Fatalf("the server lists %v, want %v", got, memoryTools)
	}

	// The committed snapshot is the live server's.
	committed, err := os.ReadFile("memory.tools.json")
	if err != nil {
		t.Fatal(err)
	}
	if srv.rel != srv.entry {
		if !bytes.Equal(a, committed) {
			t.Fatalf("memory.tools.json is not the pinned server's tools/list; run go generate ./e2e\n--- live\n%s", a)
		}
	} else {
		// The packages are elsewhere, so the command line (source) differs.
		c := parseSnapshot(t, "memory.tools.json", committed)
		if !bytes.Equal(live.Server, c.Server) || !bytes.Equal(live.Tools, c.Tools) {
			t.Fatalf("memory.tools.json is not the pinned server's tools/list; run go generate ./e2e\n--- live\n%s", a)
		}
		t.Logf("%s is not node/node_modules: compared the snapshot's server and tools only", envNodeModules)
	}

	// init: a skeleton that lists every tool as a write, although the
	// server hints that three are read-only.
	skel := filepath.Join(tmp, "skeleton.ocp.yaml")
	runOcpgen(t, ".", nil, "init", "-snapshot", first, "-o", skel)
	var skeleton struct {
		Tools map[string]struct {
			Access string `yaml:"access"`
		} `yaml:"tools"`
	}
	sb, err := os.ReadFile(skel)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(sb, &skeleton); err != nil {
		t.Fatalf("skeleton: %v\n%s", err, sb)
	}
	if len(skeleton.Tools) != len(memoryTools) {
		t.Fatalf("skeleton lists %d tools, want %d:\n%s", len(skeleton.Tools), len(memoryTools), sb)
	}
	for _, name := range memoryTools {
		if got := skeleton.Tools[name].Access; got != "write" {
			t.Errorf("skeleton: %s has access %q, want write (nothing is a read until a person says so)", name, got)
		}
	}
	if !strings.Contains(string(sb), "not trusted") || !strings.Contains(string(sb), "readOnlyHint: true") {
		t.Errorf("skeleton does not show the server's hints as untrusted comments:\n%s", sb)
	}

	// generate from the live snapshot and the committed classification,
	// with the committed file names, so the output is comparable.
	in := t.TempDir()
	copyFile(t, first, filepath.Join(in, "memory.tools.json"))
	copyFile(t, "memory.ocp.yaml", filepath.Join(in, "memory.ocp.yaml"))
	out := filepath.Join(genDir(t), "memoryocp")
	runOcpgen(t, in, nil, "generate", "-snapshot", "memory.tools.json", "-classify", "memory.ocp.yaml", "-package", "memoryocp", "-out", out)
	goBuild(t, out)
	gofmtClean(t, out)
	if srv.rel != srv.entry {
		sameDir(t, out, "memoryocp")
	}

	// And the committed package is what the committed inputs generate.
	ocpgentest.Check(t, "memory.tools.json", "memory.ocp.yaml", "memoryocp", ocpgentest.Strict())
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sameDir fails the test unless the .go files of the two directories are
// the same files with the same bytes.
func sameDir(t *testing.T, got, want string) {
	t.Helper()
	list := func(dir string) []string {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for i := range m {
			m[i] = filepath.Base(m[i])
		}
		slices.Sort(m)
		return m
	}
	g, w := list(got), list(want)
	if !slices.Equal(g, w) {
		t.Fatalf("generated files %v, committed %v; run go generate ./e2e", g, w)
	}
	for _, name := range g {
		gb, err := os.ReadFile(filepath.Join(got, name))
		if err != nil {
			t.Fatal(err)
		}
		wb, err := os.ReadFile(filepath.Join(want, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gb, wb) {
			t.Errorf("%s: the generated file differs from the committed one; run go generate ./e2e", name)
		}
	}
}

// memoryACL allows every resource of the graph except "graph/Secret".
var memoryACL = ocp.ACL(func(_ context.Context, _ ocp.Principal, _ *ocp.Descriptor, resources []string) error {
	for _, r := range resources {
		if r == "graph/Secret" {
			return fmt.Errorf("resource %s is off limits", r)
		}
	}
	return nil
})

// Principals of the memory and tickets tests. The model's channel is
// "model"; the person who confirms writes is connected on "phone".
var (
	visitor  = ocp.Principal{ID: "ann", Tier: "visitor", Scopes: []string{"memory.read", "tickets.read"}, Peer: "model"}
	member   = ocp.Principal{ID: "ann", Tier: "member", Scopes: []string{"memory.read", "memory.write", "tickets.read", "tickets.write"}, Peer: "model"}
	operator = ocp.Principal{ID: "ann", Tier: "operator", Scopes: []string{"tickets.read", "tickets.write", "tickets.escalate"}, Peer: "model"}
	approver = ocp.Principal{ID: "bob", Tier: "member", Scopes: []string{"memory.read", "memory.write", "tickets.read", "tickets.write"}, Peer: "phone"}
	// escalations need tier operator and tickets.escalate: so does their approver.
	escalator = ocp.Principal{ID: "bob", Tier: "operator", Scopes: []string{"tickets.read", "tickets.write", "tickets.escalate"}, Peer: "phone"}
)

// TestMemoryGate runs the committed memoryocp bridge through the gate
// against the real server-memory over stdio: the advertisement carries the
// Hub's classification, not the server's; a read returns the graph; a write
// is held, with the server not called, until a peer on another channel
// approves, and then really changes the server's state (read back through
// the gate and from the server's file); a denied write changes nothing; a
// forbidden write publishes no confirm; the server's error text never
// reaches the action.result; the wire path refuses unknown tools and bad
// arguments; when the server process dies, the client withdraws the
// catalogue, starts a new process and re-advertises, and the new process
// serves the stored state; closing leaves nothing running.
func TestMemoryGate(t *testing.T) {
	endToEnd(t)
	srv := npmServer(t, "server-memory")
	defer goleak.VerifyNone(t)
	ctx := context.Background()
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")

	broker := ocp.NewMemoryBroker()
	confirms := watchConfirms(t, broker)
	advs := newAdvertisements()
	audit := &syncbuf.Buffer{}
	var (
		procMu sync.Mutex
		procs  []*exec.Cmd // the server processes the client started
	)
	started := func() []*exec.Cmd {
		procMu.Lock()
		defer procMu.Unlock()
		return slices.Clone(procs)
	}
	client, err := ocp.Dial(ctx, func(context.Context) (mcp.Transport, error) {
		cmd := exec.Command(srv.node, srv.entry)
		cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+memFile)
		procMu.Lock()
		procs = append(procs, cmd)
		procMu.Unlock()
		return &mcp.CommandTransport{Command: cmd}, nil
	}, ocp.ClientOptions{})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Logf("@modelcontextprotocol/server-memory negotiated MCP revision %s", client.ProtocolVersion())
	g, err := ocp.NewGate(ocp.Config{
		Server:    client,
		Catalogue: memoryocp.Catalogue,
		ACL:       memoryACL,
		Broker:    broker,
		Audit:     slog.New(slog.NewJSONHandler(audit, nil)),
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

	// The advertisement: every tool, writes marked by the classification.
	adv := g.Advertisement()
	if got := names(adv); !slices.Equal(got, memoryTools) {
		t.Fatalf("advertised %v, want %v", got, memoryTools)
	}
	for _, td := range adv.Tools {
		if want := !slices.Contains(memoryReads, td.Name); td.Write != want {
			t.Errorf("%s advertised with write=%v, want %v", td.Name, td.Write, want)
		}
	}
	if got := advs.snapshot(); len(got) != 1 || !slices.Equal(names(got[0]), memoryTools) {
		t.Errorf("Advertise received %s, want the nine tools once", advNames(got))
	}

	readGraph := func(what string) memoryocp.ReadGraphResult {
		t.Helper()
		out := mustOK(t, what, g.Call(ctx, visitor, memoryocp.ReadGraphArgs{}))
		return decode[memoryocp.ReadGraphResult](t, what, out)
	}
	fileBytes := func() []byte {
		b, err := os.ReadFile(memFile)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return b
	}

	// A read returns the (empty) graph, without a confirm.
	if g0 := readGraph("read_graph"); len(g0.Entities) != 0 || len(g0.Relations) != 0 {
		t.Fatalf("a fresh memory server holds %+v", g0)
	}
	confirms.none(t)

	// A write by a visitor is forbidden before anyone is asked.
	alice := memoryocp.CreateEntitiesArgs{Entities: []memoryocp.CreateEntitiesArgsEntitiesItem{
		{Name: "Alice", EntityType: "person", Observations: []string{"likes tea"}},
	}}
	mustRefuse(t, "create_entities as visitor", g.Call(ctx, visitor, alice), ocp.ReasonForbidden,
		"Not performed: the caller is not allowed to use this tool on these resources.")
	confirms.none(t)

	// A write is held until a peer approves.
	pending := async(func() ocp.ActionResult { return g.Call(ctx, member, alice) })
	req := confirms.next(t, pending)
	if req.Tool != "create_entities" || req.Requester != "ann" || !strings.Contains(req.Prompt, `"Alice"`) {
		t.Fatalf("confirm request %+v", req)
	}
	wantArgs := `{"entities":[{"entityType":"person","name":"Alice","observations":["likes tea"]}]}`
	if string(req.Args) != wantArgs {
		t.Errorf("confirm shows args %s, want %s", req.Args, wantArgs)
	}
	// While it waits, the server has not been called.
	if g1 := readGraph("read_graph while the write awaits its confirm"); len(g1.Entities) != 0 {
		t.Fatalf("the server was called before the confirm resolved: %+v", g1)
	}
	if b := fileBytes(); len(b) != 0 {
		t.Fatalf("the server wrote its file before the confirm resolved: %s", b)
	}
	if got, err := broker.Pending(ctx); err != nil || len(got) != 1 || got[0].ID != req.ID {
		t.Fatalf("Pending() = %+v, %v; want the one request", got, err)
	}
	// The model's own channel cannot approve it, nor can a wrong digest.
	if err := g.Resolve(ctx, member, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); !errors.Is(err, ocp.ErrConfirmSelf) {
		t.Fatalf("approval from the requesting channel: %v, want ErrConfirmSelf", err)
	}
	if err := g.Resolve(ctx, approver, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: "sha256:00"}); !errors.Is(err, ocp.ErrConfirmDigest) {
		t.Fatalf("approval with another digest: %v, want ErrConfirmDigest", err)
	}
	if err := g.Resolve(ctx, approver, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); err != nil {
		t.Fatalf("approval from a peer: %v", err)
	}
	res := await(t, pending)
	created := decode[memoryocp.CreateEntitiesResult](t, "create_entities", mustOK(t, "create_entities", res))
	if len(created.Entities) != 1 || created.Entities[0].Name != "Alice" {
		t.Fatalf("create_entities returned %+v", created)
	}
	// The decision is single-use.
	if err := g.Resolve(ctx, approver, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); !errors.Is(err, ocp.ErrConfirmNotPending) {
		t.Fatalf("replayed approval: %v, want ErrConfirmNotPending", err)
	}
	// The server's state changed: through the gate and on disk.
	g2 := readGraph("read_graph after the approved write")
	if len(g2.Entities) != 1 || g2.Entities[0].Name != "Alice" || !slices.Equal(g2.Entities[0].Observations, []string{"likes tea"}) {
		t.Fatalf("after the approved write the graph is %+v", g2)
	}
	onDisk := fileBytes()
	if !bytes.Contains(onDisk, []byte(`"Alice"`)) {
		t.Fatalf("the server's file does not hold the new entity: %q", onDisk)
	}

	// A denied write leaves the server unchanged.
	pending = async(func() ocp.ActionResult {
		return g.Call(ctx, member, memoryocp.DeleteEntitiesArgs{EntityNames: []string{"Alice"}})
	})
	req = confirms.next(t, pending)
	if req.Tool != "delete_entities" || req.Prompt != `Delete ["Alice"] and their relations?` {
		t.Fatalf("confirm request %+v", req)
	}
	if err := g.Resolve(ctx, approver, ocp.ConfirmDecision{ID: req.ID, Approve: false, Digest: req.Digest}); err != nil {
		t.Fatalf("denial from a peer: %v", err)
	}
	mustRefuse(t, "denied delete_entities", await(t, pending), ocp.ReasonDenied, textDenied)
	if g3 := readGraph("read_graph after the denied write"); len(g3.Entities) != 1 || g3.Entities[0].Name != "Alice" {
		t.Fatalf("after the denied write the graph is %+v", g3)
	}
	if b := fileBytes(); !bytes.Equal(b, onDisk) {
		t.Fatalf("the denied write changed the server's file:\n%s\nwas:\n%s", b, onDisk)
	}

	// The ACL sees one resource per array element: one refused element
	// forbids the call, before anyone is asked.
	mustRefuse(t, "delete_entities of an ACL-protected entity",
		g.Call(ctx, member, memoryocp.DeleteEntitiesArgs{EntityNames: []string{"Alice", "Secret"}}),
		ocp.ReasonForbidden, "Not performed: the caller is not allowed to use this tool on these resources.")
	confirms.none(t)

	// The server's error (an unknown entity) is redacted: the model reads
	// the classification's failure text and a reference, never the server's.
	const canary = "Zq7canaryEntity"
	pending = async(func() ocp.ActionResult {
		return g.Call(ctx, member, memoryocp.AddObservationsArgs{Observations: []memoryocp.AddObservationsArgsObservationsItem{
			{EntityName: canary, Contents: []string{"x"}},
		}})
	})
	req = confirms.next(t, pending)
	if err := g.Resolve(ctx, approver, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); err != nil {
		t.Fatal(err)
	}
	res = await(t, pending)
	mustFail(t, "add_observations to an unknown entity", res, "Could not add those observations.", canary, "not found", "Entity with name")
	if !strings.Contains(audit.String(), canary) || !strings.Contains(audit.String(), res.Ref) {
		t.Errorf("the audit log does not hold the server's error under ref %s", res.Ref)
	}

	// The wire path: action.request frames, as a model sends them.
	frame := func(tool, args string) ocp.ActionResult {
		return g.Dispatch(ctx, visitor, ocp.ActionRequest{ID: "r-" + tool, Tool: tool, Args: json.RawMessage(args)})
	}
	found := decode[memoryocp.SearchNodesResult](t, "search_nodes", mustOK(t, "search_nodes", frame("search_nodes", `{"query":"tea"}`)))
	if len(found.Entities) != 1 || found.Entities[0].Name != "Alice" {
		t.Fatalf("search_nodes found %+v", found)
	}
	opened := decode[memoryocp.OpenNodesResult](t, "open_nodes", mustOK(t, "open_nodes", frame("open_nodes", `{"names":["Alice"]}`)))
	if len(opened.Entities) != 1 || opened.Entities[0].Name != "Alice" {
		t.Fatalf("open_nodes returned %+v", opened)
	}
	mustRefuse(t, "a tool the server does not have", frame("drop_database", `{}`), ocp.ReasonUnknown, textUnknown)
	const invalid = "Not performed: the arguments do not match the tool's input schema."
	mustRefuse(t, "search_nodes with a number", frame("search_nodes", `{"query":5}`), ocp.ReasonInvalid, invalid)
	// server-memory's schema allows additional properties; the Hub's rule
	// forwards only declared ones, and says so.
	mustRefuse(t, "search_nodes with an extra argument", frame("search_nodes", `{"query":"tea","_meta":{"principal":"ann"}}`), ocp.ReasonInvalid,
		`Not performed: the Hub's rule "undeclared-property" refused the arguments at /_meta: the argument is not a property of the tool's schema, and the Hub forwards only declared properties. They were refused by the Hub's rules, not by the tool's input schema; the server was not called.`)
	if r := frame("search_nodes", `{"query":"tea"}`); r.ID != "r-search_nodes" {
		t.Errorf("action.result id %q, want the request's", r.ID)
	}

	// The server process dies: the client withdraws the catalogue, starts
	// a new one and re-advertises; the new process serves the state the
	// first one stored.
	if n := len(started()); n != 1 {
		t.Fatalf("the client started %d server processes, want 1", n)
	}
	first := started()[0]
	mark := len(advs.snapshot())
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	advs.waitFor(wctx, t, "the catalogue re-synced after the server process died", func(all []ocp.ToolsAdvertise) bool {
		all = all[mark:]
		i := slices.IndexFunc(all, func(a ocp.ToolsAdvertise) bool { return len(a.Tools) == 0 })
		return i >= 0 && slices.ContainsFunc(all[i+1:], func(a ocp.ToolsAdvertise) bool { return slices.Equal(names(a), memoryTools) })
	})
	if n := len(started()); n < 2 {
		t.Fatal("the catalogue was re-advertised without a new server process")
	}
	if g4 := readGraph("read_graph from the restarted server"); len(g4.Entities) != 1 || g4.Entities[0].Name != "Alice" {
		t.Fatalf("the restarted server holds %+v", g4)
	}

	// Closing withdraws the catalogue and stops the server.
	closed = true
	if err := client.Close(); err != nil {
		t.Logf("Close: %v", err)
	}
	if got := g.Advertisement(); len(got.Tools) != 0 {
		t.Fatalf("after Close the gate still advertises %v", names(got))
	}
	mustRefuse(t, "read_graph after Close", g.Call(ctx, visitor, memoryocp.ReadGraphArgs{}), ocp.ReasonUnknown, textUnknown)
}
