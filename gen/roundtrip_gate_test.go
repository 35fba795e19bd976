package gen

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The gate path of TestRoundTrip: every input sample is an action.request
// that a gate built from the generated catalogue dispatches (every tool a
// write the classification does not list, approved by a second peer of the
// same principal), to a spy server that records the bytes it receives.

// gateDriverSource is the driver's half that runs the gate; the generated
// half (runDriver) calls gateCall.
const gateDriverSource = `package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// spyServer records the arguments of the last call.
type spyServer struct {
	live []ocp.LiveTool
	mu   sync.Mutex
	last json.RawMessage
}

func (s *spyServer) CallTool(_ context.Context, _ string, args json.RawMessage) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	s.last = append(json.RawMessage(nil), args...)
	s.mu.Unlock()
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
}

func (s *spyServer) WatchTools(fn func([]ocp.LiveTool)) error { fn(s.live); return nil }

// detailHandler keeps the detail of the last refusal the gate audits.
type detailHandler struct {
	mu     *sync.Mutex
	detail *string
}

func (h detailHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h detailHandler) WithAttrs([]slog.Attr) slog.Handler      { return h }
func (h detailHandler) WithGroup(string) slog.Handler           { return h }
func (h detailHandler) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "detail" {
			h.mu.Lock()
			*h.detail = r.Message + ": " + a.Value.String()
			h.mu.Unlock()
		}
		return true
	})
	return nil
}

type gateRun struct {
	g        *ocp.Gate
	spy      *spyServer
	who      ocp.Principal
	mu       sync.Mutex
	detail   string
}

var gates = map[string]*gateRun{}

func newGateRun(c *ocp.Catalogue) (*gateRun, error) {
	r := &gateRun{spy: &spyServer{}}
	var scopes []string
	seen := map[string]bool{}
	for _, t := range c.Tools() {
		r.spy.live = append(r.spy.live, ocp.LiveTool{Tool: &mcp.Tool{Name: t.Desc.Name, InputSchema: json.RawMessage(t.Desc.InputSchema)}})
		for _, s := range t.Desc.Policy.Scopes {
			if !seen[s] {
				seen[s] = true
				scopes = append(scopes, s)
			}
		}
	}
	tiers := c.Tiers()
	r.who = ocp.Principal{ID: "u-roundtrip", Tier: tiers[len(tiers)-1], Scopes: scopes, Peer: "model"}
	approver := r.who
	approver.Peer = "phone"
	broker := ocp.NewMemoryBroker()
	g, err := ocp.NewGate(ocp.Config{
		Catalogue: c, Server: r.spy, ACL: ocp.AllowAllResources, Broker: broker,
		Audit: slog.New(detailHandler{&r.mu, &r.detail}),
	})
	if err != nil {
		return nil, err
	}
	r.g = g
	broker.Subscribe(func(cr ocp.ConfirmRequest) {
		_ = g.Resolve(context.Background(), approver, ocp.ConfirmDecision{ID: cr.ID, Approve: true, Digest: cr.Digest})
	})
	return r, nil
}

// gateCall dispatches one call and returns the bytes the server received,
// or the reason and audited detail of the refusal.
func gateCall(pkg, tool string, args json.RawMessage) (json.RawMessage, string) {
	r := gates[pkg]
	r.spy.last = nil
	r.detail = ""
	res := r.g.Dispatch(context.Background(), r.who, ocp.ActionRequest{ID: "rt", Tool: tool, Args: args})
	if !res.OK {
		r.mu.Lock()
		defer r.mu.Unlock()
		return nil, string(res.Reason) + ": " + r.detail
	}
	return r.spy.last, ""
}
`

// The categories a sample counts in (a sample may count in several).
const (
	catNull      = "explicit null"
	catZero      = "zero value (0, \"\", false, [], {})"
	catEnum      = "enum value"
	catUnion     = "union branch"
	catIntFloat  = "integer-valued float (1.0, 1e2)"
	catBigInt    = "big integer (beyond 2^53)"
	catRange     = "integer beyond int64"
	catNonASCII  = "non-ASCII string"
	catSurrogate = "lone surrogate escape"
	catPair      = "surrogate pair escape"
	catOther     = "none of the above"
)

var catOrder = []string{catNull, catZero, catEnum, catUnion, catIntFloat, catBigInt, catRange, catNonASCII, catSurrogate, catPair, catOther}

// sampleCategories derives the categories of a sample from its JSON and the
// sampler's choices.
func sampleCategories(b []byte, hits map[string]bool) []string {
	set := map[string]bool{}
	for c := range hits {
		set[c] = true
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case nil:
			set[catNull] = true
		case bool:
			if !v {
				set[catZero] = true
			}
		case json.Number:
			s := string(v)
			switch {
			case s == "0":
				set[catZero] = true
			case strings.ContainsAny(s, ".eE") && isIntegral(s):
				set[catIntFloat] = true
			case !strings.ContainsAny(s, ".eE") && len(strings.TrimPrefix(s, "-")) > 18:
				set[catRange] = true
			case !strings.ContainsAny(s, ".eE") && len(strings.TrimPrefix(s, "-")) >= 16:
				set[catBigInt] = true
			}
		case string:
			if v == "" {
				set[catZero] = true
			}
			for _, r := range v {
				if r > 0x7f {
					set[catNonASCII] = true
					break
				}
			}
		}
	}
	if strings.Contains(string(b), "{}") || strings.Contains(string(b), "[]") {
		set[catZero] = true
	}
	var out []string
	for _, c := range catOrder {
		if set[c] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = []string{catOther}
	}
	return out
}

var integralRE = regexp.MustCompile(`^-?[0-9]+(\.0*)?([eE]\+?[0-9]+)?$`)

func isIntegral(s string) bool { return integralRE.MatchString(s) }

// gateOutcome is what happened to one input sample through the gate.
type gateOutcome int

const (
	outUnchanged gateOutcome = iota
	outChanged
	outDropped
	outRefusedDocumented
	outRefused
	outForwardedRefusable // a lone surrogate forwarded: must be refused
)

// documentedRefusal reports whether a refusal is one docs/generated-code.md documents:
// an integer beyond int64 (or uint64), a lone surrogate escape, an
// absent optional template argument, or any call of a tool whose schema has
// a pattern with no ECMA-262 translation (the tool fails closed).
func documentedRefusal(s rtSample, refusal string) bool {
	switch {
	case untranslatableRefusal(refusal):
		return true
	case s.Expect == expectRefuseSurrogate:
		return strings.Contains(refusal, "lone UTF-16 surrogate")
	case rangeRefusal(refusal):
		return true
	case strings.HasPrefix(refusal, "forbidden: ") && strings.Contains(refusal, "placeholder's argument is absent or empty"):
		return true
	}
	return false
}

const expectRefuseSurrogate = "refuse-surrogate"

var unmarshalNumberRE = regexp.MustCompile(`cannot unmarshal number (\S+) into .* of type (u?int64)`)

// rangeRefusal reports whether a refusal is the typed decode's of an
// integer literal beyond its Go type's range (not, say, of 10.0 or 1e2,
// which are integers the gate must accept).
func rangeRefusal(refusal string) bool {
	m := unmarshalNumberRE.FindStringSubmatch(refusal)
	if m == nil || strings.ContainsAny(m[1], ".eE") {
		return false
	}
	if m[2] == "uint64" {
		_, err := strconv.ParseUint(m[1], 10, 64)
		return err != nil
	}
	_, err := strconv.ParseInt(m[1], 10, 64)
	return err != nil
}

// gateReport tallies outcomes per category and returns the table and the
// failures.
func gateReport(t *testing.T, samples []rtSample, outs []rtOut) string {
	rows := map[string]*gateRow{}
	reasons := map[string]int{}
	total := &gateRow{}
	for i, s := range samples {
		if s.GateTool == "" {
			continue
		}
		o := outs[i]
		var out gateOutcome
		switch {
		case o.Refusal != "" && documentedRefusal(s, o.Refusal):
			out = outRefusedDocumented
			reasons[docReason(o.Refusal)]++
			if testing.Verbose() && s.Expect == "" {
				t.Logf("documented refusal: %s: tool %q (%s): %s\n\tsent: %.300s", s.Server, s.Tool, s.Kind, o.Refusal, s.Args)
			}
		case o.Refusal != "":
			out = outRefused
			t.Errorf("%s: tool %q (%s): the gate refused a valid call: %s\n\tsent: %s", s.Server, s.Tool, s.Kind, o.Refusal, s.Args)
		case s.Expect == expectRefuseSurrogate:
			out = outForwardedRefusable
			t.Errorf("%s: tool %q (%s): a lone surrogate was forwarded as %s\n\tsent: %s", s.Server, s.Tool, s.Kind, o.Fwd, s.Args)
		default:
			if ptr, same := jsonDiff(s.Args, o.Fwd); same {
				out = outUnchanged
			} else {
				out = outChanged
				if _, kept := jsonLookup(o.Fwd, ptr); !kept {
					out = outDropped
				}
				t.Errorf("%s: tool %q (%s): the gate forwarded a different value at %q\n\tsent: %s\n\tforwarded: %s", s.Server, s.Tool, s.Kind, ptr, s.Args, o.Fwd)
			}
		}
		for _, r := range append([]*gateRow{total}, catRows(rows, s.Cats)...) {
			r.n++
			switch out {
			case outUnchanged:
				r.unchanged++
			case outChanged, outForwardedRefusable:
				r.changed++
			case outDropped:
				r.dropped++
			case outRefusedDocumented:
				r.documented++
			case outRefused:
				r.refused++
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| category | calls | forwarded unchanged | changed | dropped | refused (documented) | refused (valid call) |\n|---|---|---|---|---|---|---|\n")
	for _, c := range catOrder {
		if r := rows[c]; r != nil {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", c, r.n, r.unchanged, r.changed, r.dropped, r.documented, r.refused)
		}
	}
	fmt.Fprintf(&b, "| **all calls** | %d | %d | %d | %d | %d | %d |\n", total.n, total.unchanged, total.changed, total.dropped, total.documented, total.refused)
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.WriteString("\ndocumented refusals:\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %5d  %s\n", reasons[k], k)
	}
	return b.String()
}

// gateRow is one line of the report.
type gateRow struct{ n, unchanged, changed, dropped, documented, refused int }

func catRows(rows map[string]*gateRow, cats []string) []*gateRow {
	var out []*gateRow
	for _, c := range cats {
		if rows[c] == nil {
			rows[c] = &gateRow{}
		}
		out = append(out, rows[c])
	}
	return out
}

// untranslatableRefusal reports whether a refusal is the gate's for a tool
// whose schema has a pattern it cannot translate (runtime/ocp's
// patternRefusal).
func untranslatableRefusal(refusal string) bool {
	return strings.Contains(refusal, "cannot be checked") && strings.Contains(refusal, "so every value is refused")
}

func docReason(refusal string) string {
	switch {
	case untranslatableRefusal(refusal):
		return "a pattern with no ECMA-262 translation (every call of the tool fails closed)"
	case strings.Contains(refusal, "surrogate"):
		return "lone surrogate escape (refused, naming the property)"
	case rangeRefusal(refusal):
		return "integer beyond int64/uint64 (range refusal)"
	}
	return "absent optional template argument (fails closed)"
}

// jsonLookup reports whether the JSON pointer ptr exists in b.
func jsonLookup(b []byte, ptr string) (any, bool) {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil, false
	}
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
