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

// DecodeOutput is strict: an output with a member the result type does not
// have is an error, not a value with the member dropped (a server whose
// output grew since generation is noticed, not half-read), and so is an
// output that does not decode at all or a result that is not ok.
func TestDecodeOutputRefusesUnknownFields(t *testing.T) {
	type result struct {
		Count int    `json:"count"`
		Next  string `json:"next,omitempty"`
	}
	for _, tc := range []struct {
		output string
		ok     bool
	}{
		{`{"count":3}`, true},
		{`{"count":3,"next":"p2"}`, true},
		{`{"count":3,"secret":"x"}`, false},
		{`{"Count":3,"count":3,"extra":{}}`, false},
		{`{"count":"3"}`, false},
		{`[1]`, false},
	} {
		got, err := DecodeOutput[result](ActionResult{ID: "r", OK: true, Output: json.RawMessage(tc.output)})
		if (err == nil) != tc.ok {
			t.Errorf("DecodeOutput(%s) = %+v, %v; want ok %v", tc.output, got, err, tc.ok)
		}
	}
	if _, err := DecodeOutput[result](ActionResult{ID: "r", Reason: ReasonDenied, Output: json.RawMessage(`{"count":3}`)}); err == nil {
		t.Error("DecodeOutput of a refusal: no error")
	}
}
