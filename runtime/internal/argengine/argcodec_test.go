package argengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/e2e/filesystemocp"
	"github.com/ocpgen/ocpgen/e2e/memoryocp"
	"github.com/ocpgen/ocpgen/examples/tickets/ticketsocp"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// Types that exercise every part of the codec.

type codecName string

type codecInner struct {
	S   string             `json:"s"`
	P   *codecInner        `json:"p,omitempty"`
	Arr []codecInner       `json:"arr,omitzero"`
	M   map[string]*string `json:"m"`
}

type codecAll struct {
	Read `json:"-"`

	Str    string             `json:"str"`
	Named  codecName          `json:"named,omitempty"`
	B      bool               `json:"b,omitzero"`
	I      int                `json:"i"`
	I8     int8               `json:"i8,omitempty"`
	I16    int16              `json:"i16"`
	I32    int32              `json:"i32,omitzero"`
	I64    *int64             `json:"i64,omitzero"`
	U      uint               `json:"u"`
	U8     uint8              `json:"u8"`
	U16    *uint16            `json:"u16,omitempty"`
	U32    uint32             `json:"u32"`
	U64    uint64             `json:"u64,omitzero"`
	F32    float32            `json:"f32"`
	F64    float64            `json:"f64,omitempty"`
	PF     *float64           `json:"pf"`
	PP     **string           `json:"pp,omitzero"`
	List   []string           `json:"list"`
	LP     []*int64           `json:"lp,omitempty"`
	LL     [][]float64        `json:"ll"`
	Map    map[string]int64   `json:"map,omitzero"`
	MN     map[codecName]bool `json:"mn,omitempty"`
	In     *codecInner        `json:"in,omitzero"`
	InV    codecInner         `json:"inv,omitempty"`
	Esc    string             `json:"a<b>&c"`
	Bad    string             `json:"bad\"name"`
	NoTag  string
	Dash   string `json:"-,"`
	hidden string //nolint:unused // encoding/json ignores it, and so must the codec
}

// codecFast has the parts that encodeTape writes (and some it leaves to
// the general path: omitempty on a value, a null), so that many of its
// arguments take the fast path. (Floats are SearchNodesArgs's: genValue
// makes few canonical ones.)
type codecFast struct {
	Read `json:"-"`

	Str  string          `json:"str"`
	B    *bool           `json:"b,omitzero"`
	I8   int8            `json:"i8"`
	I16  *int16          `json:"i16,omitempty"`
	I32  int32           `json:"i32"`
	I64  *int64          `json:"i64,omitzero"`
	U8   uint8           `json:"u8"`
	U32  *uint32         `json:"u32,omitzero"`
	U64  uint64          `json:"u64"`
	PP   **string        `json:"pp,omitzero"`
	List []string        `json:"list,omitzero"`
	LP   []int64         `json:"lp,omitempty"`
	LL   [][]int16       `json:"ll,omitzero"`
	In   *codecFastInner `json:"in,omitzero"`
	InV  codecFastInner  `json:"inv"`
	InE  codecFastInner  `json:"ine,omitempty"`
	Esc  string          `json:"a<b>&c,omitempty"`
}

type codecFastInner struct {
	S   string           `json:"s"`
	Arr []codecFastInner `json:"arr,omitzero"`
}

// codecRaw holds a json.RawMessage, which the codec does itself.
type codecRaw struct {
	Read `json:"-"`
	X    json.RawMessage `json:"x"`
}

// Types the codec leaves to encoding/json.
type (
	codecAny struct {
		Read `json:"-"`
		X    any `json:"x"`
	}
	codecBytes struct {
		Read `json:"-"`
		X    []byte `json:"x"`
	}
	codecQuoted struct {
		Read `json:"-"`
		X    int64 `json:"x,string"`
	}
	codecEmbedded struct {
		Read `json:"-"`
		codecInner
	}
	codecArray struct {
		Read `json:"-"`
		X    [2]string `json:"x"`
	}
	codecIntKey struct {
		Read `json:"-"`
		X    map[int]string `json:"x"`
	}
	codecZeroer struct {
		Read `json:"-"`
		X    zeroer `json:"x,omitzero"`
	}
	zeroer struct{ A int }
)

func (zeroer) IsZero() bool { return true }

// codecDupType has two fields named x, which encoding/json both drops (a
// type literal would not pass go vet).
var codecDupType = reflect.StructOf([]reflect.StructField{
	{Name: "X", Type: reflect.TypeFor[string](), Tag: `json:"x"`},
	{Name: "Y", Type: reflect.TypeFor[string](), Tag: `json:"x"`},
})

func TestArgCodecCovers(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[codecAll](), reflect.TypeFor[SearchNodesArgs](), reflect.TypeFor[AddObservationsArgs](),
		reflect.TypeFor[DeleteEntitiesArgs](), reflect.TypeFor[ReadGraphArgs](), reflect.TypeFor[GetNoteArgs](),
		// Generated code as the generator writes it now (markers and all).
		reflect.TypeFor[ticketsocp.ListTicketsArgs](), reflect.TypeFor[ticketsocp.CloseTicketArgs](),
		reflect.TypeFor[codecRaw](), reflect.TypeFor[codecExtraArgs](),
		// Nested open objects (an AdditionalProperties map) as generated.
		reflect.TypeFor[memoryocp.CreateEntitiesArgs](), reflect.TypeFor[filesystemocp.EditFileArgs](),
	} {
		if compileCodec(typ) == nil {
			t.Errorf("%v: no codec", typ)
		}
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[codecExtraOther](), reflect.TypeFor[codecAny](), reflect.TypeFor[codecBytes](), reflect.TypeFor[codecQuoted](),
		codecDupType, reflect.TypeFor[codecEmbedded](), reflect.TypeFor[codecArray](), reflect.TypeFor[codecIntKey](),
		reflect.TypeFor[codecZeroer](),
	} {
		if compileCodec(typ) != nil {
			t.Errorf("%v: a codec, for a type it does not cover", typ)
		}
	}
}

// codecVerdict runs the typed decode and re-encoding of raw into typ both
// ways and returns each way's verdict (what checkArgs accepts: the decode
// succeeds and the re-encoding equals the arguments), value and bytes.
type codecOutcome struct {
	ok   bool
	args any
	fwd  []byte
	err  error
}

func codecBoth(t testing.TB, typ reflect.Type, n *codecNode, raw []byte) (ref, got codecOutcome, parsed bool) {
	tp := getTape()
	defer putTape(tp)
	if tp.parse(string(raw)) != nil {
		return ref, got, false
	}
	// equal is the round trip's verdict: a re-encoding that does not parse
	// (two invalid UTF-8 keys both written as U+FFFD are a duplicate key)
	// is refused, as sameAsTape refuses it.
	equal := func(fwd []byte) bool {
		back := getTape()
		defer putTape(back)
		if back.parse(string(fwd)) != nil {
			if sameAsTape(tp, fwd) == nil {
				t.Fatalf("re-encoding %s does not parse, and sameAsTape takes it", fwd)
			}
			return false
		}
		return tapeDiff(tp, 0, back, 0) < 0
	}
	if a, err := decodeArgs(typ, tp.decodeInput(raw)); err != nil {
		ref.err = err
	} else if fwd, err := MarshalPlain(a); err != nil {
		ref.err = err // a union with no field set (a zero union the arguments do not hold)
	} else {
		ref = codecOutcome{ok: equal(fwd), args: a, fwd: fwd}
	}
	p := reflect.New(typ)
	err := n.decode(tp, 0, p.Elem())
	// The decode that stores nothing refuses the same, where decode does.
	if dry := n.decode(tp, 0, reflect.Value{}); fmt.Sprint(dry) != fmt.Sprint(err) {
		t.Fatalf("%.200s into %v: the decode says %v, the one that stores nothing %v", raw, typ, err, dry)
	}
	if err != nil {
		got.err = err
	} else {
		if fwd, err := n.encode(nil, p.Elem(), false); err != nil {
			got.err = err
		} else {
			got = codecOutcome{ok: equal(fwd), args: p.Interface(), fwd: fwd}
		}
	}
	return ref, got, true
}

// encodeTapeBoth runs encodeTape on the value of tp, parsed from src,
// twice: appending only, and checking what it writes against src (as
// Check does). It fails t if the two write other bytes, or if the second
// does not give back src itself exactly when they are src's bytes; it
// returns the bytes and whether encodeTape took the value.
func encodeTapeBoth(t testing.TB, n *codecNode, tp *tape, src []byte) ([]byte, bool) {
	t.Helper()
	all := &fwdBuf{whole: true}
	ok := n.encodeTape(all, tp, 0, false)
	src = bytes.Clone(src)
	w := newFwdBuf(src)
	if n.encodeTape(w, tp, 0, false) != ok {
		t.Fatalf("%.200s: encodeTape takes it appending only: %v, checking: %v", src, ok, !ok)
	}
	if !ok {
		return nil, false
	}
	out, same := w.bytes()
	switch {
	case !bytes.Equal(out, all.b):
		t.Fatalf("%.200s: encodeTape writes\n%.200s appending only,\n%.200s checking", src, all.b, out)
	case same != bytes.Equal(out, src):
		t.Fatalf("%.200s: the re-encoding is the arguments' bytes: %v; said: %v", src, !same, same)
	case same && (len(src) == 0 || &out[0] != &src[0]):
		t.Fatalf("%.200s: the same bytes are not the private copy itself", src)
	}
	return out, true
}

func checkCodecAgrees(t testing.TB, typ reflect.Type, n *codecNode, raw []byte) {
	checkCodecAgreesFast(t, typ, n, raw)
}

// checkCodecAgreesFast is checkCodecAgrees, and holds the codec's fast path
// (encodeTape) to its general one: where encodeTape takes the arguments,
// the decode takes them and the encode writes the same bytes (which the
// round trip then compares with the arguments on either path). It reports
// whether encodeTape took them.
func checkCodecAgreesFast(t testing.TB, typ reflect.Type, n *codecNode, raw []byte) (fast bool) {
	ref, got, parsed := codecBoth(t, typ, n, raw)
	if !parsed {
		return false
	}
	tp := getTape()
	defer putTape(tp)
	if err := tp.parse(string(raw)); err != nil {
		t.Fatalf("%s parses once and not twice: %v", raw, err)
	}
	if out, ok := encodeTapeBoth(t, n, tp, raw); ok {
		switch {
		case got.err != nil:
			t.Fatalf("%s into %v: encodeTape writes %s, the decode refuses it: %v", raw, typ, out, got.err)
		case !bytes.Equal(out, got.fwd):
			t.Fatalf("%s into %v: re-encoded\n%s by the codec\n%s by encodeTape", raw, typ, got.fwd, out)
		}
		fast = true
	}
	switch {
	case ref.ok != got.ok:
		t.Fatalf("%s into %v: encoding/json accepts=%v (%v, %s), the codec accepts=%v (%v, %s)", raw, typ, ref.ok, ref.err, ref.fwd, got.ok, got.err, got.fwd)
	case ref.ok && !bytes.Equal(ref.fwd, got.fwd):
		t.Fatalf("%s into %v: re-encoded\n%s by encoding/json\n%s by the codec", raw, typ, ref.fwd, got.fwd)
	case ref.ok && !reflect.DeepEqual(ref.args, got.args):
		t.Fatalf("%s into %v: decoded\n%#v by encoding/json\n%#v by the codec", raw, typ, ref.args, got.args)
	}
	return fast
}

// genFor writes a random JSON value shaped like typ, with mistakes: wrong
// kinds, nulls, keys in another case, unknown keys, numbers at and past
// the limits and in other notations, strings that need escaping.
func genFor(r *rand.Rand, typ reflect.Type, depth int, b *strings.Builder) {
	genTyped(r, typ, depth, b, 1+r.IntN(300))
}

// genTyped is genFor making a mistake at about one node in rate.
func genTyped(r *rand.Rand, typ reflect.Type, depth int, b *strings.Builder, rate int) {
	mistake := func() bool { return r.IntN(rate) == 0 }
	if depth > 4 {
		switch typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			b.WriteString("null")
			return
		}
	}
	if mistake() || depth > 8 {
		genAny(r, depth, b)
		return
	}
	if vt, ok := isNullableType(typ); ok {
		if r.IntN(4) == 0 {
			b.WriteString("null")
			return
		}
		genTyped(r, vt, depth, b, rate)
		return
	}
	if typ.Kind() == reflect.Struct && isUnion(typ) {
		// One branch's T.
		genTyped(r, typ.Field(r.IntN(typ.NumField())).Type.Elem(), depth, b, rate)
		return
	}
	switch typ.Kind() {
	case reflect.Pointer:
		if r.IntN(5) == 0 {
			b.WriteString("null")
			return
		}
		genTyped(r, typ.Elem(), depth, b, rate)
	case reflect.String:
		b.WriteString(genString(r))
	case reflect.Bool:
		b.WriteString([]string{"true", "false"}[r.IntN(2)])
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if mistake() {
			b.WriteString(genNumber(r))
			return
		}
		// In range for every integer type, in several notations.
		b.WriteString([]string{"0", "1", "7", "100", "1.0", "1e2", "12.50e1", "0.0", "127", "0e5"}[r.IntN(10)])
	case reflect.Float32, reflect.Float64:
		b.WriteString(genNumber(r))
	case reflect.Slice:
		b.WriteByte('[')
		for k := range r.IntN(4) {
			if k > 0 {
				b.WriteByte(',')
			}
			genTyped(r, typ.Elem(), depth+1, b, rate)
		}
		b.WriteByte(']')
	case reflect.Map:
		b.WriteByte('{')
		for k := range r.IntN(4) {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(b, "%s:", genString(r))
			genTyped(r, typ.Elem(), depth+1, b, rate)
		}
		b.WriteByte('}')
	case reflect.Struct:
		b.WriteByte('{')
		k := 0
		for i := range typ.NumField() {
			sf := typ.Field(i)
			tag := sf.Tag.Get("json")
			omittable := strings.Contains(tag, ",omit")
			if sf.Anonymous || omittable && r.IntN(2) == 0 || mistake() {
				continue
			}
			if (tag == "-" || !sf.IsExported()) && !mistake() {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if !jsonscan.IsValidTagName(name) || mistake() {
				name = sf.Name
			}
			if mistake() {
				name = strings.ToUpper(name)
			}
			if mistake() {
				name = "unknown"
			}
			if k > 0 {
				b.WriteByte(',')
			}
			k++
			b.WriteString(strconv.Quote(name) + ":")
			genTyped(r, sf.Type, depth+1, b, rate)
		}
		b.WriteByte('}')
	default:
		genAny(r, depth, b)
	}
}

// genValue returns a random Go value of typ: its encoding is arguments
// the gate accepts (when the value has no zero under omitempty).
func genValue(r *rand.Rand, typ reflect.Type, depth int) reflect.Value {
	v := reflect.New(typ).Elem()
	if vt, ok := isNullableType(typ); ok {
		// Absent, null or a value.
		switch nv := v.Addr().Interface().(nullable); r.IntN(4) {
		case 0:
		case 1:
			nv.OCPSetNull()
		default:
			reflect.ValueOf(nv.OCPSetValue()).Elem().Set(genValue(r, vt, depth+1))
		}
		return v
	}
	if typ.Kind() == reflect.Struct && isUnion(typ) {
		// One branch set.
		f := v.Field(r.IntN(typ.NumField()))
		f.Set(reflect.New(f.Type().Elem()))
		f.Elem().Set(genValue(r, f.Type().Elem(), depth+1))
		return v
	}
	switch typ.Kind() {
	case reflect.Pointer:
		if depth < 4 && r.IntN(4) != 0 {
			v.Set(genValue(r, typ.Elem(), depth+1).Addr())
		}
	case reflect.String:
		var s string
		_ = json.Unmarshal([]byte(genString(r)), &s)
		v.SetString(s)
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(r.Uint64()) >> (64 - typ.Bits()) >> r.IntN(typ.Bits()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.Uint64() >> (64 - typ.Bits()) >> r.IntN(typ.Bits()))
	case reflect.Float32:
		v.SetFloat(float64(float32(r.NormFloat64() * math10(r.IntN(50)-25))))
	case reflect.Float64:
		v.SetFloat(r.NormFloat64() * math10(r.IntN(60)-30))
	case reflect.Slice:
		if depth < 4 && r.IntN(5) != 0 {
			n := r.IntN(4)
			v.Set(reflect.MakeSlice(typ, n, n))
			for k := range n {
				v.Index(k).Set(genValue(r, typ.Elem(), depth+1))
			}
		}
	case reflect.Map:
		if depth < 4 && r.IntN(5) != 0 {
			v.Set(reflect.MakeMap(typ))
			for range r.IntN(4) {
				k := reflect.New(typ.Key()).Elem()
				k.SetString(genString(r)[1:2])
				v.SetMapIndex(k, genValue(r, typ.Elem(), depth+1))
			}
		}
	case reflect.Struct:
		for i := range typ.NumField() {
			if sf := typ.Field(i); sf.IsExported() && !sf.Anonymous {
				v.Field(i).Set(genValue(r, sf.Type, depth+1))
			}
		}
	}
	return v
}

func genAny(r *rand.Rand, depth int, b *strings.Builder) {
	switch r.IntN(7) {
	case 0:
		b.WriteString("null")
	case 1:
		b.WriteString("true")
	case 2:
		b.WriteString(genNumber(r))
	case 3:
		b.WriteString(genString(r))
	case 4:
		if depth < 6 {
			b.WriteString("[")
			genAny(r, depth+1, b)
			b.WriteString("]")
			return
		}
		b.WriteString("[]")
	case 5:
		if depth < 6 {
			b.WriteString(`{"s":`)
			genAny(r, depth+1, b)
			b.WriteString("}")
			return
		}
		b.WriteString("{}")
	default:
		b.WriteString(`{}`)
	}
}

var genNumbers = []string{
	"0", "-0", "1", "-1", "7", "10", "1.0", "1e2", "1E+2", "12.50e1", "0.25", "-0.0", "1.5", "1e-7", "1e21", "1e20", "123456789012345678901234567890",
	"127", "128", "-128", "-129", "255", "256", "32767", "32768", "65535", "65536", "2147483647", "2147483648", "4294967295", "4294967296",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"3.4028234663852886e38", "3.5e38", "1e39", "1e-46", "1.401298464324817e-45", "5e-324", "1.7976931348623157e308", "0.1", "0.30000000000000004",
	"100000000000000000000000", "1e-6", "0.000001", "9.999999e-7",
}

var genStrings = []string{
	`""`, `"a"`, `"Ada Lovelace"`, `"<b>&amp;</b>"`, `"\u2028\u2029"`, `"tab\there"`, `"\"quoted\""`, `"back\\slash"`, `"\u00e9t\u00e9"`,
	`"\ud83d\ude00"`, `"é"`, `"\u0000\u001f"`, `"/\/"`, `"person"`, `"org"`, "\"\u2028\"", `"\b\f\n\r"`,
}

func genNumber(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return strconv.FormatFloat(r.NormFloat64()*math10(r.IntN(40)-20), 'g', -1, 64)
	}
	return genNumbers[r.IntN(len(genNumbers))]
}

func math10(e int) float64 {
	f := 1.0
	for ; e > 0; e-- {
		f *= 10
	}
	for ; e < 0; e++ {
		f /= 10
	}
	return f
}

func genString(r *rand.Rand) string { return genStrings[r.IntN(len(genStrings))] }

// TestArgCodecAgreesWithEncodingJSON holds the codec to encoding/json: on
// random arguments shaped like each covered type (and broken in the ways
// genFor breaks them), the gate accepts the same arguments both ways, with
// the same typed value and the same forwarded bytes.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: no
// test of this package runs the engine concurrently, runtime/ocp's do.
func TestArgCodecAgreesWithEncodingJSON(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[codecAll](), reflect.TypeFor[codecFast](), reflect.TypeFor[SearchNodesArgs](), reflect.TypeFor[AddObservationsArgs](), reflect.TypeFor[DeleteEntitiesArgs](),
		reflect.TypeFor[codecNullable](), reflect.TypeFor[codecNullableFast](), reflect.TypeFor[CreateNoteArgs](),
		reflect.TypeFor[codecUnion](), reflect.TypeFor[codecUnionFast](), reflect.TypeFor[codecUnionFolded](),
	} {
		n := compileCodec(typ)
		accepted, fast := 0, 0
		for k := range rounds {
			var b strings.Builder
			genFor(r, typ, 0, &b)
			raw := []byte(b.String())
			if k%2 == 0 {
				// A valid value's encoding, compact or indented.
				raw, _ = json.Marshal(genValue(r, typ, 0).Addr().Interface())
				if k%4 == 0 {
					var ind bytes.Buffer
					_ = json.Indent(&ind, raw, "", " ")
					raw = ind.Bytes()
				}
			}
			if checkCodecAgreesFast(t, typ, n, raw) {
				fast++
			}
			if ref, _, ok := codecBoth(t, typ, n, raw); ok && ref.ok {
				accepted++
			}
		}
		// A generator that only made refusals would test little, and so
		// would one that never reached the fast path.
		t.Logf("%v: %d of %d accepted, %d by encodeTape", typ, accepted, rounds, fast)
		// A union's branch is chosen by what the value is: a value made
		// for one branch (genTyped) is often refused, and more so with
		// several unions in one value.
		wantAccepted := rounds / 4
		switch typ {
		case reflect.TypeFor[codecUnion](), reflect.TypeFor[codecUnionFast]():
			wantAccepted = rounds / 20
		}
		if accepted < wantAccepted {
			t.Errorf("%v: only %d of %d generated arguments accepted", typ, accepted, rounds)
		}
		// codecAll is mostly the parts encodeTape leaves to the general
		// path, and codecUnion and codecUnionFolded values it holds are
		// mostly refused.
		want := rounds / 10
		switch typ {
		case reflect.TypeFor[codecAll](), reflect.TypeFor[codecUnion](), reflect.TypeFor[codecUnionFolded]():
			want = 0
		case reflect.TypeFor[codecUnionFast]():
			want = rounds / 20
		}
		if fast < want {
			t.Errorf("%v: only %d of %d generated arguments took encodeTape", typ, fast, rounds)
		}
	}
}

func TestArgCodecCases(t *testing.T) {
	n := compileCodec(reflect.TypeFor[codecAll]())
	for _, raw := range []string{
		`{}`, `{"str":"x","i":1.0,"u":1e2,"f32":3.5e38}`, `{"f32":1e-46}`, `{"i8":128}`, `{"u":-1}`, `{"i":1.5}`,
		`{"pp":"x"}`, `{"pp":null}`, `{"lp":[null,1,2.0]}`, `{"ll":[[1e-7,1e21],[],null]}`, `{"map":{"b":1,"a":2,"<":3}}`,
		`{"mn":{"x":true}}`, `{"in":{"s":"a","p":{"s":"b","m":{"k":null}}}}`, `{"inv":{"arr":[]}}`, `{"a<b>&c":"<>"}`,
		`{"NoTag":"x"}`, `{"notag":"x"}`, `{"bad\"name":"x"}`, `{"Bad":"x"}`, `{"-":"x"}`, `{"Dash":"x"}`, `{"hidden":"x"}`,
		`{"str":null}`, `{"list":null}`, `{"list":[]}`, `{"map":null}`, `{"map":{}}`, `{"f64":-0}`, `{"f64":0}`, `{"pf":-0.0}`,
		`{"str":1}`, `{"i":"1"}`, `{"b":0}`, `{"list":{}}`, `{"in":[]}`, `{"u64":18446744073709551615}`, `{"i64":-9223372036854775808}`,
		`{"STR":"x"}`, `{"str":"x","Str":"y"}`, `{"f64":1e-320}`, `{"f32":1.401298464324817e-45}`,
	} {
		checkCodecAgrees(t, reflect.TypeFor[codecAll](), n, []byte(raw))
	}
}

func FuzzArgCodec(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"str":"x","i":1.0,"list":["a"],"map":{"b":1,"a":2}}`, `{"in":{"s":"a","p":{"s":"b"}}}`, `{"f32":3.5e38}`,
		`{"s":"<","i":1.0,"b":null,"ln":[null,"a"],"m":{"b":1,"a":null}}`, `{"in":{"s":null,"n":1}}`, `{"x":{"s":"a","k":1}}`, `{"e":null,"s":"<"}`,
		`{"si":1.0,"in":1.0,"req":{"a":1,"c":"x"},"raw":{"A":1},"arr":[1,"a"]}`, `{"sch":{"k":1,"a":1},"nest":[{"a":1},"x"],"ext":null}`,
		`{"x":{"r":{"a":1},"a":["<"],"z":1},"null":null,"pn":1.0,"m":{"b":{"b":1}}}`, `{"nest":{"u":{"a":1,"c":"d"},"n":"x"},"raw":{"ſ":"x","a":1}}`,
	} {
		f.Add([]byte(s))
	}
	var types []reflect.Type
	var nodes []*codecNode
	for _, typ := range []reflect.Type{
		reflect.TypeFor[codecAll](), reflect.TypeFor[codecFast](), reflect.TypeFor[codecNullable](), reflect.TypeFor[codecNullableFast](),
		reflect.TypeFor[codecUnion](), reflect.TypeFor[codecUnionFast](), reflect.TypeFor[codecUnionFolded](),
	} {
		types, nodes = append(types, typ), append(nodes, compileCodec(typ))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for k, typ := range types {
			checkCodecAgrees(t, typ, nodes[k], raw)
		}
	})
}

// TestCheckFastPathAgrees holds Check with the fast path (the re-encoding
// written from the tape, the typed arguments made only when asked for) to
// the same check through encoding/json alone: on random arguments for the
// benchmark's read and write, the same verdict, the same forwarded bytes,
// and, when asked for, the same typed arguments.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: no
// test of this package runs the engine concurrently, runtime/ocp's do.
func TestCheckFastPathAgrees(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	r := rand.New(rand.NewPCG(3, 4))
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	for _, tool := range []struct {
		name, schema string
		typ          reflect.Type
	}{
		{"search_nodes", searchNodesSchema, reflect.TypeFor[SearchNodesArgs]()},
		{"add_observations", addObservationsSchema, reflect.TypeFor[AddObservationsArgs]()},
	} {
		e, err := Compile([]byte(tool.schema), tool.typ, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		if e.codec == nil {
			t.Fatalf("%s: no codec", tool.name)
		}
		ref := *e
		ref.codec = nil // decodeArgs and MarshalPlain
		general, accepted := 0, 0
		for k := range rounds {
			var b strings.Builder
			genFor(r, e.typ, 0, &b)
			raw := []byte(b.String())
			if k%2 == 0 {
				raw, _ = json.Marshal(genValue(r, e.typ, 0).Addr().Interface())
			}
			wantArgs, wantFwd, wantErr := ref.Check(raw, allFields(&ref))
			for _, need := range []bool{true, false} {
				var read *Typed
				if need {
					read = allFields(e)
				}
				args, fwd, err := e.Check(raw, read)
				switch {
				case (err == nil) != (wantErr == nil):
					t.Fatalf("%s %s (need %v): error %v, through encoding/json %v", tool.name, raw, need, err, wantErr)
				case err != nil:
					continue
				case !bytes.Equal(fwd, wantFwd):
					t.Fatalf("%s %s (need %v): forwards\n%s, through encoding/json\n%s", tool.name, raw, need, fwd, wantFwd)
				case need && !reflect.DeepEqual(args, wantArgs):
					t.Fatalf("%s %s: typed\n%#v, through encoding/json\n%#v", tool.name, raw, args, wantArgs)
				case !need && args != nil:
					t.Fatalf("%s %s: typed arguments unasked", tool.name, raw)
				case !need && !tapeWrites(e, raw):
					general++
				}
			}
			if wantErr == nil {
				accepted++
			}
		}
		fast := accepted - general
		t.Logf("%s: %d of %d accepted, %d of them by the fast path", tool.name, accepted, rounds, fast)
		if accepted < rounds/10 || fast < accepted/4 {
			t.Errorf("%s: %d accepted, %d by the fast path: the generator reaches too little", tool.name, accepted, fast)
		}
	}
}

// TestEncodeTapeCases holds encodeTape to the codec at the edges of what
// it takes: integer bounds, nulls, empty and absent members, escapes.
func TestEncodeTapeCases(t *testing.T) {
	typ := reflect.TypeFor[codecFast]()
	n := compileCodec(typ)
	base := `"str":"x","i8":0,"i32":0,"u8":0,"u64":0,"inv":{"s":""},"ine":{"s":""}`
	fast := 0
	for _, m := range []string{
		``, `"u8":255`, `"u8":256`, `"u8":-1`, `"u8":-0`, `"i8":127`, `"i8":128`, `"i8":-128`, `"i8":-129`, `"i8":-0`, `"i8":1.0`, `"i8":1e1`,
		`"i32":2147483647`, `"i32":2147483648`, `"i32":-2147483648`, `"i32":-2147483649`, `"u64":18446744073709551615`, `"u64":999999999999999999`,
		`"u32":4294967295`, `"u32":4294967296`, `"i16":32767`, `"i16":32768`, `"i16":null`, `"i16":0`, `"b":false`, `"b":null`,
		`"pp":""`, `"pp":null`, `"list":[]`, `"list":null`, `"lp":[]`, `"lp":[0]`, `"ll":[[],[1],null]`, `"in":null`, `"in":{"s":"a","arr":[]}`,
		`"in":{"s":"a","arr":[{"s":"b","arr":[{"s":"c"}]}]}`, `"in":{"s":"a","x":1}`, `"ine":{}`, `"a<b>&c":""`, `"a<b>&c":"<>"`, `"x":1`, `"Str":"y"`,
	} {
		for _, raw := range []string{"{" + base + "}", "{" + m + "," + base + "}", "{" + base + "," + m + "}"} {
			if m == `` && raw != "{"+base+"}" {
				continue
			}
			if checkCodecAgreesFast(t, typ, n, []byte(raw)) {
				fast++
			}
		}
	}
	if fast < 20 {
		t.Errorf("only %d cases took encodeTape", fast)
	}
}

// wideMaps are arguments whose every member the encoding writes exactly
// when it is present, so that encodeTape can take them.
type (
	wideMaps struct {
		Map map[string]int64 `json:"map"`
		In  *wideInner       `json:"in,omitzero"`
	}
	wideInner struct {
		S string             `json:"s"`
		M map[string]*string `json:"m"`
		P *wideInner         `json:"p,omitzero"`
	}
)

// TestArgCodecWideMaps holds the codec to encoding/json, and Check's
// forwarded bytes to encoding/json's re-encoding, on maps of more members
// than a linear scan takes (smallObject, and 64 in the round trip), whose
// re-encoding puts the parse's index in name order (keyIndex.byName) or
// sorts a list of its own: one map or two, the larger first or last,
// nested, with escaped names, and with a member the fast path leaves to the
// general one (a null into an int64) after the index is in name order.
func TestArgCodecWideMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	members := func(n int, name func(k int) string, value func(k int) string) string {
		var b strings.Builder
		b.WriteByte('{')
		for i, k := range r.Perm(n) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(name(k) + ":" + value(k))
		}
		b.WriteByte('}')
		return b.String()
	}
	plain := func(k int) string { return fmt.Sprintf(`"k%d"`, k) }
	escaped := func(k int) string { return fmt.Sprintf(`"\/%d\u00e9"`, k) }
	num := func(k int) string { return fmt.Sprint(k) }
	str := func(k int) string { return fmt.Sprintf(`"%d<"`, k) }
	nullAt := func(at int) func(int) string {
		return func(k int) string {
			if k == at {
				return "null"
			}
			return num(k)
		}
	}
	typ := reflect.TypeFor[wideMaps]()
	n := compileCodec(typ)
	e, err := Compile([]byte(`{"type":"object","properties":{"map":{},"in":{}}}`), typ, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, size := range []int{17, 65, 300} {
		cases = append(cases,
			`{"map":`+members(size, plain, num)+`}`,
			`{"map":`+members(size, escaped, num)+`}`,
			`{"map":`+members(size, plain, nullAt(size/2))+`}`,
			`{"map":`+members(size, plain, num)+`,"in":{"s":"a","m":`+members(size/2+1, plain, str)+`}}`,
			`{"in":{"s":"a","m":`+members(size/2+1, escaped, str)+`},"map":`+members(size, plain, num)+`}`,
			`{"in":{"s":"a","m":`+members(size*2, plain, str)+`,"p":{"s":"b","m":`+members(size, escaped, str)+`}},"map":`+members(size, escaped, num)+`}`,
		)
	}
	fast := 0
	for _, raw := range cases {
		if checkCodecAgreesFast(t, typ, n, []byte(raw)) {
			fast++
		}
		var ref wideMaps
		if err := json.Unmarshal([]byte(raw), &ref); err != nil {
			t.Fatalf("%.80s…: %v", raw, err)
		}
		want, _ := MarshalPlain(&ref)
		ta, tb := getTape(), getTape()
		if ta.parse(raw) != nil || tb.parse(string(want)) != nil {
			t.Fatalf("%.80s…: does not parse, or its re-encoding does not", raw)
		}
		same := tapeDiff(ta, 0, tb, 0) < 0 // a null into an int64 is 0
		putTape(ta)
		putTape(tb)
		_, fwd, err := e.Check([]byte(raw), nil)
		var ref2 *Refusal
		switch {
		case !same && (!errors.As(err, &ref2) || ref2.Rule != RuleRoundTrip):
			t.Fatalf("%.80s…: Check says %v, want the round trip's refusal", raw, err)
		case same && err != nil:
			t.Fatalf("%.80s…: Check refuses: %v", raw, err)
		case same && !bytes.Equal(fwd, want):
			t.Fatalf("%.80s…: Check forwards\n%s\nencoding/json re-encodes\n%s", raw, fwd, want)
		}
	}
	if want := len(cases) * 5 / 6; fast != want { // all but the nulls
		t.Errorf("encodeTape took %d of the %d cases, want %d", fast, len(cases), want)
	}
}
