package load

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/internal/tmpl"
)

// Limits on values of the classification file.
const (
	// MaxConfirmTTL is the longest confirm ttl (and default confirm_ttl).
	MaxConfirmTTL = 24 * time.Hour
	// MaxFailureLen is the longest failure text, in characters.
	MaxFailureLen = 200
)

// The keys each mapping of the classification file may have. Any other key
// is an error: a typo must fail closed, never be ignored.
var (
	topKeys     = []string{"version", "tiers", "default", "tools"}
	defaultKeys = []string{"tier", "scopes", "failure", "confirm_ttl"}
	entryKeys   = []string{"access", "tier", "scopes", "resource", "confirm", "failure"}
	confirmKeys = []string{"prompt", "ttl"}
)

// LoadClassification parses a classification file (NAME.ocp.yaml):
//
//	version: 1
//	tiers: [anonymous, visitor, member, operator, admin]  # lowest first
//	default: {tier: member, scopes: [...], failure: "...", confirm_ttl: 2m}
//	tools:
//	  NAME:
//	    access: read | write        # required
//	    tier: TIER
//	    scopes: [SCOPE, ...]
//	    resource: "prefix/{argument}"
//	    confirm: {prompt: "Delete {argument}?", ttl: 2m}   # writes only
//	    failure: "Safe text for the model."
//
// Every diagnostic has the file's line and column. Unknown and duplicate
// keys, wrong types, a tool without access, YAML aliases and a second YAML
// document are errors. When the list holds an error the returned
// classification is nil. Whether a tool exists in the snapshot is
// [CheckStale]'s check; whether a placeholder names an argument is the
// model's.
func LoadClassification(file string, data []byte) (*Classification, diag.List) {
	l := &classLoader{file: file}
	c := l.load(data)
	l.diags.Sort()
	if l.diags.Err() != nil {
		return nil, l.diags
	}
	return c, l.diags
}

type classLoader struct {
	file  string
	diags diag.List
	// tiers is nil when the tiers list itself is in error; tier names are
	// then not checked, to avoid a cascade of errors.
	tiers []string
}

// errorf reports an error at n's position (none when n is nil).
func (l *classLoader) errorf(n *yaml.Node, format string, args ...any) {
	d := diag.Diagnostic{Severity: diag.Error, File: l.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		d.Line, d.Col = n.Line, n.Column
	}
	l.diags = append(l.diags, d)
}

func posOf(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

func (l *classLoader) load(data []byte) *Classification {
	if len(data) > MaxClassificationSize {
		l.errorf(nil, "file is %d bytes, over the limit of %d MiB", len(data), MaxClassificationSize>>20)
		return nil
	}
	root := l.document(data)
	if root == nil {
		return nil
	}

	c := &Classification{File: l.file, Digest: digest(data)}
	top, ok := l.versioned(root, topKeys)
	if !ok {
		return nil
	}
	if f, ok := top["version"]; ok {
		c.Version = l.version(f.val)
	}
	if f, ok := top["tiers"]; !ok {
		l.errorf(root, "missing \"tiers\": list the tier names, lowest first")
	} else {
		c.Tiers = l.tierList(f.val)
		l.tiers = c.Tiers
	}
	if f, ok := top["default"]; !ok {
		l.errorf(root, "missing \"default\": at least {tier: NAME}")
	} else {
		c.Default = l.defaults(f)
	}
	if f, ok := top["tools"]; ok {
		c.Tools = l.entries(f.val)
	}
	return c
}

// versioned reads the file's top-level mapping, whose known keys are known,
// and reports a missing "version" key; the caller reads its value. ok is
// false when the root is not a mapping.
func (l *classLoader) versioned(root *yaml.Node, known []string) (map[string]field, bool) {
	top, ok := l.fields(root, "the file", known)
	if ok {
		if _, has := top["version"]; !has {
			l.errorf(root, "missing \"version: 1\"")
		}
	}
	return top, ok
}

// document parses data as exactly one YAML document without aliases and
// returns its root node, or nil after reporting why it cannot: a syntax
// error, an empty file, a second document, an alias.
func (l *classLoader) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			l.errorf(nil, "file is empty")
		} else {
			l.yamlError(err)
		}
		return nil
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		at := &next
		if len(next.Content) > 0 {
			at = next.Content[0]
		}
		l.errorf(at, "a second YAML document: the file must hold exactly one")
		return nil
	} else if !errors.Is(err, io.EOF) {
		l.yamlError(err)
		return nil
	}
	if len(doc.Content) == 0 || isNullNode(doc.Content[0]) {
		l.errorf(nil, "file is empty")
		return nil
	}
	root := doc.Content[0]
	if l.rejectAliases(root) {
		return nil
	}

	return root
}

// yamlLine matches the line yaml names in its error text; compiled on its
// first call, as only a classification file with a syntax error needs it.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: line (\d+): `) })

// yamlError reports a YAML syntax error at the line yaml gives. yaml gives
// no column, and for a parser error ("did not find expected ...") it gives
// the line where the enclosing construct starts, counted from 0, or none
// when that is the first line; its line is passed on as it is.
func (l *classLoader) yamlError(err error) {
	msg := err.Error()
	d := diag.Diagnostic{Severity: diag.Error, File: l.file}
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		d.Line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	d.Msg = "invalid YAML: " + msg
	l.diags = append(l.diags, d)
}

// rejectAliases reports every alias in the tree. Aliases make a reviewer
// look elsewhere to know what a tool's policy is, so the file may not use
// them. It walks without recursion and does not follow aliases.
func (l *classLoader) rejectAliases(root *yaml.Node) bool {
	found := false
	stack := []*yaml.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.Kind == yaml.AliasNode {
			l.errorf(n, "alias *%s: aliases are not allowed, write the value out", n.Value)
			found = true
			continue
		}
		stack = append(stack, n.Content...)
	}
	return found
}

// field is one key: value pair of a mapping.
type field struct{ key, val *yaml.Node }

// fields reads mapping n, whose known keys are known, reporting duplicate
// and unknown keys. what names n in messages. ok is false when n is not a
// mapping.
func (l *classLoader) fields(n *yaml.Node, what string, known []string) (map[string]field, bool) {
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "%s must be a mapping, got %s", what, kindName(n))
		return nil, false
	}
	out := make(map[string]field)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			l.errorf(k, "a key must be a name, got %s", kindName(k))
			continue
		}
		if prev, dup := out[k.Value]; dup {
			l.errorf(k, "duplicate key %q (first at line %d)", k.Value, prev.key.Line)
			continue
		}
		if !slices.Contains(known, k.Value) {
			l.errorf(k, "unknown key %q%s", k.Value, didYouMean(k.Value, known))
			continue
		}
		out[k.Value] = field{k, v}
	}
	return out, true
}

func isNullNode(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// kindName describes a node's kind for messages: "a list", "a number".
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.Tag {
	case "!!str":
		return "a string"
	case "!!int", "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "nothing"
	case "!!timestamp":
		return "a timestamp"
	}
	return "a value tagged " + n.Tag
}

// str returns the string value of n, reporting any other kind.
func (l *classLoader) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		return n.Value, true
	}
	hint := ""
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		hint = " (put it in quotes)"
	}
	l.errorf(n, "%s must be a string, got %s%s", what, kindName(n), hint)
	return "", false
}

// word returns a name-like string (a tier, a scope): non-empty, without
// white space or control characters, which would make names that look
// equal compare unequal.
func (l *classLoader) word(n *yaml.Node, what string) (string, bool) {
	s, ok := l.str(n, what)
	if !ok {
		return "", false
	}
	if s == "" {
		l.errorf(n, "%s is empty", what)
		return "", false
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 {
		l.errorf(n, "%s %q must not contain spaces or control characters", what, s)
		return "", false
	}
	return s, true
}

func (l *classLoader) version(n *yaml.Node) int {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil {
		l.errorf(n, "version must be 1, got %s", kindName(n))
		return 0
	}
	if v != 1 {
		l.errorf(n, "version must be 1, got %d (this ocpgen reads version 1)", v)
		return 0
	}
	return v
}

// list returns the items of sequence n.
func (l *classLoader) list(n *yaml.Node, what string) ([]*yaml.Node, bool) {
	if n.Kind != yaml.SequenceNode {
		l.errorf(n, "%s must be a list, got %s", what, kindName(n))
		return nil, false
	}
	return n.Content, true
}

// tierList reads the tiers: a non-empty list of unique names. It returns
// nil when the list has an error.
func (l *classLoader) tierList(n *yaml.Node) []string {
	items, ok := l.list(n, "tiers")
	if !ok {
		return nil
	}
	if len(items) == 0 {
		l.errorf(n, "tiers is empty: list the tier names, lowest first")
		return nil
	}
	tiers, ok := l.uniqueWords(items, "tier")
	if !ok {
		return nil
	}
	return tiers
}

// uniqueWords reads a list of unique words.
func (l *classLoader) uniqueWords(items []*yaml.Node, what string) ([]string, bool) {
	out := make([]string, 0, len(items))
	first := make(map[string]*yaml.Node)
	ok := true
	for _, it := range items {
		w, good := l.word(it, what)
		if !good {
			ok = false
			continue
		}
		if prev, dup := first[w]; dup {
			l.errorf(it, "duplicate %s %q (first at line %d)", what, w, prev.Line)
			ok = false
			continue
		}
		first[w] = it
		out = append(out, w)
	}
	return out, ok
}

func (l *classLoader) scopes(n *yaml.Node) []string {
	items, ok := l.list(n, "scopes")
	if !ok {
		return nil
	}
	s, _ := l.uniqueWords(items, "scope")
	return s
}

// tierRef reads a tier name, which must be one of the tiers.
func (l *classLoader) tierRef(n *yaml.Node) string {
	t, ok := l.word(n, "tier")
	if !ok {
		return ""
	}
	if l.tiers != nil && !slices.Contains(l.tiers, t) {
		if hint := didYouMean(t, l.tiers); hint != "" {
			l.errorf(n, "unknown tier %q%s", t, hint)
		} else {
			l.errorf(n, "unknown tier %q (tiers: %s)", t, strings.Join(l.tiers, ", "))
		}
		return ""
	}
	return t
}

// failure reads a safe failure text: one line of at most MaxFailureLen
// printable characters.
func (l *classLoader) failure(n *yaml.Node) string {
	s, ok := l.str(n, "failure")
	if !ok {
		return ""
	}
	switch {
	case strings.TrimSpace(s) == "":
		l.errorf(n, "failure text is empty")
	case strings.ContainsAny(s, "\n\r\u0085\u2028\u2029"):
		l.errorf(n, "failure text must be a single line")
	case strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		l.errorf(n, "failure text must not contain control characters")
	case utf8.RuneCountInString(s) > MaxFailureLen:
		l.errorf(n, "failure text is %d characters, over the limit of %d", utf8.RuneCountInString(s), MaxFailureLen)
	default:
		return s
	}
	return ""
}

// ttl reads a confirm ttl: a Go duration, more than 0, at most MaxConfirmTTL.
func (l *classLoader) ttl(n *yaml.Node, what string) time.Duration {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		l.errorf(n, "%s must be a duration like 2m, got %s", what, kindName(n))
		return 0
	}
	d, err := time.ParseDuration(n.Value)
	switch {
	case err != nil:
		l.errorf(n, "%s %q is not a duration like 2m", what, n.Value)
	case d <= 0:
		l.errorf(n, "%s must be more than 0", what)
	case d > MaxConfirmTTL:
		l.errorf(n, "%s %s is over the limit of %s", what, n.Value, "24h")
	default:
		return d
	}
	return 0
}

// template reads a resource or prompt template and checks its syntax.
func (l *classLoader) template(n *yaml.Node, what string) string {
	s, ok := l.str(n, what)
	if !ok {
		return ""
	}
	if s == "" {
		l.errorf(n, "%s is empty: leave the key out instead", what)
		return ""
	}
	if _, err := tmpl.Parse(s); err != nil {
		l.errorf(n, "invalid %s template: %v", what, err)
		return ""
	}
	return s
}

func (l *classLoader) defaults(f field) Defaults {
	d := Defaults{Pos: posOf(f.key)}
	m, ok := l.fields(f.val, "default", defaultKeys)
	if !ok {
		return d
	}
	if t, ok := m["tier"]; !ok {
		l.errorf(f.key, "default has no tier")
	} else {
		d.Tier = l.tierRef(t.val)
	}
	if s, ok := m["scopes"]; ok {
		d.Scopes = l.scopes(s.val)
	}
	if s, ok := m["failure"]; ok {
		d.Failure = l.failure(s.val)
	}
	if s, ok := m["confirm_ttl"]; ok {
		d.ConfirmTTL = l.ttl(s.val, "confirm_ttl")
	}
	return d
}

// entries reads the "tools" mapping; an empty "tools:" lists no tool.
func (l *classLoader) entries(n *yaml.Node) []*Entry {
	if isNullNode(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		l.errorf(n, "tools must be a mapping from tool name to entry, got %s", kindName(n))
		return nil
	}
	var out []*Entry
	first := make(map[string]*yaml.Node)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name, ok := l.str(k, "a tool name")
		if !ok {
			continue
		}
		if name == "" {
			l.errorf(k, "empty tool name")
			continue
		}
		if prev, dup := first[name]; dup {
			l.errorf(k, "duplicate tool %q (first at line %d)", name, prev.Line)
			continue
		}
		first[name] = k
		if e := l.entry(name, k, v); e != nil {
			out = append(out, e)
		}
	}
	return out
}

func (l *classLoader) entry(name string, k, v *yaml.Node) *Entry {
	e := &Entry{Name: name, Pos: posOf(k)}
	m := map[string]field{}
	if !isNullNode(v) {
		if v.Kind != yaml.MappingNode {
			l.errorf(v, "tool %q must be a mapping with at least access, got %s", name, kindName(v))
			return nil
		}
		var ok bool
		if m, ok = l.fields(v, "tool "+strconv.Quote(name), entryKeys); !ok {
			return nil
		}
	}
	if a, ok := m["access"]; !ok {
		l.errorf(k, "tool %q has no access: say read or write", name)
	} else if s, ok := l.str(a.val, "access"); ok {
		switch Access(s) {
		case AccessRead, AccessWrite:
			e.Access = Access(s)
		default:
			l.errorf(a.val, "access must be read or write, not %q", s)
		}
	}
	if t, ok := m["tier"]; ok {
		e.Tier, e.TierPos = l.tierRef(t.val), posOf(t.val)
	}
	if s, ok := m["scopes"]; ok {
		e.Scopes = l.scopes(s.val)
	}
	if r, ok := m["resource"]; ok {
		e.Resource, e.ResourcePos = l.template(r.val, "resource"), posOf(r.val)
	}
	if c, ok := m["confirm"]; ok {
		if e.Access == AccessRead {
			l.errorf(c.key, "tool %q is a read: confirm applies to writes only", name)
		} else {
			e.Confirm = l.confirm(c.val)
		}
	}
	if f, ok := m["failure"]; ok {
		e.Failure = l.failure(f.val)
	}
	return e
}

func (l *classLoader) confirm(n *yaml.Node) *Confirm {
	m, ok := l.fields(n, "confirm", confirmKeys)
	if !ok {
		return nil
	}
	c := &Confirm{}
	if p, ok := m["prompt"]; ok {
		c.Prompt, c.PromptPos = l.template(p.val, "prompt"), posOf(p.val)
	}
	if t, ok := m["ttl"]; ok {
		c.TTL = l.ttl(t.val, "ttl")
	}
	return c
}

// CheckStale reports, as errors at the entry's line and column, every
// classification entry naming a tool that the snapshot does not have: a
// stale entry means the file was written for another catalogue. Its "did
// you mean" never names a tool that has an entry of its own, nor moves a
// read entry onto a tool that is a write (staleHint).
func CheckStale(s *Snapshot, c *Classification) diag.List {
	if s == nil || c == nil {
		return nil
	}
	known := make(map[string]bool, len(s.Tools))
	for _, t := range s.Tools {
		known[t.Name] = true
	}
	var out diag.List
	for _, e := range c.Tools {
		if known[e.Name] {
			continue
		}
		out = append(out, diag.Diagnostic{
			Severity: diag.Error, File: c.File, Line: e.Pos.Line, Col: e.Pos.Col,
			Msg: fmt.Sprintf("tool %q is not in the snapshot %s: remove the entry or re-snapshot%s",
				e.Name, s.File, staleHint(e, s, c)),
		})
	}
	return out
}
