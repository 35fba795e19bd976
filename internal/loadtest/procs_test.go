package loadtest

// The child processes of TestLoad: the test binary re-executed with
// roleEnv set, as a Hub replica or as the MCP server. Each prints
// "READY <host:port>" on stdout once it serves, and exits when its stdin
// closes (the parent ended) or when it is killed.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/ocpgen/ocpgen/examples/tickets/server"
	"github.com/ocpgen/ocpgen/examples/tickets/ticketsocp"
	"github.com/ocpgen/ocpgen/redisbroker"
	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// Environment of a child process.
const (
	roleEnv   = "OCPGEN_LOADTEST_ROLE" // "replica" or "server"
	redisEnv  = "OCPGEN_LOADTEST_REDIS"
	mcpEnv    = "OCPGEN_LOADTEST_MCP"
	prefixEnv = "OCPGEN_LOADTEST_PREFIX"
	leaseEnv  = "OCPGEN_LOADTEST_LEASE"
	// revisionEnv is the MCP revision of the run: ocp.ProtocolVersion
	// (the server is stateless: no session, any replica's request served
	// alike) or ocp.LegacyProtocolVersion (stateful, a session each).
	revisionEnv = "OCPGEN_LOADTEST_REVISION"
)

// runChild runs the child process roleEnv names and returns its exit code.
func runChild(role string) int {
	redis.SetLogger(quietLogger{})
	var err error
	switch role {
	case "replica":
		err = runReplica()
	case "server":
		err = runServer()
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest child:", err)
		return 1
	}
	return 0
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// serve serves h on a loopback port, says READY, and returns when stdin
// closes.
func serve(h http.Handler) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: time.Minute}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("READY %s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// The MCP server process: the example's ticket desk over Streamable HTTP at
// /mcp, and its ledger at /ledger.

// execLedger counts the tools/call requests the server received, by tool
// and by the argument that names a write uniquely (create_ticket's title,
// escalate_ticket's and close_ticket's id). It is the load test's ground
// truth: a call counted here reached the server, and may have run.
type execLedger struct {
	mu     sync.Mutex
	writes map[string]int // "tool key" → calls received
	reads  map[string]int // tool → calls received
	// sessions counts the HTTP requests that named an MCP session
	// (Mcp-Session-Id); revisions counts the POSTs by their
	// Mcp-Protocol-Version ("" for none: an initialize).
	sessions  int
	revisions map[string]int
}

// ledgerDump is /ledger's answer.
type ledgerDump struct {
	Writes    map[string]int `json:"writes"`
	Reads     map[string]int `json:"reads"`
	Sessions  int            `json:"sessions"`
	Revisions map[string]int `json:"revisions"`
}

// countHTTP counts the requests to h in the ledger (sessions, revisions).
func (l *execLedger) countHTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		if r.Header.Get("Mcp-Session-Id") != "" {
			l.sessions++
		}
		if r.Method == http.MethodPost {
			l.revisions[r.Header.Get("Mcp-Protocol-Version")]++
		}
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// writeKey is the ledger's key of a write: its tool and the argument that
// is unique per write; ok is false for a read.
func writeKey(tool string, args json.RawMessage) (key string, ok bool) {
	var a struct {
		Title string `json:"title"`
		ID    string `json:"id"`
	}
	_ = json.Unmarshal(args, &a)
	switch tool {
	case "create_ticket":
		return tool + " " + a.Title, true
	case "close_ticket", "escalate_ticket":
		return tool + " " + a.ID, true
	}
	return "", false
}

func (l *execLedger) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if ctr, ok := req.(*mcp.CallToolRequest); ok && method == "tools/call" && ctr.Params != nil {
			l.mu.Lock()
			if key, write := writeKey(ctr.Params.Name, ctr.Params.Arguments); write {
				l.writes[key]++
			} else {
				l.reads[ctr.Params.Name]++
			}
			l.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

func runServer() error {
	led := &execLedger{writes: map[string]int{}, reads: map[string]int{}, revisions: map[string]int{}}
	s := server.New(server.NewDesk())
	s.AddReceivingMiddleware(led.middleware)
	mux := http.NewServeMux()
	stateless := os.Getenv(revisionEnv) == ocp.ProtocolVersion
	mux.Handle("/mcp", led.countHTTP(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})))
	mux.HandleFunc("/ledger", func(w http.ResponseWriter, r *http.Request) {
		led.mu.Lock()
		defer led.mu.Unlock()
		writeJSON(w, ledgerDump{Writes: led.writes, Reads: led.reads, Sessions: led.sessions, Revisions: led.revisions})
	})
	return serve(mux)
}

// The replica process: a Gate on the cluster broker, fronting the MCP
// server, served as a small HTTP/JSON API (the model's and the peers'
// connections of a real Hub, reduced to what the test drives).

// dispatchIn is /dispatch's request: an action.request for Principal. Call
// names it for /withdraw.
type dispatchIn struct {
	Call      string            `json:"call"`
	Principal ocp.Principal     `json:"principal"`
	Request   ocp.ActionRequest `json:"request"`
}

// dispatchOut is /dispatch's answer: the result and how long Gate.Dispatch
// took in the replica.
type dispatchOut struct {
	Result ocp.ActionResult `json:"result"`
	Nanos  int64            `json:"nanos"`
}

// rawIn and rawOut are /raw's: a tools/call straight to the server, on a
// session of the replica's own, beside the gate.
type rawIn struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

type rawOut struct {
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
	Nanos int64  `json:"nanos"`
}

// resolveIn is /resolve's request; resolveOut says which of the gate's
// fixed errors it returned ("" for none).
type resolveIn struct {
	Principal ocp.Principal       `json:"principal"`
	Decision  ocp.ConfirmDecision `json:"decision"`
}

type resolveOut struct {
	Err string `json:"err,omitempty"`
}

// pendingOut is /pending's answer.
type pendingOut struct {
	Confirms []ocp.ConfirmRequest `json:"confirms"`
	Err      string               `json:"err,omitempty"`
}

// memOut is /mem's answer, after two garbage collections.
type memOut struct {
	HeapAlloc  uint64 `json:"heap_alloc"`
	StackInuse uint64 `json:"stack_inuse"`
	Goroutines int    `json:"goroutines"`
}

// errClass names the gate's fixed Resolve errors.
func errClass(err error) string {
	for _, c := range []struct {
		err  error
		name string
	}{
		{ocp.ErrConfirmNotPending, "not_pending"},
		{ocp.ErrConfirmExpired, "expired"},
		{ocp.ErrConfirmSelf, "self"},
		{ocp.ErrConfirmDigest, "digest"},
		{ocp.ErrConfirmForbidden, "forbidden"},
		{ocp.ErrConfirmUnavailable, "unavailable"},
	} {
		if errors.Is(err, c.err) {
			return c.name
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return ""
}

func runReplica() error {
	lease, err := time.ParseDuration(os.Getenv(leaseEnv))
	if err != nil {
		return fmt.Errorf("%s: %w", leaseEnv, err)
	}
	endpoint := os.Getenv(mcpEnv)
	// A short ClusterStateReloadInterval, or the client keeps dialling a
	// failed master for a minute (see internal/redistest).
	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                      strings.Split(os.Getenv(redisEnv), ","),
		ClusterStateReloadInterval: time.Second,
		MaxRedirects:               16,
		PoolSize:                   256, // a burst of 1,000 registrations waits for no connection
	})
	defer rdb.Close()
	br, err := redisbroker.New(rdb, redisbroker.Options{Prefix: os.Getenv(prefixEnv), Lease: lease, OpTimeout: 5 * time.Second})
	if err != nil {
		return err
	}
	defer br.Close()

	ctx := context.Background()
	dial := func(context.Context) (mcp.Transport, error) {
		return &mcp.StreamableClientTransport{Endpoint: endpoint}, nil
	}
	client, err := ocp.Dial(ctx, dial, ocp.ClientOptions{Name: "loadtest-hub"})
	if err != nil {
		return fmt.Errorf("dial the MCP server: %w", err)
	}
	defer client.Close()
	if got, want := client.ProtocolVersion(), os.Getenv(revisionEnv); got != want {
		return fmt.Errorf("the gate's client speaks MCP %s to the server, want %s", got, want)
	}
	raw, err := mcp.NewClient(&mcp.Implementation{Name: "loadtest-raw", Version: "0"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		return fmt.Errorf("raw session: %w", err)
	}
	defer raw.Close()

	advertised := make(chan struct{})
	var once sync.Once
	gate, err := ocp.NewGate(ocp.Config{
		Catalogue: ticketsocp.Catalogue,
		Server:    client,
		ACL:       ocp.AllowAllResources,
		Broker:    br,
		Audit:     slog.New(slog.DiscardHandler),
		Advertise: func(a ocp.ToolsAdvertise) {
			if len(a.Tools) == len(ticketsocp.Catalogue.Tools()) {
				once.Do(func() { close(advertised) })
			}
		},
	})
	if err != nil {
		return err
	}
	select {
	case <-advertised:
	case <-time.After(time.Minute):
		return errors.New("the gate never advertised the ticket desk's tools")
	}

	var mu sync.Mutex
	calls := map[string]context.CancelFunc{} // in-flight dispatches, for /withdraw
	mux := http.NewServeMux()
	mux.HandleFunc("/dispatch", func(w http.ResponseWriter, r *http.Request) {
		var in dispatchIn
		if !readJSON(w, r, &in) {
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		mu.Lock()
		calls[in.Call] = cancel
		mu.Unlock()
		t0 := time.Now()
		res := gate.Dispatch(ctx, in.Principal, in.Request)
		d := time.Since(t0)
		mu.Lock()
		delete(calls, in.Call)
		mu.Unlock()
		writeJSON(w, dispatchOut{Result: res, Nanos: d.Nanoseconds()})
	})
	mux.HandleFunc("/withdraw", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Call string }
		if !readJSON(w, r, &in) {
			return
		}
		mu.Lock()
		cancel := calls[in.Call]
		mu.Unlock()
		if cancel != nil {
			cancel()
		}
		writeJSON(w, struct{ Found bool }{cancel != nil})
	})
	mux.HandleFunc("/raw", func(w http.ResponseWriter, r *http.Request) {
		var in rawIn
		if !readJSON(w, r, &in) {
			return
		}
		t0 := time.Now()
		res, err := raw.CallTool(r.Context(), &mcp.CallToolParams{Name: in.Tool, Arguments: in.Args})
		d := time.Since(t0)
		out := rawOut{OK: err == nil && !res.IsError, Nanos: d.Nanoseconds()}
		if err != nil {
			out.Error = err.Error()
		} else if res.IsError {
			out.Error = "tool error"
		}
		writeJSON(w, out)
	})
	mux.HandleFunc("/resolve", func(w http.ResponseWriter, r *http.Request) {
		var in resolveIn
		if !readJSON(w, r, &in) {
			return
		}
		writeJSON(w, resolveOut{Err: errClass(gate.Resolve(r.Context(), in.Principal, in.Decision))})
	})
	mux.HandleFunc("/pending", func(w http.ResponseWriter, r *http.Request) {
		p, err := gate.Pending(r.Context())
		out := pendingOut{Confirms: p}
		if err != nil {
			out.Err = errClass(err)
		}
		writeJSON(w, out)
	})
	// /events streams the confirms opened on any replica, one JSON
	// ConfirmRequest a line, as a peer's connection would receive them. A
	// reader that falls behind misses some; it catches up with /pending.
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		fl, _ := w.(http.Flusher)
		ch := make(chan ocp.ConfirmRequest, 8192)
		stop := gate.Subscribe(func(r ocp.ConfirmRequest) {
			select {
			case ch <- r:
			default:
			}
		}, nil)
		defer stop()
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, "{}\n") // subscribed
		if fl != nil {
			fl.Flush()
		}
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		for {
			select {
			case <-r.Context().Done():
				return
			case c := <-ch:
				if enc.Encode(c) != nil {
					return
				}
				if len(ch) == 0 {
					if bw.Flush() != nil {
						return
					}
					if fl != nil {
						fl.Flush()
					}
				}
			}
		}
	})
	mux.HandleFunc("/mem", func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		writeJSON(w, memOut{HeapAlloc: ms.HeapAlloc, StackInuse: ms.StackInuse, Goroutines: runtime.NumGoroutine()})
	})
	return serve(mux)
}

func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
