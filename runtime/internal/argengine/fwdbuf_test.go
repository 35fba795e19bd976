package argengine

import (
	"bytes"
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// encodeTape writes a long string or json.RawMessage in parts, split
// between characters, each checked against the arguments: the bytes are
// the codec's and encoding/json's, and the arguments' own exactly when they
// are the same, whatever falls on a part's edge (a character of two,
// three or four bytes, an escape, U+2028, white space), and wherever the
// first difference is (before an edge, on it, after it, at the end; a
// re-encoding shorter or longer than the arguments).
func TestEncodeTapeInParts(t *testing.T) {
	type (
		str  struct{ V string }
		raw  struct{ V json.RawMessage }
		strs struct{ V []string }
	)
	pad := func(n int) string { return strings.Repeat("a", max(n, 0)) }
	var cases []string
	for _, edge := range []int{fwdChunk, 2 * fwdChunk, 3*fwdChunk + 7} {
		// The text of "v"'s string begins at offset 6 of {"V":"…"}.
		for d := -6; d <= 6; d++ {
			at := edge - 6 + d // the string's offset on the part's edge, give or take
			for _, mid := range []string{"é", "日", "😀", `\"`, `\\`, `\/`, `\u00e9`, "\u2028", "\\n", `\ud83d\ude00`} {
				s := pad(at) + mid + pad(300)
				cases = append(cases, `{"V":"`+s+`"}`)
				cases = append(cases, `{"V":["`+pad(at-7)+mid+`","`+pad(100)+`"]}`)
				cases = append(cases, `{"V":[ "`+s+`" ,"x"]}`, `{"V":["`+s+"\"\n]}")
			}
			cases = append(cases, `{"V":"`+pad(at)+`"}`, `{"V":["`+pad(at)+`"]}`, `{"V":[`+pad(at)[:0]+strings.Repeat(`"",`, max(at, 3)/3)+`""]}`)
		}
	}
	types := []reflect.Type{reflect.TypeFor[str](), reflect.TypeFor[raw](), reflect.TypeFor[strs]()}
	fast := 0
	for _, c := range cases {
		for _, typ := range types {
			if checkCodecAgreesFast(t, typ, compileCodec(typ), []byte(c)) {
				fast++
			}
		}
	}
	if fast < len(cases) {
		t.Errorf("only %d of %d cases took encodeTape", fast, len(cases))
	}
}

// When the re-encoding is the arguments' bytes, Check forwards its private
// copy of them: it allocates the copy, the tape and a part of about
// fwdChunk bytes (32 KiB with the allocator's rounding up), not another
// buffer of the arguments' size; and what it forwards is not the caller's
// buffer.
func TestIdenticalReencodingIsTheCopy(t *testing.T) {
	e, err := Compile([]byte(`{"type":"object","properties":{"l":{"type":"array","items":{"type":"integer"}}}}`), reflect.TypeFor[struct {
		L []int64 `json:"l"`
	}](), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	const n = 100000
	raw := []byte(`{"l":[` + strings.TrimSuffix(strings.Repeat("7,", n), ",") + `]}`)
	e.Check(raw, nil) // the pool's tape, large enough
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, fwd, err := e.Check(raw, nil)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fwd, raw) {
		t.Fatalf("forwarded %.100s", fwd)
	}
	if a, tape := after.TotalAlloc-before.TotalAlloc, uint64(4*(n+2)+8); a > uint64(len(raw))+tape+32<<10 {
		t.Errorf("Check of %d bytes re-encoded as they are allocated %d bytes: more than the copy, the tape (%d) and 32 KiB", len(raw), a, tape)
	}
	raw[6] = '8'
	if fwd[6] != '7' {
		t.Error("the forwarded bytes are the caller's")
	}
}

// A small re-encoding that differs from the arguments (keys in another
// order, white space) costs Check no more allocations than one that is
// the same: what was written before the difference is already the
// re-encoding's buffer.
func TestDifferentReencodingAllocatesOnce(t *testing.T) {
	e, err := Compile([]byte(searchNodesSchema), reflect.TypeFor[SearchNodesArgs](), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	same := []byte(searchNodesArgs)
	other := []byte(`{ "filter": {"minScore": 0.25, "since": "2024-01-31", "kinds": ["person", "org"]}, "limit": 10, "query": "Ada Lovelace" }`)
	allocs := func(raw []byte) float64 {
		return testing.AllocsPerRun(100, func() {
			if _, _, err := e.Check(raw, nil); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := allocs(same), allocs(other); b > a {
		t.Errorf("Check allocates %v times for a re-encoding that differs, %v for one that does not", b, a)
	}
}
