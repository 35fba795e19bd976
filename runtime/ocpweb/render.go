package ocpweb

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// card is one confirm as the page shows it. Every text a person reads is
// in pieces ([visible]); ID and Digest only travel in the decision's form.
type card struct {
	ID, Digest string
	Tool       []piece
	Server     []piece // none for a lone gate
	Requester  []piece
	Prompt     []piece
	// Args are the bytes the server will receive, indented (only
	// whitespace between tokens differs), with NotSet the declared
	// arguments they leave out, each a JSON string.
	Args   []piece
	NotSet [][]piece
	// ArgsNote says why Args are shown as they are, when they are not one
	// JSON object (never, from a gate).
	ArgsNote  string
	Resources [][]piece
	// LeftMS is the time left when the card was drawn, in milliseconds;
	// Expires the expiry, for a person's reading (UTC).
	LeftMS  int64
	Expires string
}

// newCard draws r; declared are the top-level properties of its tool's
// input schema, as advertised.
func newCard(r ocp.ConfirmRequest, declared []string, now time.Time) card {
	c := card{
		ID:        r.ID,
		Digest:    r.Digest,
		Tool:      visible(r.Tool, false),
		Server:    visible(r.Server, false),
		Requester: visible(r.Requester, false),
		Prompt:    visible(r.Prompt, true),
		LeftMS:    max(r.Expires.Sub(now).Milliseconds(), 0),
		Expires:   r.Expires.UTC().Format(time.RFC3339),
	}
	for _, res := range r.Resources {
		c.Resources = append(c.Resources, visible(res, false))
	}
	present, ok := topLevelKeys(r.Args)
	if !ok {
		c.Args = visible(string(r.Args), true)
		c.ArgsNote = "These arguments are not one JSON object; they are shown exactly as the server would receive them."
		return c
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, r.Args, "", "  "); err != nil {
		c.Args = visible(string(r.Args), true) // unreachable: topLevelKeys parsed them
	} else {
		c.Args = visible(ind.String(), true)
	}
	for _, name := range declared {
		if !present[name] {
			c.NotSet = append(c.NotSet, visible(quote(name), true))
		}
	}
	return c
}

// quote is s as a JSON string, with <, > and & as they are (the page's
// template escapes them for HTML).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// topLevelKeys returns the member names of the JSON object args, or false
// if args are not one JSON object.
func topLevelKeys(args json.RawMessage) (map[string]bool, bool) {
	var m map[string]json.RawMessage
	if len(args) == 0 || args[0] != '{' || json.Unmarshal(args, &m) != nil {
		return nil, false
	}
	keys := make(map[string]bool, len(m))
	for k := range m {
		keys[k] = true
	}
	return keys, true
}

// declaredArgs returns the top-level properties of the input schema of
// the advertised tool named tool, sorted: the arguments a call of it may
// send (the gate forwards no others). A tool no longer advertised has
// none.
func declaredArgs(adv ocp.ToolsAdvertise, tool string) []string {
	i := slices.IndexFunc(adv.Tools, func(t ocp.ToolDef) bool { return t.Name == tool })
	if i < 0 {
		return nil
	}
	var top struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(adv.Tools[i].Input, &top) != nil {
		return nil
	}
	names := make([]string, 0, len(top.Properties))
	for k := range top.Properties {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
