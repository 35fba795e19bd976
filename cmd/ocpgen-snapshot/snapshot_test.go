package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/internal/cli"
)

// TestSnapshotReadsEveryPage: a server that pages its tools/list (two
// tools a page) is listed to its last page, following each nextCursor, and
// the snapshot holds every tool of every page, once.
func TestSnapshotReadsEveryPage(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "1"}, &mcp.ServerOptions{PageSize: 2})
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("tool_%d", i)
		want = append(want, name)
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	// The spy: the cursor of every tools/list the server receives.
	var (
		mu      sync.Mutex
		cursors []string
	)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && method == "tools/list" {
				mu.Lock()
				cursors = append(cursors, p.Cursor)
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(ts.Close)

	out := filepath.Join(t.TempDir(), "paged.tools.json")
	if code, errs := snapshotCmd(t, "-url", ts.URL, "-o", out); code != cli.ExitOK {
		t.Fatalf("snapshot: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &snap); err != nil {
		t.Fatalf("snapshot: %v\n%s", err, b)
	}
	var got []string
	for _, tool := range snap.Tools {
		got = append(got, tool.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("snapshot tools = %q, want %q (every page, once)", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(cursors) != 3 || cursors[0] != "" || cursors[1] == "" || cursors[2] == "" || cursors[1] == cursors[2] {
		t.Errorf("tools/list cursors = %q, want the first page and then each page's nextCursor (3 pages)", cursors)
	}
}
