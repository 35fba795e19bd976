package e2e_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/ocpgen/ocpgen/internal/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/e2e/notesocp"
	"github.com/ocpgen/ocpgen/e2e/notesserver"
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
)

var (
	notesOnce sync.Once
	notesBin  string
	notesErr  error
)

// notesServerBin returns the path of the note store's stdio server
// binary, built once per run.
func notesServerBin(t *testing.T) string {
	t.Helper()
	return buildOnce(t, &notesOnce, &notesBin, &notesErr, "github.com/ocpgen/ocpgen/e2e/notesserver/cmd/notes-server", "notes-server")
}

// TestGoServersOfEachRevision fronts the go-sdk note store speaking only
// one MCP revision, the current (2026-07-28) or the previous one
// (2025-11-25), over stdio (its own process) and over Streamable HTTP
// (stateless for the current revision, which has no sessions; stateful
// for the previous one): each time the Hub speaks the server's revision,
// says so in the audit log and SyncInfo, serves a read, and holds a write
// until a peer approves it.
func TestGoServersOfEachRevision(t *testing.T) {
	endToEnd(t)
	bin := notesServerBin(t)
	defer goleak.VerifyNone(t)
	for _, revision := range []string{ocp.ProtocolVersion, ocp.LegacyProtocolVersion} {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(revision+"/"+transport, func(t *testing.T) {
				var (
					dial  func(context.Context) (mcp.Transport, error)
					store *notesserver.Store // in-process only
				)
				switch transport {
				case "stdio":
					dial = func(context.Context) (mcp.Transport, error) {
						return &mcp.CommandTransport{Command: exec.Command(bin, "-protocol", revision)}, nil
					}
				case "http":
					var srv *mcp.Server
					srv, store = notesserver.New(revision)
					hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
						&mcp.StreamableHTTPOptions{Stateless: revision == ocp.ProtocolVersion}))
					defer hs.Close()
					hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
					defer hc.CloseIdleConnections()
					dial = func(context.Context) (mcp.Transport, error) {
						return &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc}, nil
					}
				}
				revisionRoundTrip(t, revision, dial, store)
			})
		}
	}
}

// syncRecorder is an ocp.Observer that keeps what it is told of syncs.
type syncRecorder struct {
	mu    sync.Mutex
	syncs []ocp.SyncInfo
}

func (s *syncRecorder) StartCall(ctx context.Context, _ ocp.CallInfo) (context.Context, ocp.CallObserver) {
	return ctx, nil
}

func (s *syncRecorder) Synced(i ocp.SyncInfo) {
	s.mu.Lock()
	s.syncs = append(s.syncs, i)
	s.mu.Unlock()
}

func (s *syncRecorder) last() ocp.SyncInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.syncs) == 0 {
		return ocp.SyncInfo{}
	}
	return s.syncs[len(s.syncs)-1]
}

// revisionRoundTrip dials the note store, checks the revision spoken, and
// makes a read and an approved write through a gate.
func revisionRoundTrip(t *testing.T, revision string, dial func(context.Context) (mcp.Transport, error), store *notesserver.Store) {
	t.Helper()
	ctx := context.Background()
	audit := &syncbuf.Buffer{}
	logger := slog.New(slog.NewJSONHandler(audit, nil))
	client, err := ocp.Dial(ctx, dial, ocp.ClientOptions{Audit: logger})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer client.Close()
	t.Logf("the note store speaking only %s: negotiated MCP revision %s", revision, client.ProtocolVersion())
	if got := client.ProtocolVersion(); got != revision {
		t.Fatalf("negotiated %s, want %s", got, revision)
	}
	broker := ocp.NewMemoryBroker()
	confirms := watchConfirms(t, broker)
	obs := &syncRecorder{}
	g, err := ocp.NewGate(ocp.Config{Catalogue: notesocp.Catalogue, Server: client, ACL: ocp.AllowAllResources, Broker: broker, Audit: logger, Observer: obs})
	if err != nil {
		t.Fatalf("NewGate: %v", err)
	}
	if got := obs.last(); got.Protocol != revision || got.Advertised != 2 {
		t.Errorf("SyncInfo %+v, want the two tools under %s", got, revision)
	}
	var connected bool
	for _, line := range splitLines(audit.String()) {
		if jsonField(line, "msg") == "mcp connected" && jsonField(line, "protocol") == revision {
			connected = true
		}
	}
	if !connected {
		t.Errorf("no audit event \"mcp connected\" with protocol %s:\n%s", revision, audit.String())
	}

	user := ocp.Principal{ID: "ann", Tier: "member", Scopes: []string{"notes.read", "notes.write"}, Peer: "model"}
	phone := ocp.Principal{ID: "ann", Tier: "member", Scopes: []string{"notes.read", "notes.write"}, Peer: "phone"}
	pending := async(func() ocp.ActionResult {
		return g.Call(ctx, user, notesocp.AddNoteArgs{Title: "plan", Body: "ship " + revision})
	})
	req := confirms.next(t, pending)
	if err := g.Resolve(ctx, phone, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); err != nil {
		t.Fatalf("approve: %v", err)
	}
	mustOK(t, "add_note", await(t, pending))
	got := decode[notesocp.ReadGraphResult](t, "read_graph", mustOK(t, "read_graph", g.Call(ctx, user, notesocp.ReadGraphArgs{})))
	if len(got.Notes) != 1 || got.Notes[0].Title != "plan" || got.Notes[0].Body != "ship "+revision {
		t.Errorf("read_graph after the write: %+v", got)
	}
	if store != nil {
		if n := store.Notes(); len(n) != 1 {
			t.Errorf("the server stored %+v, want the one note", n)
		}
	}
}

// splitLines returns the non-empty lines of s.
func splitLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// jsonField is the string field k of the JSON object line ("" if none).
func jsonField(line, k string) string {
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		return ""
	}
	s, _ := m[k].(string)
	return s
}
