package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/jsonptr"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// digest returns "sha256:<hex>" of b.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// position returns the 1-based line and column (in characters) of byte
// offset off in data. An offset past the end points just after the last
// character.
func position(data []byte, off int) (line, col int) {
	off = max(0, min(off, len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[start:])
}

// countObjects returns the number of JSON objects in the JSON value raw,
// counted on the bytes. raw must be valid JSON.
func countObjects(raw []byte) int {
	n := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			i = jsonscan.SkipString(raw, i) - 1
		case '{':
			n++
		}
	}
	return n
}

// firstRepeated returns the first key equal to one before it: the first
// key that occurs twice in an object (ok is false if none does; the empty
// key is a key like any other). encoding/json keeps the last of two equal
// keys silently; a reviewer reading the file would likely see the first.
func firstRepeated(keys []string) (key string, ok bool) {
	if len(keys) <= 8 {
		for i, k := range keys {
			if slices.Contains(keys[:i], k) {
				return k, true
			}
		}
		return "", false
	}
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			return k, true
		}
		seen[k] = true
	}
	return "", false
}

// members splits the JSON object raw, which must be valid JSON, into its
// keys, decoded as encoding/json decodes them, and its values, the exact
// bytes of each (sub-slices of raw), in the file's order. It is what
// json.Unmarshal into a map[string]json.RawMessage sees, without checking
// the syntax again.
func members(raw []byte) (keys []string, vals []json.RawMessage) {
	i := jsonscan.SkipSpace(raw, 0) + 1 // past '{'
	for {
		i = jsonscan.SkipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return keys, vals
		}
		if raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		}
		end := jsonscan.SkipString(raw, i)
		keys = append(keys, decodeKey(raw[i:end]))
		i = jsonscan.SkipSpace(raw, end) + 1 // past ':'
		i = jsonscan.SkipSpace(raw, i)
		end = jsonscan.SkipValue(raw, i)
		vals = append(vals, raw[i:end:end])
		i = end
	}
}

// elements splits the JSON array raw, which must be valid JSON, into the
// exact bytes of its values, as json.Unmarshal into a []json.RawMessage
// would, without checking the syntax again.
func elements(raw []byte) []json.RawMessage {
	var vals []json.RawMessage
	i := jsonscan.SkipSpace(raw, 0) + 1 // past '['
	for {
		i = jsonscan.SkipSpace(raw, i)
		if i >= len(raw) || raw[i] == ']' {
			return vals
		}
		if raw[i] == ',' {
			i = jsonscan.SkipSpace(raw, i+1)
		}
		end := jsonscan.SkipValue(raw, i)
		vals = append(vals, raw[i:end:end])
		i = end
	}
}

// decodeKey decodes the JSON string quoted (with its quotes).
func decodeKey(quoted []byte) string {
	inner := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	s, _ := jsonscan.Unquote(nil, quoted)
	return s
}

// firstByte returns the first non-space byte of a JSON value, or 0.
func firstByte(raw []byte) byte {
	if i := jsonscan.SkipSpace(raw, 0); i < len(raw) {
		return raw[i]
	}
	return 0
}

// isNull reports whether raw is absent or the JSON literal null.
func isNull(raw []byte) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// pointer builds a JSON pointer (RFC 6901) from tokens, escaping each.
var pointer = jsonptr.Pointer

// toolPointer is the pointer to the tool at index i of the "tools" array,
// followed by tokens.
func toolPointer(i int, tokens ...string) string {
	return pointer(append([]string{"tools", strconv.Itoa(i)}, tokens...)...)
}

// Pointer returns the JSON pointer, from the snapshot file's root, to a
// location inside the tool: t.Pointer("inputSchema", "properties", "a/b")
// is "/tools/3/inputSchema/properties/a~1b". Diagnostics about a tool use it.
func (t *Tool) Pointer(tokens ...string) string {
	return toolPointer(t.Index, tokens...)
}

// pathFrame is one open container of the JSON text walkPath walks.
type pathFrame struct {
	obj     bool
	wantKey bool   // an object's next string is a key
	key     []byte // an object's current key, quoted as in the text
	index   int    // an array's current index
}

// walkPath walks the bytes of the JSON text data once, without recursion,
// keeping the path to where it is: each open object's current key and
// each open array's current index. It calls str for each string (quoted,
// as in the text; an object's key is already the top frame's key) and
// open for each '{' or '[' (its frame already pushed), with the stack of
// open containers, outermost first; either returns false to stop. It does
// not require data to be valid JSON.
func walkPath(data []byte, str func(stack []pathFrame, quoted []byte, key bool) bool, open func(stack []pathFrame) bool) {
	var stack []pathFrame
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			end := jsonscan.SkipString(data, i)
			q := data[i:end]
			i = end - 1
			key := false
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = q, false
				key = true
			}
			if !str(stack, q, key) {
				return
			}
		case '{', '[':
			stack = append(stack, pathFrame{obj: c == '{', wantKey: c == '{'})
			if !open(stack) {
				return
			}
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				if top := &stack[n-1]; top.obj {
					top.wantKey = true
				} else {
					top.index++
				}
			}
		}
	}
}

// tooDeep reports whether data nests arrays and objects more than limit
// levels deep inside a member of a tool (/tools/N/member, limit levels below
// the member itself), or more than limit+3 levels anywhere else. It returns
// the tool's index and the member's name, with the tool's name when the file
// gives it as a string (whatever the order of the tool's members), or index
// -1 and the JSON pointer of the outermost container (as far as known) for a
// place outside the tools. It walks the bytes without recursion
// (walkPath), so any depth is safe, and does not require data to be valid
// JSON.
func tooDeep(data []byte, limit int) (tool int, member, name string, found bool) {
	tool = -1
	var keys [3]string // the decoded keys of the three outermost frames
	names := map[int]string{}
	// inTool reports whether the stack is /tools/N (an object) and beyond.
	inTool := func(stack []pathFrame) bool {
		return len(stack) >= 3 && stack[0].obj && keys[0] == "tools" && !stack[1].obj && stack[2].obj
	}
	str := func(stack []pathFrame, quoted []byte, key bool) bool {
		if len(stack) == 0 || len(stack) > 3 {
			return true
		}
		var s string
		if len(quoted) > 1 && quoted[len(quoted)-1] == '"' {
			_ = json.Unmarshal(quoted, &s)
		}
		if key {
			keys[len(stack)-1] = s
		} else if len(stack) == 3 && inTool(stack) && keys[2] == "name" {
			names[stack[1].index] = s
		}
		return true
	}
	open := func(stack []pathFrame) bool {
		if n := len(stack); n <= 3 {
			keys[n-1] = "" // until the new frame's first key
		}
		if found {
			return true // on, for the tool's name
		}
		switch {
		case inTool(stack) && len(stack)-3 > limit:
			tool, member, found = stack[1].index, keys[2], true
		case !inTool(stack) && len(stack) > limit+3:
			var toks []string
			for d, f := range stack[:min(len(stack)-1, 3)] {
				if f.obj {
					toks = append(toks, keys[d])
				} else {
					toks = append(toks, strconv.Itoa(f.index))
				}
			}
			member, found = pointer(toks...), true
		}
		return true
	}
	walkPath(data, str, open)
	if found && tool >= 0 {
		name = names[tool]
	}
	return tool, member, name, found
}
