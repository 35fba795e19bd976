package ocpimpl

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"
)

// Policy is a tool's authorization data, resolved by the generator from the
// classification file: every default is applied and every template bound,
// so the gate enforces it as it is.
type Policy struct {
	// Kind is KindRead or KindWrite. A tool the classification does not
	// list is a write.
	Kind Kind
	// Classified is false for a tool the classification file does not list.
	Classified bool
	// Tier is the lowest principal tier allowed to call the tool.
	Tier string
	// Scopes must all be held by the principal.
	Scopes []string
	// Resource is the resource template: the gate renders it with each
	// call's arguments into the resources the ACL checks.
	Resource Template
	// ConfirmPrompt is the confirm prompt template that peers see, rendered
	// with each call's arguments. Writes only.
	ConfirmPrompt Template
	// ConfirmTTL is how long a confirm waits before it is denied. Writes only.
	ConfirmTTL time.Duration
	// Failure is the text a model sees when the server call fails. The
	// server's own error text never reaches the model.
	Failure string
}

// A Template is a resource or confirm-prompt template that the generator
// parsed and bound to the tool's argument fields.
type Template []Segment

// Segment is one part of a [Template]: literal text (Mode [BindText]), or an
// argument, named by its JSON name, rendered as Mode says.
type Segment struct {
	Text string
	Arg  string
	Mode BindMode
}

// BindMode says how a template segment is rendered. The generator chose it
// from the argument's type; the gate checks, when it is built, that the
// argument field has a type the mode can render.
type BindMode uint8

// The bind modes. Resource templates use BindText and the five resource
// modes; confirm prompts use BindText, BindJSON and BindAll.
const (
	// BindText is literal text.
	BindText BindMode = iota
	// BindValue is a required scalar.
	BindValue
	// BindOptional is a pointer to a scalar; nil cannot be rendered.
	BindOptional
	// BindNullable is a Nullable scalar; absent or null cannot be rendered.
	BindNullable
	// BindEach is a slice of scalars: one resource per element; an empty
	// slice cannot be rendered.
	BindEach
	// BindNullableEach is a Nullable slice of scalars: one resource per
	// element; absent, null or empty cannot be rendered.
	BindNullableEach
	// BindJSON shows the argument as JSON (prompts).
	BindJSON
	// BindAll shows every argument, as one JSON object (prompts).
	BindAll
)

// Resource reports whether m is a mode of resource templates.
func (m BindMode) Resource() bool { return m <= BindNullableEach }

// Prompt reports whether m is a mode of confirm prompts.
func (m BindMode) Prompt() bool { return m == BindText || m == BindJSON || m == BindAll }

// ServerHints are the annotations the MCP server sent for a tool. They are
// kept for display and review only: no decision reads them.
type ServerHints struct {
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
	OpenWorld   *bool
}

// Descriptor describes one generated tool.
type Descriptor struct {
	// Name is the MCP tool name.
	Name string
	// Title is the tool's display title, if the server sent one.
	Title string
	// Description is the tool's description as the server sent it.
	Description string
	// InputSchema is the canonical JSON of the tool's input schema (see
	// [CanonicalJSON]).
	InputSchema string
	// Fingerprint is [SchemaFingerprint] of InputSchema. A live server whose
	// schema has another fingerprint has drifted from the generated code.
	Fingerprint string
	// OutputSchema is the canonical JSON of the tool's output schema, ""
	// when it has none (or none the gate can resolve). The gate validates
	// every structured result against it.
	OutputSchema string
	// Policy is the tool's authorization data.
	Policy Policy
	// Hints are the server's annotations: not trusted.
	Hints ServerHints
}

// Write reports whether the tool is a write, which every call confirms.
func (d *Descriptor) Write() bool { return d.Policy.Kind == KindWrite }

// Clone returns a deep copy of d.
func (d *Descriptor) Clone() *Descriptor {
	c := *d
	c.Policy.Scopes = slices.Clone(d.Policy.Scopes)
	c.Policy.Resource = slices.Clone(d.Policy.Resource)
	c.Policy.ConfirmPrompt = slices.Clone(d.Policy.ConfirmPrompt)
	return &c
}

// Tool is one generated tool: its argument type and its descriptor.
type Tool struct {
	// Args is a nil pointer to the tool's generated argument struct,
	// (*XxxArgs)(nil). Its marker ([Read] or [Write]) agrees with
	// Desc.Policy.Kind.
	Args Args
	// Desc describes the tool.
	Desc Descriptor
}

// ArgsType returns the struct type of t's arguments, or an error when
// t.Args is not a nil pointer to a struct whose marker matches the policy.
//
// It is a function, not a method of Tool, so that no method of a type that
// generated code uses mentions reflect.Type: since Go 1.26 reflect.Type's
// method set holds generic iterator types (iter.Seq[reflect.Type]), and every
// package whose types reach reflect.Type compiles their 41 shape methods
// again (BENCHMARKS.md §3).
func ArgsType(t *Tool) (reflect.Type, error) {
	if t.Args == nil {
		return nil, fmt.Errorf("tool %q: Args is nil", t.Desc.Name)
	}
	pt := reflect.TypeOf(t.Args)
	if pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("tool %q: Args is a %v, not a pointer to a generated argument struct", t.Desc.Name, pt)
	}
	// The markers' methods have pointer receivers: t.Args, a nil pointer,
	// carries the marker.
	switch k := kindOfArgs(t.Args); {
	case k == 0:
		return nil, fmt.Errorf("tool %q: %v embeds neither ocpimpl.Read nor ocpimpl.Write", t.Desc.Name, pt)
	case k != t.Desc.Policy.Kind:
		return nil, fmt.Errorf("tool %q: argument marker is %v but policy says %v; re-run go generate", t.Desc.Name, k, t.Desc.Policy.Kind)
	}
	return pt.Elem(), nil
}

// Catalogue is the set of tools generated from one snapshot and
// classification, with the digest of their policy.
type Catalogue struct {
	digest string
	tiers  []string
	tools  []*Tool
	byName map[string]*Tool
}

// NewCatalogue returns the catalogue of the given tools, with the ordered
// tiers (lowest first) of the classification and the [Digest] the generator
// computed over both. It panics on a duplicate tool name, and on a tool
// whose Args is not a nil pointer to an argument struct with the policy's
// marker, which the generator never emits.
func NewCatalogue(digest string, tiers []string, tools ...*Tool) *Catalogue {
	c := &Catalogue{digest: digest, tiers: tiers, tools: tools, byName: make(map[string]*Tool, len(tools))}
	for _, t := range tools {
		if _, err := ArgsType(t); err != nil {
			panic("ocpimpl: " + err.Error())
		}
		name := t.Desc.Name
		if _, dup := c.byName[name]; dup {
			panic(fmt.Sprintf("ocpimpl: duplicate tool %q in catalogue", name))
		}
		c.byName[name] = t
	}
	return c
}

// Verify recomputes the catalogue's digest from its tiers and descriptors as
// they are now, and fails when it is not the digest the generator emitted: a
// policy changed in memory (or a generated file edited by hand) is refused,
// never enforced.
func (c *Catalogue) Verify() error {
	descs := make([]*Descriptor, len(c.tools))
	for i, t := range c.tools {
		descs[i] = &t.Desc
	}
	if got := Digest(c.tiers, descs...); got != c.digest {
		return fmt.Errorf("the catalogue's digest is %s but its tools and tiers now digest to %s: a generated policy was modified after generation (or the package was edited by hand); re-run go generate and do not modify generated values", c.digest, got)
	}
	return nil
}

// PolicyDigest returns the digest of the catalogue's compiled policy, as the
// generator emitted it (see [Digest]); a Catalogue that passes
// [Catalogue.Verify] has the digest of its tools and tiers as they are.
func (c *Catalogue) PolicyDigest() string { return c.digest }

// Tiers returns the classification's tiers, lowest first.
func (c *Catalogue) Tiers() []string { return slices.Clone(c.tiers) }

// Tools returns every generated tool, in name order.
func (c *Catalogue) Tools() []*Tool { return slices.Clone(c.tools) }

// Lookup returns the generated tool with the given MCP name.
func (c *Catalogue) Lookup(name string) (*Tool, bool) {
	h, ok := c.byName[name]
	return h, ok
}

// TierRank returns the position of tier in the catalogue's tiers, or -1 when
// the tier is unknown (an unknown tier is never authorized).
func (c *Catalogue) TierRank(tier string) int { return slices.Index(c.tiers, tier) }

// Digest returns the digest of a catalogue's compiled policy: "sha256:" and
// the hex SHA-256 of a versioned JSON encoding of the tiers and every
// descriptor (name, texts, schema, fingerprint, policy, hints). The
// generator emits it; [Catalogue.Verify] recomputes it.
func Digest(tiers []string, descs ...*Descriptor) string {
	b, err := json.Marshal(struct {
		V     string
		Tiers []string
		Tools []*Descriptor
	}{"ocp-catalogue-v1", tiers, descs})
	if err != nil {
		// Every field is a string, number, bool, slice or pointer to bool.
		panic("ocpimpl: digest: " + err.Error())
	}
	return Fingerprint(b)
}

var bindModeNames = [...]string{"BindText", "BindValue", "BindOptional", "BindNullable", "BindEach", "BindNullableEach", "BindJSON", "BindAll"}

// String returns the mode's constant name.
func (m BindMode) String() string {
	if int(m) < len(bindModeNames) {
		return bindModeNames[m]
	}
	return fmt.Sprintf("BindMode(%d)", uint8(m))
}
