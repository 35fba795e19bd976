package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/internal/cli"
)

// headerToolSchema is an input schema as a server may write it: an
// x-mcp-header annotation (MCP 2026-07-28), numbers in several forms.
const headerToolSchema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"shard":{"type":"integer","x-mcp-header":"Shard","maximum":1e3,"minimum":1.0}},"required":["region"]}`

// snapshotServer serves one tool with headerToolSchema over Streamable
// HTTP, speaking only revision (stateless for 2026-07-28, which has no
// sessions).
func snapshotServer(t *testing.T, revision string) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "route", Version: "1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{revision}})
	s.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(headerToolSchema)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: revision >= "2026-07-28"})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// ocpgen-snapshot records a server that speaks only 2026-07-28 as it does
// one that speaks only 2025-11-25, each tool byte for byte: the
// x-mcp-header annotations and the numbers as the server wrote them.
func TestSnapshotOfEachRevision(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, rev := range []string{"2026-07-28", "2025-11-25"} {
		out := filepath.Join(dir, rev+".tools.json")
		if code, errs := snapshotCmd(t, "-url", snapshotServer(t, rev), "-o", out); code != cli.ExitOK {
			t.Fatalf("snapshot of a %s server: exit %d: %s", rev, code, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"x-mcp-header": "Region"`, `"x-mcp-header": "Shard"`, `"maximum": 1e3`, `"minimum": 1.0`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("the %s snapshot lacks %s:\n%s", rev, want, b)
			}
		}
		var keep []string // all but the source line, which names the port
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), `"source"`) {
				keep = append(keep, l)
			}
		}
		files = append(files, strings.Join(keep, "\n"))
	}
	if files[0] != files[1] {
		t.Errorf("the snapshots of the two revisions differ:\n%s\n---\n%s", files[0], files[1])
	}
}

// A tool whose x-mcp-header annotation breaks SEP-2243's rules (here on a
// number property) is left out of tools/list by the MCP client at every
// revision, so a Hub could never call it: the snapshot fails naming it,
// and no file is written.
func TestSnapshotNamesAToolTheClientRefuses(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "route", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "route", InputSchema: json.RawMessage(headerToolSchema)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	s.AddTool(&mcp.Tool{Name: "ok", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	// The go-sdk server refuses such a tool in AddTool: it is broken on
	// the way out, as another server may send it.
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok {
				for _, tool := range lr.Tools {
					if tool.Name == "route" {
						tool.InputSchema = json.RawMessage(`{"type":"object","properties":{"f":{"type":"number","x-mcp-header":"F"}}}`)
					}
				}
			}
			return res, err
		}
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)
	out := filepath.Join(t.TempDir(), "route.tools.json")
	code, errs := snapshotCmd(t, "-url", ts.URL, "-o", out)
	if code != cli.ExitTrouble || !strings.Contains(errs, `the MCP client refuses the definition of "route"`) || strings.Contains(errs, `"ok"`) {
		t.Errorf("exit %d, stderr %q; want a refusal naming route only", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed snapshot left a file")
	}
}
