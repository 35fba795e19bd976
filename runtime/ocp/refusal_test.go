package ocp

import (
	"context"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// honest: a read whose schema is valid for values its Go type or the gate's
// rules refuse (issue 25 item 6).

type HonestObj struct {
	A *string `json:"a,omitzero"`
}

type HonestArgs struct {
	Read `json:"-"`
	N    *int64     `json:"n,omitzero"`
	F    *float64   `json:"f,omitzero"`
	S    *string    `json:"s,omitzero"`
	O    *HonestObj `json:"o,omitzero"`
	L    []int64    `json:"l,omitzero"`
	P    *string    `json:"p,omitzero"`
	T    *string    `json:"t,omitzero"`
	K    []string   `json:"k,omitzero"`
	H    *string    `json:"h,omitzero"`
}

var honestTool = &Tool{Args: (*HonestArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "honest",
	Description: "Takes what its schema allows.",
	InputSchema: `{"type":"object","properties":{` +
		`"n":{"type":"integer","minimum":0},` +
		`"f":{"type":"number"},` +
		`"s":{"type":"string"},` +
		`"o":{"type":"object","properties":{"a":{"type":"string"}}},` +
		`"l":{"type":"array","items":{"type":"integer"}},` +
		`"p":{"type":"string"},` +
		`"t":{"description":"no type: any value is valid"},` +
		`"k":{"type":"array","items":{"type":"string"}},` +
		`"h":{"type":"string","x-mcp-header":"H"}}}`,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor",
		Resource: tpl("k/{k}/{k}"), Failure: "Could not.",
	},
})}

// honest_raw: the same object, in a type the codec does not cover (a
// field with JSON methods of its own), so that encoding/json decodes it.

type HonestRawArgs struct {
	Read `json:"-"`
	Raw  honestOpaque `json:"raw,omitzero"`
	O    *HonestObj   `json:"o,omitzero"`
}

// honestOpaque is any JSON value behind methods of its own, which the
// codec leaves to encoding/json.
type honestOpaque struct{ v json.RawMessage }

func (o honestOpaque) MarshalJSON() ([]byte, error) { return o.v, nil }

func (o *honestOpaque) UnmarshalJSON(b []byte) error {
	o.v = append(json.RawMessage(nil), b...)
	return nil
}

func (o honestOpaque) IsZero() bool { return o.v == nil }

var honestRawTool = &Tool{Args: (*HonestRawArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "honest_raw",
	Description: "Takes what its schema allows.",
	InputSchema: `{"type":"object","properties":{"raw":{},"o":{"type":"object","properties":{"a":{"type":"string"}}}},"additionalProperties":false}`,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor",
		Resource: tpl("raw"), Failure: "Could not.",
	},
})}

// honest_closed: a schema with a pattern the gate has no ECMA-262
// translation for, so every call of the tool is refused.

type HonestClosedArgs struct {
	Read `json:"-"`
	P    *string `json:"p,omitzero"`
}

var honestClosedTool = &Tool{Args: (*HonestClosedArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "honest_closed",
	Description: "Takes a string its pattern cannot check.",
	// Go's regexp takes "a{" as a literal; ECMA-262 (Unicode mode)
	// refuses it, so the gate has no translation.
	InputSchema: `{"type":"object","properties":{"p":{"type":"string","pattern":"a{"}}}`,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor",
		Resource: tpl("closed"), Failure: "Could not.",
	},
})}

func honestHarness(t *testing.T) *harness {
	t.Helper()
	c := NewCatalogue(testTiers, honestTool, honestRawTool, honestClosedTool)
	h := newHarness(t, false, func(cfg *Config) {
		cfg.Catalogue = c
		cfg.MaxResources = 100
	})
	h.g.one().syncCatalogue(liveOf(c))
	return h
}

// canary is in the value of every refused argument below that has a
// string: the model's text must never quote a value.
const honestCanary = "CANARY-4f1e"

// Every argument refusal names its rule and the JSON pointer of the value
// refused, as audit attributes of its event; a refusal by the tool's schema
// is told as such, one by the gate's own rule says so, naming the rule and
// the pointer only. The server is never called.
func TestArgumentRefusalsArePointedAndHonest(t *testing.T) {
	deep := `{"o":{"a":` + strings.Repeat("[", argengine.MaxArgsDepth+2) + strings.Repeat("]", argengine.MaxArgsDepth+2) + `}}`
	deepPointer := "/o/a" + strings.Repeat("/0", argengine.MaxArgsDepth-1)
	big := `{"s":"` + strings.Repeat("x", defaultMaxArgsBytes) + `"}`
	many := `{"l":[` + strings.Repeat("0,", defaultMaxArgsValues) + `0]}`
	fanOut := `{"k":["` + strings.Repeat(`a","`, 10) + `b"]}` // 11 × 11 resources
	for _, tc := range []struct {
		name, args     string
		rule           argengine.Rule
		pointer, event string // event: "ocp.args" unless set
	}{
		// The gate's own rules, for values the schema may well accept.
		{"lone surrogate", `{"s":"` + honestCanary + `\ud800"}`, argengine.RuleLoneSurrogate, "/s", ""},
		{"lone low surrogate, nested", `{"o":{"a":"` + honestCanary + `\udc00"}}`, argengine.RuleLoneSurrogate, "/o/a", ""},
		{"lone surrogate in a member name", `{"o":{"\ud800` + honestCanary + `":"x"}}`, argengine.RuleLoneSurrogate, "/o", ""},
		{"duplicate key", `{"o":{"a":"x","a":"` + honestCanary + `"}}`, argengine.RuleDuplicateKey, "/o/a", ""},
		{"integer beyond int64", `{"n":9223372036854775808}`, argengine.RuleGoType, "/n", ""},
		{"integer beyond int64 in an array", `{"l":[1,-9223372036854775809]}`, argengine.RuleGoType, "/l/1", ""},
		{"a number a float64 does not hold exactly", `{"f":0.10000000000000001}`, argengine.RuleRoundTrip, "/f", ""},
		{"a number beyond float64", `{"f":1e400}`, argengine.RuleNumberRange, "/f", ""},
		{"a literal beyond the length bound", `{"l":[0,` + strings.Repeat("7", argengine.MaxNumberLen+1) + `]}`, argengine.RuleNumberLength, "/l/1", ""},
		{"an exponent beyond the bound", `{"f":0e1001}`, argengine.RuleNumberExponent, "/f", ""},
		{"nesting beyond the bound", deep, argengine.RuleDepth, deepPointer, ""},
		{"arguments beyond the size bound", big, argengine.RuleSize, "", ""},
		{"arguments beyond the bound of values", many, argengine.RuleValues, "/l/" + strconv.Itoa(defaultMaxArgsValues-2), ""},
		{"forwarded arguments beyond the size bound", `{"s":"` + strings.Repeat("\u00ad", defaultMaxArgsBytes/4) + `"}`, ruleForwardSize, "", ""},
		{"an argument mirrored into an HTTP header, too long for one", `{"h":"` + honestCanary + strings.Repeat("x", argengine.MaxParamHeaderBytes) + `"}`, argengine.RuleParamHeader, "/h", ""},
		{"an undeclared top-level argument", `{"zz/~":"` + honestCanary + `"}`, argengine.RuleUndeclared, "/zz~1~0", ""},
		{"a member the Go struct does not declare", `{"o":{"b":"` + honestCanary + `"}}`, argengine.RuleGoType, "/o/b", ""},
		{"a value of a type the Go field is not", `{"t":5}`, argengine.RuleGoType, "/t", ""},
		// The whole tool fails closed: its pointer is the root, whatever the
		// arguments hold (the schema's pointer is in the detail).
		{"closed: a pattern without an ECMA-262 translation", `{"p":"` + honestCanary + `"}`, argengine.RulePatternUntranslatable, "", ""},
		{"closed: a call that never reaches the pattern", `{}`, argengine.RulePatternUntranslatable, "", ""},
		{"more resources than allowed", fanOut, ruleResources, "/k", "ocp.acl"},
		// encoding/json drops a member its struct does not declare and
		// matches one in another case: the round trip finds either.
		{"raw: a member the Go struct does not declare", `{"raw":1,"o":{"a":"x","b~":"` + honestCanary + `"}}`, argengine.RuleRoundTrip, "/o/b~0", ""},
		{"raw: a member in another case", `{"raw":1,"o":{"A":"` + honestCanary + `"}}`, argengine.RuleRoundTrip, "/o/A", ""},

		// The tool's schema, or not JSON at all.
		{"below the minimum", `{"n":-1}`, argengine.RuleSchema, "/n", ""},
		{"raw: an undeclared argument the schema refuses", `{"zz":"` + honestCanary + `"}`, argengine.RuleSchema, "/zz", ""},
		{"a wrong type in an array", `{"l":[1,"` + honestCanary + `"]}`, argengine.RuleSchema, "/l/1", ""},
		{"an object expected", `{"o":5}`, argengine.RuleSchema, "/o", ""},
		{"not an object", `["` + honestCanary + `"]`, argengine.RuleSchema, "", ""},
		{"not JSON", `{"o":{"a":tru}}`, argengine.RuleSyntax, "/o/a", ""},
		{"trailing data", `{} {}`, argengine.RuleSyntax, "", ""},
		{"no arguments", ``, argengine.RuleSyntax, "", ""},
		{"invalid UTF-8", "{\"o\":{\"a\":\"" + honestCanary + "\xff\"}}", argengine.RuleSyntax, "/o/a", ""},
		{"invalid UTF-8 beside an escape", "{\"s\":\"\\n\xfe\"}", argengine.RuleSyntax, "/s", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := honestHarness(t)
			tool := "honest"
			switch {
			case strings.HasPrefix(tc.name, "raw: "):
				tool = "honest_raw"
			case strings.HasPrefix(tc.name, "closed: "):
				tool = "honest_closed"
			}
			res := h.g.Dispatch(context.Background(), alice, req("h", tool, tc.args))
			wantRefused(t, res, ReasonInvalid)
			wantNoCalls(t, h)
			if strings.Contains(res.Error, honestCanary) {
				t.Errorf("the model's text quotes the value: %q", res.Error)
			}
			if tc.rule.SchemaRule() {
				if res.Error != textInvalid {
					t.Errorf("text %q, want %q", res.Error, textInvalid)
				}
			} else {
				where := "at the root of the arguments"
				if tc.pointer != "" {
					where = "at " + boundText(tc.pointer)
				}
				for _, want := range []string{`rule "` + string(tc.rule) + `"`, where, h.g.one().ruleWords(tc.rule), "not by the tool's input schema"} {
					if !strings.Contains(res.Error, want) {
						t.Errorf("text %q lacks %q", res.Error, want)
					}
				}
				if strings.Contains(res.Error, "do not match") {
					t.Errorf("text %q says the schema refused", res.Error)
				}
			}
			event := tc.event
			if event == "" {
				event = "ocp.args"
			}
			ev := h.audit.events(t, event)
			if len(ev) != 1 {
				t.Fatalf("%d %s events: %s", len(ev), event, h.audit.String())
			}
			e := ev[0]
			if e["outcome"] != string(ReasonInvalid) || e["rule"] != string(tc.rule) || e["pointer"] != boundText(tc.pointer) {
				t.Errorf("event outcome %v rule %v pointer %.80v, want %s %q", e["outcome"], e["rule"], e["pointer"], tc.rule, tc.pointer)
			}
			if d, _ := e["detail"].(string); tc.pointer != "" && !strings.Contains(d, boundText(tc.pointer)[:min(len(tc.pointer), 100)]) {
				t.Errorf("detail %.200q does not name %.80q", d, tc.pointer)
			}
		})
	}
}

// The same, one case of each kind told in full, so that a change of the
// words is a change of this test.
func TestArgumentRefusalTexts(t *testing.T) {
	h := honestHarness(t)
	res := h.g.Dispatch(context.Background(), alice, req("h", "honest", `{"o":{"a":"\ud800"}}`))
	want := `Not performed: the Hub's rule "lone-surrogate" refused the arguments at /o/a: a string holds a \u escape of a lone UTF-16 surrogate, which is no character. They were refused by the Hub's rules, not by the tool's input schema; the server was not called.`
	if res.Error != want {
		t.Errorf("text\n%s\nwant\n%s", res.Error, want)
	}
	res = h.g.Dispatch(context.Background(), alice, req("h", "honest", `{"n":-1}`))
	if want := "Not performed: the arguments do not match the tool's input schema."; res.Error != want {
		t.Errorf("text %q, want %q", res.Error, want)
	}
	wantNoCalls(t, h)
}

// Gate.Call's own refusals: typed arguments with no JSON encoding are the
// gate's rule, a nil pointer is no object.
func TestCallRefusalsArePointed(t *testing.T) {
	h := honestHarness(t)
	nan := math.NaN()
	res := h.g.Call(context.Background(), alice, HonestArgs{F: &nan})
	wantRefused(t, res, ReasonInvalid)
	if !strings.Contains(res.Error, `rule "encode"`) {
		t.Errorf("text %q", res.Error)
	}
	res = h.g.Call(context.Background(), alice, (*HonestArgs)(nil))
	wantRefused(t, res, ReasonInvalid)
	if res.Error != textInvalid {
		t.Errorf("text %q", res.Error)
	}
	ev := h.audit.events(t, "ocp.args")
	if len(ev) != 2 || ev[0]["rule"] != string(ruleEncode) || ev[0]["pointer"] != "" || ev[1]["rule"] != string(argengine.RuleSchema) || ev[1]["pointer"] != "" {
		t.Errorf("events %v", ev)
	}
	wantNoCalls(t, h)
}

// Every rule of the gate's own has words for the model; the schema's kind
// has none (it is told with textInvalid).
func TestRuleTexts(t *testing.T) {
	// Every rule of the engine, and the gate's own two.
	rules := append(argengine.Rules(), ruleResources, ruleEncode, ruleForwardSize)
	worded := 0
	for _, r := range rules {
		switch {
		case r == argengine.RuleSchema || r == argengine.RuleSyntax:
			if !r.SchemaRule() || ruleWords[r] != "" {
				t.Errorf("rule %s: schema kind %v, words %q", r, r.SchemaRule(), ruleWords[r])
			}
		case r.SchemaRule() || ruleWords[r] == "":
			t.Errorf("rule %s: schema kind %v, words %q", r, r.SchemaRule(), ruleWords[r])
		default:
			worded++
		}
	}
	if len(ruleWords) != worded {
		t.Errorf("%d rules have words, %d of the %d rules need them", len(ruleWords), worded, len(rules))
	}
}

// A type the codec does not cover (fid_args has a json.RawMessage) is
// decoded by encoding/json, whose refusal names the member it is about.
func TestDecodeRefusalIsPointed(t *testing.T) {
	h := fidHarness(t)
	res := h.g.Dispatch(context.Background(), alice, req("f", "fid_args", `{"s":"x","even":10000000000000000000}`))
	wantRefused(t, res, ReasonInvalid)
	if !strings.Contains(res.Error, `rule "go-type" refused the arguments at /even`) {
		t.Errorf("text %q", res.Error)
	}
	ev := h.audit.events(t, "ocp.args")
	if len(ev) != 1 || ev[0]["rule"] != string(argengine.RuleGoType) || ev[0]["pointer"] != "/even" {
		t.Errorf("events %v", ev)
	}
	wantNoCalls(t, h)
}
