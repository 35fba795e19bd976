package ocp

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/heapmeter"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// The confirm digest hashes the arguments as it writes their JSON string,
// without copying them: it is still the fingerprint of json.Marshal's text
// of its parts, whatever bytes the arguments hold.
func TestConfirmDigestIsTheFingerprintOfItsParts(t *testing.T) {
	for _, fwd := range []string{
		``, `{}`, `{"a":"<b>&amp;</b>"}`, "{\"a\":\"\u2028\u2029\"}", `{"a":"\u00ad"}`, "{\"a\":\"\x01\x1f\t\n\"}",
		"{\"a\":\"\xff\xfe\"}", "{\"a\":\"\xe2\x80\"}", `{"a":"é😀"}`, strings.Repeat(`{"k":"<&>\"\\"}`, 1000),
	} {
		p := Principal{ID: "u<1>", Tier: "member&", Scopes: []string{"b", "a", "b"}}
		scopes := slices.Compact(slices.Sorted(slices.Values(p.Scopes)))
		b, err := json.Marshal([]any{"ocp-confirm-v3", "srv<", "sha256:p", "x_t", "t", fwd, p.ID, p.Tier, scopes, "sha256:c"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := confirmDigest("srv<", "sha256:p", "x_t", "t", []byte(fwd), p, "sha256:c"), ocpimpl.Fingerprint(b); got != want {
			t.Errorf("%.40q: %s, want %s", fwd, got, want)
		}
	}
	// Computing it allocates nothing that grows with the arguments.
	big := []byte(`{"s":"` + strings.Repeat("<a&b>\u00ad", 100000) + `"}`)
	m := heapmeter.Start()
	confirmDigest("", "sha256:p", "t", "t", big, alice, "sha256:c")
	m.Mark("digest")
	if a := m.Phases()[0].Alloc; a > 64<<10 {
		t.Errorf("the digest of %d bytes of arguments allocates %d bytes", len(big), a)
	}
}

// BoundArgs are the arguments of boundTool: a read that takes a string or
// a list of integers.
type BoundArgs struct {
	Read `json:"-"`
	S    *string `json:"s,omitzero"`
	L    []int64 `json:"l,omitzero"`
}

var boundTool = &Tool{Args: (*BoundArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "bound",
	InputSchema: `{"type":"object","properties":{"s":{"type":"string"},"l":{"type":"array","items":{"type":"integer"}}}}`,
	Policy:      Policy{Kind: KindRead, Classified: true, Tier: "visitor", Resource: tpl("b"), Failure: "Could not."},
})}

// boundsHarness is a harness of boundTool with the bounds of the arguments
// set.
func boundsHarness(t *testing.T, bytes, values int) *harness {
	t.Helper()
	c := NewCatalogue(testTiers, boundTool)
	h := newHarness(t, false, func(cfg *Config) {
		cfg.Catalogue = c
		cfg.MaxArgsBytes, cfg.MaxArgsValues = bytes, values
	})
	h.g.syncCatalogue(liveOf(c))
	return h
}

// argsOfBytes returns arguments of boundTool of exactly n bytes.
func argsOfBytes(n int) string {
	const wrap = len(`{"s":""}`)
	return `{"s":"` + strings.Repeat("x", n-wrap) + `"}`
}

// argsOfValues returns arguments of boundTool that hold exactly n JSON
// values (n ≥ 2): the object, the list and n-2 elements.
func argsOfValues(n int) string {
	return `{"l":[` + strings.TrimSuffix(strings.Repeat("0,", n-2), ",") + `]}`
}

// Config.MaxArgsBytes and MaxArgsValues bound a call's arguments: at the
// bound they are taken, one byte or one value over it they are refused by
// the rule, at the place it names, and the server is not called. The
// defaults are DefaultMaxArgsBytes and DefaultMaxArgsValues; a Hub may
// lower them, or raise them up to argengine's limits.
func TestArgBounds(t *testing.T) {
	for _, tc := range []struct {
		name          string
		bytes, values int // the Config's
		wantB, wantV  int // the bounds in force
	}{
		{"defaults", 0, 0, DefaultMaxArgsBytes, DefaultMaxArgsValues},
		{"lowered", 1000, 50, 1000, 50},
		{"raised", 2 * DefaultMaxArgsBytes, 2 * DefaultMaxArgsValues, 2 * DefaultMaxArgsBytes, 2 * DefaultMaxArgsValues},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := boundsHarness(t, tc.bytes, tc.values)
			call := func(args string) ActionResult {
				return h.g.Dispatch(t.Context(), alice, req("b", "bound", args))
			}
			for _, args := range []string{argsOfBytes(tc.wantB), argsOfValues(tc.wantV)} {
				if r := call(args); !r.OK {
					t.Fatalf("%d bytes at the bounds: %+v", len(args), r)
				}
			}
			for _, over := range []struct {
				args    string
				rule    argengine.Rule
				pointer string
			}{
				{argsOfBytes(tc.wantB + 1), argengine.RuleSize, ""},
				{argsOfValues(tc.wantV + 1), argengine.RuleValues, "/l/" + strconv.Itoa(tc.wantV-2)},
			} {
				calls := len(h.spy.Calls())
				r := call(over.args)
				wantRefused(t, r, ReasonInvalid)
				if !strings.Contains(r.Error, `rule "`+string(over.rule)+`"`) || !strings.Contains(r.Error, h.g.ruleWords(over.rule)) {
					t.Errorf("%s: text %q", over.rule, r.Error)
				}
				ev := h.audit.events(t, AuditArgs)
				if last := ev[len(ev)-1]; last["rule"] != string(over.rule) || last["pointer"] != over.pointer {
					t.Errorf("%s: event %v, want pointer %q", over.rule, last, over.pointer)
				}
				if len(h.spy.Calls()) != calls {
					t.Errorf("%s: the server was called", over.rule)
				}
			}
		})
	}
}

// NewGate takes the bounds of the arguments from 0 (the default) up to the
// engine's limits, and refuses others, naming the field.
func TestArgBoundsConfig(t *testing.T) {
	for _, tc := range []struct {
		bytes, values int
		want          string // "": accepted
	}{
		{argengine.MaxLimitBytes, argengine.MaxLimitValues, ""},
		{1, 1, ""},
		{-1, 0, "Config.MaxArgsBytes"},
		{argengine.MaxLimitBytes + 1, 0, "Config.MaxArgsBytes"},
		{0, -1, "Config.MaxArgsValues"},
		{0, argengine.MaxLimitValues + 1, "Config.MaxArgsValues"},
	} {
		_, err := NewGate(Config{Catalogue: NewCatalogue(testTiers, boundTool), Server: &spyCaller{}, ACL: AllowAllResources,
			MaxArgsBytes: tc.bytes, MaxArgsValues: tc.values})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%d, %d: %v", tc.bytes, tc.values, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%d, %d: %v, want an error naming %s", tc.bytes, tc.values, err, tc.want)
		}
	}
}
