package load

import (
	"fmt"
	"strconv"

	"github.com/ocpgen/ocpgen/internal/jsontext"
)

// badText finds the first string of the JSON value raw (valid JSON) that
// encoding/json would silently rewrite: one holding bytes that are not
// UTF-8, or a \u escape of a lone UTF-16 surrogate. Either becomes U+FFFD,
// so two tool names that differ only there would collide, and a
// description would not say what the server sent. It returns the JSON
// pointer tokens of the string from raw (for a key: of the object holding
// it), whether it is a key, and why.
func badText(raw []byte) (tokens []string, key bool, why string) {
	// One pass over the bytes, keeping the path: each open object's
	// current key (quoted, decoded only for the answer) or each open
	// array's current index.
	type frame struct {
		obj     bool
		wantKey bool
		key     []byte
		index   int
	}
	var stack []frame
	path := func(frames []frame) []string {
		out := make([]string, 0, len(frames)+1)
		for _, f := range frames {
			if f.obj {
				out = append(out, decodeKey(f.key))
			} else {
				out = append(out, strconv.Itoa(f.index))
			}
		}
		return out
	}
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			end := jsontext.SkipString(raw, i)
			q := raw[i:end]
			i = end - 1
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].wantKey {
				stack[n-1].key, stack[n-1].wantKey = q, false
				if w := badString(q); w != "" {
					return append(path(stack[:n-1]), decodeKey(q)), true, w
				}
				continue
			}
			if w := badString(q); w != "" {
				if len(stack) == 0 {
					return nil, false, w
				}
				return path(stack), false, w
			}
		case '{':
			stack = append(stack, frame{obj: true, wantKey: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; top.obj {
				top.wantKey = true
			} else {
				top.index++
			}
		}
	}
	return nil, false, ""
}

// badString says what is wrong with the JSON string quoted (with its
// quotes, valid JSON), "" if nothing: what jsontext.Rewritten finds.
func badString(quoted []byte) string {
	s := quoted[1 : len(quoted)-1]
	switch at, utf8Byte := jsontext.Rewritten(s); {
	case at < 0:
		return ""
	case utf8Byte:
		return fmt.Sprintf("invalid UTF-8 (byte 0x%02x at offset %d of the string); JSON text is UTF-8", s[at], at)
	default:
		return fmt.Sprintf("a lone UTF-16 surrogate escape \\u%s (it would become U+FFFD)", s[at+2:at+6])
	}
}

// RewrittenText is badText for callers outside the package: the JSON
// pointer (from raw) of the first string encoding/json would rewrite, and
// why; "", "" if none.
func RewrittenText(raw []byte) (ptr, why string) {
	tokens, key, why := badText(raw)
	if why == "" {
		return "", ""
	}
	if key {
		why = "a key holds " + why
	} else {
		why = "a string holds " + why
	}
	return pointer(tokens...), why
}
