package ocpweb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// cardView is a card with what its form and its first drawing need.
type cardView struct {
	card
	Token string
	Left  string
}

// pageData is the page.
type pageData struct {
	Principal []piece
	Cards     []cardView
	Error     string
}

// view draws r for p, or returns false if p may not decide it.
func (h *handler) view(ctx context.Context, p ocp.Principal, r ocp.ConfirmRequest, adv *ocp.ToolsAdvertise, now time.Time) (cardView, bool) {
	if h.x.MayDecide(ctx, p, r) != nil {
		return cardView{}, false
	}
	if adv.Tools == nil {
		*adv = h.x.Advertisement()
	}
	c := newCard(r, declaredArgs(*adv, r.Tool), now)
	return cardView{card: c, Token: h.token(p), Left: timeLeft(c.LeftMS)}, true
}

// decidable returns the pending confirms p may decide, drawn.
func (h *handler) decidable(ctx context.Context, p ocp.Principal) ([]cardView, error) {
	pending, err := h.x.Pending(ctx)
	if err != nil {
		return nil, err
	}
	var adv ocp.ToolsAdvertise
	now := time.Now()
	var out []cardView
	for _, r := range pending {
		if v, ok := h.view(ctx, p, r, &adv, now); ok {
			out = append(out, v)
		}
	}
	return out, nil
}

// page serves the page: the confirms the principal may decide.
func (h *handler) page(w http.ResponseWriter, r *http.Request) {
	p, ok := h.principal(w, r)
	if !ok {
		return
	}
	d := pageData{Principal: visible(p.ID, false)}
	cards, err := h.decidable(r.Context(), p)
	if err != nil {
		d.Error = "The writes waiting for a decision could not be listed (" + errorRef(err) + "). Reload the page to try again."
	}
	d.Cards = cards
	render(w, http.StatusOK, "page", d)
}

// render executes the template name with d into w, with status.
func render(w http.ResponseWriter, status int, name string, d any) {
	var b bytes.Buffer
	if err := pageTmpl.ExecuteTemplate(&b, name, d); err != nil {
		http.Error(w, "The page could not be drawn.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

// timeLeft is ms as a person reads a time left: "1m 58s".
func timeLeft(ms int64) string {
	s := (ms + 999) / 1000
	switch {
	case s <= 0:
		return "none: expired"
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh %02dm", s/3600, s/60%60)
}

// errorRef is what the page may say of a failure of the Hub: the
// reference the runtime gave it (its cause is in the audit log), else
// nothing of its text.
func errorRef(err error) string {
	if _, ref, ok := strings.Cut(err.Error(), "(ref "); ok && errors.Is(err, ocp.ErrConfirmUnavailable) {
		return "ref " + strings.TrimSuffix(ref, ")")
	}
	return "no reference"
}

// Texts of the page's refusals and decisions, one place for each.
const (
	textNoPrincipal = "This page is only for a signed-in person. Nothing was shown or decided."
	textNoPeer      = "Your sign-in names no connection (its Peer is empty), so no decision of yours could be told apart from the requester's. Nothing was shown or decided."
	textCrossOrigin = "Refused: the decision did not come from this page (another site sent it). Nothing was decided."
	textForged      = "Refused: the decision did not carry this page's token for you. Nothing was decided; reload the page and decide again."
	textMalformed   = "Refused: the decision was not complete (a confirm id, its digest, and approve or deny). Nothing was decided."
	textApproved    = "Approved. The Hub checks the requester's rights once more, then runs the write."
	textDenied      = "Denied. The write will not run."
)

// endedText is what the page says of a confirm that ended with o ("": it
// is no longer pending, for a reason the page was not told).
func endedText(o ocp.Outcome) string {
	switch o {
	case ocp.OutcomeApproved:
		return "Approved. The Hub runs the write if the requester may still make it."
	case ocp.OutcomeDenied:
		return "Denied. The write will not run."
	case ocp.OutcomeExpired:
		return "Expired: nobody decided in time. The write will not run."
	case ocp.OutcomeCancelled:
		return "Withdrawn: the request was cancelled (the caller went away, or the Hub's tools changed). The write will not run."
	}
	return "No longer waiting for a decision."
}

// decisionText is what the page says of a decision that Resolve answered
// with err, and whether it was accepted.
func decisionText(approve bool, err error) (string, int) {
	switch {
	case err == nil && approve:
		return textApproved, http.StatusOK
	case err == nil:
		return textDenied, http.StatusOK
	case errors.Is(err, ocp.ErrConfirmNotPending):
		return "Refused: this write is no longer waiting (another person decided it, it expired, or it was withdrawn). Nothing was decided.", http.StatusConflict
	case errors.Is(err, ocp.ErrConfirmExpired):
		return "Refused: the time to decide ran out before your decision arrived. The write will not run.", http.StatusConflict
	case errors.Is(err, ocp.ErrConfirmDigest):
		return "Refused: this write is not the one the page showed you. Nothing was decided; reload the page to see it as it is now.", http.StatusConflict
	case errors.Is(err, ocp.ErrConfirmSelf):
		return "Refused: a decision cannot come from the connection that asked for the write. Nothing was decided.", http.StatusForbidden
	case errors.Is(err, ocp.ErrConfirmForbidden):
		return "Refused: you may not make this call yourself, so you may not decide it. Nothing was decided.", http.StatusForbidden
	}
	return "Refused: the decision could not reach the Hub (" + errorRef(err) + "). Nothing was decided; try again.", http.StatusServiceUnavailable
}

// decide takes a decision: a POST from the page (the cross-origin check
// has passed), for the signed-in principal, with its token.
func (h *handler) decide(w http.ResponseWriter, r *http.Request) {
	p, ok := h.principal(w, r)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		h.refuse(w, r, http.StatusBadRequest, textMalformed, "malformed decision", slog.String("principal", p.ID), slog.String("detail", err.Error()))
		return
	}
	f := r.PostForm
	if !h.validToken(p, f.Get("token")) {
		h.refuse(w, r, http.StatusForbidden, textForged, "a decision without the principal's token", slog.String("principal", p.ID), slog.String("peer", p.Peer))
		return
	}
	var approve bool
	switch f.Get("decision") {
	case "approve":
		approve = true
	case "deny":
	default:
		h.refuse(w, r, http.StatusBadRequest, textMalformed, "malformed decision", slog.String("principal", p.ID))
		return
	}
	id, digest := f.Get("id"), f.Get("digest")
	if id == "" || digest == "" {
		h.refuse(w, r, http.StatusBadRequest, textMalformed, "malformed decision", slog.String("principal", p.ID))
		return
	}
	err := h.x.Resolve(r.Context(), p, ocp.ConfirmDecision{ID: id, Approve: approve, Digest: digest})
	text, status := decisionText(approve, err)
	h.answer(w, r, status, text, err == nil)
}

// answer tells the browser the outcome of a request: as JSON to the
// page's script, which asks for it, else as a page.
func (h *handler) answer(w http.ResponseWriter, r *http.Request, status int, text string, ok bool) {
	if strings.Contains(r.Header.Get("Accept"), "application/json") {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		writeJSON(w, struct {
			OK      bool   `json:"ok"`
			Message string `json:"message"`
		}{ok, text})
		return
	}
	title := "Refused"
	if ok {
		title = "Decided"
	}
	render(w, status, "result", struct {
		Title, Message string
		OK             bool
	}{title, text, ok})
}
