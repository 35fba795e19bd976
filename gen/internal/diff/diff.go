// Package diff is the comparison machinery behind gen.Diff and gen.Check:
// what changed in a tool's JSON Schemas (each change with a JSON pointer, a
// kind and whether it breaks a Hub), in a tool's effective classification
// (and whether the change loosens it), and a line diff for texts and
// generated files.
package diff

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ocpgen/ocpgen/internal/impl"
)

// Area says which input a change is about, and so what its Pointer points
// into.
type Area string

// The areas.
const (
	// AreaTool is a tool added or removed; Pointer is empty.
	AreaTool Area = "tool"
	// AreaText is a description or title (of the tool or of a schema);
	// Pointer is into the tool object ("/description",
	// "/inputSchema/properties/q/description").
	AreaText Area = "text"
	// AreaInput is the input schema; Pointer is into the tool object
	// ("/inputSchema/properties/mode/enum").
	AreaInput Area = "input"
	// AreaOutput is the output schema; Pointer is into the tool object
	// ("/outputSchema/properties/id").
	AreaOutput Area = "output"
	// AreaClassification is the tool's effective classification; Pointer is
	// into the classification file read as a JSON document
	// ("/tools/delete_file/tier", or "/default/tier" when the value comes
	// from the defaults).
	AreaClassification Area = "classification"
	// AreaHint is a server annotation (not trusted); Pointer is into the
	// tool object ("/annotations/readOnlyHint").
	AreaHint Area = "hint"
	// AreaExecution is how the tool may be called (its "execution" member,
	// MCP 2025-11-25); Pointer is into the tool object
	// ("/execution/taskSupport").
	AreaExecution Area = "execution"
	// AreaDisplay is what a client may show of the tool besides its texts:
	// its icons and its _meta (not trusted; neither decides anything);
	// Pointer is "/icons" or "/_meta".
	AreaDisplay Area = "display"
)

// Display compares a tool's icons and its _meta (each the JSON as the
// snapshot has it, nil when absent) as the gate compares a live tool with
// its descriptor (internal/impl's IconsFingerprint and MetaFingerprint: an
// icon's members MCP defines, the _meta as canonical JSON; null or empty is
// absent), so diff lists exactly the changes the gate audits as drift.
func Display(oldIcons, newIcons, oldMeta, newMeta json.RawMessage) []Change {
	var out []Change
	if !sameBy(impl.IconsFingerprint, oldIcons, newIcons) {
		out = append(out, Change{Kind: "icons-changed", Area: AreaDisplay, Pointer: "/icons",
			Message: "icons changed (not trusted: shown to people, decides nothing)", Old: oldIcons, New: newIcons})
	}
	if !sameBy(impl.MetaFingerprint, oldMeta, newMeta) {
		out = append(out, Change{Kind: "meta-changed", Area: AreaDisplay, Pointer: "/_meta",
			Message: "_meta changed (not trusted: read by clients, decides nothing)", Old: oldMeta, New: newMeta})
	}
	return out
}

// sameBy reports whether a and b have one fingerprint by fp (each ""
// when absent); a value fp refuses is the same only as identical bytes.
func sameBy(fp func([]byte) (string, error), a, b json.RawMessage) bool {
	get := func(v json.RawMessage) (string, error) {
		if len(v) == 0 {
			return "", nil
		}
		return fp(v)
	}
	fa, errA := get(a)
	fb, errB := get(b)
	if errA != nil || errB != nil {
		return errA != nil && errB != nil && string(a) == string(b)
	}
	return fa == fb
}

// TaskSupport compares a tool's execution.taskSupport ("" when absent).
// Becoming "required" (kind task-support-required) is breaking: the tool
// leaves the generated catalogue; any other change is task-support-changed.
func TaskSupport(old, nw string) []Change {
	if old == nw {
		return nil
	}
	show := func(s string) string {
		if s == "" {
			return "(unset)"
		}
		return s
	}
	msg := fmt.Sprintf("execution.taskSupport %s → %s", show(old), show(nw))
	switch {
	case nw == "required":
		msg += ": the tool can only be called as an MCP task, so it leaves the catalogue"
	case old == "required":
		msg += ": the tool can be called synchronously again, so it returns to the catalogue"
	}
	kind := "task-support-changed"
	if nw == "required" {
		kind = "task-support-required"
	}
	return []Change{{Kind: kind, Area: AreaExecution, Pointer: "/execution/taskSupport",
		Breaking: nw == "required", Message: msg, Old: strJSON(old), New: strJSON(nw)}}
}

func strJSON(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return rawJSON(s)
}

// Change is one difference; gen.Change is this type, and its JSON form is
// part of gen.Report's.
type Change struct {
	// Kind is e.g. "enum-value-removed", "access-loosened".
	Kind string `json:"kind"`
	Area Area   `json:"area"`
	// Pointer is a JSON pointer, into what Area says; empty for AreaTool.
	Pointer string `json:"pointer"`
	// Breaking: Hub code or callers that worked before may now fail.
	Breaking bool `json:"breaking"`
	// Security: the change loosens what the Hub enforces, or alters text a
	// model reads (a tool-poisoning vector).
	Security bool `json:"security"`
	// Message is one line, lower case, without a trailing period.
	Message string `json:"message"`
	// Old and New are the JSON values involved, absent when not applicable.
	Old json.RawMessage `json:"old,omitempty"`
	New json.RawMessage `json:"new,omitempty"`
}

// rawJSON encodes v for Change.Old and Change.New; nil stays nil.
func rawJSON(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// marshal is json.Marshal without HTML escaping, so a value reads in the
// report as it did in the input.
func marshal(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// canonical returns a comparable string form of a JSON value decoded with
// UseNumber: object keys sorted (encoding/json sorts map keys).
func canonical(v any) string {
	b, err := marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// Decode decodes a JSON value keeping numbers exact; it returns nil and an
// error on invalid JSON.
func Decode(raw []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
