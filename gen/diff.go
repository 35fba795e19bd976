package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/diff"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/model"
)

// ReportFormat is the version of the Report's JSON form. It changes only
// when a field is removed or changes meaning; new fields may be added
// without a change.
const ReportFormat = 1

// Report is what changed between two versions of a snapshot and its
// classification, tool by tool. Its JSON form (see [Report.WriteJSON]) is
// stable, for bots: field names are the json tags below, slices are never
// null, and the order of tools (by name) and of changes is deterministic.
type Report struct {
	// Format is ReportFormat.
	Format int `json:"format"`
	// Compared is false for the report of a diff that could not be made
	// (see [DiffFailed]): an input does not load, and Problems say why;
	// Tools and Summary are then empty.
	Compared bool `json:"compared"`
	// Old and New name the compared files.
	Old DiffSide `json:"old"`
	New DiffSide `json:"new"`
	// Summary counts tools and changes.
	Summary DiffSummary `json:"summary"`
	// Tools are the added, removed and changed tools, sorted by name.
	Tools []ToolDiff `json:"tools"`
	// Problems are the errors generate and check report on the new side
	// (a classification entry for a tool the snapshot dropped, a confirm
	// prompt naming an argument that is gone, ...): until they are fixed
	// the new side does not generate. Sorted as generate prints them.
	Problems []Problem `json:"problems"`
}

// Problem is one error of the new side that generate and check report (a
// [Diagnostic] of SeverityError), in the Report's JSON form.
type Problem struct {
	// File is the input file; Line and Col its position (classification
	// file), 0 when unknown.
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	// Tool is the MCP tool name it is about, "" if none; Pointer a JSON
	// pointer into the snapshot, "" if none.
	Tool    string `json:"tool"`
	Pointer string `json:"pointer"`
	// Message is the whole diagnostic as generate prints it.
	Message string `json:"message"`
}

// DiffSide names the files of one side of a diff.
type DiffSide struct {
	// Server is the snapshot's server name and version ("memory 0.6.3"),
	// "" when the snapshot records none or the side has no snapshot.
	Server string `json:"server"`
	// Snapshot is the snapshot file name, "" when the side has none.
	Snapshot string `json:"snapshot"`
	// SnapshotDigest is "sha256:<hex>" of its content (server and tools,
	// canonical; not "source"), "" when absent.
	SnapshotDigest string `json:"snapshotDigest"`
	// Classification is the classification file name, "" when none.
	Classification string `json:"classification"`
	// ClassificationDigest is "sha256:<hex>" of its bytes, "" when absent.
	ClassificationDigest string `json:"classificationDigest"`
	// Tiers are the classification's tiers, lowest first.
	Tiers []string `json:"tiers"`
}

// DiffSummary counts the tools and changes of a Report.
type DiffSummary struct {
	Added     int `json:"added"`
	Removed   int `json:"removed"`
	Changed   int `json:"changed"`
	Unchanged int `json:"unchanged"`
	// Changes counts every change of every tool.
	Changes int `json:"changes"`
	// Breaking and Security count the changes so flagged (a change may be
	// both).
	Breaking int `json:"breaking"`
	Security int `json:"security"`
	// Problems counts Report.Problems.
	Problems int `json:"problems"`
}

// The values of ToolDiff.Status.
const (
	StatusAdded   = "added"
	StatusRemoved = "removed"
	StatusChanged = "changed"
)

// ToolDiff is one tool's changes.
type ToolDiff struct {
	Name string `json:"name"`
	// Status is "added", "removed" or "changed".
	Status string `json:"status"`
	// Title and Description are the tool's (the old ones for a removed
	// tool), so a reviewer reads an added tool's text in full.
	Title       string `json:"title"`
	Description string `json:"description"`
	// Old and New are the tool's effective classification before and after;
	// Old is null for an added tool and New for a removed one.
	Old *ToolPolicy `json:"old"`
	New *ToolPolicy `json:"new"`
	// Breaking and Security are true when any change is.
	Breaking bool `json:"breaking"`
	Security bool `json:"security"`
	// Changes are in a fixed order: tool, text, classification, input
	// schema, output schema, server hints.
	Changes []Change `json:"changes"`
	// Notes are server hints that disagree with the new classification,
	// each starting "server hint (not trusted)". They change nothing.
	Notes []string `json:"notes"`
}

// ToolPolicy is a tool's effective classification: what the generated code
// enforces, with the defaults applied.
type ToolPolicy struct {
	// Access is "read" or "write".
	Access string `json:"access"`
	// Classified is false for a tool the classification does not list (a
	// write at the default tier).
	Classified bool `json:"classified"`
	// Tier is "" without a classification file (no tier is authorized).
	Tier string `json:"tier"`
	// Authorized are the tiers that may call: Tier and those above it.
	Authorized []string `json:"authorized"`
	Scopes     []string `json:"scopes"`
	// Resource is the resource template (the tool's name when unset).
	Resource string `json:"resource"`
	// ConfirmPrompt is a write's prompt template ("" for the default).
	ConfirmPrompt string `json:"confirmPrompt"`
	// ConfirmTTL is a write's confirm TTL in Go duration syntax ("" for a
	// read).
	ConfirmTTL string `json:"confirmTTL"`
	Failure    string `json:"failure"`
}

// Change is one difference: its Kind (listed in [ChangeKinds]), Area,
// Pointer, whether it is Breaking or Security-relevant, a one-line Message
// and the Old and New JSON values. Its JSON form is part of the Report's.
type Change = diff.Change

// Area says which input a change is about, and so what its Pointer points
// into.
type Area = diff.Area

// The areas.
const (
	AreaTool           = diff.AreaTool
	AreaText           = diff.AreaText
	AreaInput          = diff.AreaInput
	AreaOutput         = diff.AreaOutput
	AreaClassification = diff.AreaClassification
	AreaHint           = diff.AreaHint
	AreaExecution      = diff.AreaExecution
	AreaDisplay        = diff.AreaDisplay
)

// ChangeKind documents one kind of change.
type ChangeKind struct {
	Kind string
	Area string
	// Breaking is whether the kind is breaking; for schema kinds,
	// BreakingOutput says it for an output schema (Breaking is for inputs).
	Breaking, BreakingOutput bool
	Security                 bool
	Doc                      string
}

// ChangeKinds lists every kind of change a Report holds, with its flags.
func ChangeKinds() []ChangeKind {
	out := []ChangeKind{
		{Kind: "tool-added", Area: "tool", Doc: "a tool is in the new snapshot only; an unclassified one will be a write at the default tier"},
		{Kind: "tool-removed", Area: "tool", Breaking: true, Doc: "a tool is in the old snapshot only"},
		{Kind: "description-changed", Area: "text", Security: true, Doc: "a tool's or a schema's description changed: models read it"},
		{Kind: "title-changed", Area: "text", Security: true, Doc: "a tool's, its annotations' or a schema's title changed: models read it"},
	}
	for _, k := range diff.ClassificationKinds {
		out = append(out, ChangeKind{Kind: k.Name, Area: "classification", Breaking: k.Breaking, Security: k.Security, Doc: k.Doc})
	}
	for _, k := range diff.SchemaKinds {
		out = append(out, ChangeKind{Kind: k.Name, Area: "input, output", Breaking: k.BreaksInput, BreakingOutput: k.BreaksOutput, Security: k.Security, Doc: k.Doc})
	}
	for _, k := range diff.HeaderKinds {
		out = append(out, ChangeKind{Kind: k.Name, Area: "input", Breaking: k.BreaksInput, Security: k.Security, Doc: k.Doc})
	}
	out = append(out, ChangeKind{Kind: "hint-changed", Area: "hint", Doc: "a server annotation changed; it is not trusted and changes nothing"})
	out = append(out, ChangeKind{Kind: "task-support-required", Area: "execution", Breaking: true,
		Doc: "execution.taskSupport became \"required\": the tool can only be called as an MCP task, which the runtime cannot do, so it leaves the catalogue"})
	out = append(out, ChangeKind{Kind: "task-support-changed", Area: "execution",
		Doc: "execution.taskSupport changed otherwise (to \"optional\" or \"forbidden\", or unset): the tool is called synchronously"})
	out = append(out, ChangeKind{Kind: "icons-changed", Area: "display",
		Doc: "the tool's icons changed (the members MCP defines); not trusted and decides nothing, but shown to people, and the gate audits the same change as drift"})
	out = append(out, ChangeKind{Kind: "meta-changed", Area: "display",
		Doc: "the tool's _meta changed (as canonical JSON); not trusted and decides nothing, and the gate audits the same change as drift"})
	return out
}

// side is one loaded side of a diff.
type side struct {
	snap  *load.Snapshot
	class *load.Classification
	tools map[string]*load.Tool
}

func loadSide(in Input) (*side, diag.List) {
	s := &side{tools: map[string]*load.Tool{}}
	var diags diag.List
	if in.Snapshot != nil {
		snap, ds := load.LoadSnapshot(in.SnapshotFile, in.Snapshot)
		diags = append(diags, ds.Errors()...)
		s.snap = snap
		if snap != nil {
			for _, t := range snap.Tools {
				s.tools[t.Name] = t
			}
		}
	}
	if in.Classify != nil {
		c, ds := load.LoadClassification(in.ClassifyFile, in.Classify)
		diags = append(diags, ds.Errors()...)
		s.class = c
	}
	return s, diags
}

func (s *side) info() DiffSide {
	d := DiffSide{Tiers: []string{}}
	if s.snap != nil {
		d.Snapshot, d.SnapshotDigest = s.snap.File, s.snap.Digest
		d.Server = strings.TrimSpace(s.snap.Server.Name + " " + s.snap.Server.Version)
	}
	if s.class != nil {
		d.Classification, d.ClassificationDigest = s.class.File, s.class.Digest
		d.Tiers = append(d.Tiers, s.class.Tiers...)
	}
	return d
}

// Diff compares two versions of a snapshot and its classification. It is a
// pure function. A side whose Input.Snapshot is nil has no snapshot (the
// file did not exist at the git base): every tool of the other side is then
// added or removed. The error is a [Diagnostics] when an input does not
// load. An error that generate and check report on inputs that load (a
// classification entry for a tool that is not in its snapshot) is not an
// error here: the new side's are the Report's Problems, and the old side's
// are history, not reported.
func Diff(old, new Input) (*Report, error) {
	if old.Snapshot == nil && new.Snapshot == nil {
		return nil, errors.New("neither side has a snapshot")
	}
	o, ods := loadSide(old)
	n, nds := loadSide(new)
	if l := append(ods, nds...); len(l) > 0 {
		l.Sort()
		return nil, l
	}
	r := &Report{Format: ReportFormat, Compared: true, Old: o.info(), New: n.info(), Tools: []ToolDiff{}, Problems: []Problem{}}
	if n.snap != nil {
		// The package name is generate's choice, not the inputs': any
		// valid one gives the same verdict on them.
		_, ds := buildModel(n.snap, n.class, "diff")
		r.addProblems(sorted(ds.Errors()))
	}
	names := make([]string, 0, len(o.tools)+len(n.tools))
	for name := range o.tools {
		names = append(names, name)
	}
	for name := range n.tools {
		if o.tools[name] == nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		td, changed := diffTool(name, o, n)
		if !changed {
			r.Summary.Unchanged++
			continue
		}
		switch td.Status {
		case StatusAdded:
			r.Summary.Added++
		case StatusRemoved:
			r.Summary.Removed++
		default:
			r.Summary.Changed++
		}
		for _, c := range td.Changes {
			r.Summary.Changes++
			if c.Breaking {
				r.Summary.Breaking++
			}
			if c.Security {
				r.Summary.Security++
			}
		}
		r.Tools = append(r.Tools, td)
	}
	return r, nil
}

func (r *Report) addProblems(l diag.List) {
	for _, d := range l {
		r.Problems = append(r.Problems, Problem{File: d.File, Line: d.Line, Col: d.Col, Tool: d.Tool, Pointer: d.Pointer, Message: d.String()})
	}
	r.Summary.Problems = len(r.Problems)
}

// DiffFailed is the report of a diff of old and new that failed with err
// (Diff's error, or one reading the files): Compared is false, the sides
// name the files (no digests), and Problems are err's diagnostics, or its
// message when it is not a [Diagnostics]. A review of several servers
// shows it in the place of the server's report.
func DiffFailed(old, new Input, err error) *Report {
	r := &Report{Format: ReportFormat, Tools: []ToolDiff{}, Problems: []Problem{},
		Old: DiffSide{Snapshot: old.SnapshotFile, Classification: old.ClassifyFile, Tiers: []string{}},
		New: DiffSide{Snapshot: new.SnapshotFile, Classification: new.ClassifyFile, Tiers: []string{}}}
	if l, ok := errors.AsType[diag.List](err); ok {
		r.addProblems(l)
	} else if err != nil {
		r.Problems = append(r.Problems, Problem{Message: err.Error()})
		r.Summary.Problems = 1
	}
	return r
}

// policyOf is the report's JSON form of a resolved policy.
func policyOf(r model.Resolved) *ToolPolicy {
	p := r.Policy
	tp := &ToolPolicy{
		Access: r.Kind.String(), Classified: r.Classified, Tier: p.Tier,
		Authorized: append([]string{}, r.Authorized...), Scopes: append([]string{}, p.Scopes...),
		Resource: p.Resource, ConfirmPrompt: p.ConfirmPrompt, Failure: p.Failure,
	}
	if r.Kind == model.Write {
		tp.ConfirmTTL = p.ConfirmTTL.String()
	}
	return tp
}

func diffTool(name string, o, n *side) (ToolDiff, bool) {
	ot, nt := o.tools[name], n.tools[name]
	td := ToolDiff{Name: name, Changes: []Change{}, Notes: []string{}}
	var changes []diff.Change
	var np model.Resolved
	switch {
	case ot == nil:
		np = model.ResolvePolicy(name, n.class)
		td.Status, td.Title, td.Description, td.New = StatusAdded, nt.Title, nt.Description, policyOf(np)
		msg := fmt.Sprintf("added, classified %s at tier %s", np.Kind, diff.TierName(np))
		if !np.Classified {
			msg = fmt.Sprintf("added, unclassified: will be a write at the default tier %s", diff.TierName(np))
		}
		if nt.TaskSupport == load.TaskRequired {
			msg = "added, but it can only be called as an MCP task (execution.taskSupport \"required\"), so it is left out of the catalogue"
		}
		changes = append(changes, diff.Change{Kind: "tool-added", Area: diff.AreaTool, Message: msg})
	case nt == nil:
		op := model.ResolvePolicy(name, o.class)
		td.Status, td.Title, td.Description, td.Old = StatusRemoved, ot.Title, ot.Description, policyOf(op)
		changes = append(changes, diff.Change{Kind: "tool-removed", Area: diff.AreaTool, Breaking: true,
			Message: "removed: Hub code using it stops compiling, and calls to it are refused as unknown"})
	default:
		op := model.ResolvePolicy(name, o.class)
		np = model.ResolvePolicy(name, n.class)
		td.Status, td.Title, td.Description = StatusChanged, nt.Title, nt.Description
		td.Old, td.New = policyOf(op), policyOf(np)
		if ot.Title != nt.Title {
			changes = append(changes, textChange("title", ot.Title, nt.Title))
		}
		if ot.Description != nt.Description {
			changes = append(changes, textChange("description", ot.Description, nt.Description))
		}
		hints := diff.Hints(ot.Annotations, nt.Annotations)
		for _, h := range hints {
			if h.Area == diff.AreaText {
				changes = append(changes, h)
			}
		}
		changes = append(changes, diff.TaskSupport(ot.TaskSupport, nt.TaskSupport)...)
		changes = append(changes, diff.Display(ot.Icons, nt.Icons, ot.Meta, nt.Meta)...)
		changes = append(changes, diff.ComparePolicies(op, np)...)
		changes = append(changes, sortByPointer(diff.Schema("/inputSchema", ot.InputSchemaRaw, nt.InputSchemaRaw, false))...)
		switch {
		case ot.OutputSchemaRaw == nil && nt.OutputSchemaRaw != nil:
			changes = append(changes, diff.Change{Kind: "output-schema-added", Area: diff.AreaOutput, Pointer: "/outputSchema",
				Message: "output schema added"})
		case ot.OutputSchemaRaw != nil && nt.OutputSchemaRaw == nil:
			changes = append(changes, diff.Change{Kind: "output-schema-removed", Area: diff.AreaOutput, Pointer: "/outputSchema", Breaking: true,
				Message: "output schema removed: the tool's Result type is gone"})
		case ot.OutputSchemaRaw != nil:
			changes = append(changes, sortByPointer(diff.Schema("/outputSchema", ot.OutputSchemaRaw, nt.OutputSchemaRaw, true))...)
		}
		for _, h := range hints {
			if h.Area != diff.AreaText {
				changes = append(changes, h)
			}
		}
	}
	td.Changes = append(td.Changes, changes...)
	for _, c := range changes {
		td.Breaking = td.Breaking || c.Breaking
		td.Security = td.Security || c.Security
	}
	if len(td.Changes) == 0 {
		return td, false
	}
	if nt != nil {
		td.Notes = append(td.Notes, diff.Disagreements(nt.Annotations, np)...)
	}
	return td, true
}

// sortByPointer orders schema changes by pointer, so a property's changes
// read together; changes at the same pointer keep their order.
func sortByPointer(cs []diff.Change) []diff.Change {
	slices.SortStableFunc(cs, func(a, b diff.Change) int { return strings.Compare(a.Pointer, b.Pointer) })
	return cs
}

func textChange(field, old, nw string) diff.Change {
	o, _ := json.Marshal(old)
	n, _ := json.Marshal(nw)
	return diff.Change{Kind: field + "-changed", Area: diff.AreaText, Pointer: "/" + field, Security: true,
		Message: field + " changed (models read it)", Old: o, New: n}
}

// WriteJSON writes the report as indented JSON followed by a newline.
func (r *Report) WriteJSON(w io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
