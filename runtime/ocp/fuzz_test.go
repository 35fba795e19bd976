package ocp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine/argref"
	"hash/fnv"
	"io"
	"log/slog"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// FuzzDispatch feeds arbitrary action.request bytes to a gate over hand-written
// tools shaped like generated code (testCatalogue's four, and three made by
// ocpgen from testdata-like schemas with unions, enums, nullables, additional
// properties and a recursive $ref, pasted below with the runtime's qualifier
// removed). Reads are allowed for principals whose tier and scopes suffice;
// nobody ever approves a confirm (the requester's own channel tries, and is
// refused), so no write may ever reach the server. It checks that:
//
//   - Dispatch never panics and always answers the request's id with one of
//     the defined reasons, ok exactly when the server answered successfully;
//   - a write never reaches the server, and the requester cannot approve it;
//   - the server is reached only by an advertised read, for a principal whose
//     tier and scopes suffice, with arguments that hold only the schema's
//     properties, validate against the schema and equal the request's
//     arguments as JSON values;
//   - no result ever carries the text of a server error.
//
// Run it longer with
//
//	go test ./runtime -run '^$' -fuzz FuzzDispatch -fuzztime 10m -parallel 1
func FuzzDispatch(f *testing.F) {
	for _, s := range dispatchSeeds {
		f.Add([]byte(s), uint8(0))
	}
	f.Add([]byte(`{"id":"b","tool":"fz_update","args":{"id":"x"}}`), uint8(1))
	f.Add([]byte(`{"id":"c","tool":"read_graph","args":{}}`), uint8(2))
	f.Add([]byte(`{"id":"d","tool":"fz_configure","args":{}}`), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, who uint8) {
		var req ActionRequest
		if err := json.Unmarshal(data, &req); err != nil {
			return
		}
		if _, err := checkDispatch(req, fuzzPrincipals[int(who)%len(fuzzPrincipals)], nil); err != nil {
			t.Fatal(err)
		}
	})
}

// fuzzCanary is in every error the fuzzed server returns; no result may hold
// it.
// ruleTextPointer matches ruleText: the rule, and the pointer.
var ruleTextPointer = regexp.MustCompile(`(?s)^Not performed: the Hub's rule "([a-z-]+)" refused the arguments at (.*): [^:]*$`)

const fuzzCanary = "CANARY-7d1f db-primary.internal:5432 SELECT * FROM secrets"

// fuzzCatalogue is testCatalogue plus the fz_ tools below.
var fuzzCatalogue = NewCatalogue(testTiers, CreateNote, DeleteEntities, GetNote, ReadGraph, FzAssign, FzConfigure, FzUpdate)

// fuzzPrincipals are the callers the fuzzer picks from: enough rights for
// everything, more tier but no scopes, the lowest tier, and a tier the
// catalogue does not know.
var fuzzPrincipals = []Principal{
	alice,
	bob,
	{ID: "u-anon", Tier: "anonymous", Scopes: []string{"memory.read", "memory.write"}, Peer: "anon-chan"},
	{ID: "u-root", Tier: "root", Scopes: []string{"memory.read", "memory.write"}, Peer: "root-chan"},
}

// fuzzSchemas are the tools' input schemas, resolved independently of the
// gate.
var fuzzSchemas = sync.OnceValue(func() map[string]*jsonschema.Resolved {
	out := map[string]*jsonschema.Resolved{}
	for _, h := range fuzzCatalogue.Tools() {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(h.Desc.InputSchema), &s); err != nil {
			panic(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			panic(err)
		}
		out[h.Desc.Name] = rs
	}
	return out
})

// fuzzRespond answers a call as a server that often fails with internal
// details: a transport error, a JSON-RPC error, an isError result, or a
// success, chosen by a hash of the arguments.
func fuzzRespond(_ string, args json.RawMessage) (*mcp.CallToolResult, error) {
	h := fnv.New32a()
	h.Write(args)
	switch h.Sum32() % 5 {
	case 0:
		return nil, errors.New("dial tcp: " + fuzzCanary)
	case 1:
		return nil, &jsonrpc.Error{Code: -32603, Message: fuzzCanary, Data: json.RawMessage(`"` + "stack: " + "main.go:12" + `"`)}
	case 2:
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fuzzCanary}}}, nil
	case 3:
		return &mcp.CallToolResult{StructuredContent: map[string]any{"speech": "fine"}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
}

// checkDispatch runs one request through a fresh gate and checks the
// properties FuzzDispatch lists; it reports whether the server was called.
// approver, when set, is a peer that approves every confirm: only the test
// of the checker itself sets it.
func checkDispatch(req ActionRequest, p Principal, approver *Principal) (called bool, err error) {
	spy := &spyCaller{respond: fuzzRespond}
	broker := newMemoryBroker()
	g, err := NewGate(Config{
		Catalogue: fuzzCatalogue,
		Server:    spy,
		ACL:       AllowAllResources,
		Broker:    broker,
		Audit:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return false, err
	}
	g.one().syncCatalogue(liveOf(fuzzCatalogue))

	// The requesting channel, and a channel with no identity, try to approve
	// every confirm: both must be refused.
	var selfMu sync.Mutex
	var selfErrs []error
	stop := broker.Subscribe(func(r ConfirmRequest) {
		for _, peer := range []Principal{p, {ID: p.ID, Tier: p.Tier, Scopes: p.Scopes}} {
			err := g.Resolve(context.Background(), peer, ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest})
			selfMu.Lock()
			selfErrs = append(selfErrs, err)
			selfMu.Unlock()
		}
		if approver != nil {
			_ = g.Resolve(context.Background(), *approver, ConfirmDecision{ID: r.ID, Approve: true, Digest: r.Digest})
		}
	})
	defer stop()

	// Nobody else decides: a write ends when this deadline passes. With an
	// approver, the approval comes from the subscription at once, and the
	// deadline must not beat it on a loaded machine.
	timeout := 2 * time.Millisecond
	if approver != nil {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res := g.Dispatch(ctx, p, req)
	calls := spy.Calls()
	called = len(calls) > 0
	fail := func(format string, args ...any) (bool, error) {
		return called, fmt.Errorf(format, args...)
	}

	selfMu.Lock()
	defer selfMu.Unlock()
	for _, err := range selfErrs {
		if !errors.Is(err, ErrConfirmSelf) {
			return fail("a self-approval was not refused as ErrConfirmSelf: %v", err)
		}
	}
	if res.ID != req.ID {
		return fail("result id %q, request id %q", res.ID, req.ID)
	}
	// The id is the caller's own text, echoed; everything else must be the
	// gate's.
	echo := res
	echo.ID = ""
	// An argument refused by the gate's own rule is told with the pointer
	// of the value refused: a path of the request's own keys, which may
	// hold anything. The rest of the text is the rule's fixed words.
	if m := ruleTextPointer.FindStringSubmatch(res.Error); m != nil {
		if res.Reason != ReasonInvalid || ruleWords[argengine.Rule(m[1])] == "" {
			return fail("a rule's text for %q: %+v", m[1], res)
		}
		echo.Error = strings.Replace(res.Error, m[2], "", 1)
	}
	whole, err := json.Marshal(echo)
	if err != nil {
		return fail("result does not encode: %v", err)
	}
	if strings.Contains(string(whole), "CANARY") || strings.Contains(string(whole), "db-primary") {
		return fail("server error text reached the result: %s", whole)
	}
	switch res.Reason {
	case "":
		if !res.OK || res.Error != "" {
			return fail("result without a reason is not a success: %+v", res)
		}
	case ReasonFailed, ReasonOutcomeUnknown, ReasonDenied, ReasonForbidden, ReasonInvalid, ReasonUnknown:
		if res.OK || res.Error == "" || res.Output != nil {
			return fail("refusal %q is not a plain refusal: %+v", res.Reason, res)
		}
	default:
		return fail("undefined reason %q", res.Reason)
	}

	if len(calls) == 0 {
		if res.OK || res.Reason == ReasonFailed || res.Reason == ReasonOutcomeUnknown {
			return fail("result %+v without a server call", res)
		}
		return false, nil
	}
	if len(calls) > 1 {
		return fail("%d server calls for one request: %+v", len(calls), calls)
	}
	call := calls[0]
	if res.Reason != "" && res.Reason != ReasonFailed && res.Reason != ReasonOutcomeUnknown {
		return fail("server called, yet the result is %q", res.Reason)
	}
	h, ok := fuzzCatalogue.Lookup(call.Name)
	if !ok || call.Name != req.Tool {
		return fail("server called for %q, request for %q", call.Name, req.Tool)
	}
	d := &h.Desc
	if d.Policy.Kind != ocpimpl.KindRead || !d.Policy.Classified {
		return fail("write %q reached the server with %s (nobody approved it)", call.Name, call.Args)
	}
	if !fuzzAuthorized(p, d) {
		return fail("principal %+v reached %q (tier %q, scopes %v)", p, call.Name, d.Policy.Tier, d.Policy.Scopes)
	}
	fwd, err := parseNumbers([]byte(call.Args))
	if err != nil {
		return fail("forwarded arguments %s do not parse: %v", call.Args, err)
	}
	sent, err := parseNumbers(req.Args)
	if err != nil {
		return fail("request arguments %s do not parse, yet reached the server: %v", req.Args, err)
	}
	if !argref.Equal(fwd, sent) {
		return fail("forwarded %s, requested %s", call.Args, req.Args)
	}
	obj, ok := fwd.(map[string]any)
	if !ok {
		return fail("forwarded arguments are not an object: %s", call.Args)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(d.InputSchema), &s); err != nil {
		return fail("schema: %v", err)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if _, ok := s.Properties[k]; !ok {
			return fail("forwarded argument %q is not in the schema: %s", k, call.Args)
		}
	}
	var inst any
	if err := json.Unmarshal([]byte(call.Args), &inst); err != nil {
		return fail("forwarded arguments: %v", err)
	}
	if err := fuzzSchemas()[call.Name].Validate(inst); err != nil {
		return fail("forwarded %s fails the schema: %v", call.Args, err)
	}
	return true, nil
}

// TestDispatchFuzzChecker shows that FuzzDispatch's checks can fail: the
// seeds that should reach the server do, those that should not do not, and
// a write approved by another peer (which the fuzzer never has) is reported
// as a write that reached the server.
func TestDispatchFuzzChecker(t *testing.T) {
	// 5: exact in int64; 11: a lone surrogate escape is refused (it would
	// be rewritten to U+FFFD); 12: trailing space; 34: a key named like the
	// Go catch-all field is an ordinary extra key.
	reach := map[string]bool{"1": true, "5": true, "12": true, "13": true,
		"21": true, "22": true, "24": true, "27": true, "34": true, "36": true}
	for _, s := range dispatchSeeds {
		var r ActionRequest
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			t.Fatalf("seed %s: %v", s, err)
		}
		called, err := checkDispatch(r, alice, nil)
		if err != nil {
			t.Errorf("seed %s: %v", s, err)
		}
		if called != reach[r.ID] {
			t.Errorf("seed %s: server called = %v, want %v", s, called, reach[r.ID])
		}
	}
	phone := alicePhone
	called, err := checkDispatch(req("w", "fz_update", `{"id":"x"}`), alice, &phone)
	if !called || err == nil || !strings.Contains(err.Error(), "write") {
		t.Errorf("approved write: called %v, err %v; want the checker to report the write", called, err)
	}
}

// fuzzAuthorized is the tier and scope rule, written out again.
func fuzzAuthorized(p Principal, d *Descriptor) bool {
	have, need := slices.Index(testTiers, p.Tier), slices.Index(testTiers, d.Policy.Tier)
	if have < 0 || need < 0 || have < need {
		return false
	}
	for _, s := range d.Policy.Scopes {
		if !slices.Contains(p.Scopes, s) {
			return false
		}
	}
	return true
}

// parseNumbers decodes JSON with numbers as json.Number.
func parseNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// dispatchSeeds are requests from the adversarial suite: smuggled keys,
// case-folded and duplicate keys, numbers beyond float64, deep nesting,
// invalid UTF-8, tools that do not exist, and writes.
var dispatchSeeds = []string{
	`{"id":"1","tool":"read_graph","args":{"query":"x","limit":5}}`,
	`{"id":"2","tool":"read_graph","args":{"query":"x","_meta":{"progressToken":1}}}`,
	`{"id":"3","tool":"read_graph","args":{"Query":"x"}}`,
	`{"id":"4","tool":"read_graph","args":{"query":"x","query":"y"}}`,
	`{"id":"5","tool":"read_graph","args":{"limit":9007199254740993}}`,
	`{"id":"6","tool":"read_graph","args":{"minScore":1.00000000000000000001}}`,
	`{"id":"7","tool":"read_graph","args":{"limit":0}}`,
	`{"id":"8","tool":"read_graph","args":[]}`,
	`{"id":"9","tool":"read_graph","args":null}`,
	`{"id":"10","tool":"read_graph"}`,
	`{"id":"11","tool":"read_graph","args":{"query":"\ud800"}}`,
	`{"id":"12","tool":"read_graph","args":{"query":"a"} }`,
	`{"id":"13","tool":"get_note","args":{"id":"n1"}}`,
	`{"id":"14","tool":"get_note","args":{}}`,
	`{"id":"15","tool":"get_note","args":{"id":null}}`,
	`{"id":"16","tool":"delete_entities","args":{"entityNames":["a","b"]}}`,
	`{"id":"17","tool":"create_note","args":{"title":"t","body":null,"meta":{"color":"red"}}}`,
	`{"id":"18","tool":"Read_Graph","args":{}}`,
	`{"id":"19","tool":"read_graph\u0000","args":{}}`,
	`{"id":"20","tool":"tools/call","args":{}}`,
	`{"id":"21","tool":"fz_assign","args":{"target":{"id":1},"status":"ready"}}`,
	`{"id":"22","tool":"fz_assign","args":{"target":{"name":"n"},"status":"stale","assignees":["a",{"login":"b","weight":2}],"value":1.5,"mixed":"auto","parent":null,"count":18446744073709551615,"level":-1,"tags":null,"ip":"10.0.0.1","when":"2024-01-01T00:00:00Z","ratio":0.5}}`,
	`{"id":"23","tool":"fz_assign","args":{"target":{"id":1,"name":"n"},"status":"ready"}}`,
	`{"id":"24","tool":"fz_assign","args":{"target":{"id":1},"status":"ready","mixed":true,"value":"s"}}`,
	`{"id":"25","tool":"fz_assign","args":{"target":{"id":1.0},"status":"ready","count":-1}}`,
	`{"id":"26","tool":"fz_assign","args":{"target":{"id":1},"status":"ready","value":1e400}}`,
	`{"id":"27","tool":"fz_configure","args":{"labels":{"team":"a","x":"y"},"params":{"mode":"m","k":[1,{}]},"counts":{"a":1},"env":{"A_B":"v"},"free":{"z":null},"none":{},"closed":{"a":true},"node":{"name":"r","children":[{"name":"c","children":[]}]}}}`,
	`{"id":"28","tool":"fz_configure","args":{"env":{"lower":"v"}}}`,
	`{"id":"29","tool":"fz_configure","args":{"closed":{"a":true,"b":1}}}`,
	`{"id":"30","tool":"fz_configure","args":{"labels":{"team":"a","team":"b"}}}`,
	`{"id":"31","tool":"fz_configure","args":{"node":{"name":"r","children":[{"name":"c","Children":[]}]}}}`,
	`{"id":"32","tool":"fz_update","args":{"id":"x","value":null,"ids":[1,2]}}`,
	`{"id":"33","tool":"fz_configure","args":{"free":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}`,
	`{"id":"34","tool":"fz_configure","args":{"labels":{"team":"a","AdditionalProperties":"b"}}}`,
	`{"id":"35","tool":"fz_configure","args":{"counts":{"a":1.5}}}`,
	`{"id":"36","tool":"read_graph","args":{"query":"CANARY"}}`,
	// A key is the model's own text, and a pointer of it is told back.
	`{"id":"37","tool":"read_graph","args":{"CANARY":1}}`,
}

// FzAssign is the MCP tool "fz_assign", classified as a read.
//
// Fuzz read tool with unions, enums, nullables.
var FzAssign = &Tool{Args: (*FzAssignArgs)(nil), Desc: Descriptor{
	Name:        "fz_assign",
	Description: "Fuzz read tool with unions, enums, nullables.",
	InputSchema: "{\"properties\":{\"assignees\":{\"items\":{\"oneOf\":[{\"description\":\"A login\",\"type\":\"string\"},{\"properties\":{\"login\":{\"type\":\"string\"},\"weight\":{\"type\":\"integer\"}},\"required\":[\"login\"],\"type\":\"object\"}]},\"type\":\"array\"},\"count\":{\"format\":\"uint64\",\"minimum\":0,\"type\":\"integer\"},\"ip\":{\"anyOf\":[{\"format\":\"ipv4\"},{\"format\":\"ipv6\"}],\"type\":\"string\"},\"level\":{\"enum\":[-1,0,2],\"type\":\"integer\"},\"mixed\":{\"enum\":[\"auto\",0,1,true,null]},\"parent\":{\"anyOf\":[{\"type\":\"integer\"},{\"type\":\"null\"}]},\"ratio\":{\"maximum\":1e+300,\"type\":\"number\"},\"status\":{\"oneOf\":[{\"const\":\"ready\",\"description\":\"Ready to go.\"},{\"const\":\"stale\",\"description\":\"Needs a refresh.\"}]},\"tags\":{\"items\":{\"type\":\"string\"},\"maxItems\":4,\"type\":[\"array\",\"null\"]},\"target\":{\"oneOf\":[{\"additionalProperties\":false,\"properties\":{\"id\":{\"type\":\"integer\"}},\"required\":[\"id\"],\"title\":\"by id\",\"type\":\"object\"},{\"additionalProperties\":false,\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"],\"title\":\"by name\",\"type\":\"object\"}],\"type\":\"object\"},\"value\":{\"type\":[\"string\",\"number\",\"boolean\",\"null\"]},\"when\":{\"format\":\"date-time\",\"type\":\"string\"}},\"required\":[\"target\"],\"type\":\"object\"}",
	Fingerprint: "sha256:437065f628bbdc7e9f4da0b32bff997ef2a545f18eb64a3b43b9269931d54ac9",
	Policy: Policy{
		Kind:       ocpimpl.KindRead,
		Classified: true,
		Tier:       "visitor",
		Resource:   tpl("assign/{status}"),
		Failure:    "The tool \"fz_assign\" failed.",
	},
}}

// FzAssignArgs are the arguments of the MCP tool "fz_assign".
type FzAssignArgs struct {
	Read `json:"-"`

	Assignees []FzAssignArgsAssigneesItem `json:"assignees,omitzero"`
	Count     *uint64                     `json:"count,omitzero"`

	// The schema's anyOf adds constraints, which the runtime checks.
	IP     *string                     `json:"ip,omitzero"`
	Level  *FzAssignArgsLevel          `json:"level,omitzero"`
	Mixed  Nullable[FzAssignArgsMixed] `json:"mixed,omitzero"`
	Parent Nullable[int64]             `json:"parent,omitzero"`
	Ratio  *float64                    `json:"ratio,omitzero"`
	Status *FzAssignArgsStatus         `json:"status,omitzero"`
	Tags   Nullable[[]string]          `json:"tags,omitzero"`
	Target FzAssignArgsTarget          `json:"target"`
	Value  Nullable[FzAssignArgsValue] `json:"value,omitzero"`

	// Format: date-time (kept as sent).
	When *string `json:"when,omitzero"`
}

// FzAssignArgsAssigneesItem is an element of FzAssignArgs.Assignees.
//
// FzAssignArgsAssigneesItem is a union: set exactly one field.
type FzAssignArgsAssigneesItem struct {
	// A login
	String *string
	Object *FzAssignArgsAssigneesItemObject
}

// MarshalJSON encodes the field that is set; it fails unless exactly one is.
func (u FzAssignArgsAssigneesItem) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("FzAssignArgsAssigneesItem",
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"description":"A login","type":"string"}`),
		ocpimpl.Branch(&u.Object, ocpimpl.JSONObject, `{"properties":{"login":{"type":"string"},"weight":{"type":"integer"}},"required":["login"],"type":"object"}`),
	)
}

// UnmarshalJSON sets the first field, in schema order, whose JSON kind and
// required properties match and into which the value decodes strictly.
func (u *FzAssignArgsAssigneesItem) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("FzAssignArgsAssigneesItem", b,
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"description":"A login","type":"string"}`),
		ocpimpl.Branch(&u.Object, ocpimpl.JSONObject, `{"properties":{"login":{"type":"string"},"weight":{"type":"integer"}},"required":["login"],"type":"object"}`),
	)
}

// FzAssignArgsAssigneesItemObject is the type of FzAssignArgsAssigneesItem.Object.
type FzAssignArgsAssigneesItemObject struct {
	Login  string `json:"login"`
	Weight *int64 `json:"weight,omitzero"`
}

// FzAssignArgsLevel is the type of FzAssignArgs.Level: one of the constants below.
type FzAssignArgsLevel int64

// The values of FzAssignArgsLevel.
const (
	FzAssignArgsLevelMinus1 FzAssignArgsLevel = -1
	FzAssignArgsLevel0      FzAssignArgsLevel = 0
	FzAssignArgsLevel2      FzAssignArgsLevel = 2
)

// FzAssignArgsMixed is the type of FzAssignArgs.Mixed.
//
// FzAssignArgsMixed is a union: set exactly one field.
type FzAssignArgsMixed struct {
	// One of: true.
	Boolean *bool
	Integer *FzAssignArgsMixedInteger
	String  *FzAssignArgsMixedString
}

// MarshalJSON encodes the field that is set; it fails unless exactly one is.
func (u FzAssignArgsMixed) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("FzAssignArgsMixed",
		ocpimpl.Branch(&u.Boolean, ocpimpl.JSONBool, `{"enum":[true],"type":"boolean"}`),
		ocpimpl.Branch(&u.Integer, ocpimpl.JSONNumber, `{"enum":[0,1],"type":"integer"}`),
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"enum":["auto"],"type":"string"}`),
	)
}

// UnmarshalJSON sets the first field, in schema order, whose JSON kind and
// required properties match and into which the value decodes strictly.
func (u *FzAssignArgsMixed) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("FzAssignArgsMixed", b,
		ocpimpl.Branch(&u.Boolean, ocpimpl.JSONBool, `{"enum":[true],"type":"boolean"}`),
		ocpimpl.Branch(&u.Integer, ocpimpl.JSONNumber, `{"enum":[0,1],"type":"integer"}`),
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"enum":["auto"],"type":"string"}`),
	)
}

// FzAssignArgsMixedInteger is the type of FzAssignArgsMixed.Integer: one of the constants below.
type FzAssignArgsMixedInteger int64

// The values of FzAssignArgsMixedInteger.
const (
	FzAssignArgsMixedInteger0 FzAssignArgsMixedInteger = 0
	FzAssignArgsMixedInteger1 FzAssignArgsMixedInteger = 1
)

// FzAssignArgsMixedString is the type of FzAssignArgsMixed.String: one of the constants below.
type FzAssignArgsMixedString string

// The values of FzAssignArgsMixedString.
const (
	FzAssignArgsMixedStringAuto FzAssignArgsMixedString = "auto"
)

// FzAssignArgsStatus is the type of FzAssignArgs.Status: one of the constants below.
type FzAssignArgsStatus string

// The values of FzAssignArgsStatus.
const (
	// Ready to go.
	FzAssignArgsStatusReady FzAssignArgsStatus = "ready"

	// Needs a refresh.
	FzAssignArgsStatusStale FzAssignArgsStatus = "stale"
)

// FzAssignArgsTarget is the type of FzAssignArgs.Target.
//
// FzAssignArgsTarget is a union: set exactly one field.
type FzAssignArgsTarget struct {
	ByID   *FzAssignArgsTargetByID
	ByName *FzAssignArgsTargetByName
}

// MarshalJSON encodes the field that is set; it fails unless exactly one is.
func (u FzAssignArgsTarget) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("FzAssignArgsTarget",
		ocpimpl.Branch(&u.ByID, ocpimpl.JSONObject, `{"additionalProperties":false,"properties":{"id":{"type":"integer"}},"required":["id"],"title":"by id","type":"object"}`),
		ocpimpl.Branch(&u.ByName, ocpimpl.JSONObject, `{"additionalProperties":false,"properties":{"name":{"type":"string"}},"required":["name"],"title":"by name","type":"object"}`),
	)
}

// UnmarshalJSON sets the first field, in schema order, whose JSON kind and
// required properties match and into which the value decodes strictly.
func (u *FzAssignArgsTarget) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("FzAssignArgsTarget", b,
		ocpimpl.Branch(&u.ByID, ocpimpl.JSONObject, `{"additionalProperties":false,"properties":{"id":{"type":"integer"}},"required":["id"],"title":"by id","type":"object"}`),
		ocpimpl.Branch(&u.ByName, ocpimpl.JSONObject, `{"additionalProperties":false,"properties":{"name":{"type":"string"}},"required":["name"],"title":"by name","type":"object"}`),
	)
}

// FzAssignArgsTargetByID is the type of FzAssignArgsTarget.ByID.
type FzAssignArgsTargetByID struct {
	ID int64 `json:"id"`
}

// FzAssignArgsTargetByName is the type of FzAssignArgsTarget.ByName.
type FzAssignArgsTargetByName struct {
	Name string `json:"name"`
}

// FzAssignArgsValue is the type of FzAssignArgs.Value.
//
// FzAssignArgsValue is a union: set exactly one field.
type FzAssignArgsValue struct {
	String  *string
	Number  *float64
	Boolean *bool
}

// MarshalJSON encodes the field that is set; it fails unless exactly one is.
func (u FzAssignArgsValue) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("FzAssignArgsValue",
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"type":"string"}`),
		ocpimpl.Branch(&u.Number, ocpimpl.JSONNumber, `{"type":"number"}`),
		ocpimpl.Branch(&u.Boolean, ocpimpl.JSONBool, `{"type":"boolean"}`),
	)
}

// UnmarshalJSON sets the first field, in schema order, whose JSON kind and
// required properties match and into which the value decodes strictly.
func (u *FzAssignArgsValue) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("FzAssignArgsValue", b,
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"type":"string"}`),
		ocpimpl.Branch(&u.Number, ocpimpl.JSONNumber, `{"type":"number"}`),
		ocpimpl.Branch(&u.Boolean, ocpimpl.JSONBool, `{"type":"boolean"}`),
	)
}

// FzConfigure is the MCP tool "fz_configure", classified as a read.
//
// Fuzz read tool with additional properties.
var FzConfigure = &Tool{Args: (*FzConfigureArgs)(nil), Desc: Descriptor{
	Name:        "fz_configure",
	Description: "Fuzz read tool with additional properties.",
	InputSchema: "{\"$defs\":{\"node\":{\"properties\":{\"children\":{\"items\":{\"$ref\":\"#/$defs/node\"},\"type\":\"array\"},\"name\":{\"type\":\"string\"}},\"required\":[\"name\"],\"type\":\"object\"}},\"properties\":{\"closed\":{\"properties\":{\"a\":{\"type\":\"boolean\"}},\"type\":\"object\"},\"counts\":{\"additionalProperties\":{\"format\":\"uint\",\"minimum\":0,\"type\":\"integer\"},\"type\":\"object\"},\"env\":{\"additionalProperties\":false,\"patternProperties\":{\"^[A-Z_]+$\":{\"type\":\"string\"}},\"type\":\"object\"},\"free\":{\"type\":\"object\"},\"labels\":{\"additionalProperties\":{\"type\":\"string\"},\"properties\":{\"team\":{\"type\":\"string\"}},\"type\":\"object\"},\"node\":{\"$ref\":\"#/$defs/node\"},\"none\":{\"additionalProperties\":false,\"type\":\"object\"},\"params\":{\"additionalProperties\":true,\"properties\":{\"mode\":{\"type\":\"string\"}},\"type\":\"object\"}},\"type\":\"object\"}",
	Fingerprint: "sha256:68cfd49fe158b1601724cc2b971cae12c7fd05feb32c4bc9d0b351e8f5e065db",
	Policy: Policy{
		Kind:       ocpimpl.KindRead,
		Classified: true,
		Tier:       "visitor",
		Scopes:     []string{"memory.read"},
		Resource:   tpl("fz_configure"),
		Failure:    "The tool \"fz_configure\" failed.",
	},
}}

// FzConfigureArgs are the arguments of the MCP tool "fz_configure".
type FzConfigureArgs struct {
	Read `json:"-"`

	Closed *FzConfigureArgsClosed `json:"closed,omitzero"`
	Counts map[string]uint64      `json:"counts,omitzero"`

	// Keys matching "^[A-Z_]+$" are checked by the runtime against their schema.
	Env map[string]string `json:"env,omitzero"`

	// Any JSON object.
	Free   map[string]json.RawMessage `json:"free,omitzero"`
	Labels *FzConfigureArgsLabels     `json:"labels,omitzero"`
	Node   *FzConfigureArgsNode       `json:"node,omitzero"`
	None   *FzConfigureArgsNone       `json:"none,omitzero"`
	Params *FzConfigureArgsParams     `json:"params,omitzero"`
}

// FzConfigureArgsClosed is the type of FzConfigureArgs.Closed.
type FzConfigureArgsClosed struct {
	A *bool `json:"a,omitzero"`
}

// FzConfigureArgsLabels is the type of FzConfigureArgs.Labels.
type FzConfigureArgsLabels struct {
	Team *string `json:"team,omitzero"`

	// AdditionalProperties holds the properties the schema does not declare.
	AdditionalProperties map[string]string `json:"-"`
}

// MarshalJSON encodes the declared properties, then the additional ones.
func (v FzConfigureArgsLabels) MarshalJSON() ([]byte, error) {
	type plain FzConfigureArgsLabels
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

// UnmarshalJSON decodes the declared properties strictly and keeps every
// other one in AdditionalProperties.
func (v *FzConfigureArgsLabels) UnmarshalJSON(b []byte) error {
	type plain FzConfigureArgsLabels
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties, "team")
}

// FzConfigureArgsNode is the schema's definition "node".
type FzConfigureArgsNode struct {
	Children []FzConfigureArgsNode `json:"children,omitzero"`
	Name     string                `json:"name"`
}

// FzConfigureArgsNone is the type of FzConfigureArgs.None.
type FzConfigureArgsNone struct{}

// FzConfigureArgsParams is the type of FzConfigureArgs.Params.
type FzConfigureArgsParams struct {
	Mode *string `json:"mode,omitzero"`

	// AdditionalProperties holds the properties the schema does not declare.
	// Any JSON value.
	AdditionalProperties map[string]json.RawMessage `json:"-"`
}

// MarshalJSON encodes the declared properties, then the additional ones.
func (v FzConfigureArgsParams) MarshalJSON() ([]byte, error) {
	type plain FzConfigureArgsParams
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

// UnmarshalJSON decodes the declared properties strictly and keeps every
// other one in AdditionalProperties.
func (v *FzConfigureArgsParams) UnmarshalJSON(b []byte) error {
	type plain FzConfigureArgsParams
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties, "mode")
}

// FzUpdate is the MCP tool "fz_update", classified as a write.
//
// Fuzz write tool with the same shapes.
var FzUpdate = &Tool{Args: (*FzUpdateArgs)(nil), Desc: Descriptor{
	Name:        "fz_update",
	Description: "Fuzz write tool with the same shapes.",
	InputSchema: "{\"properties\":{\"id\":{\"minLength\":1,\"type\":\"string\"},\"ids\":{\"items\":{\"type\":\"integer\"},\"type\":\"array\"},\"value\":{\"type\":[\"string\",\"number\",\"boolean\",\"null\"]}},\"required\":[\"id\"],\"type\":\"object\"}",
	Fingerprint: "sha256:2bd41fdc4475307b7d17c27a7d8aeb04378c9c5a146db7bf9ab1d91a8db828b7",
	Policy: Policy{
		Kind:          ocpimpl.KindWrite,
		Classified:    true,
		Tier:          "member",
		Resource:      tpl("things/{id}"),
		ConfirmPrompt: tpl("Update {id} to {value}?"),
		ConfirmTTL:    1 * time.Minute,
		Failure:       "The tool \"fz_update\" failed.",
	},
}}

// FzUpdateArgs are the arguments of the MCP tool "fz_update".
type FzUpdateArgs struct {
	Write `json:"-"`

	ID    string                      `json:"id"`
	IDs   []int64                     `json:"ids,omitzero"`
	Value Nullable[FzUpdateArgsValue] `json:"value,omitzero"`
}

// FzUpdateArgsValue is the type of FzUpdateArgs.Value.
//
// FzUpdateArgsValue is a union: set exactly one field.
type FzUpdateArgsValue struct {
	String  *string
	Number  *float64
	Boolean *bool
}

// MarshalJSON encodes the field that is set; it fails unless exactly one is.
func (u FzUpdateArgsValue) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("FzUpdateArgsValue",
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"type":"string"}`),
		ocpimpl.Branch(&u.Number, ocpimpl.JSONNumber, `{"type":"number"}`),
		ocpimpl.Branch(&u.Boolean, ocpimpl.JSONBool, `{"type":"boolean"}`),
	)
}

// UnmarshalJSON sets the first field, in schema order, whose JSON kind and
// required properties match and into which the value decodes strictly.
func (u *FzUpdateArgsValue) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("FzUpdateArgsValue", b,
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"type":"string"}`),
		ocpimpl.Branch(&u.Number, ocpimpl.JSONNumber, `{"type":"number"}`),
		ocpimpl.Branch(&u.Boolean, ocpimpl.JSONBool, `{"type":"boolean"}`),
	)
}
