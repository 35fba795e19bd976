package argengine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// Unions as the generator writes them (gen/internal/emit's unionDecl):
// pointer fields, OCPBranches, and the two JSON methods of ocpimpl. The
// codec decodes and encodes them as those methods do.
type (
	// unionSI: a string or an integer, by schema.
	unionSI struct {
		String  *string
		Integer *int64
	}
	// unionIN: an integer or a number (1.0 is an integer).
	unionIN struct {
		Integer *int64
		Number  *float64
	}
	// unionReq: objects told apart by their required properties (no
	// schema), the second with a member the first does not know.
	unionReq struct {
		A *unionObjA
		B *unionObjB
	}
	unionObjA struct {
		A int64   `json:"a"`
		S *string `json:"s,omitempty"`
	}
	unionObjB struct {
		A int64   `json:"a"`
		C string  `json:"c"`
		S *string `json:"s,omitempty"`
	}
	// unionSch: objects told apart by schema (k is 1 in the first).
	unionSch struct {
		One *unionObjA
		Any *unionObjRaw
	}
	unionObjRaw struct {
		A json.RawMessage `json:"a"`
		K json.RawMessage `json:"k,omitempty"`
	}
	// unionRaw: an object of one member a, else anything: an object the
	// first branch does not decode strictly (an unknown member, or one
	// matched only case-insensitively) goes to the second.
	unionRaw struct {
		Obj *unionObjA
		Raw *json.RawMessage
	}
	// unionArr: arrays of strings (by schema), of integers, anything.
	unionArr struct {
		Strings *[]string
		Ints    *[]int64
		Other   *json.RawMessage
	}
	// unionNest: a union inside a union, and arrays of unions.
	unionNest struct {
		Inner *unionSI
		List  *[]unionRaw
		Obj   *unionNestObj
	}
	unionNestObj struct {
		U unionReq          `json:"u"`
		N *unionSI          `json:"n,omitempty"`
		M map[string]string `json:"m,omitzero"`
	}
	// unionExtra: a struct with additional properties (which refuses a
	// null), else anything.
	unionExtra struct {
		X   *codecExtraInner
		Raw *json.RawMessage
	}
	// unionNull: null by schema, a Nullable, a string.
	unionNull struct {
		Null *json.RawMessage
		N    *ocpimpl.Nullable[int64]
		S    *string
	}
)

func (u *unionSI) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"type":"string"}`),
		ocpimpl.Branch(&u.Integer, ocpimpl.JSONNumber, `{"type":"integer"}`),
	}
}
func (u unionSI) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionSI", u.OCPBranches()...)
}
func (u *unionSI) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionSI", b, u.OCPBranches()...)
}

func (u *unionIN) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Integer, ocpimpl.JSONNumber, `{"type":"integer"}`),
		ocpimpl.Branch(&u.Number, ocpimpl.JSONNumber, `{"type":"number"}`),
	}
}
func (u unionIN) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionIN", u.OCPBranches()...)
}
func (u *unionIN) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionIN", b, u.OCPBranches()...)
}

func (u *unionReq) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.A, ocpimpl.JSONObject, "", "a"),
		ocpimpl.Branch(&u.B, ocpimpl.JSONObject|ocpimpl.JSONString, "", "a", "c"),
	}
}
func (u unionReq) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionReq", u.OCPBranches()...)
}
func (u *unionReq) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionReq", b, u.OCPBranches()...)
}

func (u *unionSch) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.One, ocpimpl.JSONObject, `{"type":"object","properties":{"k":{"const":1}},"required":["k"]}`),
		ocpimpl.Branch(&u.Any, ocpimpl.JSONObject, `{"type":"object","properties":{"a":{"type":"string","maxLength":3}}}`),
	}
}
func (u unionSch) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionSch", u.OCPBranches()...)
}
func (u *unionSch) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionSch", b, u.OCPBranches()...)
}

func (u *unionRaw) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Obj, ocpimpl.JSONObject, ""),
		ocpimpl.Branch(&u.Raw, ocpimpl.JSONAny, ""),
	}
}
func (u unionRaw) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionRaw", u.OCPBranches()...)
}
func (u *unionRaw) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionRaw", b, u.OCPBranches()...)
}

func (u *unionArr) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Strings, ocpimpl.JSONArray, `{"type":"array","items":{"type":"string"}}`),
		ocpimpl.Branch(&u.Ints, ocpimpl.JSONArray, ""),
		ocpimpl.Branch(&u.Other, ocpimpl.JSONAny, `true`),
	}
}
func (u unionArr) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionArr", u.OCPBranches()...)
}
func (u *unionArr) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionArr", b, u.OCPBranches()...)
}

func (u *unionNest) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Inner, ocpimpl.JSONString|ocpimpl.JSONNumber, `{"type":["string","integer"]}`),
		ocpimpl.Branch(&u.List, ocpimpl.JSONArray, ""),
		ocpimpl.Branch(&u.Obj, ocpimpl.JSONObject, "", "u"),
	}
}
func (u unionNest) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionNest", u.OCPBranches()...)
}
func (u *unionNest) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionNest", b, u.OCPBranches()...)
}

func (u *unionExtra) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.X, ocpimpl.JSONAny, ""),
		ocpimpl.Branch(&u.Raw, ocpimpl.JSONAny, ""),
	}
}
func (u unionExtra) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionExtra", u.OCPBranches()...)
}
func (u *unionExtra) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionExtra", b, u.OCPBranches()...)
}

func (u *unionNull) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Null, ocpimpl.JSONNull, `{"type":"null"}`),
		ocpimpl.Branch(&u.N, ocpimpl.JSONNumber|ocpimpl.JSONNull, ""),
		ocpimpl.Branch(&u.S, ocpimpl.JSONString, `{"type":"string","pattern":"^a"}`),
	}
}
func (u unionNull) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionNull", u.OCPBranches()...)
}
func (u *unionNull) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionNull", b, u.OCPBranches()...)
}

// codecUnion holds every union above, under each option, and unions in
// pointers, slices, maps, Nullables and a struct with additional
// properties.
type codecUnion struct {
	Read `json:"-"`

	SI   unionSI                    `json:"si,omitzero"`
	IN   unionIN                    `json:"in,omitzero"`
	Req  unionReq                   `json:"req,omitzero"`
	Sch  unionSch                   `json:"sch,omitzero"`
	Raw  unionRaw                   `json:"raw,omitzero"`
	Arr  unionArr                   `json:"arr,omitzero"`
	Nest unionNest                  `json:"nest,omitzero"`
	Ext  unionExtra                 `json:"ext,omitzero"`
	Null unionNull                  `json:"null,omitzero"`
	P    *unionRaw                  `json:"p,omitempty"`
	L    []unionSI                  `json:"l,omitzero"`
	M    map[string]unionRaw        `json:"m,omitzero"`
	N    ocpimpl.Nullable[unionSI]  `json:"n,omitzero"`
	X    codecUnionWithExtra        `json:"x,omitzero"`
	Esc  unionSI                    `json:"a<b>,omitzero"`
	PN   *ocpimpl.Nullable[unionIN] `json:"pn,omitzero"`
}

// codecUnionFast is codecUnion's part encodeTape may write.
type codecUnionFast struct {
	Read `json:"-"`

	SI  unionSI   `json:"si,omitzero"`
	IN  unionIN   `json:"in,omitzero"`
	Req unionReq  `json:"req,omitzero"`
	Sch unionSch  `json:"sch,omitzero"`
	Raw *unionRaw `json:"raw,omitzero"`
	Arr unionArr  `json:"arr,omitzero"`
	L   []unionSI `json:"l,omitzero"`
	V   []int64   `json:"v,omitzero"`
}

// codecUnionOmit has a union under omitempty, which encoding/json writes
// when it is absent (a struct is never empty): then MarshalUnion fails.
type codecUnionOmit struct {
	Read `json:"-"`

	E unionSI `json:"e,omitempty"`
	S unionSI `json:"s,omitzero"`
}

// codecUnionFolded has unions whose branches' objects may have members
// named in another case.
type codecUnionFolded struct {
	Read `json:"-"`

	Raw  unionRaw            `json:"raw,omitzero"`
	P    *unionRaw           `json:"p,omitempty"`
	M    map[string]unionRaw `json:"m,omitzero"`
	Nest unionNest           `json:"nest,omitzero"`
}

// codecUnionWithExtra is a struct with additional properties whose
// declared properties are unions (decoded from their remarshalled text).
type codecUnionWithExtra struct {
	R                    unionRaw                   `json:"r,omitzero"`
	A                    unionArr                   `json:"a,omitzero"`
	AdditionalProperties map[string]json.RawMessage `json:"-"`
}

func (v codecUnionWithExtra) MarshalJSON() ([]byte, error) {
	type plain codecUnionWithExtra
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

func (v *codecUnionWithExtra) UnmarshalJSON(b []byte) error {
	type plain codecUnionWithExtra
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties, "r", "a")
}

func (*codecUnionWithExtra) OCPWithExtra() {}

// unionOld is a union as generated before OCPBranches: no codec.
type unionOld struct {
	String *string
}

func (u *unionOld) ocpBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{ocpimpl.Branch(&u.String, ocpimpl.JSONString, "")}
}
func (u unionOld) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionOld", u.ocpBranches()...)
}
func (u *unionOld) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionOld", b, u.ocpBranches()...)
}

// unionStray has a field no branch lists: no codec.
type unionStray struct {
	String *string
	Stray  *int64
}

func (u *unionStray) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{ocpimpl.Branch(&u.String, ocpimpl.JSONString, "")}
}
func (u unionStray) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionStray", u.OCPBranches()...)
}
func (u *unionStray) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionStray", b, u.OCPBranches()...)
}

// unionAny has a branch of a type the codec does not cover: no codec.
type unionAny struct {
	Any *any
}

func (u *unionAny) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{ocpimpl.Branch(&u.Any, ocpimpl.JSONAny, "")}
}
func (u unionAny) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionAny", u.OCPBranches()...)
}
func (u *unionAny) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionAny", b, u.OCPBranches()...)
}

func TestArgCodecUnionCovers(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[codecUnion](), reflect.TypeFor[codecUnionFast](), reflect.TypeFor[codecUnionOmit](), reflect.TypeFor[codecUnionFolded](),
	} {
		if compileCodec(typ) == nil {
			t.Errorf("%v: no codec", typ)
		}
	}
	type old struct {
		U unionOld `json:"u"`
	}
	type stray struct {
		U unionStray `json:"u"`
	}
	type anyBranch struct {
		U *unionAny `json:"u"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[old](), reflect.TypeFor[stray](), reflect.TypeFor[anyBranch]()} {
		if compileCodec(typ) != nil {
			t.Errorf("%v: a codec, for a union it does not cover", typ)
		}
	}
}

// unionCases are arguments of codecUnion and codecUnionFast: each
// union's branches, the values that tell them apart, and the mistakes.
var unionCases = []string{
	`{}`, `{"si":"x"}`, `{"si":1}`, `{"si":1.0}`, `{"si":1e2}`, `{"si":1.5}`, `{"si":null}`, `{"si":true}`, `{"si":"<&>\u2028"}`,
	`{"si":"\u003c"}`, `{"si":"\u003C"}`, `{"si":"\u00e9"}`, `{"si":9223372036854775808}`,
	`{"in":1}`, `{"in":1.0}`, `{"in":-0}`, `{"in":-0.0}`, `{"in":1.5}`, `{"in":1e400}`, `{"in":9223372036854775808}`, `{"in":"1"}`,
	`{"req":{"a":1}}`, `{"req":{"a":1,"c":"x"}}`, `{"req":{"a":1,"s":"y"}}`, `{"req":{"c":"x"}}`, `{"req":{"a":1.0,"c":"<"}}`, `{"req":{}}`,
	`{"req":"x"}`, `{"req":null}`, `{"req":{"a":"x","c":"y"}}`, `{"req":{"A":1,"c":"x"}}`, `{"req":{"a":1,"C":"x"}}`, `{"req":[]}`,
	`{"sch":{"k":1,"a":1}}`, `{"sch":{"k":1.0,"a":2}}`, `{"sch":{"k":2,"a":"abc"}}`, `{"sch":{"k":2,"a":"abcd"}}`, `{"sch":{"a":"x"}}`,
	`{"sch":{"k":1,"a":"x"}}`, `{"sch":{"k":1,"a":1,"z":0}}`, `{"sch":{"K":1,"a":1}}`, `{"sch":{"k":1,"A":1}}`, `{"sch":{"k":[1, 2],"a":"<"}}`,
	`{"raw":{"a":1}}`, `{"raw":{"A":1}}`, `{"raw":{"b":1}}`, `{"raw":{"a":1,"b":2}}`, `{"raw":{"a":"x"}}`, `{"raw":[1.0, "<"]}`,
	`{"raw":null}`, `{"raw":{"\u0061":1}}`, `{"raw":{"s":"x","A":2}}`, `{"raw":{"a":1,"S":null}}`, `{"raw":{"ſ":"x","a":1}}`,
	`{"raw":{"a":1,"a":2}}`, `{"raw":{"a":1,"A":2}}`, `{"raw":{"A":1,"a":"x"}}`, `{"raw":{"K":1}}`,
	`{"arr":["a","b"]}`, `{"arr":[1,2.0]}`, `{"arr":[1,"a"]}`, `{"arr":[]}`, `{"arr":"x"}`, `{"arr":{"a":[1]}}`, `{"arr":null}`,
	`{"arr":["<"]}`, `{"arr":[1.5]}`, `{"arr":[1e2, 3]}`,
	`{"nest":"x"}`, `{"nest":2}`, `{"nest":2.5}`, `{"nest":[{"a":1},{"A":1},"x",null]}`, `{"nest":[{"A":1}]}`,
	`{"nest":{"u":{"a":1}}}`, `{"nest":{"u":{"a":1,"c":"d"},"n":"x"}}`, `{"nest":{"u":{"A":1}}}`, `{"nest":{"u":{"a":1},"n":{}}}`,
	`{"nest":{"u":{"a":1},"M":{"a":"b"}}}`, `{"nest":{"u":null}}`, `{"nest":{"n":1}}`, `{"nest":null}`, `{"nest":true}`,
	`{"ext":{"a":"x","z":1}}`, `{"ext":null}`, `{"ext":{"a":1}}`, `{"ext":[1]}`, `{"ext":{"n":[1.0]}}`,
	`{"null":null}`, `{"null":1}`, `{"null":"abc"}`, `{"null":"bc"}`, `{"null":1.0}`, `{"null":true}`,
	`{"e":"x"}`, `{"e":null}`, `{"p":null}`, `{"p":{"a":1}}`, `{"p":{"A":1}}`, `{"l":["a",1,null]}`, `{"l":[true]}`, `{"l":null}`,
	`{"m":{"b":{"a":1},"a":"<"}}`, `{"m":{"x":{"A":1}}}`, `{"m":{}}`, `{"n":null}`, `{"n":"x"}`, `{"n":1.0}`, `{"n":[]}`,
	`{"x":{"r":{"a":1},"a":["<"],"z":1}}`, `{"x":{"r":{"A":1}}}`, `{"x":{"r":{"a":1.0}}}`, `{"x":{"a":[1.0, "\u2028"]}}`, `{"x":{"r":null}}`,
	`{"x":{"R":1}}`, `{"a<b>":"x"}`, `{"a\u003cb>":1}`, `{"pn":null}`, `{"pn":1.0}`, `{"pn":2.5}`, `{"pn":"x"}`,
	`{"si":"a","in":2,"req":{"a":1},"sch":{"k":1,"a":3},"raw":{"b":[]},"arr":["x"],"l":["y",2],"v":[1,2,3]}`,
	`{"si":"a","in":2.5,"req":{"a":1,"c":"d","s":"e"},"sch":{"k":3,"a":"abc","K":1},"raw":{"a":4},"arr":[1,2],"l":[],"v":[]}`,
	`{"si":"` + strings.Repeat("é", 3000) + `","arr":["` + strings.Repeat("a", 5000) + `"],"raw":{"a":1,"s":"` + strings.Repeat("b", 5000) + `"}}`,
}

func TestArgCodecUnionCases(t *testing.T) {
	typ, fastTyp := reflect.TypeFor[codecUnion](), reflect.TypeFor[codecUnionFast]()
	n, fastN := compileCodec(typ), compileCodec(fastTyp)
	fast, accepted := 0, 0
	for _, raw := range unionCases {
		checkCodecAgrees(t, typ, n, []byte(raw))
		if _, got, _ := codecBoth(t, typ, n, []byte(raw)); got.ok {
			accepted++
		}
		if checkCodecAgreesFast(t, fastTyp, fastN, []byte(raw)) {
			fast++
		}
	}
	t.Logf("%d of %d cases accepted, %d took encodeTape", accepted, len(unionCases), fast)
	if fast < 20 || accepted < len(unionCases)/3 {
		t.Errorf("only %d cases accepted, %d took encodeTape", accepted, fast)
	}
	omitTyp := reflect.TypeFor[codecUnionOmit]()
	omitN := compileCodec(omitTyp)
	for _, raw := range []string{`{}`, `{"e":"x"}`, `{"e":null}`, `{"e":1,"s":"y"}`, `{"s":"y","e":2}`, `{"s":1}`} {
		checkCodecAgreesFast(t, omitTyp, omitN, []byte(raw))
	}
}

// TestArgCodecUnionFolded: encoding/json matches a member to a field
// case-insensitively inside a union's branch, so that the branch is set
// (and the arguments refused, as their re-encoding names the field as it
// is); the codec must not set the next branch, which would forward the
// arguments as they are.
func TestArgCodecUnionFolded(t *testing.T) {
	typ := reflect.TypeFor[codecUnionFolded]()
	n := compileCodec(typ)
	for _, raw := range []string{`{"raw":{"A":1}}`, `{"p":{"A":1}}`, `{"m":{"x":{"A":1}}}`, `{"nest":[{"A":1}]}`, `{"raw":{"ſ":"x","a":1}}`} {
		ref, got, _ := codecBoth(t, typ, n, []byte(raw))
		if ref.ok || got.ok {
			t.Errorf("%s: accepted (encoding/json %v, the codec %v)", raw, ref.ok, got.ok)
		}
		if got.err == nil || !strings.Contains(got.err.Error(), errCodecMember.Error()) {
			t.Errorf("%s: the codec's refusal %v, want the case-folded member's", raw, got.err)
		}
	}
	// A branch that fails on another member does not count its folded one.
	checkCodecAgrees(t, typ, n, []byte(`{"raw":{"A":1,"b":2}}`))
	if _, got, _ := codecBoth(t, typ, n, []byte(`{"raw":{"A":1,"b":2}}`)); !got.ok {
		t.Errorf(`{"raw":{"A":1,"b":2}}: refused by the codec: %v`, got.err)
	}
}

// TestArgCodecUnionEncodeUnset: a union with no field or two set is
// MarshalUnion's error, not a panic.
func TestArgCodecUnionEncodeUnset(t *testing.T) {
	type args struct {
		U unionSI `json:"u"`
	}
	n := compileCodec(reflect.TypeFor[args]())
	var v args
	if _, err := n.encode(nil, reflect.ValueOf(&v).Elem(), false); err == nil || !strings.Contains(err.Error(), "no alternative is set") {
		t.Errorf("no field set: %v", err)
	}
	s, k := "x", int64(1)
	v.U = unionSI{String: &s, Integer: &k}
	if _, err := n.encode(nil, reflect.ValueOf(&v).Elem(), false); err == nil || !strings.Contains(err.Error(), "more than one") {
		t.Errorf("two fields set: %v", err)
	}
	if _, wantErr := json.Marshal(v); wantErr == nil {
		t.Error("json.Marshal of two fields set succeeds")
	}
}

// unionBulk: the bulk of the arguments in a branch, an array of integers
// or an object holding one; else a string.
type unionBulk struct {
	Ints   *[]int64
	Obj    *heapInts
	String *string
}

func (u *unionBulk) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Ints, ocpimpl.JSONArray, `{"type":"array","items":{"type":"integer"}}`),
		ocpimpl.Branch(&u.Obj, ocpimpl.JSONObject, "", "v"),
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"type":"string"}`),
	}
}
func (u unionBulk) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionBulk", u.OCPBranches()...)
}
func (u *unionBulk) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionBulk", b, u.OCPBranches()...)
}

// unionLater: an array of integers, into []int8 when they fit, else into
// []int64: its first branch selects every such array, and its T refuses
// one with an integer beyond 127.
type unionLater struct {
	Small *[]int8
	Ints  *[]int64
}

func (u *unionLater) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Small, ocpimpl.JSONArray, `{"type":"array","items":{"type":"integer"}}`),
		ocpimpl.Branch(&u.Ints, ocpimpl.JSONArray, `{"type":"array","items":{"type":"integer"}}`),
	}
}
func (u unionLater) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("unionLater", u.OCPBranches()...)
}
func (u *unionLater) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("unionLater", b, u.OCPBranches()...)
}

// TestCheckHeapUnion holds Check of a struct with a union field beside an
// array as long as the limit of values lets it be, and of a union whose
// branch holds that array (directly, or in an object, or in a later branch
// than the first that selects it, whose T does not take it), to 4 bytes
// of peak live heap a byte of arguments: the type has a codec (before, a
// union left the whole arguments to encoding/json: 26 to 35 bytes a byte),
// and the re-encoding finds the branch decode sets by decoding each one
// storing nothing (the later branch took the general path: 8.6).
func TestCheckHeapUnion(t *testing.T) {
	type beside struct {
		V []int64 `json:"v"`
		U unionSI `json:"u,omitzero"`
	}
	type bulk struct {
		U unionBulk `json:"u"`
	}
	type later struct {
		U unionLater `json:"u"`
	}
	ints := func(n int) string {
		var b strings.Builder
		b.WriteByte('[')
		for k := range n {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteByte(byte('0' + k%10))
		}
		b.WriteByte(']')
		return b.String()
	}
	for _, c := range []struct {
		typ    reflect.Type
		schema string
		raw    []string
	}{{
		reflect.TypeFor[beside](),
		`{"type":"object","properties":{"v":{"type":"array","items":{"type":"integer"}},"u":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`,
		[]string{`{"v":` + ints(testLimits.Values-4) + `}`, `{"v":` + ints(testLimits.Values-4) + `,"u":"x"}`,
			`{"v":` + ints(testLimits.Values-4) + `,"u":1}`, `{"v":` + ints(testLimits.Values-4) + `,"u":"a\u003cb"}`},
	}, {
		reflect.TypeFor[bulk](),
		`{"type":"object","properties":{"u":{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"object"},{"type":"string"}]}}}`,
		[]string{`{"u":` + ints(testLimits.Values-4) + `}`, `{"u":{"v":` + ints(testLimits.Values-4) + `}}`},
	}, {
		reflect.TypeFor[later](),
		`{"type":"object","properties":{"u":{"type":"array","items":{"type":"integer"}}}}`,
		[]string{`{"u":` + strings.TrimSuffix(ints(testLimits.Values-5), "]") + `,200]}`},
	}} {
		e, err := Compile([]byte(c.schema), c.typ, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		if e.codec == nil {
			t.Fatalf("%v: no codec", c.typ)
		}
		for _, s := range c.raw {
			raw := []byte(s)
			if _, _, err := e.Check(raw, nil); err != nil {
				t.Fatalf("%.40s…: %v", raw, err)
			}
			got := float64(checkPeak(t, e, raw, nil)) / float64(len(raw))
			t.Logf("%v %.12s…%s: %.2f bytes a byte", c.typ, raw, raw[len(raw)-12:], got)
			if got > 4 {
				t.Errorf("Check of %d bytes (%.12s…%s): peak %.2f bytes a byte, want at most 4", len(raw), raw, raw[len(raw)-12:], got)
			}
		}
	}
}

// TestCheckUnionTyped holds Check of codecUnion and codecUnionFast, with
// and without the typed arguments asked for (decodeRead, which copies the
// strings out of the tape's text), to Check through encoding/json alone,
// on unionCases under a schema that takes any value of each property.
func TestCheckUnionTyped(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[codecUnion](), reflect.TypeFor[codecUnionFast]()} {
		var props []string
		for i := range typ.NumField() {
			if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); name != "-" {
				b, _ := json.Marshal(name)
				props = append(props, string(b)+":{}")
			}
		}
		e, err := Compile([]byte(`{"type":"object","properties":{`+strings.Join(props, ",")+`}}`), typ, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		if e.codec == nil {
			t.Fatal("no codec")
		}
		ref := *e
		ref.codec = nil
		accepted := 0
		for _, raw := range unionCases {
			for _, read := range []func(*Engine) *Typed{func(*Engine) *Typed { return nil }, allFields} {
				wantArgs, wantFwd, wantErr := ref.Check([]byte(raw), read(&ref))
				args, fwd, err := e.Check([]byte(raw), read(e))
				switch {
				case (err == nil) != (wantErr == nil):
					t.Fatalf("%v %s: error %v, through encoding/json %v", typ, raw, err, wantErr)
				case err != nil:
					continue
				case string(fwd) != string(wantFwd):
					t.Fatalf("%v %s: forwards %s, through encoding/json %s", typ, raw, fwd, wantFwd)
				case !reflect.DeepEqual(args, wantArgs):
					t.Fatalf("%v %s: typed\n%#v, through encoding/json\n%#v", typ, raw, args, wantArgs)
				}
				accepted++
				// The strings are copies: the forwarded bytes' changes do
				// not reach them.
				for i := range fwd {
					fwd[i] = ' '
				}
				if !reflect.DeepEqual(args, wantArgs) {
					t.Fatalf("%v %s: the typed arguments share the forwarded bytes", typ, raw)
				}
			}
		}
		t.Logf("%v: %d of %d checks accepted", typ, accepted, 2*len(unionCases))
		if accepted < len(unionCases)/2 {
			t.Errorf("%v: only %d accepted", typ, accepted)
		}
	}
}

// jsonKindBits are ocpimpl's JSONKind values.
func TestUnionJSONKindBits(t *testing.T) {
	for k, want := range map[tapeKind]ocpimpl.JSONKind{
		tString: ocpimpl.JSONString, tNumber: ocpimpl.JSONNumber, tFalse: ocpimpl.JSONBool, tTrue: ocpimpl.JSONBool,
		tArray: ocpimpl.JSONArray, tObject: ocpimpl.JSONObject, tNull: ocpimpl.JSONNull,
	} {
		if jsonKindBits[k] != uint8(want) {
			t.Errorf("tape kind %d: bits %d, ocpimpl %d", k, jsonKindBits[k], want)
		}
	}
}
