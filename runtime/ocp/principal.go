package ocp

import (
	"context"
	"slices"
)

// Principal is who a call runs for, as the Hub authenticated it. The gate
// never forwards any of it to the MCP server.
type Principal struct {
	// ID identifies the principal (a user, a service).
	ID string `json:"id"`
	// Tier is one of the catalogue's tiers; an unknown tier is never
	// authorized.
	Tier string `json:"tier"`
	// Scopes are the scopes the principal holds.
	Scopes []string `json:"scopes"`
	// Peer identifies the connection the request or decision came on. The
	// model's channel is the requester's Peer: a confirm decision arriving
	// on it is refused.
	Peer string `json:"peer"`
}

// HasScope reports whether p holds scope s.
func (p Principal) HasScope(s string) bool { return slices.Contains(p.Scopes, s) }

// ACL is the resource part of authorization, supplied by the Hub. The gate
// checks tier and scopes itself, then asks the ACL whether p may touch every
// one of resources (rendered from the tool's resource template with the
// call's arguments). A nil error allows; any error forbids, and its text goes
// only to the audit log. It is called before the confirm and again after
// approval, so it may consult live state. tool is a copy: changing it has no
// effect.
type ACL func(ctx context.Context, p Principal, tool *Descriptor, resources []string) error

// AllowAllResources is an [ACL] that allows every resource. Tier and scopes
// are still checked. A Gate has no implicit ACL: a Hub that wants no resource
// checks must say so by choosing this function.
func AllowAllResources(context.Context, Principal, *Descriptor, []string) error { return nil }
