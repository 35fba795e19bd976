package ocpimpl

import (
	"encoding/json"
	"testing"
)

// TestNullableThreeStates: absent is left out (omitzero), an explicit null
// reaches the wire as null, a value as itself, and decoding tells the three
// apart.
func TestNullableThreeStates(t *testing.T) {
	type args struct {
		N Nullable[int64] `json:"n,omitzero"`
	}
	for _, tc := range []struct {
		in   args
		wire string
	}{
		{args{}, `{}`},
		{args{N: Null[int64]()}, `{"n":null}`},
		{args{N: Value[int64](0)}, `{"n":0}`},
		{args{N: Value[int64](9007199254740993)}, `{"n":9007199254740993}`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.wire {
			t.Errorf("Marshal(%+v) = %s, %v; want %s", tc.in, b, err, tc.wire)
			continue
		}
		back, err := decodeStrict[args](b)
		if err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		if back.N != tc.in.N {
			t.Errorf("%s decoded to %+v, want %+v", b, back.N, tc.in.N)
		}
		v, ok := back.N.Get()
		want, wantOK := tc.in.N.Get()
		if v != want || ok != wantOK || back.N.IsNull() != tc.in.N.IsNull() || (back.N == Nullable[int64]{}) != (tc.in.N == Nullable[int64]{}) {
			t.Errorf("%s: accessors disagree: %+v vs %+v", b, back.N, tc.in.N)
		}
	}
	if _, err := decodeStrict[args]([]byte(`{"n":"x"}`)); err == nil {
		t.Error(`{"n":"x"} decoded into Nullable[int64]`)
	}
}

// TestNullableDecodesStrictly: a Nullable's value is decoded as strictly as
// the arguments around it: an object member its type does not have, or
// data after the value, is an error, not dropped.
func TestNullableDecodesStrictly(t *testing.T) {
	type inner struct {
		A int64 `json:"a"`
	}
	type args struct {
		N Nullable[inner] `json:"n,omitzero"`
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{`{"n":{"a":1}}`, true},
		{`{"n":null}`, true},
		{`{"n":{"a":1,"b":2}}`, false},
		{`{"n":{"A":1,"a":1,"zz":{}}}`, false},
	} {
		var v args
		err := json.Unmarshal([]byte(tc.in), &v)
		if (err == nil) != tc.ok {
			t.Errorf("Unmarshal(%s) = %+v, %v; want ok %v", tc.in, v, err, tc.ok)
		}
	}
	if _, err := decodeStrict[inner]([]byte(`{"a":1} {"a":2}`)); err == nil {
		t.Error("decodeStrict accepted data after the value")
	}
}

// TestNullableEngineMethods: the methods the gate's codec uses make the
// Nullable that UnmarshalJSON makes of null and of a value, and read back
// what Get reads.
func TestNullableEngineMethods(t *testing.T) {
	var n Nullable[string]
	if n.OCPValue() != nil {
		t.Error("OCPValue of an absent Nullable is not nil")
	}
	n.OCPSetNull()
	if n != Null[string]() || n.OCPValue() != nil {
		t.Errorf("OCPSetNull: %+v, OCPValue %v", n, n.OCPValue())
	}
	p, ok := n.OCPSetValue().(*string)
	if !ok {
		t.Fatalf("OCPSetValue gives a %T", n.OCPSetValue())
	}
	*p = "x"
	if n != Value("x") {
		t.Errorf("OCPSetValue then a store: %+v", n)
	}
	if q, ok := n.OCPValue().(*string); !ok || q != p {
		t.Errorf("OCPValue = %v, want %p", n.OCPValue(), p)
	}
	v := Value("y")
	v.OCPSetNull()
	if v != Null[string]() {
		t.Errorf("OCPSetNull of a value: %+v", v)
	}
}
