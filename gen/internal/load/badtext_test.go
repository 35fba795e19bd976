package load

import (
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// badTextRef is badText as it was (310e77f): recursive, splitting each
// level with members and elements.
func badTextRef(raw []byte) (tokens []string, key bool, why string) {
	i := jsonscan.SkipSpace(raw, 0)
	if i >= len(raw) {
		return nil, false, ""
	}
	switch raw[i] {
	case '"':
		return nil, false, badString(raw[i:jsonscan.SkipString(raw, i)])
	case '[':
		for j, v := range elements(raw) {
			if t, k, w := badTextRef(v); w != "" {
				return append([]string{strconv.Itoa(j)}, t...), k, w
			}
		}
	case '{':
		i++
		for {
			i = jsonscan.SkipSpace(raw, i)
			if i >= len(raw) || raw[i] == '}' {
				return nil, false, ""
			}
			if raw[i] == ',' {
				i = jsonscan.SkipSpace(raw, i+1)
			}
			end := jsonscan.SkipString(raw, i)
			name := decodeKey(raw[i:end])
			if w := badString(raw[i:end]); w != "" {
				return []string{name}, true, w
			}
			i = jsonscan.SkipSpace(raw, jsonscan.SkipSpace(raw, end)+1)
			end = jsonscan.SkipValue(raw, i)
			if t, k, w := badTextRef(raw[i:end]); w != "" {
				return append([]string{name}, t...), k, w
			}
			i = end
		}
	}
	return nil, false, ""
}

var badTextCases = []string{
	`{}`, `"ok"`, "\"\xff\"", `{"a":[1,{"b":"\ud800"}]}`, "{\"a\":{\"\xfe\":1}}", `[[],[{"x":["ok","\udc00x"]}]]`,
	`{"a\/b":{"c~d":["\ud800\udc00","\ud83d"]}}`, `{"k":"v","\ud800":1}`, `[1,2,{"a":"b"},"\udfff"]`, `{"":{"":[["\ud800"]]}}`,
}

func checkBadText(t *testing.T, raw []byte) {
	t.Helper()
	gt, gk, gw := badText(raw)
	wt, wk, ww := badTextRef(raw)
	if !slices.Equal(gt, wt) || gk != wk || gw != ww {
		t.Fatalf("%q: badText = %q, %v, %q; want %q, %v, %q", raw, gt, gk, gw, wt, wk, ww)
	}
}

func TestBadText(t *testing.T) {
	for _, c := range badTextCases {
		checkBadText(t, []byte(c))
	}
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkBadText(t, data)
	}
}

func FuzzBadText(f *testing.F) {
	for _, c := range badTextCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) {
			checkBadText(t, raw)
		}
	})
}
