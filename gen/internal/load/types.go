// Package load reads the generator's two inputs, the snapshot of a server's
// tools/list and the hand-written classification file, and checks each on its
// own. Cross-checks that need the schema (placeholders) are the model's.
package load

import (
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ocpgen/ocpgen/internal/impl"
)

// Snapshot is a loaded NAME.tools.json file.
type Snapshot struct {
	// File is the file name as given.
	File string
	// Digest is "sha256:<hex>" of the snapshot's content: its server and
	// tools, canonical, without "source" (see contentDigest). Two files that
	// differ only in source, formatting or order have the same digest, as
	// they generate the same code.
	Digest string
	// Server is the serverInfo recorded in the file (empty for a raw
	// tools/list result).
	Server ServerInfo
	// Source says how the snapshot was made.
	Source string
	// Tools are sorted by name; names are unique.
	Tools []*Tool
}

// ServerInfo is the server's initialize serverInfo.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Tool is one MCP tool of a snapshot.
type Tool struct {
	// Index is the tool's position in the file's "tools" array. JSON pointers
	// in diagnostics start from the file's root and go through it
	// ("/tools/3/inputSchema/..."); [Tool.Pointer] builds them.
	Index       int
	Name        string
	Title       string
	Description string
	// InputSchemaRaw is the inputSchema as it appears in the file.
	InputSchemaRaw json.RawMessage
	// InputSchema is InputSchemaRaw parsed (never nil).
	InputSchema *jsonschema.Schema
	// OutputSchemaRaw and OutputSchema are nil when the tool has none.
	OutputSchemaRaw json.RawMessage
	OutputSchema    *jsonschema.Schema
	// InputSchemaCanonical and OutputSchemaCanonical are the canonical
	// JSON (canon.JSON) of InputSchemaRaw and OutputSchemaRaw,
	// nil when the raw schema is. The loader makes them once, for the
	// snapshot's digest, and the model reuses them for the descriptor and
	// its fingerprint.
	InputSchemaCanonical  []byte
	OutputSchemaCanonical []byte
	// InputSchemaFloat64s reports that every number of
	// InputSchemaCanonical is written as encoding/json writes the float64
	// it decodes to, as the canonical writer found when it wrote them. Its
	// canon.SchemaFingerprint is then canon.Fingerprint of it.
	InputSchemaFloat64s bool
	// InputSchemaKeysDistinct and OutputSchemaKeysDistinct report that no
	// two keys of one schema object of the schema fill the same field of
	// jsonschema.Schema, whichever order encoding/json reads them in: the
	// loader's own decoder read the schema, and it leaves to jsonschema-go
	// any schema object with a repeated keyword or a key that matches one
	// only up to case. Every other object decodes into a map, where only
	// the last of repeated keys counts, as in the canonical JSON. Parsing
	// InputSchemaCanonical then gives InputSchema again (up to the bytes of
	// "default" values). When false, nothing is known.
	InputSchemaKeysDistinct  bool
	OutputSchemaKeysDistinct bool
	// Annotations are the server's hints (not trusted); nil when absent.
	Annotations *Annotations
	// Icons and Meta are the tool's icons (a JSON array) and _meta (a JSON
	// object) as they appear in the file, nil when absent or null.
	Icons, Meta json.RawMessage
	// TaskSupport is the tool's execution.taskSupport (MCP 2025-11-25):
	// "" when absent, else TaskForbidden, TaskOptional or TaskRequired. A
	// value the loader does not know is TaskRequired, with a warning: a
	// tool that may need task augmentation is not offered.
	TaskSupport string
}

// The values of Tool.TaskSupport.
const (
	TaskForbidden = impl.TaskForbidden
	TaskOptional  = impl.TaskOptional
	TaskRequired  = impl.TaskRequired
)

// Annotations are MCP tool annotations. They are shown, never used.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Pos is a 1-based position in the classification file.
type Pos struct{ Line, Col int }

// Classification is a loaded NAME.ocp.yaml file.
type Classification struct {
	// File is the file name as given.
	File string
	// Digest is "sha256:<hex>" of the file's bytes.
	Digest string
	// Version is the file format version (1).
	Version int
	// Tiers are ordered lowest first.
	Tiers []string
	// Default applies to tools the file does not list.
	Default Defaults
	// Tools are the listed tools, in file order.
	Tools []*Entry
}

// Defaults is the classification's "default" section.
type Defaults struct {
	Pos     Pos
	Tier    string
	Scopes  []string
	Failure string
	// ConfirmTTL is the default confirm TTL (0: model.DefaultConfirmTTL).
	ConfirmTTL time.Duration
}

// Access is "read" or "write".
type Access string

// The two access values.
const (
	AccessRead  Access = "read"
	AccessWrite Access = "write"
)

// Entry is one tool's classification.
type Entry struct {
	// Name is the MCP tool name (the key under "tools").
	Name string
	// Pos is the position of the key.
	Pos Pos
	// Access is always set (an entry without it is a load error).
	Access Access
	// Tier is empty when the entry does not set one (default tier applies).
	Tier    string
	TierPos Pos
	Scopes  []string
	// Resource is the resource template, "" when unset.
	Resource    string
	ResourcePos Pos
	// Confirm is nil when unset.
	Confirm *Confirm
	// Failure is the safe failure text, "" when unset.
	Failure string
}

// Confirm is an entry's "confirm" section.
type Confirm struct {
	Prompt    string
	PromptPos Pos
	// TTL is 0 when unset.
	TTL time.Duration
}
