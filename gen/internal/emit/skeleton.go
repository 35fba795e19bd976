package emit

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/internal/invisible"
	"github.com/ocpgen/ocpgen/templates"
)

// maxSummary is the longest description line shown in a skeleton comment,
// in characters.
const maxSummary = 120

// Skeleton renders a classification skeleton for the snapshot, for "ocpgen
// init": the tiers anonymous, visitor, member, operator and admin, default
// {tier: member}, and every tool listed as access: write, with the first
// line of its description and the server's annotations shown as comments
// (the annotations marked "server hint (not trusted)"). Descriptions and
// names come from the server, so they are sanitised: a comment is always
// one line, and a name that needs quoting is quoted. The output loads with
// load.LoadClassification and passes load.CheckStale; Skeleton checks
// that itself.
func Skeleton(s *load.Snapshot) ([]byte, error) {
	if s == nil {
		return nil, fmt.Errorf("skeleton: no snapshot")
	}
	tmpl, err := template.ParseFS(templates.FS, "classify.yaml.tmpl")
	if err != nil {
		return nil, fmt.Errorf("skeleton: %w", err)
	}
	type tool struct{ Key, Summary, Hint string }
	data := struct {
		Server, Snapshot string
		Tools            []tool
	}{
		Server:   "an MCP server",
		Snapshot: commentText(filepath.Base(s.File), 200),
	}
	if s.Server.Name != "" {
		data.Server = commentText(strconv.Quote(s.Server.Name)+" "+s.Server.Version, 200)
	}
	for _, t := range s.Tools {
		data.Tools = append(data.Tools, tool{
			Key:     yamlKey(t.Name),
			Summary: commentText(firstLine(t.Description), maxSummary),
			Hint:    hints(t.Annotations),
		})
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("skeleton: %w", err)
	}
	// The skeleton must be a valid starting point; a failure here is a bug
	// in this function, reported rather than written.
	c, diags := load.LoadClassification("skeleton", buf.Bytes())
	if err := diags.Err(); err != nil {
		return nil, fmt.Errorf("skeleton does not load: %w", err)
	}
	if err := load.CheckStale(s, c).Err(); err != nil {
		return nil, fmt.Errorf("skeleton does not match the snapshot: %w", err)
	}
	return buf.Bytes(), nil
}

// hints formats the server's annotations for a comment, "" when it sent
// none of the hints.
func hints(a *load.Annotations) string {
	if a == nil {
		return ""
	}
	var parts []string
	for _, h := range []struct {
		name string
		v    *bool
	}{
		{"readOnlyHint", a.ReadOnlyHint},
		{"destructiveHint", a.DestructiveHint},
		{"idempotentHint", a.IdempotentHint},
		{"openWorldHint", a.OpenWorldHint},
	} {
		if h.v != nil {
			parts = append(parts, h.name+": "+strconv.FormatBool(*h.v))
		}
	}
	return strings.Join(parts, ", ")
}

// isBreak reports a character YAML or a reader may take as a line break.
func isBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\u0085', '\u2028', '\u2029', '\v', '\f':
		return true
	}
	return false
}

// firstLine returns the first non-blank line of s.
func firstLine(s string) string {
	for line := range strings.FieldsFuncSeq(s, isBreak) {
		if strings.TrimSpace(line) != "" {
			return line
		}
	}
	return ""
}

// commentText makes s safe inside a one-line YAML comment: every character
// that is not printable or is invisible (line breaks, tabs, control and
// format characters such as bidi overrides, the rest of
// invisible.DefaultIgnorable such as the Hangul filler U+3164, unassigned
// code points) becomes a space, runs of spaces collapse, and the text is
// cut to max characters.
func commentText(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if !unicode.IsPrint(r) || invisible.Is(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = strings.TrimSpace(string([]rune(s)[:max-1])) + "…"
	}
	return s
}

// plainKey matches the names yamlKey may leave unquoted; compiled on its
// first call, as only the skeleton needs it.
var plainKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.\-]*$`) })

// yamlKey returns name as a YAML mapping key: plain when YAML reads it back
// as the same string, double-quoted otherwise ("true", "1e3", "a: b").
func yamlKey(name string) string {
	if plainKey().MatchString(name) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(name), &n) == nil && len(n.Content) == 1 &&
			n.Content[0].Tag == "!!str" && n.Content[0].Value == name {
			return name
		}
	}
	return yamlQuote(name)
}

// yamlQuote returns s as a YAML double-quoted scalar. Non-printable and
// invisible characters (YAML's extra line breaks, controls, format
// characters, the rest of invisible.DefaultIgnorable such as U+3164,
// unassigned code points) are escaped as \u or \U, so that two names that
// differ only by such a character look different: "purge_all\u3164" next
// to purge_all.
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case unicode.IsPrint(r) && !invisible.Is(r):
			b.WriteRune(r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			fmt.Fprintf(&b, `\U%08X`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
