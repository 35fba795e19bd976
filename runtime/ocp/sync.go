package ocp

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"

	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/impl"
)

// catState is one advertised catalogue of a server. It is replaced, never
// modified; ctx is cancelled when it is replaced by a different set, which
// voids the confirms pending under it.
type catState struct {
	advertised map[string]bool
	fp         string
	adv        ToolsAdvertise
	ctx        context.Context
	cancel     context.CancelCauseFunc
}

// syncCatalogue receives the server's tool lists (see [Server.WatchTools]).
// The advertised set is every generated tool that the server lists with the
// generated fingerprint and as callable without a task. Tools only on the
// server, tools whose schema changed, tools that now need a task and
// generated tools the server no longer lists are reported in the audit log
// and are not callable. A nil list is no listing at all (see
// [Server.WatchTools]): everything is withdrawn, and the sync is logged at
// Info with listed=false and no tool "removed". When the set changes,
// confirms pending under the old set are denied and the Gate advertises
// anew; on the first sync it always does.
func (g *serverGate) syncCatalogue(live []LiveTool) {
	g.syncMu.Lock()
	defer g.syncMu.Unlock()

	liveFP := make(map[string]string, len(live))
	ambiguous := make(map[string]bool)
	needsTask := make(map[string]bool)
	var drift []string // "tool: field, field" of what differs from the snapshot
	for _, lt := range live {
		t := lt.Tool
		if t == nil {
			g.audit.LogAttrs(context.Background(), slog.LevelWarn, "server listed a LiveTool without its Tool; left out", g.withServer()...)
			continue
		}
		// A schema that cannot be encoded has no fingerprint: "" is never
		// the generated one, so the tool is withdrawn.
		fp, err := canon.SchemaFingerprint(t.InputSchema)
		if err != nil {
			g.audit.LogAttrs(context.Background(), slog.LevelWarn, "mcp tool schema not encodable", g.withServer(slog.String("tool", boundTo(t.Name, maxAuditName)), slog.String("error", boundText(err.Error())))...)
		}
		if prev, seen := liveFP[t.Name]; seen && prev != fp {
			ambiguous[t.Name] = true
		}
		if !impl.CallableWithoutTask(lt.TaskSupport) {
			needsTask[t.Name] = true
		}
		liveFP[t.Name] = fp
		if gt := g.byServer[t.Name]; gt != nil {
			if fields := driftOf(gt, lt); len(fields) > 0 {
				drift = append(drift, boundTo(t.Name, maxAuditName)+": "+strings.Join(fields, ", "))
			}
		}
	}
	serverOnly, changed, taskRequired, removed, names := []string{}, []string{}, []string{}, []string{}, []string{}
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
		case needsTask[name]:
			taskRequired = append(taskRequired, name)
		default:
			names = append(names, gt.name)
		}
	}
	for _, s := range [][]string{serverOnly, changed, taskRequired, removed, names, drift} {
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

	protocol := protocolOf(g.cfg.Server, live)
	old := g.state.Load()
	same := old != nil && old.fp == fp
	level := slog.LevelInfo
	if len(serverOnly)+len(changed)+len(taskRequired)+len(removed)+len(drift) > 0 {
		level = slog.LevelWarn
	}
	// listed is false for a nil list: nothing may be called, and the
	// Server says why (the Client logs a session's end or a failed listing;
	// a Close is no news).
	g.audit.LogAttrs(context.Background(), level, auditSync, g.withServer(
		slog.String("catalogue", fp),
		slog.Bool("changed", !same),
		slog.Any("advertised", boundNames(names)),
		slog.Any("server_only_not_callable", boundNames(serverOnly)),
		slog.Any("schema_changed_withdrawn", boundNames(changed)),
		slog.Any("task_required_withdrawn", boundNames(taskRequired)),
		slog.Any("removed", boundNames(removed)),
		slog.Any("drift_audited", boundList(drift)),
		slog.Bool("listed", live != nil),
		slog.String("protocol", protocol),
	)...)
	if o := g.cfg.Observer; o != nil {
		info := SyncInfo{Server: g.server, Catalogue: fp, Changed: !same, Advertised: len(names), ServerOnly: len(serverOnly), Withdrawn: len(changed), TaskRequired: len(taskRequired), Removed: len(removed), Drift: len(drift), Protocol: protocol}
		_ = g.protect(context.Background(), "Observer.Synced", func() error { o.Synced(info); return nil })
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
	if g.advertised != nil {
		g.advertised()
	}
}

// driftOf names what the server lists for a generated tool, besides the
// input schema, that differs from the snapshot the tool was generated from.
func driftOf(gt *gateTool, lt LiveTool) []string {
	d, t := gt.desc, lt.Tool
	var out []string
	if t.Title != d.Title {
		out = append(out, "title")
	}
	if t.Description != d.Description {
		out = append(out, "description")
	}
	var h impl.ServerHints
	if a := t.Annotations; a != nil {
		h = impl.ServerHints{Title: a.Title, ReadOnly: &a.ReadOnlyHint, Destructive: a.DestructiveHint, Idempotent: &a.IdempotentHint, OpenWorld: a.OpenWorldHint}
	}
	if hintValues(h) != hintValues(d.Hints) {
		out = append(out, "annotations")
	}
	if h.Title != d.Hints.Title {
		out = append(out, "annotations.title")
	}
	outputFP := ""
	if t.OutputSchema != nil {
		if fp, err := canon.SchemaFingerprint(t.OutputSchema); err == nil {
			outputFP = fp
		} else {
			outputFP = "(invalid)"
		}
	}
	if outputFP != gt.outputFP {
		out = append(out, "outputSchema")
	}
	if liveFingerprint(impl.IconsFingerprint, t.Icons, len(t.Icons)) != d.IconsFingerprint {
		out = append(out, "icons")
	}
	if liveFingerprint(impl.MetaFingerprint, t.Meta, len(t.Meta)) != d.MetaFingerprint {
		out = append(out, "_meta")
	}
	if lt.TaskSupport != d.TaskSupport {
		out = append(out, "execution")
	}
	return out
}

// liveFingerprint is fp of the JSON of v, a live tool's member of n
// elements ("" when it has none), or a value no descriptor holds when fp
// cannot take it.
func liveFingerprint(fp func([]byte) (string, error), v any, n int) string {
	if n == 0 {
		return ""
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return "(invalid)"
	}
	s, err := fp(raw)
	if err != nil {
		return "(invalid)"
	}
	return s
}

// hintValues are a tool's annotations with MCP's defaults for absent ones
// (readOnly false, destructive true, idempotent false, openWorld true), so
// an absent hint and its default compare equal.
func hintValues(h impl.ServerHints) [4]bool {
	get := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	return [4]bool{get(h.ReadOnly, false), get(h.Destructive, true), get(h.Idempotent, false), get(h.OpenWorld, true)}
}

// Advertisement returns the tools advertised now: every server's, under
// their exposed names, sorted by name (none before the first sync).
func (g *Gate) Advertisement() ToolsAdvertise {
	var tools []ToolDef
	for _, sg := range g.servers {
		if st := sg.state.Load(); st != nil {
			tools = append(tools, st.adv.Tools...)
		}
	}
	out := ToolsAdvertise{Tools: make([]ToolDef, len(tools))}
	for i, t := range tools {
		t.Input = slices.Clone(t.Input)
		out.Tools[i] = t
	}
	if len(g.servers) > 1 {
		slices.SortFunc(out.Tools, func(x, y ToolDef) int { return strings.Compare(x.Name, y.Name) })
	}
	return out
}

// advertised passes the advertisement to Advertise, after a server's
// advertised set changed. The merges are serialized, and each reads every
// server's set after that server stored it, so the last one delivered is
// the current one.
func (g *Gate) advertised() {
	g.advMu.Lock()
	defer g.advMu.Unlock()
	a := g.Advertisement()
	_ = protectHook(context.Background(), g.audit, g.server, g.advertiseHook, func() error { g.advertise(a); return nil })
}
