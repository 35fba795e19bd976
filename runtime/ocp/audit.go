package ocp

import (
	"context"
	"fmt"
	"log/slog"
	"unicode/utf8"
)

// Audit event names: the slog message of each event the gate emits. Every
// call emits one event per step it reaches, each with the attributes "call"
// (the request id), "tool", "principal", "tier", "peer" and "outcome" ("ok",
// a [Reason], or an [Outcome] for the confirm step), and, for a gate of a
// [Mux], "server" (the [MuxServer] name; every other event of such a gate
// carries it too); refusals and failures add
// "detail" (the raw cause, which never reaches an [ActionResult]) and failed
// calls add "ref" (the id quoted in the result). An argument refusal (an
// ocp.args event, or an ocp.authorize event of the resource bounds, whose
// outcome is invalid) adds "pointer", the JSON pointer of the value refused
// in the call's arguments ("" for the arguments as a whole: missing, too
// large, not an object), and "rule", the rule that refused it: "schema" or
// "json-syntax" when the arguments fail the tool's schema, else the gate's
// own rule (docs/security-model.md lists them).
const (
	AuditCatalogue   = "ocp.catalogue"   // step 1: is the tool advertised
	AuditArgs        = "ocp.args"        // step 2: schema and strict decode
	AuditAuthorize   = "ocp.authorize"   // step 3: tier × scopes × ACL
	AuditConfirm     = "ocp.confirm"     // step 4: the confirm's outcome (writes)
	AuditReauthorize = "ocp.reauthorize" // step 5: rights after approval (writes)
	AuditCall        = "ocp.call"        // steps 6–7: the server call and its result
	AuditSync        = "ocp.sync"        // a catalogue sync
	AuditDecision    = "ocp.decision"    // a peer's confirm decision via Gate.Resolve
	AuditPanic       = "ocp.panic"       // a recovered panic (hook, caller, broker)
)

// call is one dispatch in flight, for audit.
type call struct {
	g   *Gate
	ctx context.Context
	id  string
	p   Principal
	// tool is the requested name, as sent (it may name no tool).
	tool string
	// obs observes the call (see observe.go); nil without Config.Observer.
	obs CallObserver
}

// Bounds of an audit event: whatever a request holds, one event stays
// small (a 16-byte call must not write the 100,000 values of an enum).
const (
	// maxAuditText bounds a text attribute (a detail, a requested name).
	maxAuditText = 2048
	// maxAuditList bounds a list attribute (the resources of a call, the
	// tool lists of a sync).
	maxAuditList = 64
	// maxAuditName bounds each name of a sync's tool lists: a server may
	// list hundreds of tools with long names, and a sync is logged on
	// every list_changed.
	maxAuditName = 256
)

// boundText cuts s to maxAuditText bytes (on a rune boundary), saying how
// long it was.
func boundText(s string) string { return boundTo(s, maxAuditText) }

// boundTo cuts s to max bytes (on a rune boundary), saying how long it was.
func boundTo(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(s))
}

// boundList cuts a list to maxAuditList items of bounded text.
func boundList(l []string) []string { return boundListTo(l, maxAuditText) }

// boundNames cuts a list of tool names to maxAuditList names of at most
// maxAuditName bytes each.
func boundNames(l []string) []string { return boundListTo(l, maxAuditName) }

// boundListTo cuts a list to maxAuditList items of at most max bytes each;
// a list cut short ends with an item saying how many it had.
func boundListTo(l []string, max int) []string {
	n := min(len(l), maxAuditList)
	out := make([]string, n, n+1)
	for i := range n {
		out[i] = boundTo(l[i], max)
	}
	if len(l) > n {
		out = append(out, fmt.Sprintf("… (%d in all)", len(l)))
	}
	return out
}

func (c *call) event(level slog.Level, name, outcome string, attrs ...slog.Attr) {
	c.log(c.g.audit, c.g.server, level, name, outcome, attrs)
}

// log writes one event of c to audit. It is the one place that builds a
// call event's attributes: those every event carries (see the Audit
// constants), "server" unless server is "" ([withServer]), then attrs,
// with the request id, the requested name, a "detail" and a "pointer"
// bounded. A gate's calls log through event, and the calls
// a [Mux] routes to no gate through Mux.unknown.
func (c *call) log(audit *slog.Logger, server string, level slog.Level, name, outcome string, attrs []slog.Attr) {
	for i, a := range attrs {
		if (a.Key == "detail" || a.Key == "pointer") && a.Value.Kind() == slog.KindString {
			attrs[i].Value = slog.StringValue(boundText(a.Value.String()))
		}
	}
	base := withServer(server,
		slog.String("call", boundText(c.id)),
		slog.String("tool", boundText(c.tool)),
		slog.String("principal", c.p.ID),
		slog.String("tier", c.p.Tier),
		slog.String("peer", c.p.Peer),
		slog.String("outcome", outcome),
	)
	audit.LogAttrs(c.ctx, level, name, append(base, attrs...)...)
}

func (c *call) ok(name string, attrs ...slog.Attr) { c.event(slog.LevelInfo, name, "ok", attrs...) }

func (c *call) refuse(name string, r Reason, detail error, attrs ...slog.Attr) {
	if detail != nil {
		attrs = append(attrs, slog.String("detail", detail.Error()))
	}
	c.event(slog.LevelWarn, name, string(r), attrs...)
}

// protect runs f, turning a panic into an error (and an audit event): a
// misbehaving hook, caller or broker must not crash the Hub, and the step it
// belonged to then fails closed.
func (g *Gate) protect(ctx context.Context, what string, f func() error) error {
	return protectHook(ctx, g.audit, g.server, what, f)
}

// protectHook runs f, turning a panic into an error that is audited (with
// server, if set) as AuditPanic.
func protectHook(ctx context.Context, audit *slog.Logger, server, what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in %s: %v", what, r)
			audit.LogAttrs(ctx, slog.LevelError, AuditPanic, withServer(server, slog.String("in", what), slog.String("detail", err.Error()))...)
		}
	}()
	return f()
}
