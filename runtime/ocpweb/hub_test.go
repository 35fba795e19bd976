package ocpweb

//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen generate -snapshot testdata/records.tools.json -classify testdata/records.ocp.yaml -package recordsocp -out internal/recordsocp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/internal/syncbuf"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/ocpgen/ocpgen/internal/browsertest"
	"github.com/ocpgen/ocpgen/ocpgentest"
	"github.com/ocpgen/ocpgen/runtime/ocp"
	"github.com/ocpgen/ocpgen/runtime/ocpweb/internal/recordsocp"
)

// TestMain closes the browser after the tests, and fails the package when
// its tests pass but leave a goroutine running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(browsertest.Main(m)) }

// waitFor bounds every wait of the tests: its failure says what it waited
// for.
const waitFor = 30 * time.Second

// The principals. The model asks for alice's writes on its own channel;
// alice approves in a browser (another channel). guest may not make
// alice's writes, so may not see or decide them.
var (
	alice    = ocp.Principal{ID: "alice", Tier: "member", Scopes: []string{"records.write"}, Peer: "model-alice"}
	aliceWeb = ocp.Principal{ID: "alice", Tier: "member", Scopes: []string{"records.write"}, Peer: "web-alice"}
	guestWeb = ocp.Principal{ID: "guest", Tier: "visitor", Peer: "web-guest"}
)

// signIn is the test Hub's authentication of a browser: the cookie "who".
// "model" is the model's own credential, which is no person's sign-in;
// "model-peer" is a Hub that wrongly gives a browser the model's channel.
func signIn(r *http.Request) (ocp.Principal, error) {
	c, err := r.Cookie("who")
	if err != nil {
		return ocp.Principal{}, errors.New("not signed in")
	}
	switch c.Value {
	case "alice":
		return aliceWeb, nil
	case "guest":
		return guestWeb, nil
	case "model-peer":
		return alice, nil
	case "no-peer":
		p := aliceWeb
		p.Peer = ""
		return p, nil
	}
	return ocp.Principal{}, fmt.Errorf("%q is not a person's sign-in", c.Value)
}

// hubAPI is what the tests use of a Hub: a Gate of NewGate or of NewMux.
type hubAPI interface {
	Confirms
	Dispatch(ctx context.Context, p ocp.Principal, req ocp.ActionRequest) ocp.ActionResult
}

// testHub is a Hub fronting the records server (a spy that keeps the exact
// arguments of every call) through a gate, or a Mux of that one server,
// with the page at /confirms/.
type testHub struct {
	gate  hubAPI
	web   *handler
	srv   *httptest.Server
	page  string // the page's URL
	audit *syncbuf.Buffer

	mu    sync.Mutex
	calls []call
	got   chan struct{} // a call arrived
	wg    sync.WaitGroup
}

// newHub starts a test Hub with a gate; mod may change the page's options.
func newHub(t *testing.T, mod func(*Options)) *testHub {
	t.Helper()
	return startHub(t, mod, false)
}

// startHub starts a test Hub, with a Mux (server "records") if mux.
func startHub(t *testing.T, mod func(*Options), mux bool) *testHub {
	t.Helper()
	h := &testHub{audit: &syncbuf.Buffer{}, got: make(chan struct{}, 64)}

	snap, err := os.ReadFile("testdata/records.tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var tools struct {
		Tools []*mcp.Tool `json:"tools"`
	}
	if err := json.Unmarshal(snap, &tools); err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "records", Version: "1.0.0"}, nil)
	for _, tool := range tools.Tools {
		server.AddTool(tool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			h.mu.Lock()
			h.calls = append(h.calls, call{req.Params.Name, bytes.Clone(req.Params.Arguments)})
			h.mu.Unlock()
			h.got <- struct{}{}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "stored"}}}, nil
		})
	}
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := server.Connect(context.Background(), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	audit := slog.New(slog.NewJSONHandler(h.audit, nil))
	client, err := ocp.Dial(t.Context(), func(context.Context) (mcp.Transport, error) { return clientT, nil }, ocp.ClientOptions{Audit: audit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	adv := make(chan ocp.ToolsAdvertise, 4)
	cfg := ocp.Config{
		Catalogue: recordsocp.Catalogue,
		Server:    client,
		ACL:       ocp.AllowAllResources,
		Audit:     audit,
	}
	if mux {
		h.gate, err = ocp.NewMux(ocp.MuxConfig{
			Servers:   []ocp.MuxServer{{Name: "records", Config: cfg}},
			Broker:    ocp.NewMemoryBroker(),
			Advertise: func(a ocp.ToolsAdvertise) { adv <- a },
			Audit:     audit,
		})
	} else {
		cfg.Broker = ocp.NewMemoryBroker()
		cfg.Advertise = func(a ocp.ToolsAdvertise) { adv <- a }
		h.gate, err = ocp.NewGate(cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-adv:
		if len(a.Tools) != 2 {
			t.Fatalf("advertised %+v", a)
		}
	case <-time.After(waitFor):
		t.Fatal("timed out waiting for the gate's first advertisement")
	}

	opt := Options{Principal: signIn, Audit: audit}
	if mod != nil {
		mod(&opt)
	}
	page, err := Handler(h.gate, opt)
	if err != nil {
		t.Fatal(err)
	}
	h.web = page.(*handler)
	routes := http.NewServeMux()
	routes.Handle("/confirms/", http.StripPrefix("/confirms", page))
	h.srv = httptest.NewServer(routes)
	t.Cleanup(h.srv.Close)
	h.page = h.srv.URL + "/confirms/"
	t.Cleanup(h.wg.Wait) // every write asked for has returned (after the server closed its streams)
	return h
}

// write is a write the model asked for, waiting on its confirm.
type write struct {
	req    ocp.ConfirmRequest
	result chan ocp.ActionResult
}

// ask makes the model ask for put_record with args, and returns once its
// confirm is pending. The call is cancelled when the test ends.
func (h *testHub) ask(t *testing.T, args string) *write {
	t.Helper()
	return h.askFor(t, "put_record", args)
}

// askFor is ask for the tool.
func (h *testHub) askFor(t *testing.T, tool, args string) *write {
	t.Helper()
	opened := make(chan ocp.ConfirmRequest, 1)
	stop := h.gate.Subscribe(func(r ocp.ConfirmRequest) {
		select {
		case opened <- r:
		default:
		}
	}, nil)
	defer stop()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w := &write{result: make(chan ocp.ActionResult, 1)}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		w.result <- h.gate.Dispatch(ctx, alice, ocp.ActionRequest{ID: "r", Tool: tool, Args: json.RawMessage(args)})
	}()
	select {
	case w.req = <-opened:
	case res := <-w.result:
		t.Fatalf("the write did not wait for a confirm: %+v", res)
	case <-time.After(waitFor):
		t.Fatal("timed out waiting for the write's confirm to open")
	}
	return w
}

// await returns the write's result.
func (w *write) await(t *testing.T) ocp.ActionResult {
	t.Helper()
	select {
	case r := <-w.result:
		return r
	case <-time.After(waitFor):
		t.Fatalf("timed out waiting for the result of the write %s", w.req.ID)
		return ocp.ActionResult{}
	}
}

// pending reports whether the confirm id is still pending.
func (h *testHub) pending(t *testing.T, id string) bool {
	t.Helper()
	ps, err := h.gate.Pending(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

// call is a call the server received: the tool and the exact bytes of its
// arguments.
type call struct {
	Tool string
	Args json.RawMessage
}

// received returns every call the server received.
func (h *testHub) received() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]call(nil), h.calls...)
}

// TestRecordsBridgeIsCurrent: the test server's bridge is what ocpgen
// generates from its snapshot and classification (go generate rewrites it).
func TestRecordsBridgeIsCurrent(t *testing.T) {
	ocpgentest.Check(t, "testdata/records.tools.json", "testdata/records.ocp.yaml", "internal/recordsocp", ocpgentest.Strict())
}
