package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/gen/internal/load"
)

// SnapshotServer is the server identity recorded in a snapshot file.
type SnapshotServer struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// EncodeSnapshot returns the canonical snapshot file for a server's complete
// tools/list: tools sorted by name, 2-space indent, a trailing newline, no
// timestamps, so a re-snapshot of an unchanged server is byte-identical. The
// result is checked with the same loader generate uses, so a tool list that
// generate would refuse (duplicate names, a missing or non-object input
// schema) is refused here, and no file is written.
func EncodeSnapshot(file string, server SnapshotServer, source string, tools []*mcp.Tool) ([]byte, error) {
	sorted := append([]*mcp.Tool(nil), tools...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	raw := make([]json.RawMessage, len(sorted))
	for i, t := range sorted {
		if t == nil {
			return nil, fmt.Errorf("%s: tools[%d] is null", file, i)
		}
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("%s: tool %q: %v", file, t.Name, err)
		}
		raw[i] = b
	}
	doc := struct {
		Server SnapshotServer    `json:"server"`
		Source string            `json:"source"`
		Tools  []json.RawMessage `json:"tools"`
	}{server, source, raw}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if _, diags := load.LoadSnapshot(file, buf.Bytes()); diags.Err() != nil {
		return nil, diags.Err()
	}
	return buf.Bytes(), nil
}
