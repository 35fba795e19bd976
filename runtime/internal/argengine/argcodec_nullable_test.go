package argengine

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// codecNullable has ocpimpl.Nullable fields of the kinds the codec covers,
// under each option, and Nullables inside slices, maps, pointers, structs
// and a Nullable: the codec decodes and encodes them as their
// UnmarshalJSON and MarshalJSON do.
type codecNullable struct {
	Read `json:"-"`

	S   ocpimpl.Nullable[string]                   `json:"s,omitzero"`
	I   ocpimpl.Nullable[int64]                    `json:"i,omitzero"`
	I8  ocpimpl.Nullable[int8]                     `json:"i8,omitzero"`
	U   ocpimpl.Nullable[uint64]                   `json:"u,omitzero"`
	F   ocpimpl.Nullable[float64]                  `json:"f,omitzero"`
	F32 ocpimpl.Nullable[float32]                  `json:"f32,omitzero"`
	B   ocpimpl.Nullable[bool]                     `json:"b"`
	E   ocpimpl.Nullable[string]                   `json:"e,omitempty"`
	Esc ocpimpl.Nullable[string]                   `json:"a<b>,omitzero"`
	In  ocpimpl.Nullable[codecNullableInner]       `json:"in,omitzero"`
	L   ocpimpl.Nullable[[]int16]                  `json:"l,omitzero"`
	LN  []ocpimpl.Nullable[string]                 `json:"ln,omitzero"`
	M   map[string]ocpimpl.Nullable[uint8]         `json:"m,omitzero"`
	MS  ocpimpl.Nullable[map[string]string]        `json:"ms,omitzero"`
	P   *ocpimpl.Nullable[int32]                   `json:"p,omitzero"`
	R   ocpimpl.Nullable[json.RawMessage]          `json:"r,omitzero"`
	PS  ocpimpl.Nullable[*string]                  `json:"ps,omitzero"`
	NN  ocpimpl.Nullable[ocpimpl.Nullable[string]] `json:"nn,omitzero"`
	X   ocpimpl.Nullable[codecExtraTyped]          `json:"x,omitzero"`
}

type codecNullableInner struct {
	S ocpimpl.Nullable[string] `json:"s,omitzero"`
	N int64                    `json:"n"`
}

// codecNullableFast is codecNullable's part that encodeTape writes.
type codecNullableFast struct {
	Read `json:"-"`

	S   ocpimpl.Nullable[string]  `json:"s,omitzero"`
	I   ocpimpl.Nullable[int64]   `json:"i,omitzero"`
	U8  ocpimpl.Nullable[uint8]   `json:"u8,omitzero"`
	F   ocpimpl.Nullable[float64] `json:"f,omitzero"`
	B   ocpimpl.Nullable[bool]    `json:"b,omitzero"`
	E   ocpimpl.Nullable[string]  `json:"e,omitempty"` // written when absent: only present on the fast path
	Esc ocpimpl.Nullable[string]  `json:"a<b>,omitzero"`
	V   []int64                   `json:"v,omitzero"`
	LN  []ocpimpl.Nullable[int16] `json:"ln,omitzero"`
	In  *codecNullableInner       `json:"in,omitzero"`
}

// isNullableType reports whether typ is an ocpimpl.Nullable, for the
// generators.
func isNullableType(typ reflect.Type) (reflect.Type, bool) {
	if typ.Kind() != reflect.Struct || !reflect.PointerTo(typ).Implements(nullableType) {
		return nil, false
	}
	return reflect.TypeOf(reflect.New(typ).Interface().(nullable).OCPSetValue()).Elem(), true
}

func TestArgCodecNullableCovers(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[codecNullable](), reflect.TypeFor[codecNullableFast](), reflect.TypeFor[CreateNoteArgs](),
	} {
		if compileCodec(typ) == nil {
			t.Errorf("%v: no codec", typ)
		}
	}
	type nullableAny struct {
		X ocpimpl.Nullable[any] `json:"x"`
	}
	type nullableBytes struct {
		X ocpimpl.Nullable[[]byte] `json:"x"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[nullableAny](), reflect.TypeFor[nullableBytes]()} {
		if compileCodec(typ) != nil {
			t.Errorf("%v: a codec, for a Nullable of a type it does not cover", typ)
		}
	}
}

func TestArgCodecNullableCases(t *testing.T) {
	typ, fastTyp := reflect.TypeFor[codecNullable](), reflect.TypeFor[codecNullableFast]()
	n, fastN := compileCodec(typ), compileCodec(fastTyp)
	fast := 0
	for _, raw := range []string{
		`{}`, `{"s":null}`, `{"s":"x"}`, `{"s":"<&>\u2028"}`, `{"s":1}`, `{"s":{}}`, `{"i":1.0}`, `{"i":1e2}`, `{"i":1.5}`, `{"i":null}`,
		`{"i":9223372036854775808}`, `{"i8":128}`, `{"i8":-0}`, `{"u":-1}`, `{"u":18446744073709551615}`, `{"f":-0.0}`, `{"f":1e400}`,
		`{"f":0.1}`, `{"f":1e21}`, `{"f32":3.5e38}`, `{"f32":1e-46}`, `{"b":true}`, `{"b":null}`, `{"b":"x"}`, `{"e":null}`, `{"e":""}`,
		`{"a<b>":"<"}`, `{"a\u003cb>":"x"}`, `{"in":null}`, `{"in":{"s":null,"n":1}}`, `{"in":{"s":"<","n":1.0}}`, `{"in":{"n":1,"x":2}}`,
		`{"in":{"N":1}}`, `{"in":[]}`, `{"l":null}`, `{"l":[]}`, `{"l":[1,2.0,null]}`, `{"l":[32768]}`, `{"ln":[null,"a","<"]}`, `{"ln":null}`,
		`{"ln":[1]}`, `{"m":{"b":1,"a":null,"<":2}}`, `{"m":{"a":256}}`, `{"ms":{"b":"<","a":"x"}}`, `{"ms":{}}`, `{"p":null}`, `{"p":1}`,
		`{"r":null}`, `{"r":1.0}`, `{"r":{"a": [1, "<"] }}`, `{"r":"\u003c"}`, `{"ps":null}`, `{"ps":"x"}`, `{"nn":null}`, `{"nn":"<"}`,
		`{"x":null}`, `{"x":{"s":"a","k":1.0}}`, `{"x":{"s":"a","k":"b"}}`, `{"x":{"s":"<","z":-0}}`, `{"x":{}}`, `{"S":"x"}`,
		`{"v":[1,2,3],"s":"x","b":false,"e":null}`, `{"b":true,"s":"a","e":"<"}`, `{"u8":255,"e":""}`, `{"u8":256,"e":""}`, `{"in":{"n":1},"e":null}`,
		`{"ln":[1,null,-0],"e":null}`, `{"e":null,"i":1.0,"f":1e21,"u8":-0}`, `{"e":null,"i":-9223372036854775808,"f":0.1,"u8":0}`,
		`{"e":null,"s":"\u00e9\u2028\u003c"}`, `{"e":null,"a<b>":"x"}`, `{"e":null,"s":null,"b":null,"i":null,"f":null,"u8":null}`,
		`{"e":1}`, `{"e":null,"S":"x"}`, `{"e":null,"s":"x","s2":1}`,
		`{"e":null,"s":"` + strings.Repeat("<é", 3000) + `"}`, `{"e":"` + strings.Repeat("a", 5000) + `"}`,
	} {
		checkCodecAgrees(t, typ, n, []byte(raw))
		if checkCodecAgreesFast(t, fastTyp, fastN, []byte(raw)) {
			fast++
		}
	}
	if fast < 10 {
		t.Errorf("only %d cases took encodeTape", fast)
	}
}

// TestCheckNullableTyped holds Check with the typed arguments asked for
// (decodeRead, which copies the strings out of the tape's text) to Check
// through encoding/json alone, for a tool with Nullable fields.
func TestCheckNullableTyped(t *testing.T) {
	schema := `{"type":"object","properties":{"s":{"type":["string","null"]},"i":{"type":["integer","null"]},"u8":{},"f":{},"b":{},"e":{},"a<b>":{},"v":{},"ln":{},"in":{}}}`
	e, err := Compile([]byte(schema), reflect.TypeFor[codecNullableFast](), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if e.codec == nil {
		t.Fatal("no codec")
	}
	ref := *e
	ref.codec = nil
	accepted := 0
	for _, raw := range []string{
		`{"s":"abc","b":true,"e":null}`, `{"s":null,"b":null,"in":{"s":"x","n":2},"e":"y"}`, `{"s":"<>","i":1.0,"b":false,"ln":[null,1],"e":"z"}`,
		`{"s":1,"b":true,"e":null}`, `{"b":true,"e":null,"a<b>":"&"}`, `{"b":true,"in":{"s":null,"n":1},"e":null}`, `{"s":"abc"}`,
	} {
		wantArgs, wantFwd, wantErr := ref.Check([]byte(raw), allFields(&ref))
		args, fwd, err := e.Check([]byte(raw), allFields(e))
		switch {
		case (err == nil) != (wantErr == nil):
			t.Fatalf("%s: error %v, through encoding/json %v", raw, err, wantErr)
		case err != nil:
			continue
		case string(fwd) != string(wantFwd):
			t.Fatalf("%s: forwards %s, through encoding/json %s", raw, fwd, wantFwd)
		case !reflect.DeepEqual(args, wantArgs):
			t.Fatalf("%s: typed\n%#v, through encoding/json\n%#v", raw, args, wantArgs)
		}
		accepted++
		// The strings are copies: the forwarded bytes' changes do not
		// reach them.
		for i := range fwd {
			fwd[i] = ' '
		}
		if !reflect.DeepEqual(args, wantArgs) {
			t.Fatalf("%s: the typed arguments share the forwarded bytes", raw)
		}
	}
	if accepted < 5 {
		t.Errorf("only %d accepted", accepted)
	}
}

// TestCheckHeapNullable holds Check of a struct with a Nullable field
// beside an array as long as the limit of values lets it be to 4 bytes of
// peak live heap a byte of arguments: the type has a codec (before, a
// Nullable left the whole arguments to encoding/json: 26 bytes a byte).
func TestCheckHeapNullable(t *testing.T) {
	type args struct {
		V []int64                  `json:"v"`
		N ocpimpl.Nullable[string] `json:"n,omitzero"`
	}
	e, err := Compile([]byte(`{"type":"object","properties":{"v":{"type":"array","items":{"type":"integer"}},"n":{"type":["string","null"]}}}`),
		reflect.TypeFor[args](), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	// (With "n":"a<b", whose re-encoding "a\u003cb" is not the arguments'
	// bytes, so that Check holds it whole, 4.06 was measured.)
	for _, n := range []string{``, `,"n":null`, `,"n":"a\u003cb"`} {
		var b strings.Builder
		b.WriteString(`{"v":[`)
		for k := range testLimits.Values - 4 {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(k % 10))
		}
		b.WriteString("]" + n + "}")
		raw := []byte(b.String())
		got := float64(checkPeak(t, e, raw, nil)) / float64(len(raw))
		t.Logf("%d values%s: %.2f bytes a byte", testLimits.Values-4, n, got)
		if got > 4 {
			t.Errorf("Check of %d bytes (%d values%s): peak %.2f bytes a byte, want at most 4", len(raw), testLimits.Values-4, n, got)
		}
	}
}

// TestCheckHeapNullableRead holds a typed Check of a Nullable array of
// tiny numbers that a template reads element by element (as
// runtime/ocp's BindNullableEach asks) to 4 bytes of peak live heap a byte:
// the array is decoded to Typed.Elems elements, as a plain array is (it
// was decoded whole: 7.0).
func TestCheckHeapNullableRead(t *testing.T) {
	type args struct {
		V ocpimpl.Nullable[[]int64] `json:"v,omitzero"`
	}
	e, err := Compile([]byte(`{"type":"object","properties":{"v":{"type":["array","null"],"items":{"type":"integer"}}}}`),
		reflect.TypeFor[args](), heapLimits)
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(`{"v":[0` + strings.Repeat(",0", testLimits.Bytes/2-8) + `]}`)
	read := &Typed{Fields: []int{0}, Elems: heapMaxResources + 1}
	got := float64(checkPeak(t, e, raw, read)) / float64(len(raw))
	t.Logf("%.2f bytes a byte", got)
	if got > 4 {
		t.Errorf("typed Check of %d bytes: peak %.2f bytes a byte, want at most 4", len(raw), got)
	}
	typed, _, err := e.Check(raw, read)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := typed.(*args).V.Get(); len(v) != heapMaxResources+1 {
		t.Errorf("%d elements decoded, want %d", len(v), heapMaxResources+1)
	}
}
