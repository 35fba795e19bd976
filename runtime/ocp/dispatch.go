package ocp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
)

var errCatalogueChanged = errors.New("the advertised catalogue changed")

// Dispatch answers one action.request for principal p: the server that
// exposes req.Tool runs the stages of [Step], in order, each audited, and
// the result is the first refusal or the server's mapped result. A name no
// server exposes is unknown.
func (g *Gate) Dispatch(ctx context.Context, p Principal, req ActionRequest) ActionResult {
	sg := g.byTool[req.Tool]
	if len(g.servers) == 1 {
		sg = g.servers[0] // its own catalogue stage refuses what it does not expose
	}
	if sg == nil {
		return g.refuseUnrouted(ctx, p, req.ID, req.Tool, "no server of the mux exposes this tool")
	}
	c := newCall(ctx, sg.audit, sg.server, req.ID, req.Tool, p)
	c.gt, c.raw = sg.tools[req.Tool], req.Args
	return sg.run(c)
}

// Call runs a typed call through g: args, a generated argument struct (or
// a non-nil pointer to one), take exactly the stages of [Gate.Dispatch],
// confirm included for writes, and are encoded at StepArgs. The tool is
// the one whose argument struct args is, so a call cannot name one tool
// and carry another's arguments; a value of any other type is unknown, and
// so is the type of a tool that several servers serve (call
// Gate.Server(name).Call). The result's ID is a fresh id, which the audit
// events carry.
func (g *Gate) Call(ctx context.Context, p Principal, args any) ActionResult {
	id := "call-" + newRef()
	typ := argsStructType(args)
	sg, ok := g.byType[typ]
	if len(g.servers) == 1 {
		sg = g.servers[0]
	}
	if sg == nil {
		detail := "arguments of no generated tool of any server of the mux"
		if ok {
			detail = "arguments of a tool that several servers serve (" + g.servingType(typ) + "): call Gate.Server(name).Call"
		}
		return g.refuseUnrouted(ctx, p, id, fmt.Sprintf("(%T)", args), detail)
	}
	gt := sg.byType[typ]
	name := fmt.Sprintf("(%T)", args)
	if gt != nil {
		name = gt.name
	}
	c := newCall(ctx, sg.audit, sg.server, id, name, p)
	c.gt, c.typed = gt, args
	return sg.run(c)
}

// argsStructType returns the struct type of args, or of what it points to.
func argsStructType(args any) reflect.Type {
	t := reflect.TypeOf(args)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// servingType names the servers that have a tool whose argument struct is
// typ, in MuxConfig.Servers order (a server has at most one such tool).
func (g *Gate) servingType(typ reflect.Type) string {
	var names []string
	for _, sg := range g.servers {
		if sg.byType[typ] != nil {
			names = append(names, sg.server)
		}
	}
	return strings.Join(names, ", ")
}

// refuseUnrouted refuses a call that no server of g owns, audited as a
// catalogue refusal of no server.
func (g *Gate) refuseUnrouted(ctx context.Context, p Principal, id, tool, detail string) ActionResult {
	c := newCall(ctx, g.audit, g.server, id, tool, p)
	c.stage = &stages[0]
	c.fail(ReasonUnknown, textUnknown, errors.New(detail))
	return c.res
}

// catalogue is StepCatalogue: hidden means uncallable.
func (c *call) catalogue() bool {
	switch {
	case c.st == nil:
		return c.fail(ReasonUnknown, textUnknown, errors.New("no catalogue sync yet"))
	case c.gt == nil && c.typed != nil:
		return c.fail(ReasonUnknown, textUnknown, errors.New("arguments of no generated tool of this gate"), slog.String("catalogue", c.st.fp))
	case c.gt == nil:
		return c.fail(ReasonUnknown, textUnknown, errors.New("not a generated tool"), slog.String("catalogue", c.st.fp))
	case !c.st.advertised[c.gt.name]:
		return c.fail(ReasonUnknown, textUnknown, errors.New("not advertised: not on the server, or its schema changed"), slog.String("catalogue", c.st.fp))
	}
	return c.pass(slog.String("catalogue", c.st.fp))
}

// rights is StepRights: the rights that need no arguments, before anyone
// can make the Hub parse arguments it would refuse to run anyway.
func (c *call) rights() bool {
	if err := c.g.authorizeRights(c.p, c.gt); err != nil {
		return c.fail(ReasonForbidden, textForbidden, err)
	}
	return c.pass()
}

// arguments is StepArgs: the tool's argument engine checks the arguments
// and gives the typed arguments (when a resource template reads them) and
// the bytes to forward. What a peer is shown, and the server receives, are
// the same bytes: the re-encoding with every invisible or
// direction-changing character escaped, so that caller text cannot restyle
// a confirm; they are held to Config.MaxArgsBytes too.
func (c *call) arguments() bool {
	if c.typed != nil {
		raw, err := argengine.MarshalPlain(c.typed)
		if err != nil {
			return c.failArgs(refusal("", ruleEncode, err))
		}
		c.raw = raw
	}
	args, fwd, err := c.gt.args.Check(c.raw, c.gt.argsRead)
	if err != nil {
		return c.failArgs(err)
	}
	limit := c.g.cfg.MaxArgsBytes
	if fwd, n := escapeInvisibleWithin(fwd, limit); fwd == nil {
		return c.failArgs(refusal("", ruleForwardSize, fmt.Errorf("the forwarded arguments, %d bytes with their escapes, exceed the limit of %d", n, limit)))
	} else {
		c.args, c.fwd = args, fwd
	}
	return c.pass()
}

// acl is StepACL: the resources, and the ACL on them.
func (c *call) acl() bool {
	resources, err := c.g.resources(c.sctx, c.gt, c.args)
	if err != nil {
		if errors.Is(err, errTooManyResources) {
			return c.failArgs(err)
		}
		return c.fail(ReasonForbidden, textForbidden, err)
	}
	c.resources = resources
	if err := c.g.allow(c.sctx, c.p, c.gt, resources); err != nil {
		return c.fail(ReasonForbidden, textForbidden, err)
	}
	return c.pass()
}

// confirm is StepConfirm: a write waits for a peer's decision, and passes
// only on an approval. A catalogue change voids the confirm.
func (c *call) confirm() bool {
	g, gt := c.g, c.gt
	ctx, cancel := context.WithCancelCause(c.sctx)
	defer cancel(nil)
	stop := context.AfterFunc(c.st.ctx, func() { cancel(errCatalogueChanged) })
	defer stop()

	var prompt string
	if err := g.protect(c.sctx, "confirm prompt", func() error { prompt = gt.prompt.prompt(c.fwd); return nil }); err != nil {
		return c.fail(ReasonDenied, textBroker, err)
	}
	digest := confirmDigest(g.server, g.policy, gt.name, gt.desc.Name, c.fwd, c.p, c.st.fp)
	// The broker holds the forwarded bytes themselves, not a copy: what an
	// approval runs is a copy of them that must still be what the digest
	// covers (below). Nothing reads req after the wait, so its prompt can
	// go then.
	req := ConfirmRequest{
		ID:        newConfirmID(),
		Tool:      gt.name,
		Server:    g.server,
		Prompt:    prompt,
		Requester: c.p.ID,
		Args:      json.RawMessage(c.fwd),
		Policy:    g.policy,
		// The decision is checked on the resources the call was
		// authorized on, without reading the arguments again.
		Resources: slices.Clone(c.resources),
		Digest:    digest,
		Expires:   time.Now().Add(gt.desc.Policy.ConfirmTTL),
	}
	g.seen.add(req)
	attrs := []slog.Attr{slog.String("confirm", req.ID), slog.String("digest", req.Digest)}
	if c.audit.Enabled(c.ctx, slog.LevelInfo) {
		c.event(slog.LevelInfo, "opened", append(attrs, slog.Time("expires", req.Expires)))
	}
	var d Decision
	err := g.protect(c.sctx, "ConfirmBroker.Request", func() error {
		var err error
		d, err = g.cfg.Broker.Request(ctx, PendingConfirm{Request: req, RequesterPeer: c.p.Peer})
		return err
	})
	if err != nil {
		return c.failAt(slog.LevelError, ReasonDenied, textBroker, err, attrs...)
	}
	attrs = append(attrs, slog.String("by_peer", d.Peer), slog.String("by_principal", d.PrincipalID))
	cause := context.Cause(ctx)
	switch d.Outcome {
	case OutcomeApproved:
		if cause != nil {
			// Approved, but the wait had already been voided.
			// model: gate -> approved_after_cancel
			return c.decided(OutcomeCancelled, cancelText(cause), append(attrs, slog.String("detail", "approved after cancellation: "+cause.Error()))...)
		}
		// What runs is a copy of the bytes the broker held, checked
		// against the digest the decision was made on: nothing that held
		// them while the confirm waited can change what runs.
		fwd := slices.Clone(c.fwd)
		if confirmDigest(g.server, g.policy, gt.name, gt.desc.Name, fwd, c.p, c.st.fp) != digest {
			return c.decided(OutcomeCancelled, textBroker, append(attrs, slog.String("detail", "the arguments changed while the confirm waited"))...)
		}
		c.fwd = fwd
		return c.decided(OutcomeApproved, "", attrs...)
	case OutcomeDenied:
		return c.decided(OutcomeDenied, textDenied, attrs...)
	case OutcomeExpired:
		return c.decided(OutcomeExpired, textExpired, attrs...)
	case OutcomeCancelled:
		if cause != nil {
			attrs = append(attrs, slog.String("detail", cause.Error()))
		}
		return c.decided(OutcomeCancelled, cancelText(cause), attrs...)
	}
	return c.failAt(slog.LevelError, ReasonDenied, textBroker, fmt.Errorf("unknown outcome %q", d.Outcome), attrs...)
}

func cancelText(cause error) string {
	if errors.Is(cause, errCatalogueChanged) {
		return textCatalogue
	}
	return textCancelled
}

// reauthorize is StepReauthorize: rights may have changed while the
// confirm waited.
func (c *call) reauthorize() bool {
	cur, err := c.g.currentRights(c.sctx, c.p)
	if err == nil {
		_, err = c.g.authorize(c.sctx, cur, c.gt, c.args)
	}
	switch {
	case err != nil: // model: gate -> forbidden
		return c.fail(ReasonForbidden, textForbidden, err)
	case c.g.state.Load() != c.st: // model: gate -> withdrawn
		return c.fail(ReasonDenied, textCatalogue, errCatalogueChanged)
	case c.sctx.Err() != nil: // model: gate -> cancelled
		return c.fail(ReasonDenied, textCancelled, c.sctx.Err())
	}
	return c.pass()
}

// callServer is StepCall: the call with the forwarded arguments only, and
// the mapping of its result (bounded, validated against the output schema),
// redacting errors: failed, or outcome_unknown when the call was sent and
// no answer came. model: call
func (c *call) callServer() bool {
	g, gt := c.g, c.gt
	var res *mcp.CallToolResult
	err := g.protect(c.sctx, "Server.CallTool", func() error {
		var err error
		// The package's own Client may skip its check that the arguments
		// are one JSON object: the forwarded arguments always are (the engine
		// parsed them, or their re-encoding, as an object, and the escapes
		// of escapeInvisible keep them one). Only the Client itself: a Hub's
		// Server that embeds one and wraps CallTool must get its CallTool
		// called.
		if cl, ok := g.cfg.Server.(*Client); ok {
			res, err = cl.callObject(c.sctx, gt.desc.Name, json.RawMessage(c.fwd))
		} else {
			res, err = g.cfg.Server.CallTool(c.sctx, gt.desc.Name, json.RawMessage(c.fwd))
		}
		return err
	})
	failure := gt.desc.Policy.Failure
	switch {
	case err != nil && !mayHaveRun(err):
		return c.failRef(ReasonFailed, failure, "call error: "+err.Error())
	case err != nil:
		// Sent, and no answer: the server may have run it. Saying "failed"
		// would invite a retry that writes twice.
		return c.failRef(ReasonOutcomeUnknown, textOutcomeUnknown, "call error: "+err.Error())
	case res == nil:
		// An answer that says nothing ({"result":null} reaches here or as
		// an empty result): the server may have acted, and did not say.
		return c.failRef(ReasonOutcomeUnknown, textOutcomeUnknown, "malformed result: the call returned no result", slog.Bool("malformed", true))
	case res.NeedsInput():
		return c.inputRequested(res)
	case res.IsError:
		b, _ := json.Marshal(res.Content)
		return c.failRef(ReasonFailed, failure, "tool error result: "+string(b))
	case len(res.Content) == 0 && res.StructuredContent == nil:
		// {"result":{}}: neither content nor structuredContent. Not a
		// success with no output: the server may have acted.
		return c.failRef(ReasonOutcomeUnknown, textOutcomeUnknown, "malformed result: neither content nor structuredContent", slog.Bool("malformed", true))
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
		return c.failRef(ReasonFailed, failure, "result does not encode: "+err.Error())
	}
	if len(out) > g.cfg.MaxResultBytes {
		return c.failRef(ReasonFailed, failure, fmt.Sprintf("result of %d bytes exceeds the limit of %d", len(out), g.cfg.MaxResultBytes), slog.Int("output_bytes", len(out)))
	}
	if structured && gt.output != nil {
		// As the MCP spec asks of clients: a structured result must match
		// the tool's output schema.
		if err := gt.output.ValidateJSON(out); err != nil {
			return c.failRef(ReasonFailed, failure, "structured result does not match the output schema: "+err.Error())
		}
	}
	c.res = ActionResult{ID: c.id, OK: true, Output: out}
	return c.pass(slog.Int("output_bytes", len(out)))
}

// inputRequested ends the call, whose result asks for input (SEP-2322
// input requests: elicitation, sampling, roots). The server is not a peer:
// the requests are shown to nobody, model or person, and never answered. A
// read fails; a write ends outcome_unknown (textInputRequired), since the
// server may have acted before it asked. The audit event names the kinds
// of input asked for ("input_requests", the request methods).
func (c *call) inputRequested(res *mcp.CallToolResult) bool {
	kinds := slog.Any("input_requests", inputRequestKinds(res.InputRequests))
	detail := "the server asked for input (input_required), which the Hub does not relay"
	if c.gt.confirm {
		return c.failRef(ReasonOutcomeUnknown, textInputRequired, detail, kinds)
	}
	return c.failRef(ReasonFailed, c.gt.desc.Policy.Failure, detail, kinds)
}

// inputRequestKinds are the methods of the input requests m holds, sorted,
// each once, whatever the server sent: "elicitation/create",
// "sampling/createMessage", "roots/list", and "unknown" for any other (a
// nil one, or a kind a later go-sdk decodes).
func inputRequestKinds(m mcp.InputRequestMap) []string {
	kinds := []string{}
	for _, ir := range m {
		k := "unknown"
		switch ir.(type) {
		case *mcp.ElicitParams:
			k = "elicitation/create"
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			k = "sampling/createMessage"
		case *mcp.ListRootsParams:
			k = "roots/list"
		}
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	slices.Sort(kinds)
	return kinds
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

// authorize is the whole authorization of p for a call of gt with args:
// the rights, the resources and the ACL. It returns the resources.
func (g *serverGate) authorize(ctx context.Context, p Principal, gt *gateTool, args any) ([]string, error) {
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
func (g *serverGate) authorizeRights(p Principal, gt *gateTool) error {
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
// Without typed arguments (a tool whose template reads none: see
// gateTool.argsRead) the rendering reflects on nothing, and runs without
// the guard that turns a panic in the reflection on args into an error.
func (g *serverGate) resources(ctx context.Context, gt *gateTool, args any) (resources []string, err error) {
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

// allow asks the ACL about the rendered resources. The hook gets a copy of
// the descriptor whose Scopes, and a resources slice, are its own: writing
// or appending to them changes nothing else. The rest of the descriptor's
// slices and pointers (its policy's templates, its hints) are shared with
// the gate's copy and with concurrent calls, and must only be read. What a
// hook writes never changes what a call is allowed to do: the gate checks
// the tier and scopes on its own copy, and renders resources and prompts
// from the templates it bound at NewGate.
func (g *serverGate) allow(ctx context.Context, p Principal, gt *gateTool, resources []string) error {
	if g.allowsAll {
		return nil
	}
	// The scopes and the resources are capped, so an append by the hook
	// cannot write into the other.
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
	if err := g.protect(ctx, "ACL", func() error { return g.cfg.ACL(ctx, p, &d, rs) }); err != nil {
		return fmt.Errorf("acl: %w", err)
	}
	return nil
}

// currentRights returns p's rights as Config.Reauthorize gives them now
// (p itself without the hook). An error of the hook, or a principal with
// another ID, is an error.
func (g *serverGate) currentRights(ctx context.Context, p Principal) (Principal, error) {
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

// confirmDigest binds a confirm to the server (its name in NewMux, "" for
// the server of NewGate), the policy digest of the gate's catalogue, the
// tool (its exposed name and the name the server is called with), the
// exact forwarded arguments, the principal's identity and rights, and the
// advertised catalogue. Two servers with the same tool and the same
// arguments, or two policies for the same server, never share a digest.
func confirmDigest(server, policy, exposed, tool string, fwd []byte, p Principal, catalogueFP string) string {
	scopes := slices.Compact(slices.Sorted(slices.Values(p.Scopes)))
	// The fingerprint of the JSON text json.Marshal writes for
	// ["ocp-confirm-v3", server, policy, exposed, tool, string(fwd), p.ID,
	// p.Tier, scopes, catalogueFP], hashed as it is written: the arguments
	// are neither copied into a string nor encoded whole.
	h := sha256.New()
	var buf [256]byte
	b := append(buf[:0], '[')
	for _, s := range [...]string{"ocp-confirm-v3", server, policy, exposed, tool} {
		b = append(jsonscan.AppendString(b, s, true), ',')
	}
	h.Write(append(b, '"'))
	for i := 0; i < len(fwd); {
		start := i
		for i < len(fwd) && jsonscan.Plain(fwd[i], true) {
			i++
		}
		h.Write(fwd[start:i])
		if i < len(fwd) {
			_, n := utf8.DecodeRune(fwd[i:])
			e := jsonscan.AppendString(buf[:0], string(fwd[i:i+n]), true)
			h.Write(e[1 : len(e)-1]) // without its quotes
			i += n
		}
	}
	b = append(buf[:0], '"', ',')
	b = append(jsonscan.AppendString(b, p.ID, true), ',')
	b = append(jsonscan.AppendString(b, p.Tier, true), ',', '[')
	for k, s := range scopes {
		if k > 0 {
			b = append(b, ',')
		}
		b = jsonscan.AppendString(b, s, true)
	}
	b = append(b, ']', ',')
	h.Write(append(jsonscan.AppendString(b, catalogueFP, true), ']'))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
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

// Resources renders the resources that a call with args would touch, as
// StepACL does: the resource template of the tool whose argument struct
// args is (or points to), with these arguments. It fails for arguments of
// no tool of g (or of a tool several of its servers serve), and for a
// placeholder whose argument is absent or empty.
func (g *Gate) Resources(args any) ([]string, error) {
	sg, gt, v, err := g.typedArgs(args)
	if err != nil {
		return nil, err
	}
	return gt.resource.resources(v, sg.cfg.MaxResources)
}

// ConfirmPrompt renders the confirm prompt that a call with args would show
// to the peers, as StepConfirm does (writes only ask).
func (g *Gate) ConfirmPrompt(args any) (string, error) {
	_, gt, v, err := g.typedArgs(args)
	if err != nil {
		return "", err
	}
	// What a call with args forwards: their encoding, escaped (the engine
	// forwards the typed value's encoding, which for arguments that pass
	// it is argengine.MarshalPlain's).
	fwd, err := argengine.MarshalPlain(v.Addr().Interface())
	if err != nil {
		return "", err
	}
	return gt.prompt.prompt(escapeInvisible(fwd)), nil
}

// typedArgs finds args' tool and returns the argument struct, addressable.
func (g *Gate) typedArgs(args any) (*serverGate, *gateTool, reflect.Value, error) {
	var gt *gateTool
	sg := g.byType[argsStructType(args)]
	if sg != nil {
		gt = sg.byType[argsStructType(args)]
	}
	v := reflect.ValueOf(args)
	if gt == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, nil, reflect.Value{}, fmt.Errorf("ocp gate: %T is not the arguments of a tool of this gate", args)
	}
	if v.Kind() == reflect.Pointer {
		return sg, gt, v.Elem(), nil
	}
	c := reflect.New(gt.typ).Elem()
	c.Set(v)
	return sg, gt, c, nil
}
