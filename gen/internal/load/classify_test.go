package load

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const goodClassification = `version: 1
tiers: [anonymous, visitor, member, operator, admin]
default: {tier: member, scopes: [base], failure: "The tool failed.", confirm_ttl: 90s}
tools:
  read_graph:
    access: read
    tier: visitor
    scopes: [memory.read]
    resource: "graph"
  delete_entities:
    access: write
    scopes: [memory.write, memory.delete]
    resource: "graph/{entityNames}"
    confirm: {prompt: "Delete {entityNames}?", ttl: 2m}
    failure: "Could not delete those entities."
  "true":
    access: write
    confirm: {}
  empty_scopes: {access: read, scopes: []}
`

func TestLoadClassificationGood(t *testing.T) {
	c, diags := LoadClassification("classify.yaml", []byte(goodClassification))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	want := &Classification{
		File:    "classify.yaml",
		Digest:  digest([]byte(goodClassification)),
		Version: 1,
		Tiers:   []string{"anonymous", "visitor", "member", "operator", "admin"},
		Default: Defaults{
			Pos: Pos{3, 1}, Tier: "member", Scopes: []string{"base"},
			Failure: "The tool failed.", ConfirmTTL: 90 * time.Second,
		},
		Tools: []*Entry{
			{
				Name: "read_graph", Pos: Pos{5, 3}, Access: AccessRead,
				Tier: "visitor", TierPos: Pos{7, 11}, Scopes: []string{"memory.read"},
				Resource: "graph", ResourcePos: Pos{9, 15},
			},
			{
				Name: "delete_entities", Pos: Pos{10, 3}, Access: AccessWrite,
				Scopes:   []string{"memory.write", "memory.delete"},
				Resource: "graph/{entityNames}", ResourcePos: Pos{13, 15},
				Confirm: &Confirm{Prompt: "Delete {entityNames}?", PromptPos: Pos{14, 23}, TTL: 2 * time.Minute},
				Failure: "Could not delete those entities.",
			},
			{Name: "true", Pos: Pos{16, 3}, Access: AccessWrite, Confirm: &Confirm{}},
			{Name: "empty_scopes", Pos: Pos{19, 3}, Access: AccessRead, Scopes: []string{}},
		},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got:\n%s\nwant:\n%s", dump(c), dump(want))
	}
}

func dump(c *Classification) string {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// header is a valid start of a file; the cases below add to it, so tools
// start at line 5.
const header = `version: 1
tiers: [anonymous, visitor, member]
default: {tier: member}
tools:
`

func TestLoadClassificationErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"unknown key with suggestion", header + "  read_graph:\n    access: read\n    acess: read\n", []string{
			`classify.yaml:7:5: unknown key "acess" (did you mean "access"?)`,
		}},
		{"unknown key and so no access", header + "  read_graph:\n    acess: read\n", []string{
			`classify.yaml:5:3: tool "read_graph" has no access: say read or write`,
			`classify.yaml:6:5: unknown key "acess" (did you mean "access"?)`,
		}},
		{"unknown key without suggestion", header + "  read_graph:\n    access: read\n    colour: red\n", []string{
			`classify.yaml:7:5: unknown key "colour"`,
		}},
		{"unknown top-level key", "version: 1\ntiers: [a]\ndefault: {tier: a}\ntool:\n  x: {access: read}\n", []string{
			`classify.yaml:4:1: unknown key "tool" (did you mean "tools"?)`,
		}},
		{"unknown default key", "version: 1\ntiers: [a]\ndefault: {tier: a, ttl: 2m}\n", []string{
			`classify.yaml:3:20: unknown key "ttl"`,
		}},
		{"unknown confirm key", header + "  x:\n    access: write\n    confirm: {promt: hi}\n", []string{
			`classify.yaml:7:15: unknown key "promt" (did you mean "prompt"?)`,
		}},
		{"missing access", header + "  read_graph:\n    tier: visitor\n", []string{
			`classify.yaml:5:3: tool "read_graph" has no access: say read or write`,
		}},
		{"empty entry", header + "  read_graph:\n", []string{
			`classify.yaml:5:3: tool "read_graph" has no access: say read or write`,
		}},
		{"bad access", header + "  x:\n    access: rw\n", []string{
			`classify.yaml:6:13: access must be read or write, not "rw"`,
		}},
		{"access not string", header + "  x:\n    access: [read]\n", []string{
			`classify.yaml:6:13: access must be a string, got a list`,
		}},
		{"entry not mapping", header + "  x: read\n", []string{
			`classify.yaml:5:6: tool "x" must be a mapping with at least access, got a string`,
		}},
		{"tier list", header + "  x:\n    access: read\n    tier: [visitor]\n", []string{
			`classify.yaml:7:11: tier must be a string, got a list`,
		}},
		{"unknown tier with suggestion", header + "  x:\n    access: read\n    tier: vistor\n", []string{
			`classify.yaml:7:11: unknown tier "vistor" (did you mean "visitor"?)`,
		}},
		{"unknown tier", header + "  x:\n    access: read\n    tier: boss\n", []string{
			`classify.yaml:7:11: unknown tier "boss" (tiers: anonymous, visitor, member)`,
		}},
		{"scopes string", header + "  x:\n    access: read\n    scopes: memory.read\n", []string{
			`classify.yaml:7:13: scopes must be a list, got a string`,
		}},
		{"scope number", header + "  x:\n    access: read\n    scopes: [1]\n", []string{
			`classify.yaml:7:14: scope must be a string, got a number (put it in quotes)`,
		}},
		{"scope duplicate", header + "  x:\n    access: read\n    scopes: [a, b, a]\n", []string{
			`classify.yaml:7:20: duplicate scope "a" (first at line 7)`,
		}},
		{"scope empty", header + "  x:\n    access: read\n    scopes: [\"\"]\n", []string{
			`classify.yaml:7:14: scope is empty`,
		}},
		{"scope with space", header + "  x:\n    access: read\n    scopes: [\"a b\"]\n", []string{
			`classify.yaml:7:14: scope "a b" must not contain spaces or control characters`,
		}},
		{"duplicate key", header + "  x:\n    access: read\n    access: write\n", []string{
			`classify.yaml:7:5: duplicate key "access" (first at line 6)`,
		}},
		{"duplicate tool", header + "  x: {access: read}\n  y: {access: read}\n  x: {access: write}\n", []string{
			`classify.yaml:7:3: duplicate tool "x" (first at line 5)`,
		}},
		{"duplicate top-level key", "version: 1\ntiers: [a]\ndefault: {tier: a}\nversion: 1\n", []string{
			`classify.yaml:4:1: duplicate key "version" (first at line 1)`,
		}},
		{"tool name number", header + "  123: {access: read}\n", []string{
			`classify.yaml:5:3: a tool name must be a string, got a number (put it in quotes)`,
		}},
		{"tool name empty", header + "  \"\": {access: read}\n", []string{
			`classify.yaml:5:3: empty tool name`,
		}},
		{"tools not mapping", "version: 1\ntiers: [a]\ndefault: {tier: a}\ntools: [x]\n", []string{
			`classify.yaml:4:8: tools must be a mapping from tool name to entry, got a list`,
		}},
		{"version 2", "version: 2\ntiers: [a]\ndefault: {tier: a}\n", []string{
			`classify.yaml:1:10: version must be 1, got 2 (this ocpgen reads version 1)`,
		}},
		{"version string", "version: \"1\"\ntiers: [a]\ndefault: {tier: a}\n", []string{
			`classify.yaml:1:10: version must be 1, got a string`,
		}},
		{"missing everything", "tools: {}\n", []string{
			`classify.yaml:1:1: missing "version: 1"`,
			`classify.yaml:1:1: missing "tiers": list the tier names, lowest first`,
			`classify.yaml:1:1: missing "default": at least {tier: NAME}`,
		}},
		{"empty file", "", []string{`classify.yaml: file is empty`}},
		{"only comments", "# nothing here\n\n", []string{`classify.yaml: file is empty`}},
		{"null document", "---\n~\n", []string{`classify.yaml: file is empty`}},
		{"not a mapping", "- a\n- b\n", []string{`classify.yaml:1:1: the file must be a mapping, got a list`}},
		{"second document", "version: 1\ntiers: [a]\ndefault: {tier: a}\n---\nversion: 1\n", []string{
			`classify.yaml:5:1: a second YAML document: the file must hold exactly one`,
		}},
		{"yaml syntax", "version: 1\ntiers: [a, b\n", []string{
			`classify.yaml:1: invalid YAML: did not find expected ',' or ']'`,
		}},
		{"yaml tab", "version: 1\ntiers: [a]\n\tdefault: {tier: a}\n", []string{
			`classify.yaml:3: invalid YAML: found character that cannot start any token`,
		}},
		{"alias", "version: 1\ntiers: &t [a, b]\ndefault: {tier: a}\ntools:\n  x:\n    access: read\n    scopes: *t\n", []string{
			`classify.yaml:7:13: alias *t: aliases are not allowed, write the value out`,
		}},
		{"merge key", "version: 1\ntiers: [a]\ndefault: &d {tier: a}\ntools:\n  x:\n    <<: *d\n    access: read\n", []string{
			`classify.yaml:6:9: alias *d: aliases are not allowed, write the value out`,
		}},
		{"tiers empty", "version: 1\ntiers: []\ndefault: {tier: a}\n", []string{
			`classify.yaml:2:8: tiers is empty: list the tier names, lowest first`,
		}},
		{"tiers duplicate", "version: 1\ntiers: [a, b, a]\ndefault: {tier: a}\n", []string{
			`classify.yaml:2:15: duplicate tier "a" (first at line 2)`,
		}},
		{"tiers not list", "version: 1\ntiers: a\ndefault: {tier: a}\n", []string{
			`classify.yaml:2:8: tiers must be a list, got a string`,
		}},
		{"default without tier", "version: 1\ntiers: [a]\ndefault: {scopes: [x]}\n", []string{
			`classify.yaml:3:1: default has no tier`,
		}},
		{"default unknown tier", "version: 1\ntiers: [member]\ndefault: {tier: memeber}\n", []string{
			`classify.yaml:3:17: unknown tier "memeber" (did you mean "member"?)`,
		}},
		{"default not mapping", "version: 1\ntiers: [a]\ndefault: a\n", []string{
			`classify.yaml:3:10: default must be a mapping, got a string`,
		}},
		{"default ttl too long", "version: 1\ntiers: [a]\ndefault: {tier: a, confirm_ttl: 48h}\n", []string{
			`classify.yaml:3:33: confirm_ttl 48h is over the limit of 24h`,
		}},
		{"confirm on read", header + "  x:\n    access: read\n    confirm: {prompt: \"sure\"}\n", []string{
			`classify.yaml:7:5: tool "x" is a read: confirm applies to writes only`,
		}},
		{"confirm not mapping", header + "  x:\n    access: write\n    confirm: yes\n", []string{
			`classify.yaml:7:14: confirm must be a mapping, got a string`,
		}},
		{"ttl zero", header + "  x:\n    access: write\n    confirm: {ttl: 0s}\n", []string{
			`classify.yaml:7:20: ttl must be more than 0`,
		}},
		{"ttl negative", header + "  x:\n    access: write\n    confirm: {ttl: -1m}\n", []string{
			`classify.yaml:7:20: ttl must be more than 0`,
		}},
		{"ttl too long", header + "  x:\n    access: write\n    confirm: {ttl: 25h}\n", []string{
			`classify.yaml:7:20: ttl 25h is over the limit of 24h`,
		}},
		{"ttl not duration", header + "  x:\n    access: write\n    confirm: {ttl: soon}\n", []string{
			`classify.yaml:7:20: ttl "soon" is not a duration like 2m`,
		}},
		{"ttl number", header + "  x:\n    access: write\n    confirm: {ttl: 120}\n", []string{
			`classify.yaml:7:20: ttl must be a duration like 2m, got a number`,
		}},
		{"resource unclosed", header + "  x:\n    access: read\n    resource: \"graph/{id\"\n", []string{
			`classify.yaml:7:15: invalid resource template: "{" at character 7 is not closed`,
		}},
		{"resource empty placeholder", header + "  x:\n    access: read\n    resource: \"graph/{}\"\n", []string{
			`classify.yaml:7:15: invalid resource template: empty placeholder "{}" at character 7`,
		}},
		{"resource empty", header + "  x:\n    access: read\n    resource: \"\"\n", []string{
			`classify.yaml:7:15: resource is empty: leave the key out instead`,
		}},
		{"prompt lone brace", header + "  x:\n    access: write\n    confirm:\n      prompt: \"a } b\"\n", []string{
			`classify.yaml:8:15: invalid prompt template: "}" at character 3 has no "{" (write "}}" for a literal brace)`,
		}},
		{"failure multi-line", header + "  x:\n    access: write\n    failure: \"a\\nb\"\n", []string{
			`classify.yaml:7:14: failure text must be a single line`,
		}},
		{"failure line separator", header + "  x:\n    access: write\n    failure: \"a\\Lb\"\n", []string{
			`classify.yaml:7:14: failure text must be a single line`,
		}},
		{"failure control character", header + "  x:\n    access: write\n    failure: \"a\\x1bb\"\n", []string{
			`classify.yaml:7:14: failure text must not contain control characters`,
		}},
		{"failure too long", header + "  x:\n    access: write\n    failure: " + strings.Repeat("é", 201) + "\n", []string{
			`classify.yaml:7:14: failure text is 201 characters, over the limit of 200`,
		}},
		{"failure empty", header + "  x:\n    access: write\n    failure: \" \"\n", []string{
			`classify.yaml:7:14: failure text is empty`,
		}},
		{"failure boolean", header + "  x:\n    access: write\n    failure: true\n", []string{
			`classify.yaml:7:14: failure must be a string, got a boolean (put it in quotes)`,
		}},
		{"failure null", header + "  x:\n    access: write\n    failure:\n", []string{
			`classify.yaml:7:13: failure must be a string, got nothing`,
		}},
		{"several errors sorted by position", header + "  b:\n    access: maybe\n  a:\n    tier: nobody\n", []string{
			`classify.yaml:6:13: access must be read or write, not "maybe"`,
			`classify.yaml:7:3: tool "a" has no access: say read or write`,
			`classify.yaml:8:11: unknown tier "nobody" (tiers: anonymous, visitor, member)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, diags := LoadClassification("classify.yaml", []byte(tt.in))
			if got := strs(diags); !slices.Equal(got, tt.want) {
				t.Errorf("diagnostics:\n got %q\nwant %q", got, tt.want)
			}
			if c != nil {
				t.Error("classification returned with errors")
			}
		})
	}
}

func TestLoadClassificationTooLarge(t *testing.T) {
	data := []byte(header + "#" + strings.Repeat("x", MaxClassificationSize))
	_, diags := LoadClassification("classify.yaml", data)
	want := fmt.Sprintf(`classify.yaml: file is %d bytes, over the limit of 8 MiB`, len(data))
	if got := strs(diags); len(got) != 1 || got[0] != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCheckStale(t *testing.T) {
	s, diags := LoadSnapshot("memory.tools.json", []byte(`{"tools": [
		{"name": "read_graph", "inputSchema": {}},
		{"name": "delete_entities", "inputSchema": {}}]}`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	c, diags := LoadClassification("classify.yaml", []byte(header+
		"  read_graph: {access: read}\n"+
		"  delete_entity: {access: write}\n"+
		"  search: {access: read}\n"))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	want := []string{
		`classify.yaml:6:3: tool "delete_entity" is not in the snapshot memory.tools.json: remove the entry or re-snapshot (did you mean "delete_entities"?)`,
		`classify.yaml:7:3: tool "search" is not in the snapshot memory.tools.json: remove the entry or re-snapshot`,
	}
	if got := strs(CheckStale(s, c)); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Tools the file does not list are not stale (they default to writes).
	c, _ = LoadClassification("classify.yaml", []byte(header+"  read_graph: {access: read}\n"))
	if got := CheckStale(s, c); len(got) > 0 {
		t.Errorf("unexpected: %v", got)
	}
	if got := CheckStale(nil, c); got != nil {
		t.Errorf("nil snapshot: %v", got)
	}
}

// TestCheckStaleHint is issue 29's case: the snapshot dropped
// delete_relations, whose entry stays; the closest tool, create_relations,
// has its own entry, so following the hint would move one tool's policy
// onto another's. Nor may a read entry's hint name a tool without an entry
// (a write): following it would turn a write into a read.
func TestCheckStaleHint(t *testing.T) {
	s, diags := LoadSnapshot("memory.tools.json", []byte(`{"tools": [
		{"name": "create_relations", "inputSchema": {}},
		{"name": "delete_observation", "inputSchema": {}},
		{"name": "open_nodes", "inputSchema": {}},
		{"name": "read_graphs", "inputSchema": {}}]}`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	c, diags := LoadClassification("classify.yaml", []byte(header+
		"  create_relations: {access: write}\n"+
		"  delete_relations: {access: write}\n"+
		"  delete_observations: {access: write}\n"+
		"  read_graph: {access: read}\n"+
		"  open_node: {access: read}\n"+
		"  open_nodes: {access: read}\n"))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	want := []string{
		`classify.yaml:6:3: tool "delete_relations" is not in the snapshot memory.tools.json: remove the entry or re-snapshot`,
		// delete_observation has no entry: it is a write, as the stale entry is.
		`classify.yaml:7:3: tool "delete_observations" is not in the snapshot memory.tools.json: remove the entry or re-snapshot (did you mean "delete_observation"?)`,
		// read_graphs has no entry: it is a write, and read_graph's is a read.
		`classify.yaml:8:3: tool "read_graph" is not in the snapshot memory.tools.json: remove the entry or re-snapshot`,
		// open_nodes has its own entry (of the same access).
		`classify.yaml:9:3: tool "open_node" is not in the snapshot memory.tools.json: remove the entry or re-snapshot`,
	}
	if got := strs(CheckStale(s, c)); !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		s    string
		want string
	}{
		{"acess", ` (did you mean "access"?)`},
		{"acces", ` (did you mean "access"?)`},
		{"aceess", ` (did you mean "access"?)`},
		{"tier", ` (did you mean "tier"?)`},
		{"teir", ` (did you mean "tier"?)`}, // a swap is one edit
		{"scope", ` (did you mean "scopes"?)`},
		{"ttl", ""}, // one letter shared with "tier" is not close
		{"x", ""},
		{"colour", ""},
		{strings.Repeat("a", 200), ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.s, entryKeys); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}
