package ocp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// MuxServer is one fronted MCP server of a [Mux]: its name, the names its
// tools are offered under, and the configuration of its gate.
//
// A tool's exposed name is Rename[name] if Rename has it, else Prefix+name,
// where name is the tool's generated name (the one the server lists and is
// always called with). With neither, the tool is exposed under its own
// name.
type MuxServer struct {
	// Name names the server: audit events, confirms (ConfirmRequest.Server)
	// and confirm digests carry it. Required, unique in the Mux, at most 64
	// bytes of A–Z, a–z, 0–9, '_', '-' and '.'. Keep it stable: a confirm
	// pending on another replica is routed by it.
	Name string
	// Prefix is put before the name of every generated tool that Rename
	// does not name (e.g. "github_"). Empty means none.
	Prefix string
	// Rename maps a generated tool name to the name it is exposed under,
	// instead of Prefix+name. Every key must be a tool of
	// Config.Catalogue.
	Rename map[string]string
	// Config configures the server's gate as for [NewGate], except that
	// Advertise must be nil (the Mux advertises every server's tools
	// through MuxConfig.Advertise) and Broker must be nil or
	// MuxConfig.Broker (the Mux gives every gate that one broker). Its
	// ACL sees each tool as generated (Descriptor.Name is the generated
	// name); its Approver sees the ConfirmRequest peers are shown (Tool is
	// the exposed name, Server is Name).
	Config Config
}

// MuxConfig configures a [Mux].
type MuxConfig struct {
	// Servers are the fronted servers, each with its own gate. At least
	// one is required.
	Servers []MuxServer
	// Broker carries the write confirms of every server. Required when a
	// catalogue holds a write.
	Broker ConfirmBroker
	// Advertise is called with the merged advertisement (every server's
	// advertised tools under their exposed names, sorted by name) whenever
	// one server's advertised set changes, serialized. It runs while that
	// server's sync holds its lock: it must not block for long, and may call
	// Mux.Advertisement. Optional.
	Advertise func(ToolsAdvertise)
	// Audit receives the Mux's own events: calls of a name no server
	// exposes, and confirm decisions it cannot route. Each gate's events go
	// to its Config.Audit, with a "server" attribute. Nil means
	// slog.Default().
	Audit *slog.Logger
}

// Mux offers the tools of several MCP servers, each behind its own [Gate],
// as one catalogue: one tools.advertise, one Dispatch that routes each
// action.request by its exposed name to the server's gate (which calls the
// server with the tool's own name), and one view of the confirms on the
// shared broker.
//
// Names are the operator's choice, never chance: [NewMux] refuses a
// configuration in which two tools, of any generated catalogue and whether
// or not a server lists them now, would be exposed under the same name, so
// no later sync can create a collision.
//
// Each server stays on its own: its failure, reconnection or drift changes
// only its own part of the advertisement and voids only the confirms
// pending on it; the other servers keep serving.
//
// An entry of MuxConfig is a [Config], not an existing *Gate, because the
// Mux must own what a gate fixes when it is built: its Advertise callback
// (the Mux merges), its broker (one for all, so Subscribe and Pending see
// each confirm once), its server name and its exposed names (they enter
// its confirms, their digests, its advertisement and its audit events),
// and its registration with the server's tool lists, which a Server allows
// once. A Mux is safe for concurrent use.
type Mux struct {
	audit     *slog.Logger
	broker    ConfirmBroker
	advertise func(ToolsAdvertise)

	gates  []*Gate                // in MuxConfig.Servers order; immutable
	byName map[string]*Gate       // by server name; immutable
	byTool map[string]*Gate       // by exposed tool name; immutable
	byType map[reflect.Type]*Gate // nil: several servers serve the type (see servingType); immutable

	// advMu serializes the merges and their delivery to Advertise; mu
	// guards ads and adv, and is not held while Advertise runs, so the
	// callback may call Advertisement.
	advMu sync.Mutex
	mu    sync.Mutex
	ads   [][]ToolDef // each gate's advertised tools, by index
	adv   ToolsAdvertise
}

// Bounds of a server name, and of an exposed tool name (MCP's).
const (
	maxServerName = 64
	maxToolName   = 128
)

// validName reports whether s is 1 to max bytes of A–Z, a–z, 0–9, '_', '-'
// and '.', the characters MCP allows in a tool name.
func validName(s string, max int) bool {
	if s == "" || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// sameValue reports whether a and b are the same interface value; values of
// a type that cannot be compared are never the same.
func sameValue(a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// exposure is where a Mux exposes one generated tool.
type exposure struct {
	server, tool string // the server's name and the tool's generated name
}

// NewMux verifies every server's configuration and naming, builds a gate
// for each, and only then registers each gate with its server, in order.
// It refuses, naming both servers and tools, any two tools that would be
// exposed under one name (checking every generated tool of every
// catalogue, advertised or not); a Rename key that is not a tool of the
// server's catalogue; an exposed name that is not a valid MCP tool name
// (1–128 bytes of A–Z, a–z, 0–9, '_', '-', '.'; a name left as generated
// is accepted as the gate accepts it); and every error of [NewGate].
func NewMux(cfg MuxConfig) (*Mux, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("ocp mux: MuxConfig.Servers is empty")
	}
	m := &Mux{
		audit:     cfg.Audit,
		broker:    cfg.Broker,
		advertise: cfg.Advertise,
		byName:    make(map[string]*Gate, len(cfg.Servers)),
		byTool:    make(map[string]*Gate),
		byType:    make(map[reflect.Type]*Gate),
		ads:       make([][]ToolDef, len(cfg.Servers)),
		adv:       ToolsAdvertise{Tools: []ToolDef{}},
	}
	if m.audit == nil {
		m.audit = slog.Default()
	}
	var errs []error
	seen := make(map[string]bool, len(cfg.Servers))
	exposed := make(map[string]exposure)
	expose := make([]map[string]string, len(cfg.Servers))
	for i, s := range cfg.Servers {
		switch {
		case !validName(s.Name, maxServerName):
			errs = append(errs, fmt.Errorf("server %d: name %s is not 1 to %d bytes of A-Z, a-z, 0-9, '_', '-' and '.'", i, truncQuote(s.Name), maxServerName))
			continue
		case seen[s.Name]:
			errs = append(errs, fmt.Errorf("two servers are named %q", s.Name))
			continue
		}
		seen[s.Name] = true
		c := s.Config
		switch {
		case c.Catalogue == nil:
			errs = append(errs, fmt.Errorf("server %q: Config.Catalogue is nil", s.Name))
			continue
		case c.Advertise != nil:
			errs = append(errs, fmt.Errorf("server %q: Config.Advertise is set; the Mux advertises every server's tools through MuxConfig.Advertise", s.Name))
		case c.Broker != nil && !sameValue(c.Broker, cfg.Broker):
			errs = append(errs, fmt.Errorf("server %q: Config.Broker is not MuxConfig.Broker; the servers of a Mux share one broker (leave Config.Broker nil)", s.Name))
		}
		for j := range i {
			if c.Server != nil && sameValue(c.Server, cfg.Servers[j].Config.Server) {
				errs = append(errs, fmt.Errorf("servers %q and %q have the same Config.Server; each needs its own", cfg.Servers[j].Name, s.Name))
			}
		}
		names := make(map[string]bool)
		for _, h := range c.Catalogue.Tools() {
			names[h.Desc.Name] = true
		}
		for _, from := range slices.Sorted(maps.Keys(s.Rename)) {
			if !names[from] {
				errs = append(errs, fmt.Errorf("server %q: Rename names %s, which is not a tool of its catalogue", s.Name, truncQuote(from)))
			}
		}
		expose[i] = make(map[string]string, len(names))
		for _, name := range slices.Sorted(maps.Keys(names)) {
			e, renamed := s.Rename[name]
			if !renamed {
				e = s.Prefix + name
			}
			expose[i][name] = e
			if e != name && !validName(e, maxToolName) {
				errs = append(errs, fmt.Errorf("server %q: tool %s would be exposed as %s, which is not a valid tool name (1 to %d bytes of A-Z, a-z, 0-9, '_', '-' and '.'); rename it", s.Name, truncQuote(name), truncQuote(e), maxToolName))
				continue
			}
			if other, dup := exposed[e]; dup {
				if other.server == s.Name {
					errs = append(errs, fmt.Errorf("server %q: tools %q and %q would both be exposed as %q; change its Rename", s.Name, other.tool, name, e))
				} else {
					errs = append(errs, fmt.Errorf("servers %q and %q would both expose a tool named %q (%q's tool %q, %q's tool %q); give one of them a Prefix or a Rename", other.server, s.Name, e, other.server, other.tool, s.Name, name))
				}
				continue
			}
			exposed[e] = exposure{s.Name, name}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("ocp mux: %w", err)
	}
	for i, s := range cfg.Servers {
		c := s.Config
		c.Broker = cfg.Broker
		c.Advertise = func(a ToolsAdvertise) { m.advertised(i, a) }
		g, err := newGate(c, s.Name, expose[i])
		if err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", s.Name, err))
			continue
		}
		m.gates = append(m.gates, g)
		m.byName[s.Name] = g
		for name, gt := range g.tools {
			m.byTool[name] = g
			if _, dup := m.byType[gt.typ]; dup {
				m.byType[gt.typ] = nil
				continue
			}
			m.byType[gt.typ] = g
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("ocp mux: %w", err)
	}
	for _, g := range m.gates {
		if err := g.start(); err != nil {
			// Only a Server that refuses to be watched gets here; the
			// servers before it are watched by gates nobody can reach.
			return nil, fmt.Errorf("ocp mux: server %q: %w (the servers before it are registered: close them)", g.server, err)
		}
	}
	return m, nil
}

// advertised receives gate i's new advertisement and passes on the merge.
func (m *Mux) advertised(i int, a ToolsAdvertise) {
	m.advMu.Lock()
	defer m.advMu.Unlock()
	m.mu.Lock()
	m.ads[i] = a.Tools
	n := 0
	for _, t := range m.ads {
		n += len(t)
	}
	merged := make([]ToolDef, 0, n)
	for _, t := range m.ads {
		merged = append(merged, t...)
	}
	slices.SortFunc(merged, func(x, y ToolDef) int { return strings.Compare(x.Name, y.Name) })
	m.adv = ToolsAdvertise{Tools: merged}
	out := cloneAdvertise(m.adv)
	m.mu.Unlock()
	if m.advertise != nil {
		_ = protectHook(context.Background(), m.audit, "", "MuxConfig.Advertise", func() error { m.advertise(out); return nil })
	}
}

// Advertisement returns the merged advertisement: the tools every server
// advertises now, under their exposed names, sorted by name.
func (m *Mux) Advertisement() ToolsAdvertise {
	m.mu.Lock()
	defer m.mu.Unlock()
	return cloneAdvertise(m.adv)
}

// Gate returns the gate of the server named name, or nil. Its methods work
// as a lone gate's, on that server's tools under their exposed names.
func (m *Mux) Gate(name string) *Gate { return m.byName[name] }

// Dispatch answers one action.request: the gate of the server that exposes
// req.Tool answers it as [Gate.Dispatch] does, and calls the server with
// the tool's generated name. A name no server exposes is unknown.
func (m *Mux) Dispatch(ctx context.Context, p Principal, req ActionRequest) ActionResult {
	if g := m.byTool[req.Tool]; g != nil {
		return g.Dispatch(ctx, p, req)
	}
	return m.unknown(ctx, p, req.ID, req.Tool, "no server of the mux exposes this tool")
}

// Call runs a typed call: the gate of the server whose catalogue generated
// args's type answers it as [Gate.Call] does. When several servers are
// fronted with the same generated package, the type names no one server:
// the call is unknown (audited), and the Hub calls Mux.Gate(name).Call.
func (m *Mux) Call(ctx context.Context, p Principal, args Args) ActionResult {
	typ := argsStructType(args)
	g, ok := m.byType[typ]
	if g != nil {
		return g.Call(ctx, p, args)
	}
	detail := "arguments of no generated tool of any server of the mux"
	if ok {
		detail = "arguments of a tool that several servers serve (" + m.servingType(typ) + "): call Mux.Gate(server).Call"
	}
	return m.unknown(ctx, p, "call-"+newRef(), fmt.Sprintf("(%T)", args), detail)
}

// servingType names the servers that have a tool whose argument struct is
// typ, in MuxConfig.Servers order (a gate has at most one such tool).
func (m *Mux) servingType(typ reflect.Type) string {
	var names []string
	for _, g := range m.gates {
		if g.byType[typ] != nil {
			names = append(names, g.server)
		}
	}
	return strings.Join(names, ", ")
}

// unknown refuses a call no gate owns, audited as a gate audits it (a
// call event of no server).
func (m *Mux) unknown(ctx context.Context, p Principal, id, tool, detail string) ActionResult {
	if ctx == nil {
		ctx = context.Background()
	}
	c := &call{ctx: ctx, id: id, p: p, tool: tool}
	c.log(m.audit, "", slog.LevelWarn, AuditCatalogue, string(ReasonUnknown), []slog.Attr{slog.String("detail", detail)})
	return refused(id, ReasonUnknown, textUnknown)
}

// Resolve takes a peer's decision on a pending confirm of any server: it
// looks the confirm up on the shared broker and hands the decision to the
// gate of the server the confirm is for (ConfirmRequest.Server), which
// checks it as [Gate.Resolve] does: the confirm must have been opened under
// that gate's policy, and the approver rule holds. A confirm for no server
// of the mux is refused with [ErrConfirmForbidden]. The errors are those of
// Gate.Resolve.
func (m *Mux) Resolve(ctx context.Context, peer Principal, d ConfirmDecision) error {
	if ctx == nil {
		ctx = context.Background()
	}
	req, err := lookupDecision(ctx, m.broker, m.audit, "", peer, d)
	if err != nil {
		return err
	}
	g := m.byName[req.Server]
	if g == nil {
		return refuseDecision(ctx, m.audit, decisionAttrs(peer, d), ErrConfirmForbidden, fmt.Sprintf("the confirm is for server %s, tool %s, which this mux does not front", truncQuote(req.Server), truncQuote(req.Tool)))
	}
	return g.decide(ctx, peer, d, req)
}

// MayDecide is [Gate.MayDecide] on the gate of the server r is for; a
// confirm for no server of the mux is [ErrConfirmForbidden].
func (m *Mux) MayDecide(ctx context.Context, peer Principal, r ConfirmRequest) error {
	if peer.Peer == "" {
		return ErrConfirmSelf
	}
	g := m.byName[r.Server]
	if g == nil {
		return ErrConfirmForbidden
	}
	return g.MayDecide(ctx, peer, r)
}

// shown is the gate of this mux that shows r to peers: the gate of
// r.Server, if r was opened under its policy (see [Gate.Pending]).
func (m *Mux) shown(r ConfirmRequest) *Gate {
	if g := m.byName[r.Server]; g != nil {
		return g.shown(r)
	}
	return nil
}

// seen reports whether a gate of this mux has opened, listed or announced
// the confirm id.
func (m *Mux) seen(id string) bool {
	for _, g := range m.gates {
		if g.seen.has(id) {
			return true
		}
	}
	return false
}

// Pending returns the confirms of this mux's servers still waiting for a
// decision, each as its server's [Gate.Pending] would list it, from one
// query of the shared broker.
func (m *Mux) Pending(ctx context.Context) ([]ConfirmRequest, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	return pendingOn(ctx, m.broker, m.audit, "", m.shown)
}

// Subscribe is [Gate.Subscribe] for every server: fn sees each confirm of
// this mux's servers opened once (one subscription on the shared broker,
// however many servers), as its server's gate chooses them, and the end of
// every confirm a gate of the mux has opened, listed or announced.
func (m *Mux) Subscribe(fn func(ConfirmEvent)) (stop func()) {
	return subscribeOn(m.broker, m.shown, m.seen, fn)
}

// withServer returns attrs with the gate's "server" attribute, if it has
// one.
func (g *Gate) withServer(attrs ...slog.Attr) []slog.Attr { return withServer(g.server, attrs...) }

// withServer returns attrs with a "server" attribute, unless server is "".
func withServer(server string, attrs ...slog.Attr) []slog.Attr {
	if server != "" {
		attrs = append(attrs, slog.String("server", server))
	}
	return attrs
}
