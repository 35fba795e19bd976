package ocp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/impl"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// Texts of refusals. They are fixed, so nothing a server or hook says reaches
// a model, and a denial reads as what it is, never as a tool's success.
const (
	textUnknown   = "Not performed: this tool is not available."
	textInvalid   = "Not performed: the arguments do not match the tool's input schema."
	textForbidden = "Not performed: the caller is not allowed to use this tool on these resources."
	textDenied    = "Not performed: the write was denied by the person asked to confirm it. Nothing was changed."
	textExpired   = "Not performed: nobody confirmed the write in time, so it was denied. Nothing was changed."
	textCancelled = "Not performed: the write was cancelled before it was confirmed. Nothing was changed."
	textCatalogue = "Not performed: the tool catalogue changed while the write awaited its confirm, so it was denied. Nothing was changed."
	textBroker    = "Not performed: the confirm could not be obtained, so the write was denied. Nothing was changed."
	// textOutcomeUnknown is followed by the reference.
	textOutcomeUnknown = "Outcome unknown: the call was sent to the server but no answer came back, so it may have run. Check its effect before retrying."
)

// Default bounds of a Gate; see [Config].
const (
	// DefaultMaxResources bounds the resources one call renders.
	DefaultMaxResources = 256
	// DefaultMaxResultBytes bounds a server result's output.
	DefaultMaxResultBytes = 4 << 20
)

// maxResourceBytes bounds the bytes of all the resources of one call.
const maxResourceBytes = 1 << 20

var errCatalogueChanged = errors.New("the advertised catalogue changed")

// Config configures a [Gate].
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
	// Audit receives one structured event per step of every call, and the
	// raw text of every server error. Nil means slog.Default().
	Audit *slog.Logger
	// Advertise is called with the new advertisement on the first catalogue
	// sync and whenever the advertised set changes, serialized, while the
	// sync holds its lock (it must not call SyncCatalogue). Optional.
	Advertise func(ToolsAdvertise)
	// MaxResources bounds how many resources one call may render (a
	// template with array placeholders renders their product); a call
	// beyond it is invalid. Zero means DefaultMaxResources.
	MaxResources int
	// MaxResultBytes bounds the output of a server result; a larger one is
	// failed (the size goes to the audit log). Zero means
	// DefaultMaxResultBytes.
	MaxResultBytes int
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
	// Observer, if set, watches every call's steps and every catalogue
	// sync for telemetry (see [Observer]; package ocpotel implements it
	// with OpenTelemetry). It is told no argument values, prompts,
	// resources, principals or error texts. Nil observes nothing, at no
	// cost.
	Observer Observer
}

// Gate enforces the OCP MCP profile on every call of a generated tool: see
// [Gate.Dispatch]. Before the server's first tool list no tool is
// advertised and every call is unknown. A Gate is safe for concurrent use.
type Gate struct {
	cfg   Config
	audit *slog.Logger
	// server names the fronted server in a [Mux] ("" for a gate of
	// NewGate): audit events, confirms and their digests carry it.
	server string
	// policy is the catalogue's policy digest: with server, it names the
	// confirms this gate opens, and the only ones it decides, lists or
	// announces (see [Gate.owns]).
	policy string
	// seen holds the confirms this gate has opened, listed or announced,
	// whose ends it announces.
	seen  confirmSeen
	tools map[string]*gateTool // by exposed name; immutable after NewGate
	// byServer finds a tool by the name the server lists (the generated
	// one). Without a Mux's renames it is tools.
	byServer map[string]*gateTool // immutable after NewGate
	// byType finds a typed call's tool from its argument struct type.
	byType map[reflect.Type]*gateTool // immutable after NewGate

	syncMu sync.Mutex
	state  atomic.Pointer[catState]
}

// gateTool is what the gate precomputes for one generated tool.
type gateTool struct {
	desc   *Descriptor       // the gate's own copy
	typ    reflect.Type      // the argument struct
	args   *argengine.Engine // step 2, compiled once, at NewGate
	output *argengine.Schema // the output schema; nil: none
	// outputFP is the output schema's fingerprint, as a live listing gives
	// it ("" without one), for the drift audit.
	outputFP string
	confirm  bool // writes (every unclassified tool is one)
	// name is the exposed name: what is advertised, dispatched and shown in
	// a confirm. It is desc.Name unless a Mux renamed the tool; the server
	// is always called with desc.Name.
	name string
	// resource and prompt are the policy's templates, bound to typ.
	resource, prompt template
	// argsRead: a call needs its typed arguments, because a template reads
	// them (a write's prompt, a resource placeholder). Without it, a read
	// whose re-encoding the engine writes without them makes none.
	argsRead bool
}

// catState is one advertised catalogue. It is replaced, never modified; ctx
// is cancelled when it is replaced by a different set, which voids the
// confirms pending under it.
type catState struct {
	advertised map[string]bool
	fp         string
	adv        ToolsAdvertise
	ctx        context.Context
	cancel     context.CancelCauseFunc
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
	g, err := newGate(cfg, "", nil)
	if err != nil {
		return nil, err
	}
	if err := g.start(); err != nil {
		return nil, err
	}
	return g, nil
}

// newGate verifies cfg and builds the gate for server (a [Mux]'s name, or
// ""), exposing each generated tool under expose[name] (absent: its own
// name), without registering with cfg.Server: see [Gate.start].
func newGate(cfg Config, server string, expose map[string]string) (*Gate, error) {
	switch {
	case cfg.Catalogue == nil:
		return nil, errors.New("ocp gate: Config.Catalogue is nil")
	case cfg.Server == nil:
		return nil, errors.New("ocp gate: Config.Server is nil")
	case cfg.ACL == nil:
		return nil, errors.New("ocp gate: Config.ACL is nil; set an ACL, or choose ocp.AllowAllResources explicitly")
	}
	if err := cfg.Catalogue.Verify(); err != nil {
		return nil, fmt.Errorf("ocp gate: %w", err)
	}
	if len(cfg.Catalogue.Tiers()) == 0 {
		return nil, errors.New("ocp gate: the catalogue has no tiers: it was generated without a classification file, so no principal could ever be authorized. Write one (ocpgen init -snapshot S -o NAME.ocp.yaml), classify the tools, and regenerate with -classify")
	}
	g := &Gate{cfg: cfg, audit: cfg.Audit, server: server, policy: cfg.Catalogue.PolicyDigest(), tools: make(map[string]*gateTool), byType: make(map[reflect.Type]*gateTool)}
	g.byServer = g.tools
	if expose != nil {
		g.byServer = make(map[string]*gateTool)
	}
	if g.audit == nil {
		g.audit = slog.Default()
	}
	if g.cfg.MaxResources <= 0 {
		g.cfg.MaxResources = DefaultMaxResources
	}
	if g.cfg.MaxResultBytes <= 0 {
		g.cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	var errs []error
	for _, h := range cfg.Catalogue.Tools() {
		name := h.Desc.Name
		gt, err := newGateTool(h)
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
func (g *Gate) start() error {
	if err := g.cfg.Server.WatchTools(g.syncCatalogue); err != nil {
		return fmt.Errorf("ocp gate: %w", err)
	}
	return nil
}

// newGateTool verifies one generated tool and precomputes what the gate
// needs for it.
func newGateTool(h *ocpimpl.Tool) (*gateTool, error) {
	typ, err := impl.ArgsType(h)
	if err != nil {
		return nil, err
	}
	d := h.Desc.Clone()
	pol := &d.Policy
	switch {
	case pol.Kind != KindRead && pol.Kind != KindWrite:
		return nil, fmt.Errorf("kind %d is neither read nor write", pol.Kind)
	case !pol.Classified && pol.Kind != KindWrite:
		return nil, errors.New("an unclassified tool must be a write")
	case pol.Failure == "":
		return nil, errors.New("no failure text")
	case pol.Kind == KindWrite && pol.ConfirmTTL <= 0:
		return nil, errors.New("a write without a confirm TTL")
	case !schemaFingerprintIs(d.InputSchema, d.Fingerprint):
		return nil, fmt.Errorf("input schema does not match its fingerprint %s", d.Fingerprint)
	}
	resource, err := bindTemplate(typ, pol.Resource, true)
	if err != nil {
		return nil, err
	}
	var prompt template
	if pol.Kind == KindWrite {
		if prompt, err = bindTemplate(typ, pol.ConfirmPrompt, false); err != nil {
			return nil, err
		}
	}
	// A pattern with no ECMA-262 translation does not fail here: every
	// call of this tool is then refused (RulePatternUntranslatable).
	engine, err := argengine.Compile([]byte(d.InputSchema), typ)
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
		confirm:  pol.Kind == KindWrite,
		resource: resource,
		prompt:   prompt,
		argsRead: pol.Kind == KindWrite || resource.readsArgs(),
	}, nil
}

// Dispatch answers one action.request for principal p, in this order, each
// step audited: (1) the tool must be advertised, else unknown; (2) the
// principal must have a channel (Peer), the tool's tier and every scope,
// else forbidden, before the arguments are looked at; (3) the arguments
// must be a JSON object with only the schema's top-level properties, valid
// against the schema, and decode strictly into the typed arguments whose
// re-encoding equals them, else invalid; then the rendered resources
// (bounded, else invalid) and the ACL on them, else forbidden; (4) writes:
// a confirm that another peer, authorized for the same call, may resolve,
// bound to a digest of the call, else denied; (5) writes: authorize again
// with current rights, else forbidden, and the catalogue must not have
// changed, else denied; (6) call the server with the re-encoded arguments
// only; (7) map its result (bounded, validated against the output schema),
// redacting errors: failed, or outcome_unknown when the call was sent and
// no answer came.
func (g *Gate) Dispatch(ctx context.Context, p Principal, req ActionRequest) ActionResult {
	return g.dispatch(ctx, p, req)
}

// Call runs a typed call through g: args, a generated argument struct (or
// a non-nil pointer to one), are marshalled and take exactly the path of
// [Gate.Dispatch], confirm included for writes. The tool is the one whose
// argument struct args is, so a call cannot name one tool and carry
// another's arguments. The result's ID is a fresh id, which the audit
// events carry.
func (g *Gate) Call(ctx context.Context, p Principal, args Args) ActionResult {
	id := "call-" + newRef()
	gt := g.byType[argsStructType(args)]
	if gt == nil {
		c := &call{g: g, ctx: ctx, id: id, p: p, tool: fmt.Sprintf("(%T)", args)}
		c.refuse(AuditCatalogue, ReasonUnknown, errors.New("arguments of no generated tool of this gate"))
		g.observeRefusal(c, nil, StepAuthorize, ReasonUnknown)
		return refused(id, ReasonUnknown, textUnknown)
	}
	name := gt.name
	if isNilPointer(args) {
		c := &call{g: g, ctx: ctx, id: id, p: p, tool: name}
		text := c.refuseArgs(AuditArgs, refusal("", argengine.RuleSchema, errors.New("nil arguments (an object is required)")))
		g.observeRefusal(c, gt, StepArgs, ReasonInvalid)
		return refused(id, ReasonInvalid, text)
	}
	raw, err := json.Marshal(args)
	if err != nil {
		c := &call{g: g, ctx: ctx, id: id, p: p, tool: name}
		text := c.refuseArgs(AuditArgs, refusal("", ruleEncode, err))
		g.observeRefusal(c, gt, StepArgs, ReasonInvalid)
		return refused(id, ReasonInvalid, text)
	}
	return g.dispatch(ctx, p, ActionRequest{ID: id, Tool: name, Args: raw})
}

// argsStructType returns the struct type of args, or of what it points to.
func argsStructType(args Args) reflect.Type {
	t := reflect.TypeOf(args)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func isNilPointer(a Args) bool {
	v := reflect.ValueOf(a)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// info reports whether the audit logger takes info events: building an
// event's attributes costs allocations, so a Hub whose handler drops them
// does not pay for them. Refusals and failures are always built (they are
// rare and their handler usually takes them).
func (c *call) info() bool { return c.g.audit.Enabled(c.ctx, slog.LevelInfo) }

func refused(id string, r Reason, text string) ActionResult {
	return ActionResult{ID: id, OK: false, Reason: r, Error: text}
}

// dispatch is the one code path of every call.
func (g *Gate) dispatch(ctx context.Context, p Principal, req ActionRequest) (res ActionResult) {
	if ctx == nil {
		ctx = context.Background()
	}
	c := &call{g: g, ctx: ctx, id: req.ID, p: p, tool: req.Tool}

	// 1. Catalogue: hidden means uncallable.
	st := g.state.Load()
	gt := g.tools[req.Tool]
	if g.cfg.Observer != nil {
		ctx = c.observe(st, gt, StepAuthorize)
		defer func() { c.end(res) }()
	}
	switch {
	case st == nil:
		c.refuse(AuditCatalogue, ReasonUnknown, errors.New("no catalogue sync yet"))
		return refused(req.ID, ReasonUnknown, textUnknown)
	case gt == nil:
		c.refuse(AuditCatalogue, ReasonUnknown, errors.New("not a generated tool"))
		return refused(req.ID, ReasonUnknown, textUnknown)
	case !st.advertised[req.Tool]:
		c.refuse(AuditCatalogue, ReasonUnknown, errors.New("not advertised: not on the server, or its schema changed"), slog.String("catalogue", st.fp))
		return refused(req.ID, ReasonUnknown, textUnknown)
	}
	if c.info() {
		c.ok(AuditCatalogue, slog.String("catalogue", st.fp))
	}

	// 2. The rights that need no arguments: a channel, the tier, the
	// scopes. Cheap checks first, so that nobody can make the Hub parse
	// arguments it would refuse to run anyway.
	if err := g.authorizeRights(p, gt); err != nil {
		c.refuse(AuditAuthorize, ReasonForbidden, err)
		return refused(req.ID, ReasonForbidden, textForbidden)
	}

	// 3. Arguments.
	ctx = c.step(ctx, StepArgs)
	args, fwd, err := gt.checkArgsFor(req.Args, gt.argsRead)
	if err != nil {
		return refused(req.ID, ReasonInvalid, c.refuseArgs(AuditArgs, err))
	}
	if c.info() {
		c.ok(AuditArgs)
	}
	// What a peer is shown, and the server receives, are the same bytes:
	// the re-encoding with every invisible or direction-changing character
	// escaped, so that caller text cannot restyle a confirm.
	fwd = escapeInvisible(fwd)

	// 4. The resources, and the ACL on them.
	ctx = c.step(ctx, StepACL)
	resources, err := g.resources(ctx, gt, args)
	if err != nil {
		if errors.Is(err, errTooManyResources) {
			return refused(req.ID, ReasonInvalid, c.refuseArgs(AuditAuthorize, err))
		}
		c.refuse(AuditAuthorize, ReasonForbidden, err)
		return refused(req.ID, ReasonForbidden, textForbidden)
	}
	if err := g.allow(ctx, p, gt, resources); err != nil {
		c.refuse(AuditAuthorize, ReasonForbidden, err, slog.Any("resources", boundList(resources)))
		return refused(req.ID, ReasonForbidden, textForbidden)
	}
	if c.info() {
		c.ok(AuditAuthorize, slog.Any("resources", boundList(resources)))
	}

	if gt.confirm {
		// 4. Confirm.
		ctx = c.step(ctx, StepConfirm)
		if text, ok := g.confirm(ctx, c, st, gt, args, fwd, resources); !ok {
			return refused(req.ID, ReasonDenied, text)
		}
		// 5. Re-authorize with current rights.
		ctx = c.step(ctx, StepReauthorize)
		if err := g.reauthorize(ctx, p, gt, args); err != nil { // model: gate -> forbidden
			c.refuse(AuditReauthorize, ReasonForbidden, err)
			return refused(req.ID, ReasonForbidden, textForbidden)
		}
		if g.state.Load() != st { // model: gate -> withdrawn
			c.refuse(AuditReauthorize, ReasonDenied, errCatalogueChanged)
			return refused(req.ID, ReasonDenied, textCatalogue)
		}
		if err := ctx.Err(); err != nil { // model: gate -> cancelled
			c.refuse(AuditReauthorize, ReasonDenied, err)
			return refused(req.ID, ReasonDenied, textCancelled)
		}
		if c.info() {
			c.ok(AuditReauthorize)
		}
	}

	// 6–7. Call and map. model: call
	ctx = c.step(ctx, StepServer)
	return g.callServer(ctx, c, gt, fwd)
}

// checkArgs is step 2: the tool's argument engine (argengine.Engine.Check)
// checks raw and returns the typed arguments and the bytes to forward. Its
// error is an *argengine.Refusal: the rule that refused, and the pointer of
// the value refused.
func (gt *gateTool) checkArgs(raw json.RawMessage) (Args, []byte, error) {
	return gt.checkArgsFor(raw, true)
}

// checkArgsFor is checkArgs; without needArgs the typed arguments may be
// nil (see gateTool.argsRead).
func (gt *gateTool) checkArgsFor(raw json.RawMessage, needArgs bool) (Args, []byte, error) {
	return gt.args.Check(raw, needArgs)
}

func truncQuote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// authorize is the whole authorization of p for a call of gt with args:
// the rights, the resources and the ACL. It returns the resources.
func (g *Gate) authorize(ctx context.Context, p Principal, gt *gateTool, args Args) ([]string, error) {
	if err := g.authorizeRights(p, gt); err != nil {
		return nil, err
	}
	resources, err := g.resources(ctx, gt, args)
	if err != nil {
		return nil, err
	}
	return resources, g.allow(ctx, p, gt, resources)
}

// authorizeRights is the part of authorization that needs no arguments: a
// channel identity, the tier and every scope.
func (g *Gate) authorizeRights(p Principal, gt *gateTool) error {
	pol := &gt.desc.Policy
	if p.Peer == "" {
		// Without a channel a confirm could not tell the requester from a
		// peer: fail closed.
		return errors.New("the principal has no channel identity (Peer)")
	}
	have, need := g.cfg.Catalogue.TierRank(p.Tier), g.cfg.Catalogue.TierRank(pol.Tier)
	switch {
	case have < 0:
		return fmt.Errorf("unknown tier %s", truncQuote(p.Tier))
	case need < 0 || have < need:
		return fmt.Errorf("tier %q is below %q", p.Tier, pol.Tier)
	}
	for _, s := range pol.Scopes {
		if !p.HasScope(s) {
			return fmt.Errorf("missing scope %q", s)
		}
	}
	return nil
}

// resources renders the call's resources, bounded by Config.MaxResources.
// Without typed arguments (a read whose template reads none: see
// gateTool.argsRead) the rendering reflects on nothing, and runs without
// the guard that turns a panic in the reflection on args into an error.
func (g *Gate) resources(ctx context.Context, gt *gateTool, args Args) (resources []string, err error) {
	if args == nil {
		resources, err = gt.resource.resources(reflect.Value{}, g.cfg.MaxResources)
	} else {
		err = g.protect(ctx, "resources", func() error {
			var err error
			resources, err = gt.resource.resources(reflect.ValueOf(args).Elem(), g.cfg.MaxResources)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("resources: %w", err)
	}
	return resources, nil
}

// allow asks the ACL about the rendered resources.
func (g *Gate) allow(ctx context.Context, p Principal, gt *gateTool, resources []string) error {
	if g.cfg.ACL == AllowAllResources {
		return nil // it allows everything and reads nothing
	}
	// The hook gets a copy: it cannot change the policy the gate enforces.
	// The scopes and the resources share one allocation; each is capped, so
	// an append by the hook cannot write into the other.
	d := *gt.desc
	ns, nr := len(d.Policy.Scopes), len(resources)
	buf := make([]string, ns+nr)
	copy(buf, d.Policy.Scopes)
	copy(buf[ns:], resources)
	if d.Policy.Scopes != nil {
		d.Policy.Scopes = buf[:ns:ns]
	}
	var rs []string
	if resources != nil {
		rs = buf[ns : ns+nr : ns+nr]
	}
	if err := g.protect(ctx, "ACL", func() error { return g.cfg.ACL.Allow(ctx, p, &d, rs) }); err != nil {
		return fmt.Errorf("acl: %w", err)
	}
	return nil
}

// reauthorize is step 5.
func (g *Gate) reauthorize(ctx context.Context, p Principal, gt *gateTool, args Args) error {
	cur, err := g.currentRights(ctx, p)
	if err != nil {
		return err
	}
	_, err = g.authorize(ctx, cur, gt, args)
	return err
}

// currentRights returns p's rights as Config.Reauthorize gives them now
// (p itself without the hook). An error of the hook, or a principal with
// another ID, is an error.
func (g *Gate) currentRights(ctx context.Context, p Principal) (Principal, error) {
	if g.cfg.Reauthorize == nil {
		return p, nil
	}
	var cur Principal
	err := g.protect(ctx, "Reauthorize", func() error {
		var err error
		cur, err = g.cfg.Reauthorize(ctx, p)
		return err
	})
	if err != nil {
		return Principal{}, fmt.Errorf("current rights: %w", err)
	}
	if cur.ID != p.ID {
		return Principal{}, fmt.Errorf("current rights are for principal %q, not %q", cur.ID, p.ID)
	}
	return cur, nil
}

// confirm is step 4, for the call of gt with args, forwarding fwd, on
// resources. It returns ok only for an approval, and otherwise the fixed
// text of the denial.
func (g *Gate) confirm(ctx context.Context, c *call, st *catState, gt *gateTool, args Args, fwd []byte, resources []string) (string, bool) {
	// A catalogue change voids the confirm: cancel its wait.
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(st.ctx, func() { cancel(errCatalogueChanged) })
	defer stop()

	var prompt string
	if err := g.protect(ctx, "confirm prompt", func() error { prompt = gt.prompt.prompt(reflect.ValueOf(args).Elem()); return nil }); err != nil {
		c.refuse(AuditConfirm, ReasonDenied, err)
		return textBroker, false
	}
	ttl := gt.desc.Policy.ConfirmTTL
	req := ConfirmRequest{
		ID:        newConfirmID(),
		Tool:      gt.name,
		Server:    g.server,
		Prompt:    prompt,
		Requester: c.p.ID,
		Args:      json.RawMessage(slices.Clone(fwd)),
		Policy:    g.policy,
		// The decision is checked on the resources the call was
		// authorized on, without reading the arguments again.
		Resources: slices.Clone(resources),
		Digest:    confirmDigest(g.server, g.policy, gt.name, gt.desc.Name, fwd, c.p, st.fp),
		Expires:   time.Now().Add(ttl),
	}
	g.seen.add(req)
	attrs := []slog.Attr{slog.String("confirm", req.ID), slog.String("digest", req.Digest)}
	if c.info() {
		c.event(slog.LevelInfo, AuditConfirm, "opened", append(attrs, slog.Time("expires", req.Expires))...)
	}
	var d Decision
	err := g.protect(ctx, "ConfirmBroker.Request", func() error {
		var err error
		d, err = g.cfg.Broker.Request(cctx, PendingConfirm{Request: req, RequesterPeer: c.p.Peer})
		return err
	})
	if err != nil {
		c.event(slog.LevelError, AuditConfirm, string(ReasonDenied), append(attrs, slog.String("detail", err.Error()))...)
		return textBroker, false
	}
	attrs = append(attrs, slog.String("by_peer", d.Peer), slog.String("by_principal", d.PrincipalID))
	switch d.Outcome {
	case OutcomeApproved:
		if cause := context.Cause(cctx); cause != nil {
			// Approved, but the wait had already been voided.
			// model: gate -> approved_after_cancel
			c.event(slog.LevelWarn, AuditConfirm, string(OutcomeCancelled), append(attrs, slog.String("detail", "approved after cancellation: "+cause.Error()))...)
			c.confirmEnded(OutcomeCancelled)
			return cancelText(cause), false
		}
		c.event(slog.LevelInfo, AuditConfirm, string(OutcomeApproved), attrs...)
		c.confirmEnded(OutcomeApproved)
		return "", true
	case OutcomeDenied:
		c.event(slog.LevelWarn, AuditConfirm, string(OutcomeDenied), attrs...)
		c.confirmEnded(OutcomeDenied)
		return textDenied, false
	case OutcomeExpired:
		c.event(slog.LevelWarn, AuditConfirm, string(OutcomeExpired), attrs...)
		c.confirmEnded(OutcomeExpired)
		return textExpired, false
	case OutcomeCancelled:
		cause := context.Cause(cctx)
		if cause != nil {
			attrs = append(attrs, slog.String("detail", cause.Error()))
		}
		c.event(slog.LevelWarn, AuditConfirm, string(OutcomeCancelled), attrs...)
		c.confirmEnded(OutcomeCancelled)
		return cancelText(cause), false
	}
	c.event(slog.LevelError, AuditConfirm, string(ReasonDenied), append(attrs, slog.String("detail", fmt.Sprintf("unknown outcome %q", d.Outcome)))...)
	return textBroker, false
}

func cancelText(cause error) string {
	if errors.Is(cause, errCatalogueChanged) {
		return textCatalogue
	}
	return textCancelled
}

// confirmDigest binds a confirm to the server (a [Mux]'s name for it, ""
// for a lone gate), the policy digest of the gate's catalogue, the tool (its
// exposed name and the name the server is called with), the exact forwarded
// arguments, the principal's identity and rights, and the advertised
// catalogue. Two servers with the same tool and the same arguments, or two
// policies for the same server, never share a digest.
func confirmDigest(server, policy, exposed, tool string, fwd []byte, p Principal, catalogueFP string) string {
	scopes := slices.Compact(slices.Sorted(slices.Values(p.Scopes)))
	if scopes == nil {
		scopes = []string{}
	}
	b, _ := json.Marshal([]any{"ocp-confirm-v3", server, policy, exposed, tool, string(fwd), p.ID, p.Tier, scopes, catalogueFP})
	return canon.Fingerprint(b)
}

// mayHaveRun reports whether a call that returned err may have run on the
// server: every error but a JSON-RPC error response (the server answered)
// and the client's own refusals before sending.
func mayHaveRun(err error) bool {
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &rpc), errors.Is(err, ErrNotConnected), errors.Is(err, ErrClientClosed), errors.Is(err, errNotObject):
		return false
	}
	return true
}

// callServer is steps 6 and 7.
func (g *Gate) callServer(ctx context.Context, c *call, gt *gateTool, fwd []byte) ActionResult {
	var res *mcp.CallToolResult
	err := g.protect(ctx, "Server.CallTool", func() error {
		var err error
		// The package's own Client may skip its check that the arguments
		// are one JSON object: the forwarded arguments always are (the engine
		// parsed them, or their re-encoding, as an object, and the escapes
		// of escapeInvisible keep them one). Only the Client itself: a Hub's
		// Server that embeds one and wraps CallTool must get its CallTool
		// called.
		if cl, ok := g.cfg.Server.(*Client); ok {
			res, err = cl.callObject(ctx, gt.desc.Name, json.RawMessage(fwd))
		} else {
			res, err = g.cfg.Server.CallTool(ctx, gt.desc.Name, json.RawMessage(fwd))
		}
		return err
	})
	fail := func(detail string, attrs ...slog.Attr) ActionResult {
		ref := newRef()
		c.event(slog.LevelError, AuditCall, string(ReasonFailed), append(attrs, slog.String("ref", ref), slog.String("detail", detail))...)
		return ActionResult{ID: c.id, OK: false, Reason: ReasonFailed, Error: gt.desc.Policy.Failure + " (ref " + ref + ")", Ref: ref}
	}
	unknown := func(detail string, attrs ...slog.Attr) ActionResult {
		ref := newRef()
		c.event(slog.LevelError, AuditCall, string(ReasonOutcomeUnknown), append(attrs, slog.String("ref", ref), slog.String("detail", detail))...)
		return ActionResult{ID: c.id, OK: false, Reason: ReasonOutcomeUnknown, Error: textOutcomeUnknown + " (ref " + ref + ")", Ref: ref}
	}
	switch {
	case err != nil && !mayHaveRun(err):
		return fail("call error: " + err.Error())
	case err != nil:
		// Sent, and no answer: the server may have run it. Saying "failed"
		// would invite a retry that writes twice.
		return unknown("call error: " + err.Error())
	case res == nil:
		// An answer that says nothing ({"result":null} reaches here or as
		// an empty result): the server may have acted, and did not say.
		return unknown("malformed result: the call returned no result", slog.Bool("malformed", true))
	case res.IsError:
		b, _ := json.Marshal(res.Content)
		return fail("tool error result: " + string(b))
	case res.NeedsInput():
		// The server is not a peer: it cannot ask anyone for input.
		return fail("server asked for input (input_required), which the Hub does not relay")
	case len(res.Content) == 0 && res.StructuredContent == nil:
		// {"result":{}}: neither content nor structuredContent. Not a
		// success with no output: the server may have acted.
		return unknown("malformed result: neither content nor structuredContent", slog.Bool("malformed", true))
	}
	var out []byte
	structured := res.StructuredContent != nil
	if structured {
		out, err = json.Marshal(res.StructuredContent)
	} else if triple, ok := textTriple(res.Content); ok {
		out, structured = triple, true
	} else {
		var ok bool
		if out, ok = textContentJSON(res.Content); !ok {
			out, err = json.Marshal(res.Content)
		}
	}
	if err != nil {
		return fail("result does not encode: " + err.Error())
	}
	if len(out) > g.cfg.MaxResultBytes {
		return fail(fmt.Sprintf("result of %d bytes exceeds the limit of %d", len(out), g.cfg.MaxResultBytes), slog.Int("output_bytes", len(out)))
	}
	if structured && gt.output != nil {
		// As the MCP spec asks of clients: a structured result must match
		// the tool's output schema.
		if err := gt.output.ValidateJSON(out); err != nil {
			return fail("structured result does not match the output schema: " + err.Error())
		}
	}
	if c.info() {
		c.ok(AuditCall, slog.Int("output_bytes", len(out)))
	}
	return ActionResult{ID: c.id, OK: true, Output: out}
}

// syncCatalogue receives the server's tool lists (see [Server.WatchTools]).
// The advertised set is every generated tool that the server lists with the
// generated fingerprint. Tools
// only on the server, tools whose schema changed and generated tools the
// server no longer lists are reported in the audit log and are not
// callable. A nil list is no listing at all (see [Server.WatchTools]):
// everything is withdrawn, and the sync is logged at Info with listed=false
// and no tool "removed". When the set changes, confirms pending under the
// old set are denied and Config.Advertise receives the new set; on the first
// sync it always does.
func (g *Gate) syncCatalogue(live []LiveTool) {
	g.syncMu.Lock()
	defer g.syncMu.Unlock()

	liveFP := make(map[string]string, len(live))
	ambiguous := make(map[string]bool)
	var drift []string // "tool: field, field" of what differs from the snapshot
	for _, lt := range live {
		if prev, seen := liveFP[lt.Name]; seen && prev != lt.Fingerprint {
			ambiguous[lt.Name] = true
		}
		liveFP[lt.Name] = lt.Fingerprint
		if gt := g.byServer[lt.Name]; gt != nil {
			if fields := driftOf(gt, lt); len(fields) > 0 {
				drift = append(drift, boundTo(lt.Name, maxAuditName)+": "+strings.Join(fields, ", "))
			}
		}
	}
	serverOnly, changed, removed, names := []string{}, []string{}, []string{}, []string{}
	// The server's names, except names: the exposed names of the tools
	// advertised.
	for name := range liveFP {
		if g.byServer[name] == nil {
			serverOnly = append(serverOnly, name)
		}
	}
	for name, gt := range g.byServer {
		fp, ok := liveFP[name]
		switch {
		case !ok && live == nil:
			// No listing (closed, disconnected, or a listing failed): the
			// tool is withdrawn, not removed by the server.
		case !ok:
			removed = append(removed, name)
		case ambiguous[name] || fp != gt.desc.Fingerprint:
			changed = append(changed, name)
		default:
			names = append(names, gt.name)
		}
	}
	for _, s := range [][]string{serverOnly, changed, removed, names, drift} {
		slices.Sort(s)
	}

	advertised := make(map[string]bool, len(names))
	adv := ToolsAdvertise{Tools: make([]ToolDef, 0, len(names))}
	type entry struct {
		Name, Fingerprint string
		Write             bool
	}
	entries := make([]entry, 0, len(names))
	for _, name := range names {
		gt := g.tools[name]
		advertised[name] = true
		adv.Tools = append(adv.Tools, ToolDef{
			Name:        name,
			Description: gt.desc.Description,
			Input:       json.RawMessage(gt.desc.InputSchema),
			Write:       gt.confirm,
		})
		entries = append(entries, entry{name, gt.desc.Fingerprint, gt.confirm})
	}
	b, _ := json.Marshal(entries)
	fp := canon.Fingerprint(b)

	old := g.state.Load()
	same := old != nil && old.fp == fp
	level := slog.LevelInfo
	if len(serverOnly)+len(changed)+len(removed)+len(drift) > 0 {
		level = slog.LevelWarn
	}
	// listed is false for a nil list: nothing may be called, and the
	// Server says why (the Client logs a session's end or a failed listing;
	// a Close is no news).
	g.audit.LogAttrs(context.Background(), level, AuditSync, g.withServer(
		slog.String("catalogue", fp),
		slog.Bool("changed", !same),
		slog.Any("advertised", boundNames(names)),
		slog.Any("server_only_not_callable", boundNames(serverOnly)),
		slog.Any("schema_changed_withdrawn", boundNames(changed)),
		slog.Any("removed", boundNames(removed)),
		slog.Any("drift_audited", boundList(drift)),
		slog.Bool("listed", live != nil),
	)...)
	if g.cfg.Observer != nil {
		g.observeSync(SyncInfo{Server: g.server, Catalogue: fp, Changed: !same, Advertised: len(names), ServerOnly: len(serverOnly), Withdrawn: len(changed), Removed: len(removed), Drift: len(drift)})
	}
	if same {
		return
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	st := &catState{advertised: advertised, fp: fp, adv: adv, ctx: ctx, cancel: cancel}
	g.state.Store(st)
	if old != nil {
		old.cancel(errCatalogueChanged)
	}
	if g.cfg.Advertise != nil {
		a := cloneAdvertise(adv)
		_ = g.protect(context.Background(), "Advertise", func() error { g.cfg.Advertise(a); return nil })
	}
}

// driftOf names what the server lists for a generated tool, besides the
// input schema, that differs from the snapshot the tool was generated from.
func driftOf(gt *gateTool, lt LiveTool) []string {
	d := gt.desc
	var out []string
	if lt.Title != d.Title {
		out = append(out, "title")
	}
	if lt.Description != d.Description {
		out = append(out, "description")
	}
	if hintValues(lt.Hints) != hintValues(d.Hints) {
		out = append(out, "annotations")
	}
	if lt.OutputFingerprint != gt.outputFP {
		out = append(out, "outputSchema")
	}
	return out
}

// hintValues are a tool's annotations with MCP's defaults for absent ones
// (readOnly false, destructive true, idempotent false, openWorld true), so
// an absent hint and its default compare equal.
func hintValues(h ocpimpl.ServerHints) [4]bool {
	get := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	return [4]bool{get(h.ReadOnly, false), get(h.Destructive, true), get(h.Idempotent, false), get(h.OpenWorld, true)}
}

// Advertisement returns the tools currently advertised (none before the first
// sync).
func (g *Gate) Advertisement() ToolsAdvertise {
	st := g.state.Load()
	if st == nil {
		return ToolsAdvertise{Tools: []ToolDef{}}
	}
	return cloneAdvertise(st.adv)
}

// CatalogueFingerprint returns the fingerprint of the advertised set, which
// every confirm digest includes, or "" before the first sync.
func (g *Gate) CatalogueFingerprint() string {
	if st := g.state.Load(); st != nil {
		return st.fp
	}
	return ""
}

func cloneAdvertise(a ToolsAdvertise) ToolsAdvertise {
	out := ToolsAdvertise{Tools: make([]ToolDef, len(a.Tools))}
	for i, t := range a.Tools {
		t.Input = slices.Clone(t.Input)
		out.Tools[i] = t
	}
	return out
}

// Resolve takes a peer's decision on a pending confirm, checks who may
// make it, passes it to the broker and audits it. peer is the deciding
// principal, with the Peer of the channel the decision came on. The
// decision is refused (and the confirm stays pending) when it comes from the
// requester's channel or from no channel; when the confirm was not opened
// under this gate's policy (its server name and its catalogue's policy
// digest: [ErrConfirmForbidden]); when it names another digest; or when the
// decider could not make the call itself. The approver must be authorized
// for the same call: the tool's tier and scopes, checked first on peer and
// then on its current rights (Config.Reauthorize, as for the requester
// after the wait), and the ACL on the resources the call was authorized on
// when the confirm opened; Config.Approver may refuse more. No check of a
// decision reads or parses the confirm's arguments.
//
// The errors are fixed: one of the ErrConfirm values, or
// [ErrConfirmUnavailable] with a reference whose cause is in the audit log.
// Nothing internal (a broker's text) reaches the deciding channel.
func (g *Gate) Resolve(ctx context.Context, peer Principal, d ConfirmDecision) error {
	if ctx == nil {
		ctx = context.Background()
	}
	req, err := lookupDecision(ctx, g.cfg.Broker, g.audit, g.server, peer, d)
	if err != nil {
		return err
	}
	return g.decide(ctx, peer, d, req)
}

// owns reports whether r was opened under g's policy: by a gate of the same
// server name and catalogue policy digest (this one, or one on another
// replica).
func (g *Gate) owns(r ConfirmRequest) bool { return r.Server == g.server && r.Policy == g.policy }

// lookupDecision is the part of Resolve that needs no gate: a decision
// without a broker or a channel is refused, and the confirm it names is
// looked up. A refusal is audited (with server, if set) and returned as the
// decider may see it.
func lookupDecision(ctx context.Context, broker ConfirmBroker, audit *slog.Logger, server string, peer Principal, d ConfirmDecision) (ConfirmRequest, error) {
	refuse := func(err error, detail string) (ConfirmRequest, error) {
		return ConfirmRequest{}, refuseDecision(ctx, audit, withServer(server, decisionAttrs(peer, d)...), err, detail)
	}
	if broker == nil {
		return refuse(ErrConfirmNotPending, "no broker")
	}
	if peer.Peer == "" {
		// model: gate_refuse_nochannel
		return refuse(ErrConfirmSelf, "the decider has no channel identity (Peer)")
	}
	var req ConfirmRequest
	err := protectHook(ctx, audit, server, "ConfirmBroker.Lookup", func() error {
		var err error
		req, err = broker.Lookup(ctx, d.ID)
		return err
	})
	if err != nil {
		return refuse(brokerError(err), err.Error())
	}
	return req, nil
}

// decide is the rest of Resolve, on the confirm req that d names: the
// owner, the digest, the approver rule, and the broker's resolution.
func (g *Gate) decide(ctx context.Context, peer Principal, d ConfirmDecision, req ConfirmRequest) error {
	attrs := g.withServer(decisionAttrs(peer, d)...)
	refuse := func(err error, detail string) error { return refuseDecision(ctx, g.audit, attrs, err, detail) }
	if !g.owns(req) {
		// model: gate_refuse_forbidden
		return refuse(ErrConfirmForbidden, fmt.Sprintf("the confirm was opened for server %s under policy %s, not this gate's", truncQuote(req.Server), truncQuote(req.Policy)))
	}
	if d.Digest != req.Digest {
		// model: gate_refuse_digest
		return refuse(ErrConfirmDigest, "digest differs")
	}
	if err := g.mayDecide(ctx, peer, req); err != nil {
		// model: gate_refuse_forbidden
		return refuse(ErrConfirmForbidden, err.Error())
	}
	err := g.protect(ctx, "ConfirmBroker.Resolve", func() error { return g.cfg.Broker.Resolve(ctx, peer, d) })
	if err != nil {
		return refuse(brokerError(err), err.Error())
	}
	g.audit.LogAttrs(ctx, slog.LevelInfo, AuditDecision, append(attrs, slog.String("tool", boundText(req.Tool)), slog.String("outcome", "accepted"))...)
	return nil
}

// MayDecide reports whether peer may decide the confirm r (one that
// [Gate.Pending] or [Gate.Subscribe] gave), by the rules [Gate.Resolve]
// applies before the broker sees a decision: peer has a channel (else
// [ErrConfirmSelf]), r was opened under this gate's policy, and peer is
// authorized for the call r holds, with its current rights and
// Config.Approver (else [ErrConfirmForbidden]). A page that lists confirms
// shows a principal only those it may decide: the others' arguments are
// not its to read. It does not look r up: whether r is still pending, its
// digest, and whether peer's channel is the requester's are the broker's to
// say when the decision comes, so nil does not promise that a decision will
// be accepted. It calls Config.Reauthorize, the ACL and Config.Approver as
// a decision does. Nothing is audited; [Gate.Resolve] audits decisions.
func (g *Gate) MayDecide(ctx context.Context, peer Principal, r ConfirmRequest) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if peer.Peer == "" {
		return ErrConfirmSelf
	}
	if !g.owns(r) || g.mayDecide(ctx, peer, r) != nil {
		return ErrConfirmForbidden
	}
	return nil
}

// decisionAttrs are the audit attributes of a decision that peer sent.
func decisionAttrs(peer Principal, d ConfirmDecision) []slog.Attr {
	return []slog.Attr{
		slog.String("confirm", boundText(d.ID)),
		slog.Bool("approve", d.Approve),
		slog.String("principal", peer.ID),
		slog.String("peer", peer.Peer),
	}
}

// refuseDecision audits a refused decision with attrs and detail, and
// returns what the decider may see: err, or for [ErrConfirmUnavailable] err
// with a reference to the audit event (which holds the cause).
func refuseDecision(ctx context.Context, audit *slog.Logger, attrs []slog.Attr, err error, detail string) error {
	level := slog.LevelWarn
	if errors.Is(err, ErrConfirmUnavailable) {
		level = slog.LevelError
		ref := newRef()
		attrs = append(attrs, slog.String("ref", ref))
		err = fmt.Errorf("%w (ref %s)", err, ref)
	}
	audit.LogAttrs(ctx, level, AuditDecision, append(attrs, slog.String("outcome", "refused"), slog.String("detail", boundText(detail)))...)
	return err
}

// mayDecide is the approver rule, on a confirm g owns: peer must be
// authorized for the call the confirm holds, as if it made the call itself,
// with its current rights, and Config.Approver must agree. The cheap checks
// come first: the tier and scopes of peer, then of its current rights; then
// the ACL on the confirm's resources (computed when it opened: the
// arguments are not read again).
func (g *Gate) mayDecide(ctx context.Context, peer Principal, req ConfirmRequest) error {
	gt := g.tools[req.Tool]
	if gt == nil {
		return fmt.Errorf("the confirm is for %s, which this gate does not serve", truncQuote(req.Tool))
	}
	if !gt.confirm {
		return fmt.Errorf("the confirm is for %s, which is not a write", truncQuote(req.Tool))
	}
	if err := g.authorizeRights(peer, gt); err != nil {
		return fmt.Errorf("the decider may not make this call: %w", err)
	}
	cur, err := g.currentRights(ctx, peer)
	if err != nil {
		return fmt.Errorf("the decider's %w", err)
	}
	if err := g.authorizeRights(cur, gt); err != nil {
		return fmt.Errorf("the decider's current rights may not make this call: %w", err)
	}
	if len(req.Resources) > g.cfg.MaxResources {
		return fmt.Errorf("the confirm names %d resources, more than the limit of %d", len(req.Resources), g.cfg.MaxResources)
	}
	if err := g.allow(ctx, cur, gt, req.Resources); err != nil {
		return fmt.Errorf("the decider may not make this call: %w", err)
	}
	if g.cfg.Approver != nil {
		if err := g.protect(ctx, "Approver", func() error { return g.cfg.Approver(ctx, cur, req) }); err != nil {
			return fmt.Errorf("Config.Approver: %w", err)
		}
	}
	return nil
}

// brokerError is the error a decider may see for a broker's err: the fixed
// refusal it wraps, else ErrConfirmUnavailable.
func brokerError(err error) error {
	for _, e := range []error{ErrConfirmNotPending, ErrConfirmExpired, ErrConfirmSelf, ErrConfirmDigest} {
		if errors.Is(err, e) {
			return e
		}
	}
	return ErrConfirmUnavailable
}

// Pending returns the confirms opened under this gate's policy (its server
// name and its catalogue's policy digest, on any replica) still waiting for
// a decision, for a peer that connects late (each with the id, prompt and
// digest a decision quotes). Without a broker there are none. A broker
// failure is [ErrConfirmUnavailable] with a reference; its cause is in the
// audit log.
func (g *Gate) Pending(ctx context.Context) ([]ConfirmRequest, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	return pendingOn(ctx, g.cfg.Broker, g.audit, g.server, g.shown)
}

// shown is the gate that shows r to peers, g if it owns r (nil otherwise),
// and remembers that it has.
func (g *Gate) shown(r ConfirmRequest) *Gate {
	if !g.owns(r) {
		return nil
	}
	g.seen.add(r)
	return g
}

// pendingOn is Pending on broker, for a gate (server is its name in a Mux)
// or a Mux (server ""): it keeps the confirms that shown gives a gate for.
func pendingOn(ctx context.Context, broker ConfirmBroker, audit *slog.Logger, server string, shown func(ConfirmRequest) *Gate) ([]ConfirmRequest, error) {
	if broker == nil {
		return []ConfirmRequest{}, nil
	}
	var all []ConfirmRequest
	err := protectHook(ctx, audit, server, "ConfirmBroker.Pending", func() error {
		var err error
		all, err = broker.Pending(ctx)
		return err
	})
	if err != nil {
		ref := newRef()
		audit.LogAttrs(ctx, slog.LevelError, AuditDecision, withServer(server, slog.String("outcome", "pending failed"), slog.String("ref", ref), slog.String("detail", boundText(err.Error())))...)
		return nil, fmt.Errorf("%w (ref %s)", ErrConfirmUnavailable, ref)
	}
	out := make([]ConfirmRequest, 0, len(all))
	for _, r := range all {
		if shown(r) != nil {
			out = append(out, peerCopy(r))
		}
	}
	return out, nil
}

// peerCopy is r with its own Resources, which the gate's decisions read:
// what a peer or a subscriber does to its copy changes nothing the broker
// holds.
func peerCopy(r ConfirmRequest) ConfirmRequest {
	r.Resources = slices.Clone(r.Resources)
	return r
}

// Subscribe calls fn for every change in the life of a confirm opened under
// this gate's policy (as [Gate.Pending] chooses them) until stop is called:
// a confirm opened (show it to the connected peers, never to the requesting
// channel, which cannot answer it), and a confirm ended (approved or denied,
// possibly by another peer, expired, or cancelled: take its prompt down).
// An ended event names only a confirm this gate has opened, listed in
// Pending or announced. fn must not block for long. The peers answer
// through [Gate.Resolve]; a peer that connects late catches up with
// [Gate.Pending].
func (g *Gate) Subscribe(fn func(ConfirmEvent)) (stop func()) {
	return subscribeOn(g.cfg.Broker, g.shown, g.seen.has, fn)
}

// subscribeOn is Subscribe on broker: fn sees the opened confirms that
// shown gives a gate for, and the ends of those that seen reports.
func subscribeOn(broker ConfirmBroker, shown func(ConfirmRequest) *Gate, seen func(id string) bool, fn func(ConfirmEvent)) (stop func()) {
	if broker == nil {
		return func() {}
	}
	stopOpened := broker.Subscribe(func(r ConfirmRequest) {
		if shown(r) != nil {
			r = peerCopy(r)
			fn(ConfirmEvent{Opened: &r})
		}
	})
	stopEnded := broker.SubscribeEnded(func(e ConfirmEnded) {
		if seen(e.ID) {
			fn(ConfirmEvent{Ended: &e})
		}
	})
	return func() { stopOpened(); stopEnded() }
}

// seenGrace is how long after its expiry a confirm's end is still
// announced: every broker has ended it by then (a Redis broker's key
// outlives its expiry by at most a lease).
const seenGrace = time.Minute

// confirmSeen is the set of confirms a gate has opened, listed or announced,
// each until seenGrace after its expiry.
type confirmSeen struct {
	mu    sync.Mutex
	ids   map[string]time.Time // id -> expiry
	prune int                  // prune the expired ones when len(ids) reaches it
}

// add adds r, and now and then forgets the confirms long expired.
func (s *confirmSeen) add(r ConfirmRequest) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids == nil {
		s.ids = make(map[string]time.Time)
	}
	s.ids[r.ID] = r.Expires
	if len(s.ids) >= s.prune {
		cut := time.Now().Add(-seenGrace)
		for id, exp := range s.ids {
			if exp.Before(cut) {
				delete(s.ids, id)
			}
		}
		s.prune = 2*len(s.ids) + 64
	}
}

// has reports whether id was added and is not long expired.
func (s *confirmSeen) has(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.ids[id]
	return ok && time.Now().Before(exp.Add(seenGrace))
}

// newConfirmID returns an unguessable confirm id (130 random bits).
func newConfirmID() string { return rand.Text() }

// newRef returns a reference id for the audit log (64 random bits; it only
// has to be unique enough to find one event, not secret).
func newRef() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// schemaFingerprintIs reports whether the schema has the fingerprint fp.
func schemaFingerprintIs(schema, fp string) bool {
	got, err := canon.SchemaFingerprint([]byte(schema))
	return err == nil && got == fp
}
