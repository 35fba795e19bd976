package argengine

import "github.com/ocpgen/ocpgen/runtime/ocpimpl"

// Argument types shaped exactly like ocpgen's generated code, with their
// input schemas, for the engine's tests (runtime/ocp's tests have the same
// tools as whole descriptors).

// search_nodes: a nested object (with an enum array and bounded integers).

type SearchNodesArgsFilterKindsItem string

type SearchNodesArgsFilter struct {
	Kinds    []SearchNodesArgsFilterKindsItem `json:"kinds"`
	Since    *string                          `json:"since,omitzero"`
	MinScore *float64                         `json:"minScore,omitzero"`
}

type SearchNodesArgs struct {
	Read   `json:"-"`
	Query  string                 `json:"query"`
	Limit  *int64                 `json:"limit,omitzero"`
	Filter *SearchNodesArgsFilter `json:"filter,omitzero"`
}

const searchNodesSchema = `{"type":"object","properties":{` +
	`"query":{"type":"string","minLength":1,"maxLength":200,"description":"Text to match against names, types and observations."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":100,"default":20},` +
	`"filter":{"type":"object","properties":{` +
	`"kinds":{"type":"array","items":{"type":"string","enum":["person","org","place"]},"minItems":1,"uniqueItems":true},` +
	`"since":{"type":"string","pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},` +
	`"minScore":{"type":"number","minimum":0,"maximum":1}},` +
	`"required":["kinds"],"additionalProperties":false}},` +
	`"required":["query"],"additionalProperties":false}`

// add_observations: a write with the same kind of arguments.

type AddObservationsArgsObservationsItem struct {
	EntityName string   `json:"entityName"`
	Contents   []string `json:"contents"`
}

type AddObservationsArgs struct {
	Write        `json:"-"`
	Observations []AddObservationsArgsObservationsItem `json:"observations"`
}

const addObservationsSchema = `{"type":"object","properties":{"observations":{"type":"array","items":{"type":"object","properties":{` +
	`"entityName":{"type":"string","minLength":1},"contents":{"type":"array","items":{"type":"string"}}},` +
	`"required":["entityName","contents"],"additionalProperties":false}}},"required":["observations"],"additionalProperties":false}`

// The benchmark's arguments (runtime/ocp's benchReadArgs and benchWriteArgs).
const (
	searchNodesArgs     = `{"query":"Ada Lovelace","limit":10,"filter":{"kinds":["person","org"],"since":"2024-01-31","minScore":0.25}}`
	addObservationsArgs = `{"observations":[{"entityName":"Ada Lovelace","contents":["wrote the first program","born 1815"]}]}`
)

type DeleteEntitiesArgs struct {
	Write       `json:"-"`
	EntityNames []string `json:"entityNames"`
}

type ReadGraphArgs struct {
	Read     `json:"-"`
	Query    *string  `json:"query,omitzero"`
	Limit    *int64   `json:"limit,omitzero"`
	MinScore *float64 `json:"minScore,omitzero"`
}

type GetNoteArgs struct {
	Read `json:"-"`
	ID   *string `json:"id,omitzero"`
}

type NoteMeta struct {
	Color string `json:"color"`
}

// CreateNoteArgs has a Nullable, which the codec does itself.
type CreateNoteArgs struct {
	Write `json:"-"`
	Title string                   `json:"title"`
	Body  ocpimpl.Nullable[string] `json:"body,omitzero"`
	Meta  *NoteMeta                `json:"meta,omitzero"`
}

// testLimits are the limits of the engines of the tests: the gate's
// defaults (runtime/ocp's DefaultMaxArgsBytes, DefaultMaxArgsValues).
var testLimits = Limits{Bytes: 4 << 20, Values: 1 << 18}
