// Package report renders what package gen computes, for people and CI
// systems: the diff report as text and Markdown, the check result as text
// and as GitHub Actions workflow commands, and the -fail-on levels. It is a
// package of its own, not part of cmd/ocpgen, so that a bot or a test that
// wants the same rendering can import it; package gen holds only the pure
// functions and their data.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/template"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/gen/internal/diff"
	"github.com/ocpgen/ocpgen/templates"
)

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
func Fails(r *gen.Report, f FailOn) string {
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

// Headline is a one-line summary of a diff report.
func Headline(r *gen.Report) string {
	if !r.Compared {
		return "not compared: " + plural(len(r.Problems), "problem") + " (the inputs do not load)"
	}
	h := changesLine(r)
	if n := len(r.Problems); n > 0 {
		h += "; " + plural(n, "problem") + " (generate and check fail)"
	}
	return h
}

// ProblemsIntro is what a report says above its Problems.
func ProblemsIntro(r *gen.Report) string {
	if !r.Compared {
		return "Not compared: the inputs do not load. Fix these, then the report can be made:"
	}
	return "Problems: ocpgen generate and ocpgen check fail on the new side until these are fixed:"
}

// Title names what a report is about: "server NAME VERSION" from the
// snapshot (the new side's, else the old's), else the snapshot file.
func Title(r *gen.Report) string {
	for _, s := range []string{r.New.Server, r.Old.Server} {
		if s != "" {
			return "server " + s
		}
	}
	for _, s := range []string{r.New.Snapshot, r.Old.Snapshot} {
		if s != "" {
			return s
		}
	}
	return "(no snapshot)"
}

func changesLine(r *gen.Report) string {
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

// textDiff returns a change's old and new texts as a line diff (lines
// starting "-", "+" or " "), when the change is a description or title
// change; nil otherwise.
func textDiff(c gen.Change) []string {
	if c.Area != gen.AreaText {
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

// flags returns "breaking", "security", both (comma-separated) or "".
func flags(c gen.Change) string {
	var f []string
	if c.Breaking {
		f = append(f, "breaking")
	}
	if c.Security {
		f = append(f, "security")
	}
	return strings.Join(f, ",")
}

// where returns where the change is: its pointer, prefixed by the file for
// classification changes ("classification /tools/x/tier").
func where(c gen.Change) string {
	if c.Area == gen.AreaClassification && c.Pointer != "" {
		return "classification " + c.Pointer
	}
	return c.Pointer
}

// DiffText writes a diff report as plain text for terminals and CI logs.
func DiffText(w io.Writer, r *gen.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "ocpgen diff: %s\n%s → %s\n", oneLine(Title(r)), oneLine(sideName(r.Old)), oneLine(sideName(r.New)))
	fmt.Fprintf(&b, "%s\n", Headline(r))
	if len(r.Problems) > 0 {
		fmt.Fprintf(&b, "\n%s\n", ProblemsIntro(r))
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "    %s\n", oneLine(p.Message))
		}
	}
	for _, t := range r.Tools {
		mark := map[string]string{gen.StatusAdded: "+", gen.StatusRemoved: "-", gen.StatusChanged: "~"}[t.Status]
		fmt.Fprintf(&b, "\n%s %s (%s; %s)\n", mark, oneLine(t.Name), t.Status, accessSummary(t))
		for _, c := range t.Changes {
			fl := ""
			if f := flags(c); f != "" {
				fl = "[" + f + "] "
			}
			at := ""
			if wh := where(c); wh != "" {
				at = oneLine(wh) + ": "
			}
			fmt.Fprintf(&b, "    %s%s%s\n", fl, at, oneLine(c.Message))
			for _, l := range textDiff(c) {
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

func sideName(s gen.DiffSide) string {
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
func accessSummary(t gen.ToolDiff) string {
	show := func(p *gen.ToolPolicy) string {
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

// DiffMarkdown writes a diff report as Markdown, from
// templates/diff.md.tmpl: a summary table first, then each tool's changes.
// Every value taken from an input is escaped (or fenced), so a hostile
// snapshot cannot inject Markdown, HTML or @-mentions into a PR comment.
func DiffMarkdown(w io.Writer, r *gen.Report) error {
	t, err := markdownTemplate()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, r); err != nil {
		return fmt.Errorf("internal error: diff template: %w", err)
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
		"access":    func(t gen.ToolDiff) string { return mdEscape(accessSummary(t)) },
		"headline":  Headline,
		"title": func(r *gen.Report) string {
			if t := Title(r); strings.HasPrefix(t, "server ") {
				return "server " + mdCode(strings.TrimPrefix(t, "server "))
			}
			return mdCode(Title(r))
		},
		"intro": ProblemsIntro,
		"side": func(d gen.DiffSide) string {
			switch {
			case d.Snapshot == "":
				return "(no snapshot)"
			case d.Classification == "":
				return mdCode(d.Snapshot) + " (no classification)"
			}
			return mdCode(d.Snapshot) + " + " + mdCode(d.Classification)
		},
		"where":    where,
		"textdiff": textDiff,
		"count": func(t gen.ToolDiff, flag string) string {
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
		return nil, fmt.Errorf("internal error: diff template: %w", err)
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
// by indent (to nest it in a list item). The fence is of backticks, longer
// than any run of backticks in the lines, so no line can close the block
// early (a run of tildes cannot close a backtick fence).
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
