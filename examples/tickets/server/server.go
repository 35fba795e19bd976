// Package server is the example's MCP server: a small support-ticket desk
// built with the go-sdk, with read tools and write tools. It knows nothing of
// OCP; the Hub in ../hub fronts it through the generated package ../ticketsocp.
package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Ticket is one support ticket.
type Ticket struct {
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Priority string   `json:"priority"`
	Status   string   `json:"status"`
	Tags     []string `json:"tags,omitempty"`
}

// Desk is the server's state.
type Desk struct {
	mu      sync.Mutex
	next    int
	tickets map[string]*Ticket
}

// NewDesk returns a desk holding two tickets.
func NewDesk() *Desk {
	d := &Desk{tickets: map[string]*Ticket{}}
	d.add("Printer on 3rd floor jams", "normal", nil)
	d.add("VPN drops every hour", "high", []string{"network"})
	return d
}

func (d *Desk) add(title, priority string, tags []string) *Ticket {
	d.next++
	t := &Ticket{ID: "T-" + strconv.Itoa(100+d.next), Title: title, Priority: priority, Status: "open", Tags: tags}
	d.tickets[t.ID] = t
	return t
}

func (d *Desk) list(status string) []Ticket {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Ticket
	for _, t := range d.tickets {
		if status == "" || t.Status == status {
			out = append(out, *t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func schema(s string) json.RawMessage { return json.RawMessage(s) }

func jsonResult(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}

func toolError(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// New returns the MCP server over desk.
func New(desk *Desk) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "tickets", Version: "1.0.0"}, nil)

	s.AddTool(&mcp.Tool{
		Name:        "list_tickets",
		Description: "List tickets, optionally only those with the given status.",
		InputSchema: schema(`{"type":"object","properties":{"status":{"type":"string","enum":["open","closed"],"description":"Only tickets with this status."},"limit":{"type":"integer","minimum":1,"maximum":100,"default":20}},"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct {
			Status string `json:"status"`
			Limit  *int   `json:"limit"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return toolError("bad arguments: %v", err), nil
		}
		ts := desk.list(a.Status)
		if a.Limit != nil && *a.Limit < len(ts) {
			ts = ts[:*a.Limit]
		}
		return jsonResult(map[string]any{"tickets": ts})
	})

	s.AddTool(&mcp.Tool{
		Name:        "ticket_stats",
		Description: "How many tickets are open, as a card, a sentence to speak and the figures.",
		InputSchema: schema(`{"type":"object","properties":{},"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		open, closed := len(desk.list("open")), len(desk.list("closed"))
		// The {card, speech, figures} triple: whoever receives a bare
		// number invents its presentation, so the server says how to show
		// and say it.
		return jsonResult(map[string]any{
			"card":    map[string]any{"title": "Ticket desk", "rows": [][]string{{"Open", strconv.Itoa(open)}, {"Closed", strconv.Itoa(closed)}}},
			"speech":  fmt.Sprintf("%d tickets are open and %d are closed.", open, closed),
			"figures": map[string]int{"open": open, "closed": closed},
		})
	})

	s.AddTool(&mcp.Tool{
		Name:        "create_ticket",
		Description: "Open a new ticket.",
		InputSchema: schema(`{"type":"object","properties":{"title":{"type":"string","minLength":1,"maxLength":200},"priority":{"type":"string","enum":["low","normal","high"],"default":"normal"},"tags":{"type":"array","items":{"type":"string"}}},"required":["title"],"additionalProperties":false}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct {
			Title    string   `json:"title"`
			Priority string   `json:"priority"`
			Tags     []string `json:"tags"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return toolError("bad arguments: %v", err), nil
		}
		if a.Priority == "" {
			a.Priority = "normal"
		}
		desk.mu.Lock()
		t := *desk.add(a.Title, a.Priority, a.Tags)
		desk.mu.Unlock()
		return jsonResult(t)
	})

	s.AddTool(&mcp.Tool{
		Name:        "close_ticket",
		Description: "Close a ticket.",
		InputSchema: schema(`{"type":"object","properties":{"id":{"type":"string","pattern":"^T-[0-9]+$"},"resolution":{"type":"string"}},"required":["id"],"additionalProperties":false}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return toolError("bad arguments: %v", err), nil
		}
		desk.mu.Lock()
		defer desk.mu.Unlock()
		t, ok := desk.tickets[a.ID]
		if !ok {
			return toolError("no ticket %s", a.ID), nil
		}
		t.Status = "closed"
		return jsonResult(*t)
	})

	s.AddTool(&mcp.Tool{
		Name:        "escalate_ticket",
		Description: "Escalate a ticket to another team.",
		InputSchema: schema(`{"type":"object","properties":{"id":{"type":"string"},"team":{"type":"string","enum":["network","facilities","security"]}},"required":["id","team"],"additionalProperties":false}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The escalation backend is down; its error text names an internal
		// host, which must never reach a model.
		return toolError("escalation failed: dial tcp db-primary.tickets.internal:5432: connect: connection refused"), nil
	})
	return s
}

// AddMergeTool adds a tool to a running server, as a server upgrade would;
// connected clients get notifications/tools/list_changed.
func AddMergeTool(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "merge_tickets",
		Description: "Merge two tickets into one.",
		InputSchema: schema(`{"type":"object","properties":{"from":{"type":"string"},"into":{"type":"string"}},"required":["from","into"]}`),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return toolError("not implemented"), nil
	})
}

func ptr[T any](v T) *T { return &v }
