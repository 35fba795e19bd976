package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
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
	// Resource is the resource template (for display and audit; the
	// generated Args.OCPResources renders it).
	Resource string
	// ConfirmPrompt is the confirm prompt template (for display; the
	// generated Args.OCPConfirmPrompt renders it). Writes only.
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

// Handle is a generated tool, whatever its argument type. Only [Tool]
// implements it.
type Handle interface {
	// Descriptor returns the tool's descriptor. The caller must not modify it.
	Descriptor() *Descriptor
	// decode strictly decodes raw arguments into the tool's Args type.
	decode(raw []byte) (Args, error)
}

// Tool is a generated tool with argument type A. Generated packages declare
// one variable per tool, built with [NewTool].
type Tool[A Args] struct {
	desc Descriptor
}

// NewTool returns the tool described by d. For generated code.
func NewTool[A Args](d Descriptor) *Tool[A] {
	var zero A
	if zero.ocpKind() != d.Policy.Kind {
		panic(fmt.Sprintf("ocpgen runtime: tool %q: argument marker is %v but policy says %v; re-run go generate", d.Name, zero.ocpKind(), d.Policy.Kind))
	}
	return &Tool[A]{desc: d}
}

// Descriptor returns the tool's descriptor. The caller must not modify it.
func (t *Tool[A]) Descriptor() *Descriptor { return &t.desc }

// Name returns the MCP tool name.
func (t *Tool[A]) Name() string { return t.desc.Name }

func (t *Tool[A]) decode(raw []byte) (Args, error) {
	a, err := DecodeStrict[A](raw)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// DecodeStrict decodes one JSON value into a T, refusing unknown fields and
// trailing data.
func DecodeStrict[T any](raw []byte) (T, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return v, fmt.Errorf("trailing data after the arguments object")
	}
	return v, nil
}

// Catalogue is the set of tools generated from one snapshot and
// classification.
type Catalogue struct {
	tiers  []string
	tools  []Handle
	byName map[string]Handle
}

// NewCatalogue returns the catalogue of the given tools, with the ordered
// tiers (lowest first) of the classification. For generated code; it panics
// on a duplicate tool name, which the generator never emits.
func NewCatalogue(tiers []string, tools ...Handle) *Catalogue {
	c := &Catalogue{tiers: tiers, tools: tools, byName: make(map[string]Handle, len(tools))}
	for _, t := range tools {
		name := t.Descriptor().Name
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
func (c *Catalogue) Tools() []Handle { return c.tools }

// Lookup returns the generated tool with the given MCP name.
func (c *Catalogue) Lookup(name string) (Handle, bool) {
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
