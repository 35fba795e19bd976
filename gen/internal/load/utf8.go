package load

import (
	"fmt"
	"strconv"

	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// badText finds the first string of the JSON value raw (valid JSON) that
// encoding/json would silently rewrite: one holding bytes that are not
// UTF-8, or a \u escape of a lone UTF-16 surrogate. Either becomes U+FFFD,
// so two tool names that differ only there would collide, and a
// description would not say what the server sent. It returns the JSON
// pointer tokens of the string from raw (for a key: of the object holding
// it), whether it is a key, and why.
func badText(raw []byte) (tokens []string, key bool, why string) {
	// One pass over the bytes, keeping the path (walkPath): each open
	// object's current key (quoted, decoded only for the answer) or each
	// open array's current index.
	str := func(stack []pathFrame, quoted []byte, isKey bool) bool {
		if why = badString(quoted); why == "" {
			return true
		}
		if len(stack) > 0 {
			tokens = make([]string, 0, len(stack))
			for _, f := range stack {
				if f.obj {
					tokens = append(tokens, decodeKey(f.key))
				} else {
					tokens = append(tokens, strconv.Itoa(f.index))
				}
			}
		}
		key = isKey
		return false
	}
	walkPath(raw, str, func([]pathFrame) bool { return true })
	return tokens, key, why
}

// badString says what is wrong with the JSON string quoted (with its
// quotes, valid JSON), "" if nothing: what jsonscan.Rewritten finds.
func badString(quoted []byte) string {
	s := quoted[1 : len(quoted)-1]
	switch at, utf8Byte := jsonscan.Rewritten(s); {
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
