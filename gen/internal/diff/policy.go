package diff

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/model"
)

// Policy is a tool's effective classification: what the generated code
// enforces. It mirrors model.Build's policy rules (a tool the file does not
// list is a write at the default tier, with the default scopes; without a
// classification file no tier is authorized).
type Policy struct {
	Access     load.Access
	Classified bool
	// Tier is "" without a classification file: then no tier is authorized.
	Tier string
	// Authorized are the tiers that may call: Tier and every tier above it.
	Authorized []string
	// Scopes are sorted.
	Scopes []string
	// Resource is the resource template; the tool's name (escaped as a
	// template) when the file sets none.
	Resource string
	// ConfirmPrompt is the write's prompt template, "" for the default
	// prompt and for reads.
	ConfirmPrompt string
	// ConfirmTTL is how long a write's confirm waits (0 for reads).
	ConfirmTTL time.Duration
	Failure    string

	// src maps a field ("access", "tier", ...) to the pointer, in the
	// classification file, of the value that applies.
	src map[string]string
}

// Effective returns the policy generate gives the tool name under c (nil:
// no classification file).
func Effective(name string, c *load.Classification) Policy {
	p := Policy{Access: load.AccessWrite, src: map[string]string{}}
	entry := Pointer("tools", name)
	if c == nil {
		p.Resource = strings.NewReplacer("{", "{{", "}", "}}").Replace(name)
		p.ConfirmTTL = model.DefaultConfirmTTL
		p.Failure = fmt.Sprintf("The tool %q failed.", name)
		return p
	}
	var e *load.Entry
	for _, x := range c.Tools {
		if x.Name == name {
			e = x
			break
		}
	}
	d := c.Default
	p.Tier, p.src["tier"] = d.Tier, "/default/tier"
	p.Scopes, p.src["scopes"] = slices.Clone(d.Scopes), "/default/scopes"
	p.Failure, p.src["failure"] = d.Failure, "/default/failure"
	ttl := d.ConfirmTTL
	p.src["ttl"] = "/default/confirm_ttl"
	p.src["access"] = entry
	p.src["resource"] = entry
	p.src["prompt"] = entry
	if e != nil {
		p.Classified = true
		p.Access = e.Access
		p.src["access"] = entry + "/access"
		if e.Tier != "" {
			p.Tier, p.src["tier"] = e.Tier, entry+"/tier"
		}
		p.Scopes, p.src["scopes"] = slices.Clone(e.Scopes), entry+"/scopes"
		if e.Failure != "" {
			p.Failure, p.src["failure"] = e.Failure, entry+"/failure"
		}
		if e.Resource != "" {
			p.Resource, p.src["resource"] = e.Resource, entry+"/resource"
		}
		if e.Confirm != nil {
			p.ConfirmPrompt, p.src["prompt"] = e.Confirm.Prompt, entry+"/confirm/prompt"
			if e.Confirm.TTL != 0 {
				ttl, p.src["ttl"] = e.Confirm.TTL, entry+"/confirm/ttl"
			}
		}
	}
	if p.Resource == "" {
		p.Resource = strings.NewReplacer("{", "{{", "}", "}}").Replace(name)
	}
	if p.Failure == "" {
		p.Failure = fmt.Sprintf("The tool %q failed.", name)
	}
	if p.Access == load.AccessWrite {
		p.ConfirmTTL = ttl
		if p.ConfirmTTL == 0 {
			p.ConfirmTTL = model.DefaultConfirmTTL
		}
	} else {
		p.ConfirmPrompt = ""
	}
	if i := slices.Index(c.Tiers, p.Tier); i >= 0 {
		p.Authorized = slices.Clone(c.Tiers[i:])
	}
	slices.Sort(p.Scopes)
	p.Scopes = slices.Compact(p.Scopes)
	return p
}

// ClassificationKind describes one kind of classification change.
type ClassificationKind struct {
	Name     string
	Security bool
	Breaking bool
	Doc      string
}

// ClassificationKinds lists every classification change kind, in
// documentation order.
var ClassificationKinds = []ClassificationKind{
	{"access-loosened", true, true, "write → read: calls no longer wait for a confirm, and the Args type changes marker (Hub code relying on it stops compiling)"},
	{"access-tightened", false, true, "read → write: calls now wait for a confirm, and the Args type changes marker"},
	{"classified", false, false, "the tool is now listed in the classification file"},
	{"unclassified", false, false, "the tool is no longer listed: it is a write at the default tier"},
	{"tier-lowered", true, false, "more tiers may call the tool"},
	{"tier-raised", false, false, "fewer tiers may call the tool"},
	{"tier-changed", true, false, "a different set of tiers may call the tool (neither a subset nor a superset)"},
	{"scope-removed", true, false, "a scope is no longer required"},
	{"scope-added", false, false, "a scope is now required"},
	{"resource-widened", true, false, "the resource template is a prefix of the old one: the ACL sees a broader resource"},
	{"resource-narrowed", false, false, "the resource template extends the old one"},
	{"resource-changed", true, false, "the resource template changed otherwise: the ACL sees different resources"},
	{"confirm-prompt-added", false, false, "a write's confirm prompt was set (it used the default prompt)"},
	{"confirm-prompt-changed", true, false, "the text an approver reads changed"},
	{"confirm-prompt-removed", true, false, "a write's confirm prompt was removed: the default prompt applies"},
	{"confirm-ttl-lengthened", true, false, "a write's confirm waits longer before it expires to deny"},
	{"confirm-ttl-shortened", false, false, "a write's confirm expires sooner"},
	{"failure-changed", false, false, "the safe failure text changed"},
}

var classificationKinds = func() map[string]ClassificationKind {
	m := make(map[string]ClassificationKind, len(ClassificationKinds))
	for _, k := range ClassificationKinds {
		m[k.Name] = k
	}
	return m
}()

type policyDiff struct {
	old, new Policy
	changes  []Change
}

func (d *policyDiff) add(kind, field, msg string, old, nw any) {
	k := classificationKinds[kind]
	ptr := d.new.src[field]
	if ptr == "" {
		ptr = d.old.src[field]
	}
	d.changes = append(d.changes, Change{
		Kind: kind, Area: AreaClassification, Pointer: ptr, Security: k.Security, Breaking: k.Breaking,
		Message: msg, Old: rawJSON(old), New: rawJSON(nw),
	})
}

// TierName renders a policy's tier for messages.
func TierName(p Policy) string {
	if p.Tier == "" {
		return "(none: no classification file)"
	}
	return p.Tier
}

// ComparePolicies returns the changes from old to new, in a fixed order.
func ComparePolicies(old, nw Policy) []Change {
	d := &policyDiff{old: old, new: nw}
	switch {
	case old.Access == load.AccessWrite && nw.Access == load.AccessRead:
		d.add("access-loosened", "access", "write → read: calls no longer pass the confirm gate", "write", "read")
	case old.Access == load.AccessRead && nw.Access == load.AccessWrite:
		d.add("access-tightened", "access", "read → write: calls now pass the confirm gate", "read", "write")
	}
	switch {
	case !old.Classified && nw.Classified:
		d.add("classified", "access", "now listed in the classification file", nil, nil)
	case old.Classified && !nw.Classified:
		d.add("unclassified", "access", "no longer listed in the classification file: a write at the default tier", nil, nil)
	}
	if !slices.Equal(sorted(old.Authorized), sorted(nw.Authorized)) || old.Tier != nw.Tier {
		msg := fmt.Sprintf("tier %s → %s (may call: %s)", TierName(old), TierName(nw), list(nw.Authorized))
		switch {
		case slices.Equal(sorted(old.Authorized), sorted(nw.Authorized)):
			// A renamed tier with the same reach: nothing changes for callers.
		case subset(old.Authorized, nw.Authorized):
			d.add("tier-lowered", "tier", msg, old.Tier, nw.Tier)
		case subset(nw.Authorized, old.Authorized):
			d.add("tier-raised", "tier", msg, old.Tier, nw.Tier)
		default:
			d.add("tier-changed", "tier", msg, old.Tier, nw.Tier)
		}
	}
	for _, s := range old.Scopes {
		if !slices.Contains(nw.Scopes, s) {
			d.add("scope-removed", "scopes", fmt.Sprintf("scope %q no longer required", s), s, nil)
		}
	}
	for _, s := range nw.Scopes {
		if !slices.Contains(old.Scopes, s) {
			d.add("scope-added", "scopes", fmt.Sprintf("scope %q now required", s), nil, s)
		}
	}
	if old.Resource != nw.Resource {
		msg := fmt.Sprintf("resource %q → %q", old.Resource, nw.Resource)
		switch {
		case strings.HasPrefix(nw.Resource, old.Resource+"/"):
			d.add("resource-narrowed", "resource", msg, old.Resource, nw.Resource)
		case strings.HasPrefix(old.Resource, nw.Resource+"/"):
			d.add("resource-widened", "resource", msg, old.Resource, nw.Resource)
		default:
			d.add("resource-changed", "resource", msg, old.Resource, nw.Resource)
		}
	}
	if old.Access == load.AccessWrite && nw.Access == load.AccessWrite {
		switch {
		case old.ConfirmPrompt == nw.ConfirmPrompt:
		case old.ConfirmPrompt == "":
			d.add("confirm-prompt-added", "prompt", fmt.Sprintf("confirm prompt set to %q", nw.ConfirmPrompt), nil, nw.ConfirmPrompt)
		case nw.ConfirmPrompt == "":
			d.add("confirm-prompt-removed", "prompt", fmt.Sprintf("confirm prompt %q removed: the default prompt applies", old.ConfirmPrompt), old.ConfirmPrompt, nil)
		default:
			d.add("confirm-prompt-changed", "prompt", fmt.Sprintf("confirm prompt %q → %q", old.ConfirmPrompt, nw.ConfirmPrompt), old.ConfirmPrompt, nw.ConfirmPrompt)
		}
		switch {
		case nw.ConfirmTTL > old.ConfirmTTL:
			d.add("confirm-ttl-lengthened", "ttl", fmt.Sprintf("confirm ttl %s → %s", old.ConfirmTTL, nw.ConfirmTTL), old.ConfirmTTL.String(), nw.ConfirmTTL.String())
		case nw.ConfirmTTL < old.ConfirmTTL:
			d.add("confirm-ttl-shortened", "ttl", fmt.Sprintf("confirm ttl %s → %s", old.ConfirmTTL, nw.ConfirmTTL), old.ConfirmTTL.String(), nw.ConfirmTTL.String())
		}
	}
	if old.Failure != nw.Failure {
		d.add("failure-changed", "failure", fmt.Sprintf("failure text %q → %q", old.Failure, nw.Failure), old.Failure, nw.Failure)
	}
	return d.changes
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// subset reports whether a is a proper subset of b.
func subset(a, b []string) bool {
	if len(a) >= len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

func list(s []string) string {
	if len(s) == 0 {
		return "no tier"
	}
	return strings.Join(s, ", ")
}

// Hints compares a tool's server annotations (not trusted). Either may be
// nil.
func Hints(old, nw *load.Annotations) []Change {
	var o, n load.Annotations
	if old != nil {
		o = *old
	}
	if nw != nil {
		n = *nw
	}
	var out []Change
	if o.Title != n.Title {
		out = append(out, Change{Kind: "title-changed", Area: AreaText, Pointer: "/annotations/title", Security: true,
			Message: "annotations title changed (models read it)", Old: rawJSON(o.Title), New: rawJSON(n.Title)})
	}
	for _, h := range []struct {
		name string
		o, n *bool
	}{
		{"readOnlyHint", o.ReadOnlyHint, n.ReadOnlyHint},
		{"destructiveHint", o.DestructiveHint, n.DestructiveHint},
		{"idempotentHint", o.IdempotentHint, n.IdempotentHint},
		{"openWorldHint", o.OpenWorldHint, n.OpenWorldHint},
	} {
		if boolString(h.o) == boolString(h.n) {
			continue
		}
		out = append(out, Change{Kind: "hint-changed", Area: AreaHint, Pointer: "/annotations/" + h.name,
			Message: fmt.Sprintf("server hint %s %s → %s (not trusted: the classification decides)", h.name, boolString(h.o), boolString(h.n)),
			Old:     boolJSON(h.o), New: boolJSON(h.n)})
	}
	return out
}

func boolString(b *bool) string {
	if b == nil {
		return "(unset)"
	}
	return fmt.Sprint(*b)
}

func boolJSON(b *bool) []byte {
	if b == nil {
		return nil
	}
	return rawJSON(*b)
}

// Disagreements returns, for a tool's server annotations and its effective
// policy, the hints that contradict the classification, as notes for a
// reviewer. They never change anything.
func Disagreements(a *load.Annotations, p Policy) []string {
	if a == nil {
		return nil
	}
	what := "classified " + string(p.Access)
	if !p.Classified {
		what = "unclassified, so a write"
	}
	var out []string
	if a.ReadOnlyHint != nil {
		ro := *a.ReadOnlyHint
		if ro != (p.Access == load.AccessRead) {
			out = append(out, fmt.Sprintf("server hint (not trusted): readOnlyHint is %v, but the tool is %s", ro, what))
		}
	}
	if a.DestructiveHint != nil && *a.DestructiveHint && p.Access == load.AccessRead {
		out = append(out, fmt.Sprintf("server hint (not trusted): destructiveHint is true, but the tool is %s", what))
	}
	return out
}
