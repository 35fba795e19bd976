package ocp

// Hand-written argument types and descriptors shaped exactly like ocpgen's
// generated code, for the gate's tests. (Generated code embeds the canonical
// schema and its fingerprint as literals; here mustDesc computes them.)

import (
	"time"

	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

var testTiers = []string{"anonymous", "visitor", "member", "operator", "admin"}

// defaultLimits are the argument engine's limits of a gate of the default
// Config.
var defaultLimits = argengine.Limits{Bytes: defaultMaxArgsBytes, Values: defaultMaxArgsValues}

// mustDesc fills in the canonical schema and fingerprint of d.
func mustDesc(d Descriptor) Descriptor {
	c, err := CanonicalJSON([]byte(d.InputSchema))
	if err != nil {
		panic(err)
	}
	d.InputSchema = string(c)
	d.Fingerprint = Fingerprint(c)
	return d
}

// delete_entities: a classified write.

// DeleteEntitiesArgs are the arguments of delete_entities.
type DeleteEntitiesArgs struct {
	Write       `json:"-"`
	EntityNames []string `json:"entityNames"`
}

var DeleteEntities = &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "delete_entities",
	Description: "Delete multiple entities and their relations.",
	InputSchema: `{"type":"object","properties":{"entityNames":{"type":"array","items":{"type":"string"},"description":"An array of entity names to delete"}},"required":["entityNames"],"additionalProperties":false}`,
	Policy: Policy{
		Kind: ocpimpl.KindWrite, Classified: true, Tier: "member", Scopes: []string{"memory.write"},
		Resource: tpl("graph/{entityNames}"), ConfirmPrompt: tpl("Delete {entityNames}?"), ConfirmTTL: 2 * time.Minute,
		Failure: "Could not delete those entities.",
	},
})}

// read_graph: a read. Its schema allows additional properties; the gate
// rejects undeclared ones anyway.

// ReadGraphArgs are the arguments of read_graph.
type ReadGraphArgs struct {
	Read     `json:"-"`
	Query    *string  `json:"query,omitzero"`
	Limit    *int64   `json:"limit,omitzero"`
	MinScore *float64 `json:"minScore,omitzero"`
}

var ReadGraph = &Tool{Args: (*ReadGraphArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "read_graph",
	Description: "Read the entire knowledge graph.",
	InputSchema: `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","minimum":1},"minScore":{"type":"number"}},"additionalProperties":true}`,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor", Scopes: []string{"memory.read"},
		Resource: tpl("graph"), Failure: "Could not read the graph.",
	},
})}

// create_note: not listed in the classification, so a write at the default
// tier, with no failure text (the generic one applies).

// NoteMeta is the meta property of create_note.
type NoteMeta struct {
	Color string `json:"color"`
}

// CreateNoteArgs are the arguments of create_note.
type CreateNoteArgs struct {
	Write `json:"-"`
	Title string           `json:"title"`
	Body  Nullable[string] `json:"body,omitzero"`
	Meta  *NoteMeta        `json:"meta,omitzero"`
}

var CreateNote = &Tool{Args: (*CreateNoteArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "create_note",
	Description: "Create a note.",
	InputSchema: `{"type":"object","properties":{"title":{"type":"string","minLength":1},"body":{"type":["string","null"]},"meta":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"],"additionalProperties":false}},"required":["title"]}`,
	Policy: Policy{
		Kind: ocpimpl.KindWrite, Classified: false, Tier: "member",
		Resource: tpl("notes/{title}"), ConfirmPrompt: tpl("Run create_note with title {title}?"), ConfirmTTL: 2 * time.Minute,
	},
})}

// get_note: a read whose resource names an optional argument.

// GetNoteArgs are the arguments of get_note.
type GetNoteArgs struct {
	Read `json:"-"`
	ID   *string `json:"id,omitzero"`
}

var GetNote = &Tool{Args: (*GetNoteArgs)(nil), Desc: mustDesc(Descriptor{
	Name:        "get_note",
	Description: "Get a note.",
	InputSchema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"id":{"type":"string"}}}`,
	Policy: Policy{
		Kind: ocpimpl.KindRead, Classified: true, Tier: "visitor",
		Resource: tpl("notes/{id}"),
	},
})}

var testCatalogue = NewCatalogue(testTiers, CreateNote, DeleteEntities, GetNote, ReadGraph)

// otherDeleteEntities has the same name as DeleteEntities but belongs to
// another generated package: the gate must not accept it as its tool.
var otherDeleteEntities = &Tool{Args: (*DeleteEntitiesArgs)(nil), Desc: DeleteEntities.Desc}
