package argref

import (
	"strings"
	"testing"
)

func TestParseStrict(t *testing.T) {
	const limit = 100
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		in, err string
	}{
		{`{"a":[1,{"b":null}],"c":"d"}`, ""},
		{deep(limit), ""},
		{deep(limit + 2), "nest"},
		{`{"a":1,"a":1}`, "duplicate"},
		{`{"a":{"b":1,"b":2}}`, "duplicate"},
		{`[{"a":1},{"a":1}]`, ""},
		{`{"a":1}x`, "trailing"},
		{`{"a":}`, "invalid"},
	} {
		_, err := ParseStrict([]byte(tc.in), limit)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%.40s: err %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		eq   bool
	}{
		{`{"a":[1,"x",null,true]}`, `{"a":[1.0,"x",null,true]}`, true},
		{`1e2`, `100`, true},
		{`9007199254740993`, `9007199254740992`, false},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`"1"`, `1`, false},
	} {
		a, err := ParseStrict([]byte(tc.a), 10)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseStrict([]byte(tc.b), 10)
		if err != nil {
			t.Fatal(err)
		}
		if got := Equal(a, b); got != tc.eq {
			t.Errorf("Equal(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}
