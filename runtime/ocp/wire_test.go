package ocp

import (
	"encoding/json"
	"testing"
	"time"
)

func TestWireEncodings(t *testing.T) {
	exp := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"advertise", ToolsAdvertise{Tools: []ToolDef{{Name: "a", Description: "d", Input: json.RawMessage(`{"type":"object"}`), Write: true}}},
			`{"tools":[{"name":"a","description":"d","input":{"type":"object"},"write":true}]}`},
		{"advertise empty", ToolsAdvertise{Tools: []ToolDef{}}, `{"tools":[]}`},
		{"read tooldef", ToolDef{Name: "r", Input: json.RawMessage(`{}`)}, `{"name":"r","description":"","input":{},"write":false}`},
		{"request", ActionRequest{ID: "1", Tool: "t", Args: json.RawMessage(`{"x":1}`)}, `{"id":"1","tool":"t","args":{"x":1}}`},
		{"result ok", ActionResult{ID: "1", OK: true, Output: json.RawMessage(`{"card":"c"}`)}, `{"id":"1","ok":true,"output":{"card":"c"}}`},
		{"result failed", ActionResult{ID: "1", Reason: ReasonFailed, Error: "e (ref r)", Ref: "r"}, `{"id":"1","ok":false,"reason":"failed","error":"e (ref r)","ref":"r"}`},
		{"result denied", ActionResult{ID: "1", Reason: ReasonDenied, Error: "no"}, `{"id":"1","ok":false,"reason":"denied","error":"no"}`},
		{"confirm request", ConfirmRequest{ID: "c", Tool: "t", Prompt: "p?", Requester: "u", Args: json.RawMessage(`{}`), Policy: "sha256:11", Resources: []string{"r/1"}, Digest: "sha256:00", Expires: exp},
			`{"id":"c","tool":"t","prompt":"p?","requester":"u","args":{},"policy":"sha256:11","resources":["r/1"],"digest":"sha256:00","expires":"2025-03-04T05:06:07Z"}`},
		{"confirm request of no resource", ConfirmRequest{ID: "c", Tool: "t", Prompt: "p?", Requester: "u", Args: json.RawMessage(`{}`), Policy: "sha256:11", Digest: "sha256:00", Expires: exp},
			`{"id":"c","tool":"t","prompt":"p?","requester":"u","args":{},"policy":"sha256:11","digest":"sha256:00","expires":"2025-03-04T05:06:07Z"}`},
		{"confirm decision", ConfirmDecision{ID: "c", Approve: true, Digest: "sha256:00"}, `{"id":"c","approve":true,"digest":"sha256:00"}`},
		{"decision", Decision{Outcome: OutcomeApproved, Peer: "p", PrincipalID: "u"}, `{"outcome":"approved","peer":"p","principalId":"u"}`},
		{"pending", PendingConfirm{Request: ConfirmRequest{ID: "c", Expires: exp}, RequesterPeer: "m"},
			`{"request":{"id":"c","tool":"","prompt":"","requester":"","args":null,"policy":"","digest":"","expires":"2025-03-04T05:06:07Z"},"requesterPeer":"m"}`},
		{"principal", Principal{ID: "u", Tier: "member", Scopes: []string{"s"}, Peer: "p"}, `{"id":"u","tier":"member","scopes":["s"],"peer":"p"}`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if string(b) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, b, tc.want)
		}
	}
}

func TestWireDecodeRoundTrip(t *testing.T) {
	var d ConfirmDecision
	if err := json.Unmarshal([]byte(`{"id":"c","approve":true,"digest":"sha256:1"}`), &d); err != nil {
		t.Fatal(err)
	}
	if d != (ConfirmDecision{ID: "c", Approve: true, Digest: "sha256:1"}) {
		t.Errorf("decision = %+v", d)
	}
	var r ActionRequest
	if err := json.Unmarshal([]byte(`{"id":"9","tool":"x","args":{"a":[1,2]}}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.ID != "9" || r.Tool != "x" || string(r.Args) != `{"a":[1,2]}` {
		t.Errorf("request = %+v", r)
	}
}

func TestReasonsAreDistinct(t *testing.T) {
	seen := map[Reason]bool{}
	for _, r := range []Reason{ReasonFailed, ReasonDenied, ReasonForbidden, ReasonInvalid, ReasonUnknown} {
		if r == "" || seen[r] {
			t.Errorf("reason %q empty or repeated", r)
		}
		seen[r] = true
	}
	want := map[Reason]string{ReasonFailed: "failed", ReasonDenied: "denied", ReasonForbidden: "forbidden", ReasonInvalid: "invalid", ReasonUnknown: "unknown"}
	for r, s := range want {
		if string(r) != s {
			t.Errorf("%q != %q", r, s)
		}
	}
}
