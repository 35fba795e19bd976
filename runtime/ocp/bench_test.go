package ocp

// Benchmarks of the per-call path. See BENCHMARKS.md at the module root for
// the commands and the numbers. Every figure there is a ratio against a
// baseline measured in the same run (raw-inmem, raw-http): this machine is
// noisy, so nothing here asserts a time.

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// search_nodes: a read whose arguments hold a nested object (with an enum
// array and bounded integers), shaped like generated code.

type SearchNodesArgsFilterKindsItem string

const (
	SearchNodesArgsFilterKindsItemOrg    SearchNodesArgsFilterKindsItem = "org"
	SearchNodesArgsFilterKindsItemPerson SearchNodesArgsFilterKindsItem = "person"
	SearchNodesArgsFilterKindsItemPlace  SearchNodesArgsFilterKindsItem = "place"
)

type SearchNodesArgsFilter struct {
	Kinds    []SearchNodesArgsFilterKindsItem `json:"kinds"`
	Since    *string                          `json:"since,omitzero"`
	MinScore *float64                         `json:"minScore,omitzero"`
}

type SearchNodesArgs struct {
	Read   `json:"-"`
	Query  string                 `json:"query"`
	Limit  *int64                 `json:"limit,omitzero"`
	Filter *SearchNodesArgsFilter `json:"filter,omitzero"`
}

const searchNodesSchema = `{"type":"object","properties":{` +
	`"query":{"type":"string","minLength":1,"maxLength":200,"description":"Text to match against names, types and observations."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":100,"default":20},` +
	`"filter":{"type":"object","properties":{` +
	`"kinds":{"type":"array","items":{"type":"string","enum":["person","org","place"]},"minItems":1,"uniqueItems":true},` +
	`"since":{"type":"string","pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},` +
	`"minScore":{"type":"number","minimum":0,"maximum":1}},` +
	`"required":["kinds"],"additionalProperties":false}},` +
	`"required":["query"],"additionalProperties":false}`

var benchSearchNodes = &Tool{Args: (*SearchNodesArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "search_nodes",
	Description: "Search the knowledge graph.",
	InputSchema: searchNodesSchema,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor", Scopes: []string{"memory.read"},
		Resource: tpl("graph"), Failure: "Could not search the graph.",
	},
})}

// add_observations: a write with the same kind of arguments.

type AddObservationsArgsObservationsItem struct {
	EntityName string   `json:"entityName"`
	Contents   []string `json:"contents"`
}

type AddObservationsArgs struct {
	Write        `json:"-"`
	Observations []AddObservationsArgsObservationsItem `json:"observations"`
}

var benchAddObservations = &Tool{Args: (*AddObservationsArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "add_observations",
	Description: "Add observations to entities.",
	InputSchema: `{"type":"object","properties":{"observations":{"type":"array","items":{"type":"object","properties":{` +
		`"entityName":{"type":"string","minLength":1},"contents":{"type":"array","items":{"type":"string"}}},` +
		`"required":["entityName","contents"],"additionalProperties":false}}},"required":["observations"],"additionalProperties":false}`,
	Policy: Policy{
		Kind: ocpimpl.KindWrite, Classified: true, Tier: "member", Scopes: []string{"memory.write"},
		Resource: tpl("graph"), ConfirmPrompt: tpl("Add observations {observations}?"), ConfirmTTL: time.Minute,
	},
})}

var benchCatalogue = NewCatalogue(testTiers, benchAddObservations, benchSearchNodes)

// The arguments of every benchmarked call (the raw call sends the same bytes).
var (
	benchReadArgs  = json.RawMessage(`{"query":"Ada Lovelace","limit":10,"filter":{"kinds":["person","org"],"since":"2024-01-31","minScore":0.25}}`)
	benchWriteArgs = json.RawMessage(`{"observations":[{"entityName":"Ada Lovelace","contents":["wrote the first program","born 1815"]}]}`)
	benchPrincipal = Principal{ID: "u1", Tier: "member", Scopes: []string{"memory.read", "memory.write"}, Peer: "model"}
	benchApprover  = Principal{ID: "op", Tier: "operator", Scopes: []string{"memory.read", "memory.write"}, Peer: "phone"}
)

// benchServer is a go-sdk MCP server whose tools answer at once with a small
// text result, the same for the raw and the gated calls.
func benchServer(versions ...string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: versions})
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"entities":[{"name":"Ada Lovelace","entityType":"person"}]}`}}}
	for _, h := range benchCatalogue.Tools() {
		d := &h.Desc
		s.AddTool(&mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: json.RawMessage(d.InputSchema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil })
	}
	return s
}

// nopCaller answers every call at once, without MCP: the gate's own cost.
type nopCaller struct {
	noWatch
	res *mcp.CallToolResult
}

func (n nopCaller) CallTool(context.Context, string, json.RawMessage) (*mcp.CallToolResult, error) {
	return n.res, nil
}

// autoApprove makes a peer other than the requester approve every confirm,
// as soon as it is announced (on the requesting goroutine).
func autoApprove(g *Gate, b *memoryBroker) (stop func()) {
	return b.Subscribe(func(r ConfirmRequest) {
		_ = g.Resolve(context.Background(), benchApprover, ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest})
	})
}

// benchGate returns a synced gate over benchCatalogue with caller c and an
// auto-approving memory broker. The audit logger discards (its handler is
// disabled at every level), as a Hub that sends audit elsewhere would see
// the gate's own cost; BenchmarkCall/gate-nop-audit-json measures a real
// handler.
func benchGate(b *testing.B, c Server, audit *slog.Logger) *Gate {
	b.Helper()
	if audit == nil {
		audit = slog.New(slog.DiscardHandler)
	}
	broker := newMemoryBroker()
	g, err := NewGate(Config{Catalogue: benchCatalogue, Server: c, ACL: AllowAllResources, Broker: broker, Audit: audit})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(autoApprove(g, broker))
	g.one().syncCatalogue(liveOf(benchCatalogue))
	return g
}

func benchDispatch(b *testing.B, g *Gate, tool string, args json.RawMessage) {
	b.Helper()
	ctx := context.Background()
	req := ActionRequest{ID: "bench", Tool: tool, Args: args}
	if res := g.Dispatch(ctx, benchPrincipal, req); !res.OK {
		b.Fatalf("dispatch: %+v", res)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res := g.Dispatch(ctx, benchPrincipal, req); !res.OK {
			b.Fatalf("dispatch: %+v", res)
		}
	}
}

func benchRaw(b *testing.B, cs *mcp.ClientSession, tool string, args json.RawMessage) {
	b.Helper()
	ctx := context.Background()
	call := func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("raw call: %v %+v", err, res)
		}
	}
	call()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		call()
	}
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
}

// inmemSession connects a plain go-sdk client to a fresh bench server.
func inmemSession(b *testing.B) *mcp.ClientSession {
	b.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := benchServer().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := newClient().Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// inmemGate builds a gate over a Client connected to a fresh bench
// server.
func inmemGate(b *testing.B) *Gate {
	b.Helper()
	return benchGate(b, inmemCaller(b), nil)
}

// httpServer serves a bench server over Streamable HTTP on 127.0.0.1.
func httpServer(b *testing.B) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := benchServer()
	hs := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)}
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String()
}

func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	b.Run("raw-inmem", func(b *testing.B) {
		benchRaw(b, inmemSession(b), "search_nodes", benchReadArgs)
	})
	b.Run("gate-inmem", func(b *testing.B) {
		benchDispatch(b, inmemGate(b), "search_nodes", benchReadArgs)
	})
	b.Run("raw-http", func(b *testing.B) {
		url := httpServer(b)
		cs, err := newClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		benchRaw(b, cs, "search_nodes", benchReadArgs)
	})
	b.Run("gate-http", func(b *testing.B) {
		url := httpServer(b)
		c, err := Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, ClientOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.Close() })
		g := benchGate(b, c, nil)
		benchDispatch(b, g, "search_nodes", benchReadArgs)
	})
	b.Run("gate-write-inmem", func(b *testing.B) {
		benchDispatch(b, inmemGate(b), "add_observations", benchWriteArgs)
	})
	nop := nopCaller{res: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"entities":[{"name":"Ada Lovelace","entityType":"person"}]}`}}}}
	b.Run("gate-nop", func(b *testing.B) {
		benchDispatch(b, benchGate(b, nop, nil), "search_nodes", benchReadArgs)
	})
	b.Run("gate-write-nop", func(b *testing.B) {
		benchDispatch(b, benchGate(b, nop, nil), "add_observations", benchWriteArgs)
	})
	// The same call with the keys in another order and white space, so the
	// re-encoding differs from the bytes received and is compared as JSON.
	b.Run("gate-nop-reordered", func(b *testing.B) {
		args := json.RawMessage(`{ "filter": {"minScore": 0.25, "since": "2024-01-31", "kinds": ["person", "org"]}, "limit": 10, "query": "Ada Lovelace" }`)
		benchDispatch(b, benchGate(b, nop, nil), "search_nodes", args)
	})
	// With a real ACL hook (which the gate must hand copies).
	b.Run("gate-nop-acl", func(b *testing.B) {
		g := benchGate(b, nop, nil)
		sg := g.one()
		sg.cfg.ACL = func(_ context.Context, p Principal, _ *Descriptor, rs []string) error {
			for _, r := range rs {
				if r != "graph" {
					return errors.New("no")
				}
			}
			return nil
		}
		sg.allowsAll = false
		benchDispatch(b, g, "search_nodes", benchReadArgs)
	})
	b.Run("gate-nop-audit-json", func(b *testing.B) {
		audit := slog.New(slog.NewJSONHandler(discard{}, nil))
		benchDispatch(b, benchGate(b, nop, audit), "search_nodes", benchReadArgs)
	})
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
