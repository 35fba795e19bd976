package ocpimpl

import (
	"encoding/json"
	"testing"

	// The gate's validator, which checks union branches in every program
	// that links runtime/ocp (see UnmarshalUnion).
	_ "github.com/ocpgen/ocpgen/runtime/internal/argengine"
)

// Shaped like ocpgen's output for testdata/golden/unions-discriminated.txtar:
// two alternatives that share their keys and differ in a const.

type shapeKind string

type shapeCircle struct {
	Kind shapeKind `json:"kind"`
	Size float64   `json:"size"`
}

type shapeSquare struct {
	Kind shapeKind `json:"kind"`
	Size float64   `json:"size"`
}

type shape struct {
	Circle *shapeCircle
	Square *shapeSquare
}

const (
	circleSchema = `{"additionalProperties":false,"properties":{"kind":{"const":"circle"},"size":{"type":"number"}},"required":["kind","size"],"type":"object"}`
	squareSchema = `{"additionalProperties":false,"properties":{"kind":{"const":"square"},"size":{"type":"number"}},"required":["kind","size"],"type":"object"}`
)

func (u shape) MarshalJSON() ([]byte, error) {
	return MarshalUnion("shape", Branch(&u.Circle, JSONObject, circleSchema), Branch(&u.Square, JSONObject, squareSchema))
}

func (u *shape) UnmarshalJSON(b []byte) error {
	return UnmarshalUnion("shape", b, Branch(&u.Circle, JSONObject, circleSchema), Branch(&u.Square, JSONObject, squareSchema))
}

// A nested required property tells these apart; both accept any key.
type refByID struct {
	Ref struct {
		ID   *int64  `json:"id,omitzero"`
		Name *string `json:"name,omitzero"`
	} `json:"ref"`
}

type refByName = refByID

type target struct {
	ByID   *refByID
	ByName *refByName
}

const (
	byIDSchema   = `{"properties":{"ref":{"properties":{"id":{"type":"integer"}},"required":["id"],"type":"object"}},"required":["ref"],"type":"object"}`
	byNameSchema = `{"properties":{"ref":{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}},"required":["ref"],"type":"object"}`
)

func (u *target) UnmarshalJSON(b []byte) error {
	return UnmarshalUnion("target", b, Branch(&u.ByID, JSONObject, byIDSchema, "ref"), Branch(&u.ByName, JSONObject, byNameSchema, "ref"))
}

// Issue 15 item 2: the branch is the one the schema picks, not the first
// whose top-level required keys are present.
func TestUnionPicksTheBranchTheSchemaPicks(t *testing.T) {
	var s shape
	if err := json.Unmarshal([]byte(`{"kind":"square","size":2}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Square == nil || s.Circle != nil {
		t.Errorf("square decoded as %+v", s)
	}
	if err := json.Unmarshal([]byte(`{"kind":"circle","size":2}`), &s); err != nil || s.Circle == nil || s.Square != nil {
		t.Errorf("circle decoded as %+v (%v)", s, err)
	}
	if err := json.Unmarshal([]byte(`{"kind":"hexagon","size":2}`), &s); err == nil {
		t.Errorf("hexagon decoded as %+v", s)
	}
	var tg target
	if err := json.Unmarshal([]byte(`{"ref":{"name":"x"}}`), &tg); err != nil || tg.ByName == nil || tg.ByID != nil {
		t.Errorf("by name decoded as %+v (%v)", tg, err)
	}
	if err := json.Unmarshal([]byte(`{"ref":{"id":1}}`), &tg); err != nil || tg.ByID == nil || tg.ByName != nil {
		t.Errorf("by id decoded as %+v (%v)", tg, err)
	}
}

// The branch schemas mean what the gate's validator says, the one that
// validated the arguments: "." has its ECMA-262 meaning (no line
// terminator), so U+2028 takes the second branch (RE2's "." would take the
// first), and 9007199254740993 is above a maximum of 9007199254740992
// (float64 would call them equal).
func TestUnionBranchesAreTheGatesVerdict(t *testing.T) {
	var u struct{ A, B *json.RawMessage }
	dec := func(b string, schemaA string) error {
		return UnmarshalUnion("u", []byte(b), Branch(&u.A, JSONAny, schemaA), Branch(&u.B, JSONAny, `{}`))
	}
	for _, tc := range []struct{ value, schemaA string }{
		{`"\u2028"`, `{"type":"string","pattern":"^.$"}`},
		{`9007199254740993`, `{"type":"integer","maximum":9007199254740992}`},
	} {
		if err := dec(tc.value, tc.schemaA); err != nil || u.A != nil || u.B == nil {
			t.Errorf("%s under %s: decoded as A=%v B=%v (%v), want the second branch", tc.value, tc.schemaA, u.A != nil, u.B != nil, err)
		}
	}
	if err := dec(`"x"`, `{"type":"string","pattern":"^.$"}`); err != nil || u.A == nil {
		t.Errorf(`"x": want the first branch (%v)`, err)
	}
}

// A branch without a schema is picked on its required properties.
func TestUnionWithoutSchemaUsesRequired(t *testing.T) {
	var tg struct{ A, B *refByID }
	dec := func(b []byte) error {
		return UnmarshalUnion("t", b, Branch(&tg.A, JSONObject, "", "nope"), Branch(&tg.B, JSONObject, "", "ref"))
	}
	if err := dec([]byte(`{"ref":{"id":1}}`)); err != nil || tg.B == nil || tg.A != nil {
		t.Errorf("decoded as %+v (%v)", tg, err)
	}
}

// TestUnionBranchOCPBranch: OCPBranch gives back what Branch was built with,
// the field as the **T it was given.
func TestUnionBranchOCPBranch(t *testing.T) {
	var s *string
	kinds, schema, required, field := Branch(&s, JSONObject|JSONNull, `{"type":"object"}`, "a", "b").OCPBranch()
	if kinds != uint8(JSONObject|JSONNull) || schema != `{"type":"object"}` || len(required) != 2 || required[0] != "a" || required[1] != "b" {
		t.Errorf("OCPBranch: %d %q %q", kinds, schema, required)
	}
	if p, ok := field.(**string); !ok || p != &s {
		t.Errorf("OCPBranch: field %T %v, want &s", field, field)
	}
}
