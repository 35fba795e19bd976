package ocp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/impl"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// Bounds of a gate. Config.MaxResources, MaxResultBytes, MaxArgsBytes and
// MaxArgsValues default to the first four.
const (
	defaultMaxResources   = 256
	defaultMaxResultBytes = 4 << 20
	defaultMaxArgsBytes   = 4 << 20
	defaultMaxArgsValues  = 1 << 18
	// maxResourceBytes bounds the bytes of all the resources of one call.
	maxResourceBytes = 1 << 20
	// maxServerName bounds a server name of NewMux, and maxToolName an
	// exposed tool name (MCP's bound).
	maxServerName = 64
	maxToolName   = 128
)

// Config configures the gate of one server: a [Gate] of [NewGate], or one
// server of [NewMux].
type Config struct {
	// Catalogue is the generated package's Catalogue. Required.
	Catalogue *Catalogue
	// Server is the fronted MCP server, usually the [*Client] of [Dial] or
	// [Connect]. Required. The gate calls it, and receives its tool lists
	// (see [Server.WatchTools]) from the moment NewGate returns.
	Server Server
	// ACL is the resource part of authorization. Required: there is no
	// implicit allow-all; use [AllowAllResources] to choose one.
	ACL ACL
	// Broker carries write confirms to peers. Required when the catalogue
	// holds a write (every unclassified tool is one).
	Broker ConfirmBroker
	// Audit receives one structured event per stage of every call (see
	// [Step]), "ocp.sync" for every catalogue sync, "ocp.decision" for
	// every confirm decision, "ocp.panic" for every panic recovered in a
	// hook, and the raw text of every server error. Nil means
	// slog.Default().
	Audit *slog.Logger
	// Advertise is called with the new advertisement on the first catalogue
	// sync and whenever the advertised set changes, serialized, while the
	// sync holds its lock (it may call [Gate.Advertisement]). Optional.
	Advertise func(ToolsAdvertise)
	// MaxResources bounds how many resources one call may render (a
	// template with array placeholders renders their product); a call
	// beyond it is invalid. Zero means 256.
	MaxResources int
	// MaxResultBytes bounds the output of a server result; a larger one is
	// failed (the size goes to the audit log). Zero means 4 MiB.
	MaxResultBytes int
	// MaxArgsBytes bounds the length of a call's arguments (their JSON
	// text) and of the bytes forwarded for them; a longer call is invalid
	// (rules "size" and "forwarded-size"), refused before anything reads
	// it. Zero means 4 MiB. A Hub may lower it, or raise it up to 64 MiB;
	// NewGate refuses a negative or larger one.
	MaxArgsBytes int
	// MaxArgsValues bounds how many JSON values a call's arguments hold
	// (every object, array, member value, element, string, number and
	// literal counts one); a call with more is invalid (rule
	// "value-count"), refused by the parse before it holds more. Zero
	// means 262,144. A Hub may lower it, or raise it up to 4,194,304;
	// NewGate refuses a negative or larger one. With both bounds a call's
	// memory is bounded (docs/security-model.md, "Bounds at run time").
	MaxArgsValues int
	// Approver, if set, is asked after the default approver rule passes:
	// a decision on a confirm is accepted only from a principal authorized,
	// with its current rights (see Reauthorize), for the same call (tier,
	// scopes and the ACL on the same resources), and Approver may refuse
	// more (only the requester's own devices, an approver role). It is
	// given the decider's current rights. An error refuses the decision;
	// its text goes to the audit log only.
	Approver func(ctx context.Context, approver Principal, r ConfirmRequest) error
	// Reauthorize returns the principal's current rights, for the check of
	// the requester after a write's confirm is approved (rights may have
	// been revoked while it waited) and of every decider when its decision
	// arrives. An error, or a principal with another ID, forbids the call
	// or refuses the decision. Nil re-checks the same principal (the ACL is
	// consulted again either way).
	Reauthorize func(ctx context.Context, p Principal) (Principal, error)
	// Observer, if set, watches every call's stages and every catalogue
	// sync for telemetry (see [Observer]; package ocpotel implements it
	// with OpenTelemetry). It is told no argument values, prompts,
	// resources, principals or error texts. Nil observes nothing, at no
	// cost.
	Observer Observer
}

// MuxServer is one fronted MCP server of [NewMux]: its name, the names its
// tools are offered under, and the configuration of its gate.
//
// A tool's exposed name is Rename[name] if Rename has it, else Prefix+name,
// where name is the tool's generated name (the one the server lists and is
// always called with). With neither, the tool is exposed under its own
// name.
type MuxServer struct {
	// Name names the server: audit events, confirms (ConfirmRequest.Server)
	// and confirm digests carry it. Required, unique in the Gate, at most 64
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
	// Advertise must be nil (the Gate advertises every server's tools
	// through MuxConfig.Advertise) and Broker must be nil or
	// MuxConfig.Broker (every server shares that one broker). Its ACL sees
	// each tool as generated (Descriptor.Name is the generated name); its
	// Approver sees the ConfirmRequest peers are shown (Tool is the exposed
	// name, Server is Name).
	Config Config
}

// MuxConfig configures a [Gate] of several servers (see [NewMux]).
type MuxConfig struct {
	// Servers are the fronted servers, each with its own policy. At least
	// one is required.
	Servers []MuxServer
	// Broker carries the write confirms of every server. Required when a
	// catalogue holds a write.
	Broker ConfirmBroker
	// Advertise is called with the merged advertisement (every server's
	// advertised tools under their exposed names, sorted by name) whenever
	// one server's advertised set changes, serialized. It runs while that
	// server's sync holds its lock: it must not block for long, and may
	// call [Gate.Advertisement]. Optional.
	Advertise func(ToolsAdvertise)
	// Audit receives the events of no one server: calls of a name no server
	// exposes, and confirm decisions it cannot route. Each server's events
	// go to its Config.Audit, with a "server" attribute. Nil means
	// slog.Default().
	Audit *slog.Logger
}

// Gate enforces the OCP MCP profile on every call of the generated tools of
// one MCP server ([NewGate]) or of several ([NewMux]), offered as one
// catalogue: one tools.advertise, one [Gate.Dispatch] that routes each
// action.request by its exposed name to its server's policy (the server is
// called with the tool's generated name), and one view of the confirms on
// the broker. Before a server's first tool list none of its tools is
// advertised, and every call of them is unknown. A Gate is safe for
// concurrent use.
type Gate struct {
	servers []*serverGate // in MuxConfig.Servers order; immutable
	byName  map[string]*serverGate
	byTool  map[string]*serverGate // by exposed tool name
	// byType finds a typed call's server; a nil value: several servers
	// serve the type (see servingType).
	byType map[reflect.Type]*serverGate
	// parts are the Gates of each server alone (see [Gate.Server]).
	parts map[string]*Gate

	broker ConfirmBroker
	audit  *slog.Logger
	// server is the server name of the events that concern no one server:
	// its only server's name, or "" for several.
	server    string
	advertise func(ToolsAdvertise)
	// advertiseHook names advertise in the audit of its panics.
	advertiseHook string
	// advMu serializes the merges and their delivery to advertise.
	advMu sync.Mutex
}

// serverGate is the policy of one fronted server: its verified tools, its
// advertised catalogue, and the stages that every call of them runs.
type serverGate struct {
	cfg   Config
	audit *slog.Logger
	// server names the fronted server in NewMux ("" in NewGate): audit
	// events, confirms and their digests carry it.
	server string
	// policy is the catalogue's policy digest: with server, it names the
	// confirms this gate opens, and the only ones it decides, lists or
	// announces (see [serverGate.owns]).
	policy string
	// seen holds the confirms this gate has opened, listed or announced,
	// whose ends it announces.
	seen  confirmSeen
	tools map[string]*gateTool // by exposed name; immutable
	// byServer finds a tool by the name the server lists (the generated
	// one). Without renames it is tools.
	byServer map[string]*gateTool // immutable
	// byType finds a typed call's tool from its argument struct type.
	byType map[reflect.Type]*gateTool // immutable
	// advertised tells the Gate that this server's advertised set changed.
	advertised func()
	// allowsAll says that cfg.ACL is AllowAllResources, which reads nothing:
	// the gate skips the hook and the copies made for it.
	allowsAll bool

	syncMu sync.Mutex
	state  atomic.Pointer[catState]
}

// gateTool is what the gate precomputes for one generated tool.
type gateTool struct {
	desc   *Descriptor       // the gate's own copy
	typ    reflect.Type      // the argument struct
	args   *argengine.Engine // compiled once, at NewGate
	output *argengine.Schema // the output schema; nil: none
	// outputFP is the output schema's fingerprint, as a live listing gives
	// it ("" without one), for the drift audit.
	outputFP string
	confirm  bool // writes (every unclassified tool is one)
	// name is the exposed name: what is advertised, dispatched and shown in
	// a confirm. It is desc.Name unless NewMux renamed the tool; the server
	// is always called with desc.Name.
	name string
	// resource and prompt are the policy's templates, bound to typ.
	resource, prompt template
	// argsRead is what a call decodes of its typed arguments: the fields
	// its resource template reads (a prompt renders from the forwarded
	// bytes), an array to one element more than Config.MaxResources (see
	// template.reads). Nil when the template reads none: then a call makes
	// no typed arguments.
	argsRead *argengine.Typed
}

// NewGate returns a Gate over cfg.Server. It verifies the generated
// catalogue before serving it: the policy digest the generator emitted must
// match the tools as they are (a policy modified in memory is refused), and
// every tool's schema must resolve and match its fingerprint, its tier must
// be one of the catalogue's, its templates must bind to its argument
// fields, and a write must have a confirm TTL and a failure text. Nothing
// is defaulted: the generator resolved every policy. On success the gate
// registers with cfg.Server for its tool lists.
func NewGate(cfg Config) (*Gate, error) {
	sg, err := newServerGate(cfg, "", nil)
	if err != nil {
		return nil, err
	}
	g := newGate([]*serverGate{sg}, cfg.Broker, sg.audit, cfg.Advertise)
	g.advertiseHook = "Advertise"
	if err := sg.start(); err != nil {
		return nil, err
	}
	return g, nil
}

// NewMux returns a Gate over several servers, each with its own
// configuration, offered as one catalogue. Names are the operator's choice,
// never chance: it refuses, naming both servers and tools, any two tools
// that would be exposed under one name (checking every generated tool of
// every catalogue, advertised or not, so no later sync can create a
// collision); a Rename key that is not a tool of the server's catalogue; an
// exposed name that is not a valid MCP tool name (1–128 bytes of A–Z, a–z,
// 0–9, '_', '-', '.'; a name left as generated is accepted as NewGate
// accepts it); and every error of [NewGate]. Only when every server is
// verified does it register each with its server, in order.
//
// Each server stays on its own: its failure, reconnection or drift changes
// only its own part of the advertisement and voids only the confirms
// pending on it; the other servers keep serving. An entry is a [Config],
// not an existing Gate, because the Gate must own what fixes a server's
// policy when it is built: its broker (one for all, so Subscribe and
// Pending see each confirm once), its server name and exposed names (they
// enter its confirms, their digests, its advertisement and its audit
// events), and its registration with the server's tool lists, which a
// Server allows once.
func NewMux(cfg MuxConfig) (*Gate, error) {
	if len(cfg.Servers) == 0 {
		return nil, errors.New("ocp mux: MuxConfig.Servers is empty")
	}
	expose, errs := checkMux(cfg)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("ocp mux: %w", err)
	}
	servers := make([]*serverGate, 0, len(cfg.Servers))
	for i, s := range cfg.Servers {
		c := s.Config
		c.Broker, c.Advertise = cfg.Broker, nil
		sg, err := newServerGate(c, s.Name, expose[i])
		if err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", s.Name, err))
			continue
		}
		servers = append(servers, sg)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("ocp mux: %w", err)
	}
	audit := cfg.Audit
	if audit == nil {
		audit = slog.Default()
	}
	g := newGate(servers, cfg.Broker, audit, cfg.Advertise)
	g.advertiseHook = "MuxConfig.Advertise"
	for _, sg := range servers {
		if err := sg.start(); err != nil {
			// Only a Server that refuses to be watched gets here; the
			// servers before it are watched by gates nobody can reach.
			return nil, fmt.Errorf("ocp mux: server %q: %w (the servers before it are registered: close them)", sg.server, err)
		}
	}
	return g, nil
}

// checkMux checks the names of cfg, and returns each server's exposed names
// (generated name → exposed name).
func checkMux(cfg MuxConfig) (expose []map[string]string, errs []error) {
	type exposure struct{ server, tool string }
	seen := make(map[string]bool, len(cfg.Servers))
	exposed := make(map[string]exposure)
	expose = make([]map[string]string, len(cfg.Servers))
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
	return expose, errs
}

// newGate returns the Gate of the verified servers, with one part per server
// when there are several.
func newGate(servers []*serverGate, broker ConfirmBroker, audit *slog.Logger, advertise func(ToolsAdvertise)) *Gate {
	g := &Gate{
		servers:   servers,
		byName:    make(map[string]*serverGate, len(servers)),
		byTool:    make(map[string]*serverGate),
		byType:    make(map[reflect.Type]*serverGate),
		broker:    broker,
		audit:     audit,
		advertise: advertise,
	}
	if len(servers) == 1 {
		g.server = servers[0].server
	}
	for _, sg := range servers {
		if advertise != nil {
			sg.advertised = g.advertised
		}
		g.byName[sg.server] = sg
		for name, gt := range sg.tools {
			g.byTool[name] = sg
			if _, dup := g.byType[gt.typ]; dup {
				g.byType[gt.typ] = nil
				continue
			}
			g.byType[gt.typ] = sg
		}
	}
	if len(servers) == 1 {
		g.parts = map[string]*Gate{g.server: g}
		return g
	}
	g.parts = make(map[string]*Gate, len(servers))
	for _, sg := range servers {
		g.parts[sg.server] = newGate([]*serverGate{sg}, broker, sg.audit, nil)
	}
	return g
}

// Server returns the Gate of the server named name alone ("" for the server
// of [NewGate]), or nil: the same policy, under the same exposed names,
// whose Dispatch, Call, Pending and Subscribe see only that server's tools
// and confirms. It does not call Advertise.
func (g *Gate) Server(name string) *Gate { return g.parts[name] }

// newServerGate verifies cfg and builds the policy of server (its name in
// NewMux, or ""), exposing each generated tool under expose[name] (absent: its own
// name), without registering with cfg.Server: see [serverGate.start].
func newServerGate(cfg Config, server string, expose map[string]string) (*serverGate, error) {
	switch {
	case cfg.Catalogue == nil:
		return nil, errors.New("ocp gate: Config.Catalogue is nil")
	case cfg.Server == nil:
		return nil, errors.New("ocp gate: Config.Server is nil")
	case cfg.ACL == nil:
		return nil, errors.New("ocp gate: Config.ACL is nil; set an ACL, or choose ocp.AllowAllResources explicitly")
	case cfg.MaxArgsBytes < 0 || cfg.MaxArgsBytes > argengine.MaxLimitBytes:
		return nil, fmt.Errorf("ocp gate: Config.MaxArgsBytes is %d, not within 0 (the default, %d) to %d", cfg.MaxArgsBytes, defaultMaxArgsBytes, argengine.MaxLimitBytes)
	case cfg.MaxArgsValues < 0 || cfg.MaxArgsValues > argengine.MaxLimitValues:
		return nil, fmt.Errorf("ocp gate: Config.MaxArgsValues is %d, not within 0 (the default, %d) to %d", cfg.MaxArgsValues, defaultMaxArgsValues, argengine.MaxLimitValues)
	}
	if err := cfg.Catalogue.Verify(); err != nil {
		return nil, fmt.Errorf("ocp gate: %w", err)
	}
	if len(cfg.Catalogue.Tiers()) == 0 {
		return nil, errors.New("ocp gate: the catalogue has no tiers: it was generated without a classification file, so no principal could ever be authorized. Write one (ocpgen init -snapshot S -o NAME.ocp.yaml), classify the tools, and regenerate with -classify")
	}
	g := &serverGate{cfg: cfg, audit: cfg.Audit, server: server, policy: cfg.Catalogue.PolicyDigest(), tools: make(map[string]*gateTool), byType: make(map[reflect.Type]*gateTool),
		allowsAll: reflect.ValueOf(cfg.ACL).Pointer() == reflect.ValueOf(AllowAllResources).Pointer()}
	g.byServer = g.tools
	if expose != nil {
		g.byServer = make(map[string]*gateTool)
	}
	if g.audit == nil {
		g.audit = slog.Default()
	}
	if g.cfg.MaxResources <= 0 {
		g.cfg.MaxResources = defaultMaxResources
	}
	if g.cfg.MaxResultBytes <= 0 {
		g.cfg.MaxResultBytes = defaultMaxResultBytes
	}
	if g.cfg.MaxArgsBytes == 0 {
		g.cfg.MaxArgsBytes = defaultMaxArgsBytes
	}
	if g.cfg.MaxArgsValues == 0 {
		g.cfg.MaxArgsValues = defaultMaxArgsValues
	}
	lim := argengine.Limits{Bytes: g.cfg.MaxArgsBytes, Values: g.cfg.MaxArgsValues}
	var errs []error
	for _, h := range cfg.Catalogue.Tools() {
		name := h.Desc.Name
		gt, err := newGateTool(h, lim, g.cfg.MaxResources)
		if err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", name, err))
			continue
		}
		if cfg.Catalogue.TierRank(gt.desc.Policy.Tier) < 0 {
			errs = append(errs, fmt.Errorf("tool %q: tier %q is not one of the catalogue's tiers", name, gt.desc.Policy.Tier))
		}
		if gt.confirm && cfg.Broker == nil {
			errs = append(errs, fmt.Errorf("tool %q is a write and Config.Broker is nil", name))
		}
		if other := g.byType[gt.typ]; other != nil {
			errs = append(errs, fmt.Errorf("tools %q and %q have the same argument type %v", other.desc.Name, name, gt.typ))
		}
		gt.name = name
		if e, ok := expose[name]; ok {
			gt.name = e
		}
		if other := g.tools[gt.name]; other != nil {
			errs = append(errs, fmt.Errorf("tools %q and %q are both exposed as %q", other.desc.Name, name, gt.name))
		}
		g.tools[gt.name] = gt
		g.byServer[name] = gt
		g.byType[gt.typ] = gt
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("ocp gate: %w", err)
	}
	return g, nil
}

// start registers g with its server for the tool lists.
func (g *serverGate) start() error {
	if err := g.cfg.Server.WatchTools(g.syncCatalogue); err != nil {
		return fmt.Errorf("ocp gate: %w", err)
	}
	return nil
}

// newGateTool verifies one generated tool and precomputes what the gate
// needs for it, for calls within lim rendering at most maxResources
// resources.
func newGateTool(h *ocpimpl.Tool, lim argengine.Limits, maxResources int) (*gateTool, error) {
	typ, err := impl.ArgsType(h)
	if err != nil {
		return nil, err
	}
	d := h.Desc.Clone()
	pol := &d.Policy
	switch {
	case pol.Kind != ocpimpl.KindRead && pol.Kind != ocpimpl.KindWrite:
		return nil, fmt.Errorf("kind %d is neither read nor write", pol.Kind)
	case !pol.Classified && pol.Kind != ocpimpl.KindWrite:
		return nil, errors.New("an unclassified tool must be a write")
	case pol.Failure == "":
		return nil, errors.New("no failure text")
	case pol.Kind == ocpimpl.KindWrite && pol.ConfirmTTL <= 0:
		return nil, errors.New("a write without a confirm TTL")
	case !schemaFingerprintIs(d.InputSchema, d.Fingerprint):
		return nil, fmt.Errorf("input schema does not match its fingerprint %s", d.Fingerprint)
	case !impl.CallableWithoutTask(d.TaskSupport):
		return nil, fmt.Errorf("execution.taskSupport %s: the tool can only be called as a task, which the gate does not do", truncQuote(d.TaskSupport))
	}
	resource, err := bindTemplate(typ, pol.Resource, true)
	if err != nil {
		return nil, err
	}
	var prompt template
	if pol.Kind == ocpimpl.KindWrite {
		if prompt, err = bindTemplate(typ, pol.ConfirmPrompt, false); err != nil {
			return nil, err
		}
	}
	// A pattern with no ECMA-262 translation does not fail here: every
	// call of this tool is then refused (RulePatternUntranslatable).
	engine, err := argengine.Compile([]byte(d.InputSchema), typ, lim)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	var output *argengine.Schema
	var outputFP string
	if d.OutputSchema != "" {
		if outputFP, err = canon.SchemaFingerprint([]byte(d.OutputSchema)); err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
		if output, err = argengine.CompileSchema([]byte(d.OutputSchema)); err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
	}
	return &gateTool{
		output:   output,
		outputFP: outputFP,
		desc:     d,
		typ:      typ,
		args:     engine,
		confirm:  pol.Kind == ocpimpl.KindWrite,
		resource: resource,
		prompt:   prompt,
		argsRead: resource.reads(maxResources),
	}, nil
}

// schemaFingerprintIs reports whether the schema has the fingerprint fp.
func schemaFingerprintIs(schema, fp string) bool {
	got, err := canon.SchemaFingerprint([]byte(schema))
	return err == nil && got == fp
}

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

// withServer returns attrs with the gate's "server" attribute, if it has
// one.
func (g *serverGate) withServer(attrs ...slog.Attr) []slog.Attr {
	return withServer(g.server, attrs...)
}

// withServer returns attrs with a "server" attribute, unless server is "".
func withServer(server string, attrs ...slog.Attr) []slog.Attr {
	if server != "" {
		attrs = append(attrs, slog.String("server", server))
	}
	return attrs
}
