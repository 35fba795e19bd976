package e2e_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
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

	"github.com/ocpgen/ocpgen/e2e/filesystemocp"
	"github.com/ocpgen/ocpgen/e2e/memoryocp"
	"github.com/ocpgen/ocpgen/e2e/notesocp"
	"github.com/ocpgen/ocpgen/e2e/notesserver"
	"github.com/ocpgen/ocpgen/ocpgentest"
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
)

// Principals of the three-server Hub: one person on the model's channel
// and on a phone, with the rights of all three catalogues.
var (
	multiUser     = ocp.Principal{ID: "ann", Tier: "member", Scopes: []string{"memory.read", "memory.write", "fs.read", "fs.write", "notes.read", "notes.write"}, Peer: "model"}
	multiApprover = ocp.Principal{ID: "ann", Tier: "member", Scopes: []string{"memory.read", "memory.write", "fs.read", "fs.write", "notes.read", "notes.write"}, Peer: "phone"}
)

// TestThreeServersOneHub fronts three MCP servers at once through one
// Gate of ocp.NewMux: the pinned server-memory and server-filesystem over stdio, and
// the go-sdk note store over Streamable HTTP (in-process), whose read_graph
// has server-memory's name. Without a prefix the Mux refuses to start,
// naming both servers and the tool; with "notes_" for the note store, the
// one advertisement holds all three catalogues, each call reaches its own
// server under the tool's own name, and a write is confirmed through the
// Mux. Then server-filesystem is killed (and not restarted) while a write
// to it awaits its confirm: its tools, and only its, leave the merged
// advertisement; its pending write is denied and never runs; the other two
// servers keep serving reads and confirmed writes. Nothing outlives the
// test.
func TestThreeServersOneHub(t *testing.T) {
	endToEnd(t)
	memSrv := npmServer(t, "server-memory")
	fsSrv := npmServer(t, "server-filesystem")
	// The committed bridges are current with their snapshots.
	ocpgentest.Check(t, "filesystem.tools.json", "filesystem.ocp.yaml", "filesystemocp", ocpgentest.Strict())
	ocpgentest.Check(t, "notes.tools.json", "notes.ocp.yaml", "notesocp", ocpgentest.Strict())
	defer goleak.VerifyNone(t)
	ctx := context.Background()

	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	memFile := filepath.Join(tmp, "memory.jsonl")

	// The note store, over Streamable HTTP.
	notesMCP, notes := notesserver.New()
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return notesMCP }, nil))
	defer hs.Close()
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	notesClient, err := ocp.Dial(ctx, func(context.Context) (mcp.Transport, error) {
		return &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc}, nil
	}, ocp.ClientOptions{})
	if err != nil {
		t.Fatalf("Dial notes: %v", err)
	}
	defer notesClient.Close()

	// server-memory, over stdio.
	memClient, err := ocp.Dial(ctx, func(context.Context) (mcp.Transport, error) {
		cmd := exec.Command(memSrv.node, memSrv.entry)
		cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+memFile)
		return &mcp.CommandTransport{Command: cmd}, nil
	}, ocp.ClientOptions{})
	if err != nil {
		t.Fatalf("Dial memory: %v", err)
	}
	defer memClient.Close()

	// server-filesystem, over stdio. Once killed it stays down: the
	// client's redial waits until the client is closed.
	var (
		fsMu     sync.Mutex
		fsProc   *exec.Cmd
		fsKilled bool
	)
	fsClient, err := ocp.Dial(ctx, func(dctx context.Context) (mcp.Transport, error) {
		fsMu.Lock()
		dead := fsKilled
		if !dead {
			fsProc = exec.Command(fsSrv.node, fsSrv.entry, root)
		}
		cmd := fsProc
		fsMu.Unlock()
		if dead {
			<-dctx.Done()
			return nil, errors.New("server-filesystem is down for this test")
		}
		return &mcp.CommandTransport{Command: cmd}, nil
	}, ocp.ClientOptions{})
	if err != nil {
		t.Fatalf("Dial filesystem: %v", err)
	}
	defer fsClient.Close()
	t.Logf("negotiated MCP revisions: @modelcontextprotocol/server-memory %s, @modelcontextprotocol/server-filesystem %s, the note store %s",
		memClient.ProtocolVersion(), fsClient.ProtocolVersion(), notesClient.ProtocolVersion())

	broker := ocp.NewMemoryBroker()
	audit := &syncbuf.Buffer{}
	logger := slog.New(slog.NewJSONHandler(audit, nil))
	servers := func(notesPrefix string) []ocp.MuxServer {
		return []ocp.MuxServer{
			{Name: "memory", Config: ocp.Config{Catalogue: memoryocp.Catalogue, Server: memClient, ACL: memoryACL, Audit: logger}},
			{Name: "filesystem", Config: ocp.Config{Catalogue: filesystemocp.Catalogue, Server: fsClient, ACL: ocp.AllowAllResources, Audit: logger}},
			{Name: "notes", Prefix: notesPrefix, Config: ocp.Config{Catalogue: notesocp.Catalogue, Server: notesClient, ACL: ocp.AllowAllResources, Audit: logger}},
		}
	}

	// Two read_graph: refused at start-up, naming both servers.
	if _, err := ocp.NewMux(ocp.MuxConfig{Servers: servers(""), Broker: broker, Audit: logger}); err == nil ||
		!strings.Contains(err.Error(), `servers "memory" and "notes" would both expose a tool named "read_graph"`) {
		t.Fatalf("NewMux with two read_graph: %v", err)
	}

	advs := newAdvertisements()
	m, err := ocp.NewMux(ocp.MuxConfig{Servers: servers("notes_"), Broker: broker, Audit: logger, Advertise: advs.record})
	if err != nil {
		t.Fatalf("NewMux: %v", err)
	}
	opened := make(chan ocp.ConfirmRequest, 16)
	defer m.Subscribe(func(r ocp.ConfirmRequest) { opened <- r }, nil)()
	nextConfirm := func(call <-chan ocp.ActionResult) ocp.ConfirmRequest {
		t.Helper()
		return (&confirms{ch: opened}).next(t, call)
	}

	var fsTools []string
	for _, h := range filesystemocp.Catalogue.Tools() {
		fsTools = append(fsTools, h.Desc.Name)
	}
	notesTools := []string{"notes_add_note", "notes_read_graph"}
	withoutFS := slices.Sorted(slices.Values(append(slices.Clone(memoryTools), notesTools...)))
	all := slices.Sorted(slices.Values(append(slices.Clone(withoutFS), fsTools...)))
	if len(all) != len(memoryTools)+len(fsTools)+2 || len(fsTools) != 14 {
		t.Fatalf("the catalogues: %v", all)
	}
	lastIs := func(want []string) func([]ocp.ToolsAdvertise) bool {
		return func(a []ocp.ToolsAdvertise) bool { return len(a) > 0 && slices.Equal(names(a[len(a)-1]), want) }
	}
	waitCtx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	advs.waitFor(waitCtx, t, "all three catalogues", lastIs(all))
	if got := names(m.Advertisement()); !slices.Equal(got, all) {
		t.Fatalf("Advertisement() = %v, want %v", got, all)
	}

	// Each call reaches its own server, under the tool's own name.
	g0 := decode[memoryocp.ReadGraphResult](t, "read_graph", mustOK(t, "read_graph", m.Dispatch(ctx, multiUser, ocp.ActionRequest{ID: "r1", Tool: "read_graph", Args: []byte(`{}`)})))
	if len(g0.Entities) != 0 {
		t.Fatalf("a fresh memory server holds %+v", g0)
	}
	n0 := decode[notesocp.ReadGraphResult](t, "notes_read_graph", mustOK(t, "notes_read_graph", m.Dispatch(ctx, multiUser, ocp.ActionRequest{ID: "r2", Tool: "notes_read_graph", Args: []byte(`{}`)})))
	if len(n0.Notes) != 0 {
		t.Fatalf("a fresh note store holds %+v", n0)
	}
	f0 := decode[filesystemocp.ReadTextFileResult](t, "read_text_file", mustOK(t, "read_text_file", m.Call(ctx, multiUser, filesystemocp.ReadTextFileArgs{Path: filepath.Join(root, "hello.txt")})))
	if !strings.Contains(f0.Content, "hello") {
		t.Fatalf("read_text_file: %+v", f0)
	}
	// The note store's tool under the memory server's name is not routed
	// there: notes' arguments are invalid for memory's read_graph (whose
	// schema allows them, but the Hub forwards only declared properties).
	mustRefuse(t, "notes' arguments to read_graph", m.Dispatch(ctx, multiUser, ocp.ActionRequest{ID: "r3", Tool: "read_graph", Args: []byte(`{"contains":"x"}`)}),
		ocp.ReasonInvalid, `Not performed: the Hub's rule "undeclared-property" refused the arguments at /contains: the argument is not a property of the tool's schema, and the Hub forwards only declared properties. They were refused by the Hub's rules, not by the tool's input schema; the server was not called.`)

	// A write on the note store, confirmed through the Mux.
	added := async(func() ocp.ActionResult {
		return m.Call(ctx, multiUser, notesocp.AddNoteArgs{Title: "plan", Body: "ship it"})
	})
	req := nextConfirm(added)
	if req.Server != "notes" || req.Tool != "notes_add_note" || req.Requester != "ann" {
		t.Fatalf("the note's confirm: %+v", req)
	}
	if len(notes.Notes()) != 0 {
		t.Fatal("the note store ran the write before its confirm")
	}
	if err := m.Resolve(ctx, multiApprover, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); err != nil {
		t.Fatalf("approving the note: %v", err)
	}
	mustOK(t, "notes_add_note", await(t, added))
	if got := notes.Notes(); len(got) != 1 || got[0] != (notesserver.Note{Title: "plan", Body: "ship it"}) {
		t.Fatalf("the note store holds %+v", got)
	}

	// A write to the file server awaits its confirm; the server is killed.
	killedPath := filepath.Join(root, "killed.txt")
	written := async(func() ocp.ActionResult {
		return m.Call(ctx, multiUser, filesystemocp.WriteFileArgs{Path: killedPath, Content: "never\n"})
	})
	fsReq := nextConfirm(written)
	if fsReq.Server != "filesystem" || fsReq.Tool != "write_file" || fsReq.Digest == req.Digest {
		t.Fatalf("the file's confirm: %+v", fsReq)
	}
	before := len(advs.snapshot())
	fsMu.Lock()
	fsKilled = true
	if err := fsProc.Process.Kill(); err != nil {
		fsMu.Unlock()
		t.Fatalf("kill server-filesystem: %v", err)
	}
	fsMu.Unlock()
	advs.waitFor(waitCtx, t, "the catalogues without the file server's", func(a []ocp.ToolsAdvertise) bool {
		return len(a) > before && lastIs(withoutFS)(a)
	})
	mustRefuse(t, "the write pending on the killed server", await(t, written), ocp.ReasonDenied, textCatalogue)
	if _, err := os.Stat(killedPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the denied write ran: %v", err)
	}
	if err := m.Resolve(ctx, multiApprover, ocp.ConfirmDecision{ID: fsReq.ID, Approve: true, Digest: fsReq.Digest}); !errors.Is(err, ocp.ErrConfirmNotPending) {
		t.Fatalf("approving the voided write: %v, want ErrConfirmNotPending", err)
	}
	mustRefuse(t, "read_text_file on the killed server", m.Call(ctx, multiUser, filesystemocp.ReadTextFileArgs{Path: filepath.Join(root, "hello.txt")}), ocp.ReasonUnknown, textUnknown)

	// The other two keep serving: reads, and a confirmed write.
	n1 := decode[notesocp.ReadGraphResult](t, "notes_read_graph", mustOK(t, "notes_read_graph after the kill", m.Call(ctx, multiUser, notesocp.ReadGraphArgs{})))
	if len(n1.Notes) != 1 || n1.Notes[0].Title != "plan" {
		t.Fatalf("notes after the kill: %+v", n1)
	}
	created := async(func() ocp.ActionResult {
		return m.Call(ctx, multiUser, memoryocp.CreateEntitiesArgs{Entities: []memoryocp.CreateEntitiesArgsEntitiesItem{
			{Name: "Alice", EntityType: "person", Observations: []string{"likes tea"}},
		}})
	})
	memReq := nextConfirm(created)
	if memReq.Server != "memory" || memReq.Tool != "create_entities" {
		t.Fatalf("the memory write's confirm: %+v", memReq)
	}
	if err := m.Resolve(ctx, multiApprover, ocp.ConfirmDecision{ID: memReq.ID, Approve: true, Digest: memReq.Digest}); err != nil {
		t.Fatalf("approving the memory write: %v", err)
	}
	mustOK(t, "create_entities after the kill", await(t, created))
	g1 := decode[memoryocp.ReadGraphResult](t, "read_graph", mustOK(t, "read_graph after the kill", m.Call(ctx, multiUser, memoryocp.ReadGraphArgs{})))
	if len(g1.Entities) != 1 || g1.Entities[0].Name != "Alice" {
		t.Fatalf("memory after the kill: %+v", g1)
	}

	// No advertisement, from the first complete one on, lacked a tool of
	// the two servers that stayed up.
	seenAll := false
	for i, a := range advs.snapshot() {
		got := names(a)
		seenAll = seenAll || slices.Equal(got, all)
		if !seenAll {
			continue
		}
		for _, want := range withoutFS {
			if !slices.Contains(got, want) {
				t.Errorf("advertisement %d withdrew %s: %v", i, want, got)
			}
		}
	}
	if p, err := m.Pending(ctx); err != nil || len(p) != 0 {
		t.Errorf("Pending() = %+v, %v; want none", p, err)
	}
	// The audit log names the server of every call.
	for _, line := range strings.Split(strings.TrimSpace(audit.String()), "\n") {
		if strings.Contains(line, `"msg":"ocp.call"`) && !strings.Contains(line, `"server":"`) {
			t.Errorf("an audited call without its server: %s", line)
		}
	}
	if !strings.Contains(audit.String(), `"tool":"notes_add_note"`) || !strings.Contains(audit.String(), `"server":"notes"`) {
		t.Errorf("the audit log does not name the note store's write")
	}
}
