package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/ocpgen/ocpgen/gen/internal/load"
)

// SnapshotServer is the server identity recorded in a snapshot file.
type SnapshotServer struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// EncodeSnapshot returns the canonical snapshot file for a server's
// complete tools/list, each tool the JSON object the server sent: tools
// sorted by name, object keys sorted, 2-space indent, a trailing newline,
// no timestamps, so a re-snapshot of an unchanged server is byte-identical.
// Everything the server sent is kept, every number exactly as written. The
// result is checked with the same loader generate uses, so a tool list that
// generate would refuse (duplicate names, a missing or non-object input
// schema, invalid UTF-8) is refused here, and no file is written.
func EncodeSnapshot(file string, server SnapshotServer, source string, tools []json.RawMessage) ([]byte, error) {
	type named struct {
		name string
		v    any
	}
	list := make([]named, len(tools))
	for i, raw := range tools {
		if ptr, why := load.RewrittenText(raw); why != "" {
			return nil, fmt.Errorf("%s: tools[%d]%s: %s", file, i, ptr, why)
		}
		if err := noDuplicateKeys(raw); err != nil {
			return nil, fmt.Errorf("%s: tools[%d]: %v", file, i, err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: tools[%d]: %v", file, i, err)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: tools[%d] is not a JSON object", file, i)
		}
		name, _ := obj["name"].(string)
		list[i] = named{name, v}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].name < list[j].name })
	sorted := make([]any, len(list))
	for i, t := range list {
		sorted[i] = t.v
	}
	doc := struct {
		Server SnapshotServer `json:"server"`
		Source string         `json:"source"`
		Tools  []any          `json:"tools"`
	}{server, source, sorted}
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

// noDuplicateKeys reports an object of raw (one JSON value) that has a key
// twice: decoding it into a map would keep the last silently.
func noDuplicateKeys(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		keys  map[string]bool // nil for an array
		ptr   string
		index int
	}
	var stack []frame
	expectKey := false
	child := func() string {
		f := &stack[len(stack)-1]
		if f.keys == nil {
			p := f.ptr + "/" + strconv.Itoa(f.index)
			f.index++
			return p
		}
		return f.ptr
	}
	lastKey := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		ptr := ""
		if len(stack) > 0 && !expectKey {
			if stack[len(stack)-1].keys == nil {
				ptr = child()
			} else {
				ptr = stack[len(stack)-1].ptr + "/" + lastKey
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{keys: map[string]bool{}, ptr: ptr})
				expectKey = true
				continue
			case '[':
				stack = append(stack, frame{ptr: ptr})
			case '}', ']':
				stack = stack[:len(stack)-1]
			}
		case string:
			if expectKey {
				f := stack[len(stack)-1]
				if f.keys[t] {
					return fmt.Errorf("key %q twice in the object at %q", t, f.ptr)
				}
				f.keys[t] = true
				lastKey = t
				expectKey = false
				continue
			}
		}
		expectKey = len(stack) > 0 && stack[len(stack)-1].keys != nil
	}
}
