package ocp

// BenchmarkWorstInput pairs the worst input of a kind with an ordinary
// request of the same size (see BENCHMARKS.md): b/a is what the worst input
// costs the gate relative to the ordinary one, measured alternately in the
// same run. Nothing here asserts a time.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ocpgen/ocpgen/internal/benchpair"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// SmallLevelArgs and HugeLevelArgs are the arguments of tools with one enum
// property; GridArgs those of a tool whose template names an array twice.
type (
	SmallLevelArgs struct {
		Write `json:"-"`
		Level string `json:"level"`
	}
	HugeLevelArgs struct {
		Write `json:"-"`
		Level string `json:"level"`
	}
	GridArgs struct {
		Write       `json:"-"`
		EntityNames []string `json:"entityNames"`
	}
)

func enumTool(name string, args any, values int) *Tool {
	vals := make([]string, values)
	for i := range vals {
		vals[i] = fmt.Sprintf("value-%06d", i)
	}
	enum, _ := json.Marshal(vals)
	return &Tool{Args: args, Desc: mustDesc(Descriptor{
		Name:        name,
		InputSchema: `{"type":"object","properties":{"level":{"type":"string","enum":` + string(enum) + `}},"required":["level"]}`,
		Policy:      Policy{Kind: ocpimpl.KindWrite, Classified: true, Tier: "member"},
	})}
}

func worstGate(b *testing.B, cat *Catalogue, respond func(string, json.RawMessage) (*mcp.CallToolResult, error), audit *slog.Logger) *Gate {
	b.Helper()
	if audit == nil {
		audit = slog.New(slog.DiscardHandler)
	}
	broker := newMemoryBroker()
	g, err := NewGate(Config{Catalogue: cat, Server: &spyCaller{respond: respond}, ACL: AllowAllResources, Broker: broker, Audit: audit})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(broker.Subscribe(func(r ConfirmRequest) {
		_ = g.Resolve(context.Background(), alicePhone, ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest})
	}))
	g.one().syncCatalogue(liveOf(cat))
	return g
}

func dispatchWant(b *testing.B, g *Gate, tool, args string, ok bool, reason Reason) func() {
	req := ActionRequest{ID: "w", Tool: tool, Args: json.RawMessage(args)}
	return func() {
		r := g.Dispatch(context.Background(), alice, req)
		if r.OK != ok || r.Reason != reason {
			b.Fatalf("%s: %+v", tool, r)
		}
	}
}

func BenchmarkWorstInput(b *testing.B) {
	// Resources: the same arguments through a template with one array
	// placeholder (a) and through one with the array twice (b): at the
	// limit the product is rendered, over it the call is refused before
	// anything is built.
	grid := DeleteEntities.Desc.Clone()
	grid.Name = "grid"
	grid.Policy.Resource = tpl("grid/{entityNames}/{entityNames}")
	gridTool := &Tool{Args: (*GridArgs)(nil), Desc: *grid}
	resCat := NewCatalogue(testTiers, DeleteEntities, gridTool)
	names := func(n int) string {
		l := make([]string, n)
		for i := range l {
			l[i] = fmt.Sprintf("e%04d", i)
		}
		out, _ := json.Marshal(map[string]any{"entityNames": l})
		return string(out)
	}
	b.Run("resources-at-limit", func(b *testing.B) {
		g := worstGate(b, resCat, nil, nil)
		args := names(16) // 16 × 16 = 256 = defaultMaxResources
		benchpair.Run(b, dispatchWant(b, g, "delete_entities", args, true, ""), dispatchWant(b, g, "grid", args, true, ""))
	})
	b.Run("resources-over-limit", func(b *testing.B) {
		g := worstGate(b, resCat, nil, nil)
		args := names(2000) // over the limit for both: 2,000 and 4,000,000 resources asked for
		benchpair.Run(b, dispatchWant(b, g, "delete_entities", args, false, ReasonInvalid), dispatchWant(b, g, "grid", args, false, ReasonInvalid))
	})
	// Audit: one invalid 19-byte call against an enum of 10 values (a) and
	// of 100,000 values (b), audited by a JSON handler.
	b.Run("audit-huge-enum", func(b *testing.B) {
		cat := NewCatalogue(testTiers, enumTool("small", (*SmallLevelArgs)(nil), 10), enumTool("huge", (*HugeLevelArgs)(nil), 100000))
		g := worstGate(b, cat, nil, slog.New(slog.NewJSONHandler(io.Discard, nil)))
		benchpair.Run(b, dispatchWant(b, g, "small", `{"level":"nope"}`, false, ReasonInvalid), dispatchWant(b, g, "huge", `{"level":"nope"}`, false, ReasonInvalid))
	})
	// Result: the same call answered with 4 MiB (the default limit: passed
	// on, a) and 12 MiB of text (over the limit: failed, b).
	b.Run("result-over-limit", func(b *testing.B) {
		big := func(n int) func(string, json.RawMessage) (*mcp.CallToolResult, error) {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("r", n)}}}
			return func(string, json.RawMessage) (*mcp.CallToolResult, error) { return res, nil }
		}
		ga := worstGate(b, testCatalogue, big(defaultMaxResultBytes-64), nil)
		gb := worstGate(b, testCatalogue, big(3*defaultMaxResultBytes), nil)
		benchpair.Run(b, dispatchWant(b, ga, "read_graph", `{}`, true, ""), dispatchWant(b, gb, "read_graph", `{}`, false, ReasonFailed))
	})
	// Memory: the peak live heap of a call per byte of its arguments, on
	// the worst shapes of arguments (see benchArgsHeap).
	b.Run("args-heap", benchArgsHeap)
}
