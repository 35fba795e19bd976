package ocp

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func checkTextContent(t *testing.T, texts ...string) {
	content := []mcp.Content{}
	for _, s := range texts {
		content = append(content, &mcp.TextContent{Text: s})
	}
	got, ok := textContentJSON(content)
	want, err := json.Marshal(content)
	if !ok || err != nil || string(got) != string(want) {
		t.Fatalf("%q: fast %s (%v), json.Marshal %s (%v)", texts, got, ok, want, err)
	}
}

func TestTextContentJSONIsJSONMarshal(t *testing.T) {
	checkTextContent(t)
	checkTextContent(t, "")
	checkTextContent(t, "plain", "<a href=\"x\">&amp;</a>\u2028\u2029\x00\x1f\x7f\t\n\r\b\f\\/é😀", "bad \xff\xfe utf8 \xed\xa0\x80")
	if _, ok := textContentJSON([]mcp.Content{&mcp.TextContent{Text: "x", Meta: mcp.Meta{"a": 1}}}); ok {
		t.Error("text with _meta took the fast path")
	}
	if _, ok := textContentJSON([]mcp.Content{&mcp.ImageContent{Data: []byte("x")}}); ok {
		t.Error("image took the fast path")
	}
}

func FuzzTextContentJSON(f *testing.F) {
	f.Add("<&>\u2028\xff\"\\\x00")
	f.Fuzz(func(t *testing.T, s string) { checkTextContent(t, s, s) })
}
