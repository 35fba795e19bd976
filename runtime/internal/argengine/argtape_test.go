package argengine

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine/argref"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

var tapeSeeds = []string{
	`{}`, `[]`, `{"a":[1,{"b":null}],"c":"d"}`, `{"a":1,"a":1}`, `{"a":{"b":1,"b":2}}`,
	`[{"a":1},{"a":1}]`, `{"a":1}x`, `{"a":}`, `{"a":1,}`, `[1,]`, `-0`, `1e400`, `1e-400`, `0.1e+2`,
	`01`, `1.`, `-`, `"\u00e9\ud83d\ude00\ud800x"`, `"\u00e9\ud83d\ude00x"`, `{"\udc00":1}`, `"\\ud800"`, `"\ud800\\udc00"`, `"\uD83D\uDE00"`, `[1e1000,1e-1000]`, `[1e1001]`, `[1E-0001001]`, `[1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001]`, `[1.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001]`, `"\ud83d\ud83d\ude00"`, `"a\/b\\\"\b\f\n\r\t"`, "\"\x01\"", `tru`, `nul`, `"\q"`,
	` { "k" : [ true , false , null ] } `, `{"é":"\u0041"}`, `{"A":1,"a":2}`,
	// Member names read back from their values: white space, colons and
	// quotes in names, names with escapes among others, nested.
	"{ \"a\\\"b\" \t:\n 1 , \"c\\\\\" :\"\\u00e9\", \"x\": {\"\\n\": {\"\\t\" : [ {\"\\u0041b\":\"\\\"\" , \"q\":\"\\\"\"} ] } }, \"q:\":2, \"\":3, \"a : b\" : {\"\":\"\"} }",
	`{"\u0061":{"\u0062":{"c":{"\u0064":[{"e":1,"\u0066":{}}]}},"g":"\\"},"h\"":[],"i":{"":{"\\":0}}}`,
	// Arrays whose offsets are read back from their first elements: nested
	// as first elements, with white space, empty, holding objects, and
	// members' arrays.
	" [ [ [\t1 ] ,\n[ ] ] , [[ \"a\\\"[\" ]], [{\"a\" : [ [ [] ] ]}], [ {} ], [[[[\"\\u005b\"]]]] ] ",
	`[[[],[[]]],[[{"a":[[0],{"b":[[[1]]]}]}]]]`,
	// Members whose names have escapes, holding strings with escapes,
	// arrays, objects, empty ones, with white space around the colon.
	"{\"\\n\" : \"\\t\" , \"\\/\":[1], \"a\\\\\":{\"\\\"\":\"\\u00e9\"}, \"\\u0062\" :\t[[]], \"\\t\":{}, \"\\r\":\"x\", \"\\\"\":\"\\\\\"}",
	`{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17},"k18":18,"k3":3}`,
}

// checkTapeAgrees holds the tape parser to the reference: the token parser
// (argref.ParseStrict) for what is refused, and encoding/json for the values.
func checkTapeAgrees(t *testing.T, in string) {
	tp := getTape()
	defer putTape(tp)
	err := tp.parse(in)
	_, refErr := argref.ParseStrict([]byte(in), MaxArgsDepth)
	var want any
	jsonErr := json.Unmarshal([]byte(in), &want)
	if refErr == nil && jsonErr != nil {
		refErr = jsonErr // a number out of range: refused when decoded into an any
	}
	if refErr == nil && hasOverlongNumber(in) {
		refErr = errors.New("number literal beyond the bounds")
	}
	if refErr == nil && hasLoneSurrogate(in) {
		refErr = errors.New("lone surrogate") // encoding/json would rewrite it
	}
	if (err == nil) != (refErr == nil) {
		t.Fatalf("%q: tape err %v, reference err %v", in, err, refErr)
	}
	if err != nil {
		return
	}
	if got := tp.toAny(0); !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: tape %#v, encoding/json %#v", in, got, want)
	}
	// Every value's text, as the tape finds it, is that value (of the
	// first values, up to 1 MiB of text: a deep nesting's would be
	// quadratic).
	for i, read := 0, 0; i < len(tp.nodes) && read < 1<<20; i = tp.follow(i) {
		raw := tp.raw(i)
		read += len(raw)
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil || strings.TrimSpace(raw) != raw || !reflect.DeepEqual(v, tp.toAny(i)) {
			t.Fatalf("%q: the text of node %d is %q (%v), its value %#v", in, i, raw, err, tp.toAny(i))
		}
	}
	// Equality with itself, and with its re-encoding, as argref.Equal says.
	b, _ := json.Marshal(want)
	back := getTape()
	defer putTape(back)
	if err := back.parse(string(b)); err != nil {
		t.Fatalf("%q: re-encoding %s: %v", in, b, err)
	}
	refTree, _ := argref.ParseStrict([]byte(in), MaxArgsDepth)
	backTree, _ := argref.ParseStrict(b, MaxArgsDepth)
	if got, want := tapeDiff(tp, 0, back, 0) < 0, argref.Equal(refTree, backTree); got != want {
		t.Fatalf("%q vs %s: tapeDiff %v, jsonEqual %v", in, b, got, want)
	}
}

// hasOverlongNumber is the reference for the number bounds: a literal longer
// than MaxNumberLen, or an exponent beyond ±MaxNumberExp, in valid JSON.
func hasOverlongNumber(in string) bool {
	dec := json.NewDecoder(strings.NewReader(in))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		if len(n) > MaxNumberLen {
			return true
		}
		if i := strings.IndexAny(string(n), "eE"); i >= 0 {
			e, err := strconv.Atoi(strings.TrimPrefix(string(n[i+1:]), "+"))
			if err != nil || e > MaxNumberExp || e < -MaxNumberExp {
				return true
			}
		}
	}
}

// escapeRE matches one escape of valid JSON, where a backslash occurs only
// in a string and always starts an escape: scanning the whole text left to
// right finds exactly the escapes.
var escapeRE = regexp.MustCompile(`\\(u[0-9a-fA-F]{4}|.)`)

// hasLoneSurrogate is the reference for lone surrogate escapes in valid
// JSON: a \u escape of a surrogate that is not a high one immediately
// followed by a low one, as unicode/utf16 pairs them.
func hasLoneSurrogate(in string) bool {
	ms := escapeRE.FindAllStringSubmatchIndex(in, -1)
	for i := 0; i < len(ms); i++ {
		r := escapeRune(in, ms[i])
		if !utf16.IsSurrogate(r) {
			continue
		}
		if i+1 < len(ms) && ms[i+1][0] == ms[i][1] {
			if utf16.DecodeRune(r, escapeRune(in, ms[i+1])) != unicode.ReplacementChar {
				i++
				continue
			}
		}
		return true
	}
	return false
}

func escapeRune(in string, m []int) rune {
	if m[3]-m[2] != 5 {
		return -1
	}
	v, _ := strconv.ParseUint(in[m[2]+1:m[3]], 16, 32)
	return rune(v)
}

func TestTapeAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range tapeSeeds {
		checkTapeAgrees(t, s)
	}
	// Large objects (indexed) of names with and without escapes, nested,
	// a duplicate of an escaped name last.
	var b strings.Builder
	for k := range 40 {
		if k > 0 {
			b.WriteString(" ,\n")
		}
		fmt.Fprintf(&b, `"k\u00%02x%d" : {"\"%d":[%d], "n%d" :"\t"}`, 0x41+k%26, k, k, k, k)
		fmt.Fprintf(&b, `,"m%d":"%d"`, k, k)
	}
	checkTapeAgrees(t, "{"+b.String()+"}")
	for _, dup := range []string{`"kA0"`, `"k\u00410"`, `"m39"`, `"\u006d39"`} { // names met before
		checkTapeAgrees(t, "{"+b.String()+","+dup+":0}")
	}
	checkTapeAgrees(t, strings.Repeat("[", MaxArgsDepth)+strings.Repeat("]", MaxArgsDepth))
	checkTapeAgrees(t, strings.Repeat("[", MaxArgsDepth+2)+strings.Repeat("]", MaxArgsDepth+2))
}

func FuzzTape(f *testing.F) {
	for _, s := range tapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		// The gate refuses invalid UTF-8 before it parses.
		if !utf8.ValidString(in) || len(in) > 1<<16 || strings.Count(in, "[")+strings.Count(in, "{") > 1000 {
			return
		}
		checkTapeAgrees(t, in)
	})
}

func TestTapeEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		eq   bool
	}{
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, true},
		{`{"a":1.0}`, `{"a":1}`, true},
		{`{"a":1e2}`, `{"a":100}`, true},
		{`{"a":0.10000000000000000000001}`, `{"a":0.1}`, false},
		{`{"a":1}`, `{"A":1}`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`"\u003c"`, `"<"`, true},
		{`null`, `false`, false},
	} {
		x, y := getTape(), getTape()
		if err := x.parse(tc.a); err != nil {
			t.Fatal(err)
		}
		if err := y.parse(tc.b); err != nil {
			t.Fatal(err)
		}
		if got := tapeDiff(x, 0, y, 0) < 0; got != tc.eq {
			t.Errorf("%s vs %s: %v, want %v", tc.a, tc.b, got, tc.eq)
		}
		putTape(x)
		putTape(y)
	}
}

// toAny returns value i as encoding/json decodes it into an any
// (map[string]any, []any, float64, string, bool, nil): what the tape
// holds, for comparison with encoding/json.
func (t *tape) toAny(i int) any {
	switch t.kind(i) {
	case tNull:
		return nil
	case tFalse:
		return false
	case tTrue:
		return true
	case tNumber:
		return t.num(i)
	case tString:
		return t.str(i)
	case tArray:
		a := make([]any, 0, t.count(i))
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			a = append(a, t.toAny(p))
		}
		return a
	}
	m := make(map[string]any, t.count(i))
	for p := t.first(i); p < t.end(i); p = t.end(p) {
		m[t.key(p)] = t.toAny(p)
	}
	return m
}

// The tape is 4 bytes a value and 4 more a non-empty object or a member's
// non-empty array: parsing 100,000 numbers, or as many one-member objects
// or empty or one-element arrays, or arrays nested 5,000 deep, allocates
// the words at once and little else (a length is read again from its
// text, a name back from its value's, an array's offset from its first
// element's).
func TestTapeSize(t *testing.T) {
	const n = 100000
	for _, tc := range []struct {
		in string
		// The values, and the second words: of non-empty objects, and of
		// members' non-empty arrays.
		values, second int
	}{
		{"[" + strings.TrimSuffix(strings.Repeat("0,", n), ",") + "]", n + 1, 0},
		{"[" + strings.TrimSuffix(strings.Repeat(`"",`, n), ",") + "]", n + 1, 0},
		{"[" + strings.TrimSuffix(strings.Repeat(`{"a":0},`, n), ",") + "]", 2*n + 1, n},
		{strings.Repeat("[", 5000) + strings.Repeat("]", 5000), 5000, 0},
		{"[" + strings.TrimSuffix(strings.Repeat(`[],`, n), ",") + "]", n + 1, 0},
		{"[" + strings.TrimSuffix(strings.Repeat(`{},`, n), ",") + "]", n + 1, 0},
		{"[" + strings.TrimSuffix(strings.Repeat(`[0],`, n), ",") + "]", 2*n + 1, 0},
		{"[" + strings.TrimSuffix(strings.Repeat(`{"a":[0]},`, n), ",") + "]", 3*n + 1, 2 * n},
	} {
		tp := getTape()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := tp.parse(tc.in)
		runtime.ReadMemStats(&after)
		putTape(tp)
		if err != nil {
			t.Fatal(err)
		}
		if a, want := after.TotalAlloc-before.TotalAlloc, uint64(4*tc.values+4*tc.second); a > want+16<<10 {
			t.Errorf("parsing %.20s… (%d values, %d second words) allocated %d bytes, beyond %d", tc.in, tc.values, tc.second, a, want)
		}
	}
}

// The decoded strings and names of a text take no more of dec than the
// text has bytes, and one: so their offsets fit in a word whenever the
// text's do (parse still refuses a text whose bound would not). The
// densest escapes: one-byte strings and names of one escape, a NUL as
// \u0000, surrogate pairs, root strings.
func TestTapeDecFitsItsText(t *testing.T) {
	for _, in := range []string{
		`"\n"`, `"\u0000"`, `"\ud83d\ude00"`, `""`, `"\\\\"`,
		"[" + strings.TrimSuffix(strings.Repeat(`"\n",`, 1000), ",") + "]",
		"[" + strings.TrimSuffix(strings.Repeat(`"\/" ,`, 1000), ",") + "]",
		"{" + strings.TrimSuffix(strings.Repeat(`"\n":"\n",`, 1), ",") + "}",
		`{"\n":"\n","\t":["\r","\u00e9"],"a\"":{"\\":"\ud83d\ude00"}}`,
	} {
		_, _, dec := sizeOf(in)
		tp := getTape()
		if err := tp.parse(in); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if used := tp.dec.Len(); used > dec || dec > len(in)+1 {
			t.Errorf("%.40s: dec holds %d bytes, sizeOf bounds it by %d, the text is %d", in, used, dec, len(in))
		}
		putTape(tp)
	}
}

// A large object's names are checked for duplicates once it closes, or
// once a later error ends its parse; the refusal is still the one at the
// first name that repeats one before it, unless an error comes before
// that name.
func TestTapeLargeObjectRefusalOrder(t *testing.T) {
	members := func(from, to int) string {
		var b strings.Builder
		for k := from; k < to; k++ {
			fmt.Fprintf(&b, `"k%d":%d,`, k, k)
		}
		return b.String()
	}
	dup := `{"o":{` + members(0, 20) + `"k3":0,` + members(20, 30) // k3 again, the 21st name
	deep := strings.Repeat("[", MaxArgsDepth+1) + strings.Repeat("]", MaxArgsDepth+1)
	for _, tc := range []struct {
		name, in  string
		maxValues int
		rule      Rule
		pointer   string
	}{
		{"closed", dup + `"z":1}}`, 0, RuleDuplicateKey, "/o/k3"},
		{"syntax after", dup + `"z":}}`, 0, RuleDuplicateKey, "/o/k3"},
		{"end after", dup + `"z":1`, 0, RuleDuplicateKey, "/o/k3"},
		{"comma missing after", dup + `"z":1 "y":2}}`, 0, RuleDuplicateKey, "/o/k3"},
		{"too deep after", dup + `"z":` + deep + `}}`, 0, RuleDuplicateKey, "/o/k3"},
		{"range after", dup + `"z":1e400}}`, 0, RuleDuplicateKey, "/o/k3"},
		{"lone surrogate after", dup + `"\udc00":1}}`, 0, RuleDuplicateKey, "/o/k3"},
		{"values after", dup + `"z":[1,2,3]}}`, 36, RuleDuplicateKey, "/o/k3"},
		{"a name repeated, its value bad", `{"o":{` + members(0, 30) + `"k25":}}`, 0, RuleDuplicateKey, "/o/k25"},
		{"a name repeated, nothing after", `{"o":{` + members(0, 30) + `"k25"`, 0, RuleDuplicateKey, "/o/k25"},
		{"inner duplicate after", dup + `"z":{` + members(0, 20) + `"k1":1}}}`, 0, RuleDuplicateKey, "/o/k3"},
		{"inner duplicate first", `{"o":{` + members(0, 20) + `"z":{` + members(0, 20) + `"k1":1},` + `"k3":0}}`, 0, RuleDuplicateKey, "/o/z/k1"},
		{"second duplicate", dup + `"k4":0,"k3":0}}`, 0, RuleDuplicateKey, "/o/k3"},
		{"syntax before", `{"o":{` + members(0, 20) + `"x":}, "k3":0}}`, 0, RuleSyntax, "/o/x"},
		{"values before", dup + `"z":1}}`, 10, RuleValues, "/o/k8"},
		{"empty name repeated, its value bad", `{"o":{"":0,` + members(0, 30) + `"":}}`, 0, RuleDuplicateKey, "/o/"},
		{"escaped name repeated", `{"o":{` + members(0, 30) + `"\u006b7":0}}`, 0, RuleDuplicateKey, "/o/k7"},
		{"small duplicate", `{"o":{"a":1,"b":2,"a":3,` + members(0, 30) + `"z":}}`, 0, RuleDuplicateKey, "/o/a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := getTape()
			defer putTape(tp)
			tp.maxValues = tc.maxValues
			var r *Refusal
			if err := tp.parse(tc.in); !errors.As(err, &r) {
				t.Fatalf("%v, want a refusal", err)
			}
			if r.Rule != tc.rule || r.Pointer != tc.pointer {
				t.Fatalf("refusal %q at %q (%v), want %q at %q", r.Rule, r.Pointer, r.Err, tc.rule, tc.pointer)
			}
		})
	}
}
