// Package notesserver is a small MCP server written with the go-sdk, for
// ocpgen's end-to-end tests: a note store whose read_graph tool shares its
// name (not its schema) with @modelcontextprotocol/server-memory's, so that
// a Hub fronting both must name one of them (see TestThreeServersOneHub).
// The tests serve it over Streamable HTTP in-process; cmd/notes-server
// serves it over stdio, for the snapshot (go generate ./e2e).
package notesserver

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Note is one stored note.
type Note struct {
	Title string `json:"title" jsonschema:"the note's title"`
	Body  string `json:"body" jsonschema:"the note's text"`
}

// ReadGraphIn are read_graph's arguments.
type ReadGraphIn struct {
	Contains string `json:"contains,omitempty" jsonschema:"only the notes whose title contains this text"`
}

// ReadGraphOut is read_graph's result.
type ReadGraphOut struct {
	Notes []Note `json:"notes"`
}

// AddNoteOut is add_note's result.
type AddNoteOut struct {
	Count int `json:"count" jsonschema:"how many notes are stored now"`
}

// Store is the server's state: the notes, in the order they were added.
type Store struct {
	mu    sync.Mutex
	notes []Note
}

// Notes returns the stored notes.
func (s *Store) Notes() []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Note(nil), s.notes...)
}

// New returns the server over a new, empty store. It speaks every MCP
// revision the go-sdk does, or only those of versions when any are given.
func New(versions ...string) (*mcp.Server, *Store) {
	st := &Store{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, &mcp.ServerOptions{SupportedProtocolVersions: versions})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "read_graph",
		Description: "List the stored notes, optionally only those whose title contains a text.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(_ context.Context, _ *mcp.CallToolRequest, in ReadGraphIn) (*mcp.CallToolResult, ReadGraphOut, error) {
		out := ReadGraphOut{Notes: []Note{}}
		for _, n := range st.Notes() {
			if strings.Contains(n.Title, in.Contains) {
				out.Notes = append(out.Notes, n)
			}
		}
		return nil, out, nil
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "add_note",
		Description: "Store a new note.",
	}, func(_ context.Context, _ *mcp.CallToolRequest, in Note) (*mcp.CallToolResult, AddNoteOut, error) {
		if in.Title == "" {
			return nil, AddNoteOut{}, errors.New("a note needs a title")
		}
		st.mu.Lock()
		defer st.mu.Unlock()
		st.notes = append(st.notes, in)
		return nil, AddNoteOut{Count: len(st.notes)}, nil
	})
	return srv, st
}
