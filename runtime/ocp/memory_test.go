package ocp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/argshapes"
	"github.com/ocpgen/ocpgen/internal/canon"
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
		for _, p := range []Principal{{ID: "u<1>", Tier: "member&", Scopes: []string{"b", "a", "b"}}, {ID: "u\u2028", Tier: ""}} {
			scopes := slices.Compact(slices.Sorted(slices.Values(p.Scopes)))
			if scopes == nil {
				scopes = []string{}
			}
			b, err := json.Marshal([]any{"ocp-confirm-v3", "srv<", "sha256:p", "x_t", "t", fwd, p.ID, p.Tier, scopes, "sha256:c"})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := confirmDigest("srv<", "sha256:p", "x_t", "t", []byte(fwd), p, "sha256:c"), canon.Fingerprint(b); got != want {
				t.Errorf("%.40q, %+v: %s, want %s", fwd, p, got, want)
			}
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
	Policy:      Policy{Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor", Resource: tpl("b"), Failure: "Could not."},
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
	h.g.one().syncCatalogue(liveOf(c))
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
// defaults are defaultMaxArgsBytes and defaultMaxArgsValues; a Hub may
// lower them, or raise them up to argengine's limits.
func TestArgBounds(t *testing.T) {
	for _, tc := range []struct {
		name          string
		bytes, values int // the Config's
		wantB, wantV  int // the bounds in force
	}{
		{"defaults", 0, 0, defaultMaxArgsBytes, defaultMaxArgsValues},
		{"lowered", 1000, 50, 1000, 50},
		{"raised", 2 * defaultMaxArgsBytes, 2 * defaultMaxArgsValues, 2 * defaultMaxArgsBytes, 2 * defaultMaxArgsValues},
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
				if !strings.Contains(r.Error, `rule "`+string(over.rule)+`"`) || !strings.Contains(r.Error, h.g.one().ruleWords(over.rule)) {
					t.Errorf("%s: text %q", over.rule, r.Error)
				}
				ev := h.audit.events(t, "ocp.args")
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

// tamperBroker is a MemoryBroker that changes a byte of every request's
// arguments where they stand, before registering it.
type tamperBroker struct{ *memoryBroker }

func (b tamperBroker) Request(ctx context.Context, p PendingConfirm) (Decision, error) {
	if i := bytes.IndexByte(p.Request.Args, 'a'); i >= 0 {
		p.Request.Args[i] = 'b'
	}
	return b.memoryBroker.Request(ctx, p)
}

// The broker holds a write's forwarded bytes while its confirm waits, not
// a copy of them: what an approval runs is a copy taken then, which must
// still be what the digest covers. A broker that changes the bytes gets
// the write denied, and the server is never called with anything but the
// approved arguments.
func TestBrokerCannotChangeWhatRuns(t *testing.T) {
	inner := newMemoryBroker()
	h := newHarness(t, true, func(cfg *Config) { cfg.Broker = tamperBroker{inner} })
	h.broker = inner
	stop := autoDecide(t, h, alicePhone, true)
	defer stop()
	r := h.g.Dispatch(t.Context(), alice, req("w", "delete_entities", `{"entityNames":["a"]}`))
	wantRefused(t, r, ReasonDenied)
	if r.Error != textBroker {
		t.Errorf("text %q", r.Error)
	}
	wantNoCalls(t, h)
	ev := h.audit.events(t, "ocp.confirm")
	if last := ev[len(ev)-1]; !strings.Contains(fmt.Sprint(last["detail"]), "changed while the confirm waited") {
		t.Errorf("confirm events %v", ev)
	}
}

// A call's peak live heap (heapmeter's bound) stays within 4× its size, the
// larger of its arguments' bytes and its forwarded bytes, and within 3× its
// size plus 4 bytes a JSON value and 4 more a non-empty object or a
// member's non-empty array (the tape's words), and 32 bytes a member of an
// object of more than 16 members (the indexes of its names); both with 64
// KiB to spare, for every worst shape of arguments (internal/argshapes),
// read or write, taken or refused by a bound: at the bound of bytes, and
// the dense shapes at the bound of values too. The gate's bounds are
// scaled down (1 MiB, 65,536 values) to keep the test short. (Before the
// bounds, the 16-byte tape and the one-pass round trip, 1 MiB of tiny
// numbers cost the gate about 200 bytes a byte; with 16-byte nodes, a
// second copy of the re-encoding and a hash slot per remembered verdict,
// 10 at the bound of values, and a shared $ref 26; with 8 bytes an array,
// deep nesting 5.)
func TestCallHeapIsBounded(t *testing.T) {
	const bytes, values = 1 << 20, 1 << 16
	for _, s := range argshapes.All {
		inputs := map[string][]byte{"at the bound of bytes": s.Args(bytes, math.MaxInt)}
		switch {
		case s.Dense():
			inputs["at the bound of values"] = s.Args(bytes, values)
		case s.Name == "invisible-string":
			// Forwarded three times as long: a third is taken.
			inputs["at the bound of forwarded bytes"] = s.Args(bytes/3, math.MaxInt)
		}
		for what, raw := range inputs {
			t.Run(s.Name+"/"+what, func(t *testing.T) {
				var m *heapmeter.Meter
				g := heapGate(t, s, heapMarks(&m), func(cfg *Config) { cfg.MaxArgsBytes, cfg.MaxArgsValues = bytes, values })
				fwd := len(escapeInvisible(raw)) // the forwarded bytes, as long as the arguments' escaped text
				v, second, members := jsonValues(raw)
				v, second, members = min(values, v), min(values, second), min(values, members)
				size := max(len(raw), fwd)
				limit := uint64(min(3*size+4*v+4*second+32*members, 4*size) + 64<<10)
				for _, tool := range []string{"read", "write"} {
					peak, _, _ := heapCall(t, g, &m, tool, raw)
					if peak > limit {
						t.Errorf("%s: %d bytes of arguments (%d forwarded, %d values, %d members of large objects): peak %d bytes (%.2f× its size), beyond %d", tool, len(raw), fwd, v, members, peak, float64(peak)/float64(size), limit)
					}
				}
			})
		}
	}
}

// jsonValues counts the JSON values of raw, its non-empty objects and
// members' non-empty arrays, and the members of its objects of more than
// 16 members.
func jsonValues(raw []byte) (values, second, members int) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		panic(err)
	}
	var count func(v any, member bool)
	count = func(v any, member bool) {
		values++
		switch v := v.(type) {
		case []any:
			if member && len(v) > 0 {
				second++
			}
			for _, e := range v {
				count(e, false)
			}
		case map[string]any:
			if len(v) > 0 {
				second++
			}
			if len(v) > 16 {
				members += len(v)
			}
			for _, e := range v {
				count(e, true)
			}
		}
	}
	count(v, false)
	return values, second, members
}
