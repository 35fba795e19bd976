package runtime

import (
	"fmt"
	"reflect"
	"time"
)

// DefaultConfirmTTL is how long a write's confirm waits for a decision when
// the classification sets no ttl. When it passes, the confirm is denied.
const DefaultConfirmTTL = 2 * time.Minute

// Policy is a tool's authorization data, taken from the classification file
// at generation time.
type Policy struct {
	// Kind is KindRead or KindWrite.
	Kind Kind
	// Classified is false for a tool the classification file does not list:
	// such a tool is a write at the default tier.
	Classified bool
	// Tier is the lowest principal tier allowed to call the tool.
	Tier string
	// Scopes must all be held by the principal.
	Scopes []string
	// Resource is the resource template. The gate renders it with each
	// call's arguments into the resources the ACL checks.
	Resource string
	// ConfirmPrompt is the confirm prompt template, which the gate renders
	// with each call's arguments. Writes only; "" shows the default prompt
	// (the tool's name and all its arguments).
	ConfirmPrompt string
	// ConfirmTTL is how long a confirm waits before it is denied. Writes only.
	ConfirmTTL time.Duration
	// Failure is the text a model sees when the server call fails. The
	// server's own error text never reaches the model.
	Failure string
}

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
	// Fingerprint is [Fingerprint] of InputSchema. A live server whose
	// schema has another fingerprint has drifted from the generated code.
	Fingerprint string
	// Policy is the tool's authorization data.
	Policy Policy
	// Hints are the server's annotations: not trusted.
	Hints ServerHints
}

// Write reports whether the tool is a write.
func (d *Descriptor) Write() bool { return d.Policy.Kind == KindWrite }

// Tool is one generated tool: its descriptor and its argument type. A
// generated package declares one per tool as a package-level
// &Tool{...} whose fields are constants, so the compiler lays it out as
// data: no code is compiled or run per tool.
//
// A Tool must not be modified once it is in a [Catalogue]; [NewGate] keeps
// its own copy of what it checks.
type Tool struct {
	// Args is a nil pointer to the tool's generated argument struct,
	// (*XxxArgs)(nil). It names the type the gate decodes a call into, and
	// its marker ([Read] or [Write]) must agree with Desc.Policy.Kind.
	Args Args
	// Desc describes the tool.
	Desc Descriptor
}

// Descriptor returns the tool's descriptor. The caller must not modify it.
func (t *Tool) Descriptor() *Descriptor { return &t.Desc }

// Name returns the MCP tool name.
func (t *Tool) Name() string { return t.Desc.Name }

// argsType returns the struct type of t's arguments, or an error when
// t.Args is not a nil pointer to a struct whose marker matches the policy.
func (t *Tool) argsType() (reflect.Type, error) {
	if t.Args == nil {
		return nil, fmt.Errorf("tool %q: Args is nil", t.Desc.Name)
	}
	pt := reflect.TypeOf(t.Args)
	if pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("tool %q: Args is a %v, not a pointer to a generated argument struct", t.Desc.Name, pt)
	}
	// t.Args is a nil pointer and the marker's method has a value receiver:
	// ask a zero value.
	if k := reflect.New(pt.Elem()).Interface().(Args).ocpKind(); k != t.Desc.Policy.Kind {
		return nil, fmt.Errorf("tool %q: argument marker is %v but policy says %v; re-run go generate", t.Desc.Name, k, t.Desc.Policy.Kind)
	}
	return pt.Elem(), nil
}

// Catalogue is the set of tools generated from one snapshot and
// classification.
type Catalogue struct {
	tiers  []string
	tools  []*Tool
	byName map[string]*Tool
}

// NewCatalogue returns the catalogue of the given tools, with the ordered
// tiers (lowest first) of the classification. For generated code; it panics
// on a duplicate tool name, and on a tool whose Args is not a nil pointer to
// an argument struct with the policy's marker, which the generator never
// emits.
func NewCatalogue(tiers []string, tools ...*Tool) *Catalogue {
	c := &Catalogue{tiers: tiers, tools: tools, byName: make(map[string]*Tool, len(tools))}
	for _, t := range tools {
		if _, err := t.argsType(); err != nil {
			panic("ocpgen runtime: " + err.Error())
		}
		name := t.Desc.Name
		if _, dup := c.byName[name]; dup {
			panic(fmt.Sprintf("ocpgen runtime: duplicate tool %q in catalogue", name))
		}
		c.byName[name] = t
	}
	return c
}

// Tiers returns the classification's tiers, lowest first.
func (c *Catalogue) Tiers() []string { return c.tiers }

// Tools returns every generated tool, in name order.
func (c *Catalogue) Tools() []*Tool { return c.tools }

// Lookup returns the generated tool with the given MCP name.
func (c *Catalogue) Lookup(name string) (*Tool, bool) {
	h, ok := c.byName[name]
	return h, ok
}

// TierRank returns the position of tier in the catalogue's tiers, or -1 when
// the tier is unknown (an unknown tier is never authorized).
func (c *Catalogue) TierRank(tier string) int {
	for i, t := range c.tiers {
		if t == tier {
			return i
		}
	}
	return -1
}
