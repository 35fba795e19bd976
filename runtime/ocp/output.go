package ocp

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// textContentJSON encodes a content list of plain text blocks (no _meta, no
// annotations: what most tools return) exactly as json.Marshal does. ok is
// false for any other content, which the caller encodes with json.Marshal.
func textContentJSON(content []mcp.Content) (out []byte, ok bool) {
	n := 2
	for _, c := range content {
		tc, isText := c.(*mcp.TextContent)
		if !isText || tc == nil || tc.Meta != nil || tc.Annotations != nil {
			return nil, false
		}
		n += len(`{"type":"text","text":""},`) + len(tc.Text) + escapeRoom(tc.Text)
	}
	out = make([]byte, 0, n)
	out = append(out, '[')
	for i, c := range content {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"type":"text","text":`...)
		out = jsonscan.AppendString(out, c.(*mcp.TextContent).Text, true)
		out = append(out, '}')
	}
	return append(out, ']'), true
}

// escapeRoom is room for the escapes of s in jsonscan.AppendString: enough for
// any valid UTF-8 text up to 4 KiB (a short text is often JSON, full of
// quotes), and an eighth of a longer one, which append grows if need be.
func escapeRoom(s string) int {
	if len(s) > 4096 {
		return len(s) / 8
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; !jsonscan.Plain(c, true) {
			if c < utf8.RuneSelf {
				n += 5 // \u00XX for a byte
			} else {
				n++ // \u2028 for three bytes
			}
		}
	}
	return n
}

const hexDigits = "0123456789abcdef"

// tripleKeys are the keys of the OCP {card, speech, figures} output.
var tripleKeys = map[string]bool{"card": true, "speech": true, "figures": true}

// textTriple recognises a {card, speech, figures} output that a server sent
// as the JSON of its only text block rather than as structuredContent, and
// returns it as structured output: a JSON object whose keys are some of
// card, speech and figures, and nothing else.
func textTriple(content []mcp.Content) ([]byte, bool) {
	if len(content) != 1 {
		return nil, false
	}
	tc, ok := content[0].(*mcp.TextContent)
	if !ok || tc.Meta != nil || tc.Annotations != nil || !mayBeTriple(tc.Text) {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(tc.Text), &m) != nil || len(m) == 0 {
		return nil, false
	}
	for k := range m {
		if !tripleKeys[k] {
			return nil, false
		}
	}
	out, err := json.Marshal(m)
	return out, err == nil
}

// mayBeTriple is a cheap test that text could be a triple, so that an
// ordinary text result is not decoded to find out: an object that names
// one of the triple's keys.
func mayBeTriple(text string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(t, "{") {
		return false
	}
	return strings.Contains(t, `"card"`) || strings.Contains(t, `"speech"`) || strings.Contains(t, `"figures"`)
}
