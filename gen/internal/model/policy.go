package model

import (
	"fmt"
	"slices"
	"time"

	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/internal/jsonptr"
)

// DefaultConfirmTTL is how long a write's confirm waits for a decision when
// neither the tool's entry nor the classification's default sets a TTL.
const DefaultConfirmTTL = 2 * time.Minute

// PolicyField names a field of a resolved policy, as a key of
// [Resolved.Source].
type PolicyField string

// The policy fields.
const (
	FieldAccess   PolicyField = "access"
	FieldTier     PolicyField = "tier"
	FieldScopes   PolicyField = "scopes"
	FieldResource PolicyField = "resource"
	FieldPrompt   PolicyField = "prompt"
	FieldTTL      PolicyField = "ttl"
	FieldFailure  PolicyField = "failure"
)

// Resolved is a tool's effective policy: what the generated code enforces,
// every default applied. [ResolvePolicy] makes it; Build uses it for every
// tool it generates, and the diff compares two of them, so a policy rule is
// written once.
type Resolved struct {
	Kind Kind
	// Classified is false for a tool the classification does not list.
	Classified bool
	// Policy holds the resolved tier, scopes (sorted), resource template,
	// confirm prompt template, TTL and failure text. Its segments are unset:
	// binding the templates to fields needs the tool's schema (Build).
	Policy Policy
	// Authorized are the tiers that may call: Policy.Tier and every tier
	// above it, lowest first (none without a classification file).
	Authorized []string
	// Source maps each field to the JSON pointer, in the classification
	// file read as a JSON document, of the value that applies
	// ("/tools/x/tier", or "/default/tier" when the default applies). It is
	// empty without a classification file.
	Source map[PolicyField]string

	// resourcePos and promptPos locate the templates in the classification
	// file, for Build's errors.
	resourcePos, promptPos load.Pos
}

// ResolvePolicy returns the effective policy of the tool name under the
// classification c (nil: no classification file). The rules:
//
//   - A tool c lists takes its access, tier, scopes, resource, confirm and
//     failure from its entry. An unset tier is the default tier; an unset
//     failure is the default failure, else the fixed text
//     `The tool "<name>" failed.`; a write's confirm TTL is the entry's,
//     else the default's, else [DefaultConfirmTTL]. A read has no TTL and
//     no prompt.
//   - A tool c does not list is a write, Classified false, with the default
//     tier, scopes, failure and TTL. Without a classification every tool is
//     such a write and there are no tiers, so no principal is authorized
//     until someone writes the file.
//   - Without a resource template the resource is the tool's name (escaped
//     as a template), so the ACL always has something to check. Without a
//     confirm prompt, ConfirmPrompt is "" and Build uses the default prompt.
func ResolvePolicy(name string, c *load.Classification) Resolved {
	r := Resolved{Kind: Write, Source: map[PolicyField]string{}}
	pol := &r.Policy
	var ttl time.Duration
	if c != nil {
		d := c.Default
		entry := jsonptr.Pointer("tools", name)
		pol.Tier, r.Source[FieldTier] = d.Tier, "/default/tier"
		pol.Scopes, r.Source[FieldScopes] = slices.Clone(d.Scopes), "/default/scopes"
		pol.Failure, r.Source[FieldFailure] = d.Failure, "/default/failure"
		ttl, r.Source[FieldTTL] = d.ConfirmTTL, "/default/confirm_ttl"
		r.Source[FieldAccess] = entry
		r.Source[FieldResource] = entry
		r.Source[FieldPrompt] = entry
		if i := slices.IndexFunc(c.Tools, func(e *load.Entry) bool { return e.Name == name }); i >= 0 {
			e := c.Tools[i]
			r.Classified = true
			r.Source[FieldAccess] = entry + "/access"
			if e.Access == load.AccessRead {
				r.Kind = Read
			}
			if e.Tier != "" {
				pol.Tier, r.Source[FieldTier] = e.Tier, entry+"/tier"
			}
			pol.Scopes, r.Source[FieldScopes] = slices.Clone(e.Scopes), entry+"/scopes"
			if e.Failure != "" {
				pol.Failure, r.Source[FieldFailure] = e.Failure, entry+"/failure"
			}
			if e.Resource != "" {
				pol.Resource, r.Source[FieldResource], r.resourcePos = e.Resource, entry+"/resource", e.ResourcePos
			}
			if e.Confirm != nil {
				pol.ConfirmPrompt, r.Source[FieldPrompt], r.promptPos = e.Confirm.Prompt, entry+"/confirm/prompt", e.Confirm.PromptPos
				if e.Confirm.TTL != 0 {
					ttl, r.Source[FieldTTL] = e.Confirm.TTL, entry+"/confirm/ttl"
				}
			}
		}
		if i := slices.Index(c.Tiers, pol.Tier); i >= 0 {
			r.Authorized = slices.Clone(c.Tiers[i:])
		}
	}
	if pol.Resource == "" {
		pol.Resource = escapeTemplate(name)
	}
	if pol.Failure == "" {
		pol.Failure = fmt.Sprintf("The tool %q failed.", name)
	}
	if r.Kind == Write {
		pol.ConfirmTTL = ttl
		if pol.ConfirmTTL == 0 {
			pol.ConfirmTTL = DefaultConfirmTTL
		}
	} else {
		pol.ConfirmPrompt = ""
	}
	slices.Sort(pol.Scopes)
	pol.Scopes = slices.Compact(pol.Scopes)
	return r
}
