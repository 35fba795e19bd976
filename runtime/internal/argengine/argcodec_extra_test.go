package argengine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// Types as the generator writes them for json.RawMessage and for structs
// with additional properties (ocpimpl.WithExtra), which the codec does
// itself.
type (
	codecExtraArgs struct {
		Read `json:"-"`
		X    json.RawMessage   `json:"x,omitzero"`
		Req  json.RawMessage   `json:"req"`
		In   *codecExtraInner  `json:"in,omitzero"`
		L    []codecExtraInner `json:"l,omitzero"`
		T    codecExtraTyped   `json:"t,omitzero"`
		U    codecExtraNull    `json:"u,omitzero"`
		Un   unionRaw          `json:"un,omitzero"`
		// AdditionalProperties holds the declared properties without a field.
		AdditionalProperties map[string]json.RawMessage `json:"-"`
	}
	codecExtraInner struct {
		A                    *string                           `json:"a,omitzero"`
		N                    []int64                           `json:"n,omitzero"`
		R                    []json.RawMessage                 `json:"r,omitzero"`
		NS                   ocpimpl.Nullable[string]          `json:"ns,omitzero"`
		NR                   ocpimpl.Nullable[json.RawMessage] `json:"nr,omitzero"`
		AdditionalProperties map[string]json.RawMessage        `json:"-"`
	}
	// codecExtraNull's additional properties are Nullables.
	codecExtraNull struct {
		AdditionalProperties map[string]ocpimpl.Nullable[int64] `json:"-"`
	}
	codecExtraTyped struct {
		S                    string           `json:"s"`
		AdditionalProperties map[string]int64 `json:"-"`
	}
	// codecExtraOther has a method the generator does not write: encoding/json's.
	codecExtraOther struct {
		Read                 `json:"-"`
		AdditionalProperties map[string]json.RawMessage `json:"-"`
	}
)

func (v codecExtraArgs) MarshalJSON() ([]byte, error) {
	type plain codecExtraArgs
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

func (v *codecExtraArgs) UnmarshalJSON(b []byte) error {
	type plain codecExtraArgs
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties, "x", "req", "in", "l", "t", "u", "un")
}

func (*codecExtraArgs) OCPWithExtra() {}

func (v codecExtraInner) MarshalJSON() ([]byte, error) {
	type plain codecExtraInner
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

func (v *codecExtraInner) UnmarshalJSON(b []byte) error {
	type plain codecExtraInner
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties, "a", "n", "r", "ns", "nr")
}

func (*codecExtraInner) OCPWithExtra() {}

func (v codecExtraTyped) MarshalJSON() ([]byte, error) {
	type plain codecExtraTyped
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

func (v *codecExtraTyped) UnmarshalJSON(b []byte) error {
	type plain codecExtraTyped
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties, "s")
}

func (*codecExtraTyped) OCPWithExtra() {}

func (v codecExtraNull) MarshalJSON() ([]byte, error) {
	type plain codecExtraNull
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

func (v *codecExtraNull) UnmarshalJSON(b []byte) error {
	type plain codecExtraNull
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties)
}

func (*codecExtraNull) OCPWithExtra() {}

func (v codecExtraOther) MarshalJSON() ([]byte, error) {
	type plain codecExtraOther
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

func (v *codecExtraOther) UnmarshalJSON(b []byte) error {
	type plain codecExtraOther
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties)
}

func (*codecExtraOther) OCPWithExtra() {}

func (codecExtraOther) String() string { return "other" }

// genExtra writes a random object for codecExtraArgs: declared members
// with values of their type or not, undeclared ones, keys in another case.
func genExtra(r *rand.Rand, depth int, b *strings.Builder) {
	genExtraWith(r, depth, b, "")
}

// genExtraWith is genExtra with the member first, when it is not "",
// mostly set (a required property).
func genExtraWith(r *rand.Rand, depth int, b *strings.Builder, first string) {
	keys := []string{"x", "req", "in", "l", "t", "a", "n", "r", "s", "X", "zz", `"<&>"`, "é", "ns", "nr", "u", "un", "A"}
	if depth > 3 {
		genAny(r, depth, b)
		return
	}
	b.WriteByte('{')
	seen := map[string]bool{}
	if first != "" && r.IntN(10) > 0 {
		fmt.Fprintf(b, "%q:", first)
		if first == "s" {
			b.WriteString(genString(r))
		} else {
			genAny(r, depth+1, b)
		}
		seen[first] = true
	}
	for range r.IntN(6) {
		key := keys[r.IntN(len(keys))]
		if seen[key] {
			continue
		}
		seen[key] = true
		if b.String()[b.Len()-1] != '{' {
			b.WriteByte(',')
		}
		if strings.HasPrefix(key, `"`) {
			b.WriteString(`"\u003c\u0026>"`)
		} else {
			fmt.Fprintf(b, "%q", key)
		}
		b.WriteByte(':')
		switch {
		case r.IntN(8) == 0:
			genAny(r, depth+1, b)
		case key == "in":
			genExtra(r, depth+1, b)
		case key == "t":
			genExtraWith(r, depth+1, b, "s")
		case key == "l" || key == "n" || key == "r":
			b.WriteByte('[')
			for e := range r.IntN(3) {
				if e > 0 {
					b.WriteByte(',')
				}
				switch key {
				case "l":
					genExtra(r, depth+1, b)
				case "n":
					b.WriteString([]string{"1", "1.0", "-7", "1e2", "9223372036854775808"}[r.IntN(5)])
				default:
					genAny(r, depth+1, b)
				}
			}
			b.WriteByte(']')
		case key == "a" || key == "s" || key == "ns" && r.IntN(3) > 0:
			b.WriteString(genString(r))
		case key == "ns":
			b.WriteString("null")
		case key == "u":
			b.WriteByte('{')
			for e := range r.IntN(3) {
				if e > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(b, `"k%d":%s`, e, []string{"null", "1", "1.0", "-0", "9223372036854775808", `"1"`}[r.IntN(6)])
			}
			b.WriteByte('}')
		case r.IntN(3) == 0:
			b.WriteString([]string{"1", "1.0", "-0", "12.50e1"}[r.IntN(4)])
		default:
			genAny(r, depth+1, b)
		}
	}
	b.WriteByte('}')
}

// TestArgCodecExtraRaw holds the codec to encoding/json on the generated
// parts it does itself, json.RawMessage and structs with additional
// properties: on random arguments, the same verdict, and where both accept,
// the same forwarded bytes and the same typed value; where the fast path
// (encodeTape) takes them, the codec's decode takes them and its encode
// writes the same bytes.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: no
// test of this package runs the engine concurrently, runtime/ocp's do.
func TestArgCodecExtraRaw(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	typ := reflect.TypeFor[codecExtraArgs]()
	n := compileCodec(typ)
	if n == nil {
		t.Fatal("no codec for codecExtraArgs")
	}
	if compileCodec(reflect.TypeFor[codecExtraOther]()) != nil {
		t.Error("a codec for a struct with additional properties and a method the generator does not write")
	}
	r := rand.New(rand.NewPCG(5, 6))
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	cases := []string{
		`{"req":null}`, `{"req":1.0,"x":{"b":[1,"\u00e9"],"a":null}}`, `{"req":"<&>","zz":{"k":1}}`, `{"req":1,"t":{"s":"a","k":1.0}}`,
		`{"req":1,"t":{"s":"a","k":"no"}}`, `{"req":1,"in":{"a":"x","b":[true],"X":2}}`, `{"req":1,"in":null}`, `{"req":1,"t":null}`,
		`{"req":[],"l":[{"n":[1,2.0]},{"r":[null,{}]}]}`, `{"X":1}`, `{}`, `{"req":1,"in":{"a":"\u2028"}}`,
		`{"req":1,"in":{"ns":null,"nr":null}}`, `{"req":1,"in":{"ns":"<","nr":{"a": [1.0, "<"]}}}`, `{"req":1,"in":{"nr":1e2}}`,
		`{"req":1,"u":{"b":null,"a":1.0}}`, `{"req":1,"u":{"a":"x"}}`, `{"req":1,"u":{}}`, `{"req":1,"in":{"ns":1}}`,
	}
	accepted, fast := 0, 0
	for k := range rounds + len(cases) {
		var raw []byte
		if k < len(cases) {
			raw = []byte(cases[k])
		} else {
			var b strings.Builder
			genExtraWith(r, 0, &b, "req")
			raw = []byte(b.String())
		}
		ok, tape := checkExtraAgrees(t, n, raw)
		if ok {
			accepted++
		}
		if tape {
			fast++
		}
	}
	t.Logf("%d of %d accepted, %d by encodeTape", accepted, rounds+len(cases), fast)
	if accepted < rounds/10 {
		t.Errorf("only %d of %d accepted", accepted, rounds)
	}
	if fast < rounds/100 {
		t.Errorf("only %d of %d taken by encodeTape", fast, rounds)
	}
}

// checkExtraAgrees fails t unless the codec n of codecExtraArgs and
// encoding/json give raw the same verdict and, when they accept it, the
// same forwarded bytes and typed value, and unless what encodeTape writes,
// when it takes raw, is what the codec's encode writes of its decode. It
// reports whether they accept it, and whether encodeTape took it.
func checkExtraAgrees(t *testing.T, n *codecNode, raw []byte) (ok, fast bool) {
	typ := reflect.TypeFor[codecExtraArgs]()
	ref, got, parsed := codecBoth(t, typ, n, raw)
	if !parsed {
		return false, false
	}
	if ref.ok != got.ok {
		t.Fatalf("%s: encoding/json accepts=%v (%v, %s), the codec accepts=%v (%v, %s)", raw, ref.ok, ref.err, ref.fwd, got.ok, got.err, got.fwd)
	}
	tp := getTape()
	defer putTape(tp)
	if tp.parse(string(raw)) == nil {
		if out, ok := encodeTapeBoth(t, n, tp, raw); ok {
			switch {
			case got.err != nil:
				t.Fatalf("%s: encodeTape writes %s, the decode refuses it: %v", raw, out, got.err)
			case !bytes.Equal(out, got.fwd):
				t.Fatalf("%s: re-encoded\n%s by the codec\n%s by encodeTape", raw, got.fwd, out)
			}
			fast = true
		}
	}
	if !ref.ok {
		return false, fast
	}
	if !bytes.Equal(ref.fwd, got.fwd) {
		t.Fatalf("%s: re-encoded\n%s by encoding/json\n%s by the codec", raw, ref.fwd, got.fwd)
	}
	if !reflect.DeepEqual(ref.args, got.args) {
		t.Fatalf("%s: decoded\n%#v by encoding/json\n%#v by the codec", raw, ref.args, got.args)
	}
	return true, fast
}

func FuzzArgCodecExtra(f *testing.F) {
	for _, s := range []string{`{"req":1,"un":{"a":1}}`, `{"req":1,"un":{"A":1.0,"b":"<"}}`, `{"req":1,"un":[1.0]}`, `{"req":1.0,"x":{"b":[1,"\u00e9"]}}`, `{"req":"<&>","zz":{"k":1},"t":{"s":"a","k":2}}`, `{"req":[],"l":[{"n":[1,2.0],"q":" x "}]}`} {
		f.Add([]byte(s))
	}
	n := compileCodec(reflect.TypeFor[codecExtraArgs]())
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkExtraAgrees(t, n, raw)
	})
}

// appendCompact writes what json.Compact writes, and with html what
// json.HTMLEscape writes of that; appendCompactPart writes the same of the
// text in parts.
func checkCompact(t *testing.T, in string) {
	if !json.Valid([]byte(in)) {
		return
	}
	var c, h bytes.Buffer
	if err := json.Compact(&c, []byte(in)); err != nil {
		t.Fatal(err)
	}
	json.HTMLEscape(&h, c.Bytes())
	if got := appendCompact([]byte("x"), in, true); string(got) != "x"+h.String() {
		t.Fatalf("%q: %q, want %q", in, got, h.String())
	}
	if got := appendCompact(nil, []byte(in), true); string(got) != h.String() {
		t.Fatalf("%q (bytes): %q, want %q", in, got, h.String())
	}
	if got := appendCompact(nil, in, false); string(got) != c.String() {
		t.Fatalf("%q (plain): %q, want %q", in, got, c.String())
	}
	// In three parts, split between characters (every split of a short
	// text).
	for k := 0; k <= len(in) && len(in) <= 256; k++ {
		for j := k; j <= len(in); j++ {
			if k < len(in) && !utf8.RuneStart(in[k]) || j < len(in) && !utf8.RuneStart(in[j]) {
				continue
			}
			for _, html := range []bool{false, true} {
				var st compacting
				got := appendCompactPart(nil, in[:k], html, &st)
				got = appendCompactPart(got, in[k:j], html, &st)
				got = appendCompactPart(got, in[j:], html, &st)
				if want := appendCompact(nil, in, html); string(got) != string(want) {
					t.Fatalf("%q in parts %q, %q, %q (html %v): %q, want %q", in, in[:k], in[k:j], in[j:], html, got, want)
				}
			}
		}
	}
}

func TestAppendCompact(t *testing.T) {
	for _, in := range compactHTMLSeeds {
		checkCompact(t, in)
	}
}

var compactHTMLSeeds = []string{
	`{}`, ` [ 1 , 2 ] `, "{\"a\" :\t\"<b>&\\\" \\\\\"\r\n}", `"\u2028 ` + "\u2028\u2029\u2027" + ` \\"`, `[true, false, null, -1.5e3]`,
	`{"k": {"<": [">", "&amp;", "\"<\""]}}`, `"é \u00e9 \ud83d\ude00 ` + "😀" + `"`,
}

func FuzzAppendCompact(f *testing.F) {
	for _, s := range compactHTMLSeeds {
		f.Add(s)
	}
	f.Fuzz(checkCompact)
}
