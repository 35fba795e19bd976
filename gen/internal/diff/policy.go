package diff

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/model"
)

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

// classificationKinds is ClassificationKinds by name, built on its first
// call.
var classificationKinds = sync.OnceValue(func() map[string]ClassificationKind {
	m := make(map[string]ClassificationKind, len(ClassificationKinds))
	for _, k := range ClassificationKinds {
		m[k.Name] = k
	}
	return m
})

type policyDiff struct {
	old, new model.Resolved
	changes  []Change
}

func (d *policyDiff) add(kind string, field model.PolicyField, msg string, old, nw any) {
	k := classificationKinds()[kind]
	ptr := d.new.Source[field]
	if ptr == "" {
		ptr = d.old.Source[field]
	}
	d.changes = append(d.changes, Change{
		Kind: kind, Area: AreaClassification, Pointer: ptr, Security: k.Security, Breaking: k.Breaking,
		Message: msg, Old: rawJSON(old), New: rawJSON(nw),
	})
}

// TierName renders a policy's tier for messages.
func TierName(p model.Resolved) string {
	if p.Policy.Tier == "" {
		return "(none: no classification file)"
	}
	return p.Policy.Tier
}

// ComparePolicies returns the changes from old to new, two policies
// resolved by model.ResolvePolicy, in a fixed order.
func ComparePolicies(old, nw model.Resolved) []Change {
	d := &policyDiff{old: old, new: nw}
	switch {
	case old.Kind == model.Write && nw.Kind == model.Read:
		d.add("access-loosened", model.FieldAccess, "write → read: calls no longer pass the confirm gate", "write", "read")
	case old.Kind == model.Read && nw.Kind == model.Write:
		d.add("access-tightened", model.FieldAccess, "read → write: calls now pass the confirm gate", "read", "write")
	}
	switch {
	case !old.Classified && nw.Classified:
		d.add("classified", model.FieldAccess, "now listed in the classification file", nil, nil)
	case old.Classified && !nw.Classified:
		d.add("unclassified", model.FieldAccess, "no longer listed in the classification file: a write at the default tier", nil, nil)
	}
	if !slices.Equal(sorted(old.Authorized), sorted(nw.Authorized)) || old.Policy.Tier != nw.Policy.Tier {
		msg := fmt.Sprintf("tier %s → %s (may call: %s)", TierName(old), TierName(nw), list(nw.Authorized))
		switch {
		case slices.Equal(sorted(old.Authorized), sorted(nw.Authorized)):
			// A renamed tier with the same reach: nothing changes for callers.
		case subset(old.Authorized, nw.Authorized):
			d.add("tier-lowered", model.FieldTier, msg, old.Policy.Tier, nw.Policy.Tier)
		case subset(nw.Authorized, old.Authorized):
			d.add("tier-raised", model.FieldTier, msg, old.Policy.Tier, nw.Policy.Tier)
		default:
			d.add("tier-changed", model.FieldTier, msg, old.Policy.Tier, nw.Policy.Tier)
		}
	}
	for _, s := range old.Policy.Scopes {
		if !slices.Contains(nw.Policy.Scopes, s) {
			d.add("scope-removed", model.FieldScopes, fmt.Sprintf("scope %q no longer required", s), s, nil)
		}
	}
	for _, s := range nw.Policy.Scopes {
		if !slices.Contains(old.Policy.Scopes, s) {
			d.add("scope-added", model.FieldScopes, fmt.Sprintf("scope %q now required", s), nil, s)
		}
	}
	if old.Policy.Resource != nw.Policy.Resource {
		msg := fmt.Sprintf("resource %q → %q", old.Policy.Resource, nw.Policy.Resource)
		switch {
		case strings.HasPrefix(nw.Policy.Resource, old.Policy.Resource+"/"):
			d.add("resource-narrowed", model.FieldResource, msg, old.Policy.Resource, nw.Policy.Resource)
		case strings.HasPrefix(old.Policy.Resource, nw.Policy.Resource+"/"):
			d.add("resource-widened", model.FieldResource, msg, old.Policy.Resource, nw.Policy.Resource)
		default:
			d.add("resource-changed", model.FieldResource, msg, old.Policy.Resource, nw.Policy.Resource)
		}
	}
	if old.Kind == model.Write && nw.Kind == model.Write {
		switch {
		case old.Policy.ConfirmPrompt == nw.Policy.ConfirmPrompt:
		case old.Policy.ConfirmPrompt == "":
			d.add("confirm-prompt-added", model.FieldPrompt, fmt.Sprintf("confirm prompt set to %q", nw.Policy.ConfirmPrompt), nil, nw.Policy.ConfirmPrompt)
		case nw.Policy.ConfirmPrompt == "":
			d.add("confirm-prompt-removed", model.FieldPrompt, fmt.Sprintf("confirm prompt %q removed: the default prompt applies", old.Policy.ConfirmPrompt), old.Policy.ConfirmPrompt, nil)
		default:
			d.add("confirm-prompt-changed", model.FieldPrompt, fmt.Sprintf("confirm prompt %q → %q", old.Policy.ConfirmPrompt, nw.Policy.ConfirmPrompt), old.Policy.ConfirmPrompt, nw.Policy.ConfirmPrompt)
		}
		switch {
		case nw.Policy.ConfirmTTL > old.Policy.ConfirmTTL:
			d.add("confirm-ttl-lengthened", model.FieldTTL, fmt.Sprintf("confirm ttl %s → %s", old.Policy.ConfirmTTL, nw.Policy.ConfirmTTL), old.Policy.ConfirmTTL.String(), nw.Policy.ConfirmTTL.String())
		case nw.Policy.ConfirmTTL < old.Policy.ConfirmTTL:
			d.add("confirm-ttl-shortened", model.FieldTTL, fmt.Sprintf("confirm ttl %s → %s", old.Policy.ConfirmTTL, nw.Policy.ConfirmTTL), old.Policy.ConfirmTTL.String(), nw.Policy.ConfirmTTL.String())
		}
	}
	if old.Policy.Failure != nw.Policy.Failure {
		d.add("failure-changed", model.FieldFailure, fmt.Sprintf("failure text %q → %q", old.Policy.Failure, nw.Policy.Failure), old.Policy.Failure, nw.Policy.Failure)
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
func Disagreements(a *load.Annotations, p model.Resolved) []string {
	if a == nil {
		return nil
	}
	what := "classified " + p.Kind.String()
	if !p.Classified {
		what = "unclassified, so a write"
	}
	var out []string
	if a.ReadOnlyHint != nil {
		ro := *a.ReadOnlyHint
		if ro != (p.Kind == model.Read) {
			out = append(out, fmt.Sprintf("server hint (not trusted): readOnlyHint is %v, but the tool is %s", ro, what))
		}
	}
	if a.DestructiveHint != nil && *a.DestructiveHint && p.Kind == model.Read {
		out = append(out, fmt.Sprintf("server hint (not trusted): destructiveHint is true, but the tool is %s", what))
	}
	return out
}
