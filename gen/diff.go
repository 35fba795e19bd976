package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/template"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/diff"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/model"
	"github.com/ocpgen/ocpgen/templates"
)

// DiffInput is one side of a diff: a snapshot and a classification, as file
// names and contents. A nil Snapshot means the side has no snapshot (the
// file did not exist at the git base): every tool of the other side is then
// added or removed. A nil Classify means no classification file: every tool
// is an unclassified write and no tier is authorized, as in Generate.
type DiffInput struct {
	SnapshotFile string
	Snapshot     []byte
	ClassifyFile string
	Classify     []byte
}

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
	// Old and New name the compared files.
	Old DiffSide `json:"old"`
	New DiffSide `json:"new"`
	// Summary counts tools and changes.
	Summary DiffSummary `json:"summary"`
	// Tools are the added, removed and changed tools, sorted by name.
	Tools []ToolDiff `json:"tools"`
}

// DiffSide names the files of one side of a diff.
type DiffSide struct {
	// Snapshot is the snapshot file name, "" when the side has none.
	Snapshot string `json:"snapshot"`
	// SnapshotDigest is "sha256:<hex>" of its bytes, "" when absent.
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

// Change is one difference. Kinds are listed in [ChangeKinds].
type Change struct {
	// Kind is e.g. "enum-value-removed", "access-loosened".
	Kind string `json:"kind"`
	// Area is "tool", "text", "input", "output", "classification" or
	// "hint".
	Area string `json:"area"`
	// Pointer is a JSON pointer. For the areas text, input, output and hint
	// it points into the tool object of the snapshot
	// ("/inputSchema/properties/mode/enum"); for classification, into the
	// classification file read as a JSON document ("/tools/x/tier", or
	// "/default/tier" when the default applies). Empty for area tool.
	Pointer string `json:"pointer"`
	// Breaking: Hub code or callers that worked before may now fail.
	Breaking bool `json:"breaking"`
	// Security: the change loosens what the Hub enforces, or alters text a
	// model reads (a tool-poisoning vector).
	Security bool `json:"security"`
	// Message is one line, lower case.
	Message string `json:"message"`
	// Old and New are the JSON values involved, absent when not applicable.
	Old json.RawMessage `json:"old,omitempty"`
	New json.RawMessage `json:"new,omitempty"`
}

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
		out = append(out, ChangeKind{Kind: k.Name, Area: "input, output", Breaking: k.BreaksInput, BreakingOutput: k.BreaksOutput, Doc: k.Doc})
	}
	out = append(out, ChangeKind{Kind: "hint-changed", Area: "hint", Doc: "a server annotation changed; it is not trusted and changes nothing"})
	return out
}

// side is one loaded side of a diff.
type side struct {
	snap  *load.Snapshot
	class *load.Classification
	tools map[string]*load.Tool
}

func loadSide(in DiffInput) (*side, diag.List) {
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
	}
	if s.class != nil {
		d.Classification, d.ClassificationDigest = s.class.File, s.class.Digest
		d.Tiers = append(d.Tiers, s.class.Tiers...)
	}
	return d
}

// Diff compares two versions of a snapshot and its classification. It is a
// pure function. The error is a diag.List when an input does not load; a
// classification entry for a tool that is not in its snapshot is not an
// error here (generate and check report it).
func Diff(old, new DiffInput) (*Report, error) {
	if old.Snapshot == nil && new.Snapshot == nil {
		return nil, errors.New("ocpgen diff: neither side has a snapshot")
	}
	o, ods := loadSide(old)
	n, nds := loadSide(new)
	if l := append(ods, nds...); len(l) > 0 {
		l.Sort()
		return nil, l
	}
	r := &Report{Format: ReportFormat, Old: o.info(), New: n.info(), Tools: []ToolDiff{}}
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
	for _, c := range changes {
		td.Changes = append(td.Changes, Change{
			Kind: c.Kind, Area: string(c.Area), Pointer: c.Pointer, Breaking: c.Breaking, Security: c.Security,
			Message: c.Message, Old: c.Old, New: c.New,
		})
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

// FailOn is a set of levels at which a Report fails a CI job.
type FailOn uint8

// The levels. They are independent: "breaking,security" fails on either.
const (
	// FailAny fails on any change at all (an added tool, a hint change).
	FailAny FailOn = 1 << iota
	// FailBreaking fails on a breaking change (see Change.Breaking).
	FailBreaking
	// FailSecurity fails on a security-relevant change (see
	// Change.Security).
	FailSecurity
)

// ParseFailOn parses a comma-separated list of "any", "breaking",
// "security" and "none" (the empty set).
func ParseFailOn(s string) (FailOn, error) {
	var f FailOn
	for part := range strings.SplitSeq(s, ",") {
		switch strings.TrimSpace(part) {
		case "any":
			f |= FailAny
		case "breaking":
			f |= FailBreaking
		case "security":
			f |= FailSecurity
		case "none", "":
		default:
			return 0, fmt.Errorf("unknown -fail-on level %q (want any, breaking, security or none, comma-separated)", part)
		}
	}
	return f, nil
}

// Fails returns a one-line reason when the report reaches a level of f, or
// "" when it does not.
func (r *Report) Fails(f FailOn) string {
	var why []string
	if f&FailBreaking != 0 && r.Summary.Breaking > 0 {
		why = append(why, plural(r.Summary.Breaking, "breaking change"))
	}
	if f&FailSecurity != 0 && r.Summary.Security > 0 {
		why = append(why, plural(r.Summary.Security, "security-relevant change"))
	}
	if f&FailAny != 0 && len(why) == 0 && r.Summary.Changes > 0 {
		why = append(why, plural(r.Summary.Changes, "change"))
	}
	return strings.Join(why, " and ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// Headline is a one-line summary of the report.
func (r *Report) Headline() string {
	if len(r.Tools) == 0 {
		return fmt.Sprintf("no changes (%s unchanged)", plural(r.Summary.Unchanged, "tool"))
	}
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{r.Summary.Added, "added"}, {r.Summary.Removed, "removed"}, {r.Summary.Changed, "changed"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	s := plural(len(r.Tools), "tool") + ": " + strings.Join(parts, ", ")
	return fmt.Sprintf("%s; %d breaking, %d security-relevant", s, r.Summary.Breaking, r.Summary.Security)
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

// TextDiff returns a change's old and new texts as a line diff (lines
// starting "-", "+" or " "), when the change is a description or title
// change; nil otherwise.
func (c Change) TextDiff() []string {
	if c.Area != string(diff.AreaText) {
		return nil
	}
	var o, n string
	if len(c.Old) > 0 && json.Unmarshal(c.Old, &o) != nil {
		return nil
	}
	if len(c.New) > 0 && json.Unmarshal(c.New, &n) != nil {
		return nil
	}
	ol, _ := diff.SplitLines(o)
	nl, _ := diff.SplitLines(n)
	var out []string
	for _, op := range diff.Lines(ol, nl) {
		out = append(out, string(op.Kind)+op.Line)
	}
	return out
}

// Flags returns "breaking", "security", both (comma-separated) or "".
func (c Change) Flags() string {
	var f []string
	if c.Breaking {
		f = append(f, "breaking")
	}
	if c.Security {
		f = append(f, "security")
	}
	return strings.Join(f, ",")
}

// Where returns where the change is: its pointer, prefixed by the file for
// classification changes ("classification /tools/x/tier").
func (c Change) Where() string {
	if c.Area == string(diff.AreaClassification) && c.Pointer != "" {
		return "classification " + c.Pointer
	}
	return c.Pointer
}

// WriteText writes the report as plain text for terminals and CI logs.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ocpgen diff: %s → %s\n", sideName(r.Old), sideName(r.New))
	fmt.Fprintf(&b, "%s\n", r.Headline())
	for _, t := range r.Tools {
		mark := map[string]string{StatusAdded: "+", StatusRemoved: "-", StatusChanged: "~"}[t.Status]
		fmt.Fprintf(&b, "\n%s %s (%s; %s)\n", mark, oneLine(t.Name), t.Status, accessSummary(t))
		for _, c := range t.Changes {
			flags := ""
			if f := c.Flags(); f != "" {
				flags = "[" + f + "] "
			}
			where := ""
			if c.Where() != "" {
				where = oneLine(c.Where()) + ": "
			}
			fmt.Fprintf(&b, "    %s%s%s\n", flags, where, oneLine(c.Message))
			for _, l := range c.TextDiff() {
				fmt.Fprintf(&b, "        %s\n", l)
			}
		}
		for _, n := range t.Notes {
			fmt.Fprintf(&b, "    note: %s\n", oneLine(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sideName(s DiffSide) string {
	if s.Snapshot == "" {
		return "(no snapshot)"
	}
	if s.Classification == "" {
		return s.Snapshot + " (no classification)"
	}
	return s.Snapshot + " + " + s.Classification
}

// oneLine keeps a value that came from an input on one line of output.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(s)
}

// accessSummary is the access column of a tool: "write", "read → write",
// "write (unclassified)".
func accessSummary(t ToolDiff) string {
	show := func(p *ToolPolicy) string {
		if !p.Classified {
			return p.Access + " (unclassified)"
		}
		return p.Access
	}
	switch {
	case t.Old == nil:
		return show(t.New)
	case t.New == nil:
		return show(t.Old)
	case show(t.Old) == show(t.New):
		return show(t.New)
	}
	return show(t.Old) + " → " + show(t.New)
}

// WriteMarkdown writes the report as Markdown, from
// templates/diff.md.tmpl: a summary table first, then each tool's changes.
// Every value taken from an input is escaped (or fenced), so a hostile
// snapshot cannot inject Markdown, HTML or @-mentions into a PR comment.
func (r *Report) WriteMarkdown(w io.Writer) error {
	t, err := markdownTemplate()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, r); err != nil {
		return fmt.Errorf("ocpgen internal error: diff template: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

func markdownTemplate() (*template.Template, error) {
	t, err := template.New("diff.md.tmpl").Funcs(template.FuncMap{
		"md":        mdEscape,
		"code":      mdCode,
		"cell":      func(s string) string { return strings.ReplaceAll(mdCode(s), "|", `\|`) },
		"diffblock": mdDiffBlock,
		"access":    func(t ToolDiff) string { return mdEscape(accessSummary(t)) },
		"count": func(t ToolDiff, flag string) string {
			n := 0
			for _, c := range t.Changes {
				if (flag == "breaking" && c.Breaking) || (flag == "security" && c.Security) {
					n++
				}
			}
			if n == 0 {
				return ""
			}
			return fmt.Sprint(n)
		},
		"added": func(s string) []string {
			lines, _ := diff.SplitLines(s)
			for i, l := range lines {
				lines[i] = "+" + l
			}
			return lines
		},
	}).ParseFS(templates.FS, "diff.md.tmpl")
	if err != nil {
		return nil, fmt.Errorf("ocpgen internal error: diff template: %w", err)
	}
	return t, nil
}

// mdEscape escapes text for Markdown inline content: punctuation that
// Markdown or HTML would interpret is backslash-escaped or turned into an
// entity, "@" cannot start a mention, and line breaks become spaces.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range oneLineSpace(s) {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '#', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '@':
			b.WriteString("&#64;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func oneLineSpace(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// mdCode returns s as an inline code span, with a fence longer than any run
// of backticks in s.
func mdCode(s string) string {
	s = oneLineSpace(s)
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || s == "" {
		pad = " "
	}
	return fence + pad + s + pad + fence
}

// mdDiffBlock returns lines as a fenced "diff" block, every line indented
// by indent (to nest it in a list item). The fence is longer than any run
// of backticks or tildes in the lines, so the block cannot be closed early.
func mdDiffBlock(lines []string, indent string) string {
	n := 3
	for _, l := range lines {
		n = max(n, longestRun(l, '`')+1)
	}
	fence := strings.Repeat("`", n)
	var b strings.Builder
	b.WriteString(indent + fence + "diff\n")
	for _, l := range lines {
		b.WriteString(indent + strings.ReplaceAll(l, "\r", "") + "\n")
	}
	b.WriteString(indent + fence)
	return b.String()
}

func longestRun(s string, c rune) int {
	best, cur := 0, 0
	for _, r := range s {
		if r == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}
