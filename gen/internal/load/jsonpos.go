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
	"github.com/ocpgen/ocpgen/internal/jsontext"
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

// depthExceeds reports whether the JSON value raw nests arrays and objects
// more than limit deep. It walks the bytes without recursion, so any depth is
// safe to check. raw must be valid JSON.
func depthExceeds(raw []byte, limit int) bool {
	depth := 0
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			switch c {
			case '\\':
				i++ // skip the escaped character
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > limit {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// countObjects returns the number of JSON objects in the JSON value raw,
// counted on the bytes. raw must be valid JSON.
func countObjects(raw []byte) int {
	n := 0
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == '{':
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
	i := jsontext.SkipSpace(raw, 0) + 1 // past '{'
	for {
		i = jsontext.SkipSpace(raw, i)
		if i >= len(raw) || raw[i] == '}' {
			return keys, vals
		}
		if raw[i] == ',' {
			i = jsontext.SkipSpace(raw, i+1)
		}
		end := jsontext.SkipString(raw, i)
		keys = append(keys, decodeKey(raw[i:end]))
		i = jsontext.SkipSpace(raw, end) + 1 // past ':'
		i = jsontext.SkipSpace(raw, i)
		end = jsontext.SkipValue(raw, i)
		vals = append(vals, raw[i:end:end])
		i = end
	}
}

// elements splits the JSON array raw, which must be valid JSON, into the
// exact bytes of its values, as json.Unmarshal into a []json.RawMessage
// would, without checking the syntax again.
func elements(raw []byte) []json.RawMessage {
	var vals []json.RawMessage
	i := jsontext.SkipSpace(raw, 0) + 1 // past '['
	for {
		i = jsontext.SkipSpace(raw, i)
		if i >= len(raw) || raw[i] == ']' {
			return vals
		}
		if raw[i] == ',' {
			i = jsontext.SkipSpace(raw, i+1)
		}
		end := jsontext.SkipValue(raw, i)
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
	s, _ := jsontext.Unquote(nil, quoted)
	return s
}

// firstByte returns the first non-space byte of a JSON value, or 0.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
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

// tooDeep reports whether data nests arrays and objects more than limit
// levels deep inside a member of a tool (/tools/N/member, limit levels below
// the member itself), or more than limit+3 levels anywhere else. It returns
// the tool's index and the member's name, with the tool's name when the file
// gives it as a string (whatever the order of the tool's members), or index
// -1 and the JSON pointer of the outermost container (as far as known) for a
// place outside the tools. It walks the bytes without recursion, so any
// depth is safe, and does not require data to be valid JSON.
func tooDeep(data []byte, limit int) (tool int, member, name string, found bool) {
	type frame struct {
		obj     bool
		wantKey bool
		key     string // the current member's key (decoded above depth 3 only)
		index   int
	}
	var stack []frame
	tool = -1
	names := map[int]string{}
	// inTool reports whether the stack is /tools/N (an object) and beyond.
	inTool := func() bool {
		return len(stack) >= 3 && stack[0].obj && stack[0].key == "tools" && !stack[1].obj && stack[2].obj
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			start := i
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if len(stack) == 0 || len(stack) > 3 {
				continue
			}
			top := &stack[len(stack)-1]
			var str string
			if i < len(data) {
				_ = json.Unmarshal(data[start:i+1], &str)
			}
			if top.obj && top.wantKey {
				top.key, top.wantKey = str, false
			} else if len(stack) == 3 && inTool() && top.key == "name" {
				names[stack[1].index] = str
			}
		case '{', '[':
			stack = append(stack, frame{obj: c == '{', wantKey: c == '{'})
			if found {
				continue
			}
			switch {
			case inTool() && len(stack)-3 > limit:
				tool, member, found = stack[1].index, stack[2].key, true
			case !inTool() && len(stack) > limit+3:
				var toks []string
				for _, f := range stack[:min(len(stack)-1, 3)] {
					if f.obj {
						toks = append(toks, f.key)
					} else {
						toks = append(toks, strconv.Itoa(f.index))
					}
				}
				member, found = pointer(toks...), true
			}
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				if top.obj {
					top.wantKey = true
				} else {
					top.index++
				}
			}
		}
	}
	if found && tool >= 0 {
		name = names[tool]
	}
	return tool, member, name, found
}
