package load

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// contentDigestRef is contentDigest as it was: the canonical JSON of the
// whole, made by canon.JSON from the tools' canonical forms.
func contentDigestRef(t *testing.T, server ServerInfo, tools []json.RawMessage) string {
	t.Helper()
	canonical := make([]json.RawMessage, len(tools))
	for i, raw := range tools {
		c, err := canon.JSON([]byte(raw))
		if err != nil {
			t.Fatal(err)
		}
		canonical[i] = c
	}
	b, err := canon.JSON(struct {
		Server ServerInfo        `json:"server"`
		Tools  []json.RawMessage `json:"tools"`
	}{server, canonical})
	if err != nil {
		t.Fatal(err)
	}
	return canon.Fingerprint(b)
}

// checkContentDigest loads data and compares its digest with
// contentDigestRef's over the same tools, in the loaded order.
func checkContentDigest(t *testing.T, data []byte) {
	t.Helper()
	s, _ := LoadSnapshot("s.tools.json", data)
	if s == nil {
		return
	}
	byIndex := elements(func() []byte {
		keys, vals := members(data[jsonscan.SkipSpace(data, 0):])
		for i, k := range keys {
			if k == "tools" {
				return vals[i]
			}
		}
		return nil
	}())
	raws := make([]json.RawMessage, len(s.Tools))
	for i, tool := range s.Tools {
		raws[i] = byIndex[tool.Index]
	}
	if want := contentDigestRef(t, s.Server, raws); s.Digest != want {
		t.Fatalf("%.200s: digest %s, want %s", data, s.Digest, want)
	}
}

func TestContentDigest(t *testing.T) {
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkContentDigest(t, data)
	}
	for _, c := range digestCases {
		checkContentDigest(t, []byte(c))
	}
}

var digestCases = []string{
	`{"tools":[]}`,
	`{"server":{"name":"<s> & \u00e9","version":"1\n"},"tools":[{"name":"b","inputSchema":{"type":"object"}},{"name":"a","z":1,"inputSchema":{"type":"object","properties":{"x":{"enum":[1.0,1e400,9007199254740993]}}},"outputSchema":null}]}`,
	`{"tools":[{"inputSchema":{"type":"object","b":1,"a":2},"outputSchema":{"type":"object"},"name":"x","annotations":{"readOnlyHint":true},"\u00e9":"\u2028"}]}`,
	`{"tools":[{"name":"x","inputSchema":{"type":"object","properties":{"a":{},"a":{"type":"string"}}}}],"source":"s"}`,
	`{"tools":[{"inputSchema":{},"name":"0","":{},"":""}]}`, `{"tools":[{"":1,"inputSchema":{},"name":"0","":2,"z":3,"":{"b":1,"a":2}}]}`,
}

func FuzzContentDigest(f *testing.F) {
	for _, c := range digestCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkContentDigest(t, data)
	})
}

// decodeKeyCases are JSON string texts for TestDecodeKey (jsonscan tests
// Unquote itself).
var decodeKeyCases = []string{
	``, `a`, `\"\\\/\b\f\n\r\t`, `\u0000\u001f\u0041\u00e9\u2028\uffff`, `\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\u0041`,
	`\ud800\ud800\udc00`, `\ud83d\ude00\ude00`, "\xff", "a\xc3", "é\xe2\x82", `\u12AbX`,
}

func checkDecodeKey(t *testing.T, quoted []byte) {
	t.Helper()
	var want string
	if json.Unmarshal(quoted, &want) != nil {
		return
	}
	if got := decodeKey(quoted); got != want {
		t.Fatalf("%q: decodeKey = %q, want %q", quoted, got, want)
	}
}

func TestDecodeKey(t *testing.T) {
	for _, c := range decodeKeyCases {
		checkDecodeKey(t, []byte(`"`+c+`"`))
	}
}

func FuzzDecodeKey(f *testing.F) {
	for _, c := range decodeKeyCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, inner []byte) {
		checkDecodeKey(t, append(append([]byte{'"'}, inner...), '"'))
	})
}

// TestToolRepeatsRefused: contentDigest never sees a tool object with a
// repeated key (so canon.AppendObject's substitutes are the only
// inputSchema and outputSchema): tool's firstRepeated check refuses every
// repeat, the empty key and keys equal only once decoded included, before
// anything else of the tool is read.
func TestToolRepeatsRefused(t *testing.T) {
	for _, c := range []string{
		`{"tools":[{"inputSchema":{},"name":"0","":{},"":""}]}`,
		`{"tools":[{"":1,"inputSchema":{},"name":"0","":2,"z":3,"":{"b":1,"a":2}}]}`,
		`{"tools":[{"name":"x","inputSchema":{"type":"object"},"inputSchema":{}}]}`,
		`{"tools":[{"name":"x","inputSchema":{},"outputSchema":{},"outp\u0075tSchema":{}}]}`,
		`{"tools":[{"name":"x","name":"y","inputSchema":{}}]}`,
	} {
		s, ds := LoadSnapshot("s.tools.json", []byte(c))
		if s != nil || len(ds) != 1 || !strings.HasSuffix(ds[0].Msg, "duplicate key in the tool object") {
			t.Errorf("%s: loaded %v, %v; want only the duplicate key refused", c, s != nil, ds)
		}
	}
}
