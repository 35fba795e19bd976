package argengine

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// route: arguments mirrored into HTTP headers (x-mcp-header), at the top
// level and nested, beside one that is not.

type RouteArgsTarget struct {
	Zone *string `json:"zone,omitzero"`
}

type RouteArgs struct {
	Read   `json:"-"`
	Region *string          `json:"region,omitzero"`
	Shard  *int64           `json:"shard,omitzero"`
	Dry    *bool            `json:"dry,omitzero"`
	Target *RouteArgsTarget `json:"target,omitzero"`
	Note   *string          `json:"note,omitzero"`
	Any    json.RawMessage  `json:"any,omitzero"`
}

const routeSchema = `{"type":"object","properties":{` +
	`"region":{"type":"string","x-mcp-header":"Region"},` +
	`"shard":{"type":"integer","x-mcp-header":"Shard"},` +
	`"dry":{"type":"boolean","x-mcp-header":"Dry"},` +
	`"target":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},` +
	`"note":{"type":"string"},` +
	`"any":{"x-mcp-header":"Any"}}}`

func TestParamHeaderRule(t *testing.T) {
	e, err := Compile([]byte(routeSchema), reflect.TypeFor[RouteArgs](), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	long := func(n int) string { return `"` + strings.Repeat("a", n) + `"` }
	// é is two bytes: n of them have a base64 header form of
	// len("=?base64?") + 4⌈2n/3⌉ + len("?=") bytes.
	accents := func(n int) string { return `"` + strings.Repeat("é", n) + `"` }
	fits := 0 // the most é whose header form fits
	for len(base64Prefix)+base64.StdEncoding.EncodedLen(2*(fits+1))+len(base64Suffix) <= MaxParamHeaderBytes {
		fits++
	}
	ok := []string{
		`{}`,
		`{"region":"eu-west-1","shard":9007199254740991,"dry":true,"target":{"zone":"a"}}`,
		`{"shard":-9007199254740991}`,
		`{"shard":0}`, `{"shard":-0}`, `{"shard":1.0}`, `{"shard":9.007199254740991e15}`, `{"shard":1e15}`,
		`{"dry":false}`,
		`{"region":` + long(MaxParamHeaderBytes) + `}`,
		`{"region":` + accents(fits) + `}`,
		`{"region":""}`,
		`{"target":{}}`,
		`{"note":` + long(4*MaxParamHeaderBytes) + `}`, // not mirrored
		`{"any":null}`, `{"any":"x"}`, `{"any":true}`, `{"any":12}`,
	}
	for _, a := range ok {
		if _, _, err := e.Check([]byte(a), allFields(e)); err != nil {
			t.Errorf("%.80s: refused: %v", a, err)
		}
	}
	bad := []struct{ args, pointer string }{
		{`{"shard":9007199254740992}`, "/shard"},
		{`{"shard":-9007199254740992}`, "/shard"},
		{`{"shard":9.007199254740992e15}`, "/shard"},
		{`{"shard":1e300}`, "/shard"},
		{`{"region":` + long(MaxParamHeaderBytes+1) + `}`, "/region"},
		{`{"region":` + accents(fits+1) + `}`, "/region"},
		{`{"target":{"zone":` + long(MaxParamHeaderBytes+1) + `}}`, "/target/zone"},
		{`{"any":1.5}`, "/any"},
		{`{"any":9007199254740993}`, "/any"},
		{`{"any":{}}`, "/any"},
		{`{"any":["x"]}`, "/any"},
	}
	for _, b := range bad {
		_, _, err := e.Check([]byte(b.args), allFields(e))
		var r *Refusal
		if !errors.As(err, &r) || r.Rule != RuleParamHeader || r.Pointer != b.pointer {
			t.Errorf("%.80s: %v, want a refusal by %s at %s", b.args, err, RuleParamHeader, b.pointer)
		}
	}
	// A value the schema refuses is the schema's refusal, not this rule's.
	_, _, err = e.Check([]byte(`{"shard":1.5}`), allFields(e))
	if r := (*Refusal)(nil); !errors.As(err, &r) || r.Rule != RuleSchema {
		t.Errorf("shard 1.5: %v, want a refusal by the schema", err)
	}
}

// headerLen is the length of the header form the go-sdk sends (see
// encodeHeaderValue in its streamable_headers.go): plain printable ASCII,
// else the base64 form, as for a value with surrounding white space or one
// that looks like a base64 form itself.
func TestHeaderLen(t *testing.T) {
	b64 := func(s string) int {
		return len(base64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + base64Suffix)
	}
	for _, s := range []string{"", "eu-west-1", "a b", "~!@#$%^&*()"} {
		if got := headerLen(s); got != len(s) {
			t.Errorf("headerLen(%q) = %d, want %d", s, got, len(s))
		}
	}
	for _, s := range []string{" lead", "trail\t", "é", "a\nb", "\x7f", "=?base64?YQ==?="} {
		if got := headerLen(s); got != b64(s) {
			t.Errorf("headerLen(%q) = %d, want %d (base64)", s, got, b64(s))
		}
	}
}

// The annotations read are those SEP-2243 reads: on properties reached
// through "properties" alone, a non-empty string, under the key spelled
// exactly "x-mcp-header".
func TestParamHeaders(t *testing.T) {
	schema := `{"type":"object","properties":{` +
		`"a":{"type":"string","x-mcp-header":"A"},` +
		`"b":{"type":"object","properties":{"c":{"type":"integer","x-mcp-header":"C"},"d":{"type":"object","properties":{"e":{"type":"boolean","x-mcp-header":"E"}}}}},` +
		`"f":{"type":"array","items":{"type":"object","properties":{"g":{"type":"string","x-mcp-header":"G"}}}},` +
		`"h":{"anyOf":[{"type":"string","x-mcp-header":"H"}]},` +
		`"i":{"type":"string","x-mcp-header":""},` +
		`"j":{"type":"string","x-mcp-header":7},` +
		`"k":{"type":"string","X-MCP-Header":"K"},` +
		`"l":true},` +
		`"$defs":{"m":{"type":"string","x-mcp-header":"M"}}}`
	got, err := paramHeaders([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	want := []paramHeader{{[]string{"a"}, "A"}, {[]string{"b", "c"}, "C"}, {[]string{"b", "d", "e"}, "E"}}
	if !slices.EqualFunc(got, want, func(x, y paramHeader) bool { return x.header == y.header && slices.Equal(x.path, y.path) }) {
		t.Errorf("paramHeaders = %v, want %v", got, want)
	}
}
