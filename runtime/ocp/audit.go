package ocp

import (
	"context"
	"fmt"
	"log/slog"
	"unicode/utf8"
)

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

// protect runs f, turning a panic into an error (and an audit event): a
// misbehaving hook, caller or broker must not crash the Hub, and the stage
// it belonged to then fails closed.
func (g *serverGate) protect(ctx context.Context, what string, f func() error) error {
	return protectHook(ctx, g.audit, g.server, what, f)
}

// protectHook runs f, turning a panic into an error that is audited (with
// server, if set) as auditPanic.
func protectHook(ctx context.Context, audit *slog.Logger, server, what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in %s: %v", what, r)
			audit.LogAttrs(ctx, slog.LevelError, auditPanic, withServer(server, slog.String("in", what), slog.String("detail", err.Error()))...)
		}
	}()
	return f()
}

// truncQuote quotes s, cut to 64 bytes, for an error or an audit detail.
func truncQuote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}
