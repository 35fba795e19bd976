package ocp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/impl"
	"github.com/ocpgen/ocpgen/internal/testwait"
)

// rawSpy is an MCP server written by hand, which lists its tools exactly as
// given (raw JSON objects, members the go-sdk's mcp.Tool does not have
// included), two a page, and answers a tools/call with "ok". It speaks over
// Streamable HTTP (each answer as JSON or as an event stream) or over a
// pipe (newline-delimited JSON, as stdio).
type rawSpy struct {
	mu    sync.Mutex
	tools []string // raw tool objects
}

func (s *rawSpy) setTools(tools ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = tools
}

// answer returns the response to one JSON-RPC message (nil for a
// notification).
func (s *rawSpy) answer(msg []byte) []byte {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Cursor string `json:"cursor"`
			Name   string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.ID == nil {
		return nil
	}
	var result string
	switch m.Method {
	case "initialize":
		result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"raw-spy","version":"1"}}`
	case "tools/list":
		s.mu.Lock()
		start, _ := strconv.Atoi(m.Params.Cursor)
		end := min(start+2, len(s.tools))
		page := `{"tools":[` + strings.Join(s.tools[start:end], ",") + `]`
		if end < len(s.tools) {
			page += `,"nextCursor":"` + strconv.Itoa(end) + `"`
		}
		s.mu.Unlock()
		result = page + "}"
	case "tools/call":
		result = `{"content":[{"type":"text","text":"ok"}]}`
	default:
		result = `{}`
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`)
}

// http serves s over Streamable HTTP, each answer as an event stream when
// sse is set, else as JSON.
func (s *rawSpy) http(t *testing.T, sse bool) mcp.Transport {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		resp := s.answer(body)
		switch {
		case resp == nil:
			w.WriteHeader(http.StatusAccepted)
		case sse:
			w.Header().Set("Content-Type", "text/event-stream")
			// What an event stream may carry before the answer, each of
			// which the go-sdk passes over: a comment, a notification, an
			// event of another name and a response to another id, both
			// listing no tools. Then the answer, its data split over two
			// lines. Lines end in CRLF.
			id := resp[strings.Index(string(resp), `"id":`)+len(`"id":`) : strings.Index(string(resp), `,"result":`)]
			fmt.Fprintf(w, ": a comment\r\n\r\n")
			fmt.Fprintf(w, "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\r\n\r\n")
			fmt.Fprintf(w, "event: decoy\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"tools\":[]}}\r\n\r\n", id)
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":\"not-%s\",\"result\":{\"tools\":[]}}\r\n\r\n", id)
			i := strings.Index(string(resp), `"result":`) + len(`"result":`) // between two tokens
			fmt.Fprintf(w, "event: message\r\ndata: %s\r\ndata:%s\r\n\r\n", resp[:i], resp[i:])
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(resp)
		}
	}))
	t.Cleanup(ts.Close)
	return &mcp.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}
}

// pipe serves s over a pair of pipes, as a stdio server does.
func (s *rawSpy) pipe(t *testing.T) mcp.Transport {
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(sr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if resp := s.answer(sc.Bytes()); resp != nil {
				if _, err := sw.Write(append(resp, '\n')); err != nil {
					return
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = sr.Close()
		_ = sw.Close()
		testwait.Closed(t, done, "the pipe spy to stop")
	})
	return &mcp.IOTransport{Reader: cr, Writer: cw}
}

// rawTransports are the ways the tests reach a raw spy.
var rawTransports = []struct {
	name string
	dial func(*rawSpy, *testing.T) mcp.Transport
}{
	{"stdio", (*rawSpy).pipe},
	{"http-json", func(s *rawSpy, t *testing.T) mcp.Transport { return s.http(t, false) }},
	{"http-sse", func(s *rawSpy, t *testing.T) mcp.Transport { return s.http(t, true) }},
}

// The Client reads what the go-sdk's mcp.Tool drops from the raw listing,
// over every transport, on every page: each tool's execution.taskSupport;
// and passes the icons, _meta and annotations.title it lists.
func TestClientListsWhatTheSDKDrops(t *testing.T) {
	const schema = `"inputSchema":{"type":"object"}`
	for _, tr := range rawTransports {
		t.Run(tr.name, func(t *testing.T) {
			s := &rawSpy{}
			s.setTools(
				`{"name":"a",`+schema+`,"execution":{"taskSupport":"forbidden"},"annotations":{"title":"A tool"}}`,
				`{"name":"b",`+schema+`,"icons":[{"src":"https://x/b.png","sizes":["48x48"],"extra":1}],"_meta":{"k":[1,2.5]}}`,
				`{"name":"c",`+schema+`,"execution":{"taskSupport":"required"}}`,
				`{"name":"d",`+schema+`,"execution":"soon"}`,
				`{"name":"e",`+schema+`,"execution":{"taskSupport":7}}`,
			)
			syncs := newSyncSpy()
			c, err := Connect(t.Context(), tr.dial(s, t), ClientOptions{RelistEvery: -1})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			if err := c.WatchTools(syncs.SyncCatalogue); err != nil {
				t.Fatal(err)
			}
			live := syncs.until(t, "a", "b", "c", "d", "e")
			got := map[string]string{}
			for _, lt := range live {
				got[lt.Tool.Name] = lt.TaskSupport
			}
			want := map[string]string{"a": "forbidden", "b": "", "c": "required", "d": "(execution is not an object)", "e": "(taskSupport is not a string)"}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("task support = %v, want %v", got, want)
			}
			b := live[slices.IndexFunc(live, func(lt LiveTool) bool { return lt.Tool.Name == "b" })].Tool
			icons, _ := impl.IconsFingerprint([]byte(`[{"src":"https://x/b.png","sizes":["48x48"]}]`))
			meta, _ := impl.MetaFingerprint([]byte(`{"k":[1,2.5]}`))
			if liveFingerprint(impl.IconsFingerprint, b.Icons, len(b.Icons)) != icons || liveFingerprint(impl.MetaFingerprint, b.Meta, len(b.Meta)) != meta || icons == "" || meta == "" {
				t.Errorf("b: icons %v, _meta %v", b.Icons, b.Meta)
			}
			if a := live[0].Tool; a.Name != "a" || a.Annotations == nil || a.Annotations.Title != "A tool" {
				t.Errorf("a: %+v", a)
			}

			// a now needs a task: the next listing says so.
			s.setTools(`{"name":"a",` + schema + `,"execution":{"taskSupport":"required"}}`)
			if err := c.Resync(t.Context()); err != nil {
				t.Fatal(err)
			}
			if live := syncs.until(t, "a"); live[0].TaskSupport != "required" {
				t.Errorf("after the change: %+v", live[0])
			}
		})
	}
}

// execLister makes a go-sdk server list each tool with the
// execution.taskSupport set for it, which mcp.Tool cannot carry.
type execLister struct {
	mu sync.Mutex
	ts map[string]string
}

func (e *execLister) set(name, taskSupport string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ts[name] = taskSupport
}

// middleware is the server's receiving middleware: it wraps every
// tools/list result.
func (e *execLister) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
			e.mu.Lock()
			defer e.mu.Unlock()
			return &listedWithExecution{ListToolsResult: lr, ts: maps.Clone(e.ts)}, nil
		}
		return res, err
	}
}

// listedWithExecution is a tools/list result marshalled with each tool's
// execution.
type listedWithExecution struct {
	*mcp.ListToolsResult
	ts map[string]string
}

func (l *listedWithExecution) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(l.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, t := range m["tools"].([]any) {
		tool := t.(map[string]any)
		if ts := l.ts[tool["name"].(string)]; ts != "" {
			tool["execution"] = map[string]string{"taskSupport": ts}
		}
	}
	return json.Marshal(m)
}

// A tool that comes to need a task after generation is withdrawn at the
// next sync, under both revisions, over an in-memory transport, stdio and
// Streamable HTTP, each server a go-sdk server: the write waiting for its
// confirm is denied (the catalogue changed), the next call of it is
// unknown, and the server is never called; the sync audits it as
// task_required_withdrawn and its execution as drift.
func TestTaskRequiredAfterGenerationIsWithdrawn(t *testing.T) {
	d := RegionMove.Desc.Clone()
	d.TaskSupport = impl.TaskForbidden
	d.Description = "" // as the spy server lists it
	cat := NewCatalogue(testTiers, &Tool{Args: (*RegionMoveArgs)(nil), Desc: *d})
	for _, rev := range revisions {
		for _, tr := range append([]string{"inmemory"}, transports...) {
			rc := revisionCase{rev, tr}
			t.Run(rc.String(), func(t *testing.T) {
				e := &execLister{ts: map[string]string{d.Name: impl.TaskForbidden}}
				var dial func(context.Context) (mcp.Transport, error)
				var calls func() []spyCall
				if tr == "inmemory" {
					s := &spy{Server: mcp.NewServer(&mcp.Implementation{Name: "exec", Version: "1"}, onlyRevision(rev, nil))}
					s.Server.AddReceivingMiddleware(e.middleware)
					s.AddTool(spyToolOf(RegionMove, ""))
					dial = func(ctx context.Context) (mcp.Transport, error) {
						ct, st := mcp.NewInMemoryTransports()
						ss, err := s.Server.Connect(ctx, st, nil)
						if err == nil {
							t.Cleanup(func() { _ = ss.Close() })
						}
						return ct, err
					}
					calls = s.Calls
				} else {
					w, wdial := startWireSpy(t, rc, nil, spyToolOf(RegionMove, ""))
					w.Server.AddReceivingMiddleware(e.middleware)
					dial, calls = wdial, w.Calls
				}
				audit := &syncBuffer{}
				client, err := Dial(t.Context(), dial, ClientOptions{RelistEvery: -1})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = client.Close() })
				if v := client.ProtocolVersion(); v != rev {
					t.Fatalf("the session speaks %s, want %s", v, rev)
				}
				broker, obs := newMemoryBroker(), &recObserver{}
				g, err := NewGate(Config{Catalogue: cat, Server: client, ACL: AllowAllResources, Broker: broker,
					Audit: slog.New(slog.NewJSONHandler(audit, nil)), Observer: obs})
				if err != nil {
					t.Fatal(err)
				}
				if names := advertisedNames(g); !slices.Equal(names, []string{d.Name}) {
					t.Fatalf("advertised %v", names)
				}
				if e := audit.events(t, auditSync); len(e) != 1 || fmt.Sprint(e[0]["drift_audited"]) != "[]" {
					t.Fatalf("first sync: %v", e)
				}
				opened := make(chan ConfirmRequest, 1)
				defer broker.Subscribe(func(r ConfirmRequest) { opened <- r })()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				res := make(chan ActionResult, 1)
				args := json.RawMessage(`{"region":"eu","to":"us"}`)
				go func() { res <- g.Dispatch(ctx, alice, ActionRequest{ID: "w", Tool: d.Name, Args: args}) }()
				awaitConfirm(t, opened, res)

				e.set(d.Name, impl.TaskRequired)
				if err := client.Resync(t.Context()); err != nil {
					t.Fatal(err)
				}
				if names := advertisedNames(g); len(names) != 0 {
					cancel() // nothing denies the pending write: end its wait
					awaitResult(t, res)
					t.Fatalf("advertised %v after the tool came to need a task", names)
				}
				if r := awaitResult(t, res); r.OK || r.Reason != ReasonDenied || r.Error != textCatalogue {
					t.Errorf("the pending write: %+v, want denied as the catalogue changed", r)
				}
				wantRefused(t, g.Dispatch(context.Background(), alice, ActionRequest{ID: "w2", Tool: d.Name, Args: args}), ReasonUnknown)
				ev := audit.events(t, auditSync)
				if last := ev[len(ev)-1]; fmt.Sprint(last["task_required_withdrawn"]) != "["+d.Name+"]" || fmt.Sprint(last["drift_audited"]) != "["+d.Name+": execution]" {
					t.Errorf("sync event %v", last)
				}
				obs.mu.Lock()
				last := obs.syncs[len(obs.syncs)-1]
				obs.mu.Unlock()
				if last.TaskRequired != 1 || last.Withdrawn != 0 || last.Drift != 1 || last.Advertised != 0 {
					t.Errorf("the observer was told %+v, want one tool withdrawn as it needs a task", last)
				}
				if c := calls(); len(c) != 0 {
					t.Errorf("the server was called: %+v", c)
				}
			})
		}
	}
}

// What the tap keeps of the HTTP responses to one tools/list request is
// bounded by maxRawList: beyond it the bytes are dropped and the listing
// fails, saying why; after the listing took its result, nothing more is
// kept.
func TestRawListIsBounded(t *testing.T) {
	_, rl := withRawList(t.Context())
	b := &rawBody{}
	rl.bodies = []*rawBody{b}
	body := &tapBody{ReadCloser: io.NopCloser(io.LimitReader(zeros{}, maxRawList+1)), rl: rl, b: b}
	if _, err := io.Copy(io.Discard, body); err != nil {
		t.Fatal(err)
	}
	if rl.bodies != nil || len(b.data) > maxRawList {
		t.Errorf("kept %d bytes past the bound", len(b.data))
	}
	if _, err := rl.taskSupport(); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("the listing: %v, want it refused as too large", err)
	}

	_, rl = withRawList(t.Context())
	b = &rawBody{}
	rl.bodies = []*rawBody{b}
	if _, err := rl.taskSupport(); err == nil {
		t.Error("a listing with no result seen succeeded")
	}
	body = &tapBody{ReadCloser: io.NopCloser(strings.NewReader("late")), rl: rl, b: b}
	if _, err := io.Copy(io.Discard, body); err != nil {
		t.Fatal(err)
	}
	if len(b.data) != 0 {
		t.Errorf("kept %q after the listing took its result", b.data)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
