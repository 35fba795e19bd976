package ocp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// Resolve takes a peer's decision on a pending confirm, checks who may
// make it, passes it to the broker and audits it. peer is the deciding
// principal, with the Peer of the channel the decision came on. The
// decision is refused (and the confirm stays pending) when it comes from the
// requester's channel or from no channel; when the confirm is for no server
// of g, or was not opened under its server's policy (its server name and
// its catalogue's policy digest: [ErrConfirmForbidden]); when it names
// another digest; or when the decider could not make the call itself. The
// approver must be authorized for the same call: the tool's tier and
// scopes, checked first on peer and then on its current rights
// (Config.Reauthorize, as for the requester after the wait), and the ACL on
// the resources the call was authorized on when the confirm opened;
// Config.Approver may refuse more. No check of a decision reads or parses
// the confirm's arguments.
//
// The errors are fixed: one of the ErrConfirm values, or
// [ErrConfirmUnavailable] with a reference whose cause is in the audit log.
// Nothing internal (a broker's text) reaches the deciding channel.
func (g *Gate) Resolve(ctx context.Context, peer Principal, d ConfirmDecision) error {
	if ctx == nil {
		ctx = context.Background()
	}
	refuse := func(err error, detail string) error {
		return refuseDecision(ctx, g.audit, withServer(g.server, decisionAttrs(peer, d)...), err, detail)
	}
	if g.broker == nil {
		return refuse(ErrConfirmNotPending, "no broker")
	}
	if peer.Peer == "" {
		// model: gate_refuse_nochannel
		return refuse(ErrConfirmSelf, "the decider has no channel identity (Peer)")
	}
	var req ConfirmRequest
	err := protectHook(ctx, g.audit, g.server, "ConfirmBroker.Lookup", func() error {
		var err error
		req, err = g.broker.Lookup(ctx, d.ID)
		return err
	})
	if err != nil {
		return refuse(brokerError(err), err.Error())
	}
	sg := g.byName[req.Server]
	if sg == nil {
		// model: gate_refuse_forbidden
		return refuse(ErrConfirmForbidden, fmt.Sprintf("the confirm is for server %s, tool %s, which this gate does not front", truncQuote(req.Server), truncQuote(req.Tool)))
	}
	return sg.decide(ctx, peer, d, req)
}

// decide is the rest of Resolve, on the confirm req that d names: the
// owner, the digest, the approver rule, and the broker's resolution.
func (g *serverGate) decide(ctx context.Context, peer Principal, d ConfirmDecision, req ConfirmRequest) error {
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
	g.audit.LogAttrs(ctx, slog.LevelInfo, auditDecision, append(attrs, slog.String("tool", boundText(req.Tool)), slog.String("outcome", "accepted"))...)
	return nil
}

// MayDecide reports whether peer may decide the confirm r (one that
// [Gate.Pending] or [Gate.Subscribe] gave), by the rules [Gate.Resolve]
// applies before the broker sees a decision: peer has a channel (else
// [ErrConfirmSelf]), r is for a server of g and was opened under its
// policy, and peer is authorized for the call r holds, with its current
// rights and Config.Approver (else [ErrConfirmForbidden]). A page that
// lists confirms shows a principal only those it may decide: the others'
// arguments are not its to read. It does not look r up: whether r is still
// pending, its digest, and whether peer's channel is the requester's are
// the broker's to say when the decision comes, so nil does not promise that
// a decision will be accepted. It calls Config.Reauthorize, the ACL and
// Config.Approver as a decision does. Nothing is audited; [Gate.Resolve]
// audits decisions.
func (g *Gate) MayDecide(ctx context.Context, peer Principal, r ConfirmRequest) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if peer.Peer == "" {
		return ErrConfirmSelf
	}
	sg := g.byName[r.Server]
	if sg == nil || !sg.owns(r) || sg.mayDecide(ctx, peer, r) != nil {
		return ErrConfirmForbidden
	}
	return nil
}

// owns reports whether r was opened under g's policy: by a gate of the same
// server name and catalogue policy digest (this one, or one on another
// replica).
func (g *serverGate) owns(r ConfirmRequest) bool { return r.Server == g.server && r.Policy == g.policy }

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
	audit.LogAttrs(ctx, level, auditDecision, append(attrs, slog.String("outcome", "refused"), slog.String("detail", boundText(detail)))...)
	return err
}

// mayDecide is the approver rule, on a confirm g owns: peer must be
// authorized for the call the confirm holds, as if it made the call itself,
// with its current rights, and Config.Approver must agree. The cheap checks
// come first: the tier and scopes of peer, then of its current rights; then
// the ACL on the confirm's resources (computed when it opened: the
// arguments are not read again).
func (g *serverGate) mayDecide(ctx context.Context, peer Principal, req ConfirmRequest) error {
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

// Pending returns the confirms of g's servers still waiting for a decision,
// each opened under its server's policy (its server name and its
// catalogue's policy digest, on any replica), for a peer that connects late
// (each with the id, prompt and digest a decision quotes), from one query
// of the broker. Without a broker there are none. A broker failure is
// [ErrConfirmUnavailable] with a reference; its cause is in the audit log.
func (g *Gate) Pending(ctx context.Context) ([]ConfirmRequest, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if g.broker == nil {
		return []ConfirmRequest{}, nil
	}
	var all []ConfirmRequest
	err := protectHook(ctx, g.audit, g.server, "ConfirmBroker.Pending", func() error {
		var err error
		all, err = g.broker.Pending(ctx)
		return err
	})
	if err != nil {
		ref := newRef()
		g.audit.LogAttrs(ctx, slog.LevelError, auditDecision, withServer(g.server, slog.String("outcome", "pending failed"), slog.String("ref", ref), slog.String("detail", boundText(err.Error())))...)
		return nil, fmt.Errorf("%w (ref %s)", ErrConfirmUnavailable, ref)
	}
	out := make([]ConfirmRequest, 0, len(all))
	for _, r := range all {
		if g.shown(r) {
			out = append(out, peerCopy(r))
		}
	}
	return out, nil
}

// Subscribe calls opened for every confirm of g's servers that opens, and
// ended for every one that ends (as [Gate.Pending] chooses them), until
// stop is called: show an opened confirm to the connected peers, never to
// the requesting channel, which cannot answer it; take its prompt down when
// it ends (approved or denied, possibly by another peer, expired, or
// cancelled). A nil function is not called. It makes one subscription on
// the broker for each, however many servers. ended is told only of
// confirms g has opened, listed in Pending or announced. Neither may block
// for long, and they may run concurrently. The peers answer through
// [Gate.Resolve]; a peer that connects late catches up with [Gate.Pending].
func (g *Gate) Subscribe(opened func(ConfirmRequest), ended func(ConfirmEnded)) (stop func()) {
	if g.broker == nil {
		return func() {}
	}
	stopOpened, stopEnded := func() {}, func() {}
	if opened != nil {
		stopOpened = g.broker.Subscribe(func(r ConfirmRequest) {
			if g.shown(r) {
				opened(peerCopy(r))
			}
		})
	}
	if ended != nil {
		stopEnded = g.broker.SubscribeEnded(func(e ConfirmEnded) {
			if g.seen(e.ID) {
				ended(e)
			}
		})
	}
	return func() { stopOpened(); stopEnded() }
}

// shown reports whether g shows r to peers, its server's policy having
// opened it, and remembers that it has.
func (g *Gate) shown(r ConfirmRequest) bool {
	sg := g.byName[r.Server]
	if sg == nil || !sg.owns(r) {
		return false
	}
	sg.seen.add(r)
	return true
}

// seen reports whether a server of g has opened, listed or announced the
// confirm id.
func (g *Gate) seen(id string) bool {
	for _, sg := range g.servers {
		if sg.seen.has(id) {
			return true
		}
	}
	return false
}

// peerCopy is r with its own Resources, which the gate's decisions read:
// what a peer or a subscriber does to its copy changes nothing the broker
// holds.
func peerCopy(r ConfirmRequest) ConfirmRequest {
	r.Resources = slices.Clone(r.Resources)
	return r
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
