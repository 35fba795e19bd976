package ocp

import (
	"encoding/json"
	"time"
)

// This file is the wire model of the OCP frames the MCP profile touches, as
// this project models them (the core spec is not public). Field names are
// lower camel case and stable: they are the contract with models and peers.

// Reason says why an [ActionResult] is not ok. Every reason the gate can give
// is one of the constants below.
type Reason string

const (
	// ReasonFailed: the call failed and did not run: the server answered
	// with a JSON-RPC error or a result with isError, its result was
	// refused (over the size limit, not matching the output schema), a
	// read's result asked for input (which the Hub never gives), or it
	// could not be sent. The spec's word.
	ReasonFailed Reason = "failed"
	// ReasonOutcomeUnknown: the call was sent to the server but no answer
	// came back (the caller gave up, the connection dropped), the answer
	// said nothing (neither content nor structuredContent), or a write's
	// result asked for input (which the Hub never gives): the server may
	// have run it. A model must check before it retries a write.
	ReasonOutcomeUnknown Reason = "outcome_unknown"
	// ReasonDenied: the write's confirm was denied, expired, was cancelled,
	// or was voided by a catalogue change. The server was not called.
	ReasonDenied Reason = "denied"
	// ReasonForbidden: the principal lacks the tier, a scope, or the
	// resource ACL refused. The server was not called.
	ReasonForbidden Reason = "forbidden"
	// ReasonInvalid: the arguments do not match the tool's input schema,
	// or a documented rule of the gate refuses them (a lone surrogate, a
	// number beyond its Go type, a bound); the error text says which.
	// The server was not called.
	ReasonInvalid Reason = "invalid"
	// ReasonUnknown: the tool is not in the advertised catalogue. The server
	// was not called.
	ReasonUnknown Reason = "unknown"
)

// ToolsAdvertise is the payload of tools.advertise: the tools a Hub offers.
type ToolsAdvertise struct {
	Tools []ToolDef `json:"tools"`
}

// ToolDef is one advertised tool.
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Input       json.RawMessage `json:"input"`
	// Write is the Hub's classification: true for every write, including
	// tools the classification file does not list.
	Write bool `json:"write"`
}

// ActionRequest is an action.request: a call of an advertised tool.
type ActionRequest struct {
	ID   string          `json:"id"`
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// ActionResult is an action.result: {id, ok:true, output} or {id, ok:false,
// reason, error}. Error is always a fixed or classification-given text, never
// the server's own error text; Ref, when set, names the audit event that holds
// the details.
type ActionResult struct {
	ID     string          `json:"id"`
	OK     bool            `json:"ok"`
	Output json.RawMessage `json:"output,omitempty"`
	Reason Reason          `json:"reason,omitempty"`
	Error  string          `json:"error,omitempty"`
	Ref    string          `json:"ref,omitempty"`
}

// ConfirmRequest is what a Hub shows its connected peers for a pending write:
// the peer answers with a [ConfirmDecision] for ID, never with the call
// itself. ID is issued by the Hub and unguessable (at least 128 random bits).
type ConfirmRequest struct {
	ID string `json:"id"`
	// Tool is the tool's name as advertised (a Gate of [NewMux] may expose
	// it under another name than the server's).
	Tool string `json:"tool"`
	// Server names the server the write is for, in a Gate of [NewMux] (its
	// [MuxServer] name); empty for a Gate of [NewGate].
	Server string `json:"server,omitempty"`
	Prompt string `json:"prompt"`
	// Requester is the ID of the principal on whose behalf the write runs.
	Requester string `json:"requester"`
	// Args are exactly the bytes the server will receive if approved.
	Args json.RawMessage `json:"args"`
	// Policy is the policy digest ([Catalogue.PolicyDigest]) of the gate
	// that opened the confirm. Only a gate with the same Policy and Server
	// decides, lists or announces it.
	Policy string `json:"policy"`
	// Resources are the resources the call renders, as the gate that opened
	// the confirm computed them; a decider's ACL check is on these.
	Resources []string `json:"resources,omitempty"`
	// Digest binds the decision to the server, the policy, the tool, the
	// arguments, the principal and the catalogue: a decision must echo it.
	Digest  string    `json:"digest"`
	Expires time.Time `json:"expires"`
}

// ConfirmDecision is a peer's answer to a [ConfirmRequest].
type ConfirmDecision struct {
	ID      string `json:"id"`
	Approve bool   `json:"approve"`
	Digest  string `json:"digest"`
}
