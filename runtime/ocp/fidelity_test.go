package ocp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// fid_args: a read whose arguments exercise the gate's fidelity rules
// (issue 15): exact numeric bounds, integer-valued numbers, lone surrogates
// in every kind of place.

// FidArgs are the arguments of fid_args.
type FidArgs struct {
	Read   `json:"-"`
	N      *int64            `json:"n,omitzero"`
	Even   *int64            `json:"even,omitzero"`
	Price  *float64          `json:"price,omitzero"`
	Score  *float64          `json:"score,omitzero"`
	S      *string           `json:"s,omitzero"`
	M      map[string]string `json:"m,omitzero"`
	Raw    json.RawMessage   `json:"raw,omitzero"`
	Prices []float64         `json:"prices,omitzero"`
}

var FidTool = &Tool{Args: (*FidArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "fid_args",
	InputSchema: `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992,"minimum":-9007199254740992},"even":{"type":"integer","multipleOf":2},"price":{"type":"number","multipleOf":0.01},"score":{"type":"number","exclusiveMaximum":0.3},"s":{"type":"string"},"m":{"type":"object","additionalProperties":{"type":"string"}},"raw":{},"prices":{"type":"array","items":{"type":"number","multipleOf":0.01,"minimum":0}}},"additionalProperties":false}`,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor",
		Resource: tpl("fid"), Failure: "Could not.",
	},
})}

func fidHarness(t *testing.T) *harness {
	c := NewCatalogue(testTiers, FidTool)
	h := newHarness(t, false, func(cfg *Config) { cfg.Catalogue = c })
	h.g.one().syncCatalogue(liveOf(c))
	return h
}

// fidCase is a call and what must reach the server ("" when it must be
// refused as invalid).
type fidCase struct{ name, args, forwarded string }

func runFid(t *testing.T, cases []fidCase) {
	t.Helper()
	h := fidHarness(t)
	for _, tc := range cases {
		before := len(h.spy.Calls())
		res := h.g.Dispatch(context.Background(), alice, req("f", "fid_args", tc.args))
		calls := h.spy.Calls()
		switch {
		case tc.forwarded == "" && (res.OK || res.Reason != ReasonInvalid):
			t.Errorf("%s: %s: %+v, want invalid", tc.name, tc.args, res)
		case tc.forwarded == "" && len(calls) != before:
			t.Errorf("%s: %s reached the server", tc.name, tc.args)
		case tc.forwarded != "" && !res.OK:
			t.Errorf("%s: %s refused: %+v", tc.name, tc.args, res)
		case tc.forwarded != "" && calls[len(calls)-1].Args != tc.forwarded:
			t.Errorf("%s: %s forwarded as %s, want %s", tc.name, tc.args, calls[len(calls)-1].Args, tc.forwarded)
		}
	}
}

// Issue 15 item 4: bounds are checked on the literal, exactly.
func TestExactNumericBounds(t *testing.T) {
	runFid(t, []fidCase{
		{"maximum, 2^53+1", `{"n":9007199254740993}`, ""},
		{"maximum, 2^53", `{"n":9007199254740992}`, `{"n":9007199254740992}`},
		{"minimum, -2^53-1", `{"n":-9007199254740993}`, ""},
		{"odd above 2^53", `{"even":9007199254740995}`, ""},
		{"even above 2^53", `{"even":9007199254740994}`, `{"even":9007199254740994}`},
		{"0.07 multiple of 0.01", `{"price":0.07}`, `{"price":0.07}`},
		{"1.15 multiple of 0.01", `{"price":1.15}`, `{"price":1.15}`},
		{"0.075 not a multiple of 0.01", `{"price":0.075}`, ""},
		{"0.3 not below 0.3", `{"score":0.3}`, ""},
		{"just below 0.3", `{"score":0.29999999999999998}`, ""}, // a float64 rounds it to 0.3: refused as lost precision
		{"0.2999 below 0.3", `{"score":0.2999}`, `{"score":0.2999}`},
	})
}

// Issue 14 item 1 (numbers): a number literal is bounded, so no check costs
// more than the literal's length.
func TestNumberLiteralBounds(t *testing.T) {
	runFid(t, []fidCase{
		{"4,000 zeros", `{"price":1.` + strings.Repeat("0", 4000) + `}`, ""},
		{"huge negative exponent", `{"price":1e-999999}`, ""},
		{"huge exponent, integer", `{"n":1e999999}`, ""},
		{"longest literal", `{"price":1.` + strings.Repeat("0", argengine.MaxNumberLen-2) + `}`, `{"price":1}`},
		{"one byte more", `{"price":1.` + strings.Repeat("0", argengine.MaxNumberLen-1) + `}`, ""},
	})
}

// Issue 15 item 3: integer-valued numbers are integers.
func TestIntegerValuedNumbers(t *testing.T) {
	runFid(t, []fidCase{
		{"1.0", `{"n":1.0}`, `{"n":1}`},
		{"10.0", `{"n":10.0}`, `{"n":10}`},
		{"1e2", `{"n":1e2}`, `{"n":100}`},
		{"1E+2", `{"n":1E+2}`, `{"n":100}`},
		{"-2.50e1 is not", `{"n":-2.51e1}`, ""},
		{"-2.50e1", `{"even":-2.50e1}`, ""},
		{"-2.60e1", `{"even":-2.60e1}`, `{"even":-26}`},
		{"-0.0", `{"n":-0.0}`, `{"n":0}`},
		{"1.5", `{"n":1.5}`, ""},
		{"1.0000000000000001", `{"n":1.0000000000000001}`, ""},
		{"9.007199254740993e15", `{"n":9.007199254740993e15}`, ""},
		{"in raw JSON", `{"raw":[1.0,{"a":2e0}]}`, `{"raw":[1,{"a":2}]}`},
		{"beyond int64", `{"n":1e19}`, ""},
		{"number stays", `{"price":2.0}`, `{"price":2}`},
	})
}

// Issue 15 item 1: a lone surrogate escape is refused wherever it is, with
// a reason naming where; a pair is forwarded as the character it encodes.
func TestLoneSurrogates(t *testing.T) {
	runFid(t, []fidCase{
		{"string", `{"s":"a\ud800b"}`, ""},
		{"low alone", `{"s":"a\udc00b"}`, ""},
		{"high at the end", `{"s":"a\ud800"}`, ""},
		{"high then high", `{"s":"\ud800\ud800"}`, ""},
		{"reversed pair", `{"s":"\udc00\ud800"}`, ""},
		{"map value", `{"m":{"k":"\ud800"}}`, ""},
		{"map key", `{"m":{"\ud800":"v"}}`, ""},
		{"raw JSON", `{"raw":{"a":["\ud800"]}}`, ""},
		{"raw JSON key", `{"raw":{"\udfff":1}}`, ""},
		{"a pair", `{"s":"\ud83d\ude00"}`, `{"s":"😀"}`},
		{"a pair in raw JSON", `{"raw":"\ud83d\ude00"}`, `{"raw":"\ud83d\ude00"}`},
		{"escaped backslash then u", `{"s":"\\ud800"}`, `{"s":"\\ud800"}`},
	})
}
