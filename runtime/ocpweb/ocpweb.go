package ocpweb

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	_ "embed" // the page, its script and its style
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// Confirms is what the page needs of a Hub: its pending confirms, their
// changes, who may decide them, the decisions, and the advertised tools
// (for the arguments a call leaves out). [*ocp.Gate] satisfies it, whether
// it fronts one server or several.
type Confirms interface {
	Pending(ctx context.Context) ([]ocp.ConfirmRequest, error)
	Subscribe(opened func(ocp.ConfirmRequest), ended func(ocp.ConfirmEnded)) (stop func())
	MayDecide(ctx context.Context, peer ocp.Principal, r ocp.ConfirmRequest) error
	Resolve(ctx context.Context, peer ocp.Principal, d ocp.ConfirmDecision) error
	Advertisement() ocp.ToolsAdvertise
}

var _ Confirms = (*ocp.Gate)(nil)

// Options configure the page.
type Options struct {
	// Principal is the Hub's authentication of a browser request: the
	// person using the page, with a Peer naming this browser's session
	// (the same on every request of the session, and never the channel of
	// a model, whose own writes it could otherwise be shown). Required. An
	// error answers 401 and nothing of the page; its text goes only to
	// Audit.
	Principal func(*http.Request) (ocp.Principal, error)
	// Key signs the token every decision carries (at least 32 bytes).
	// Without one, a random key of this handler: replicas serving one page
	// behind one address need a shared Key, or a decision reaching another
	// replica than the page's is refused as forged.
	Key []byte
	// Audit receives what the page refuses before Resolve sees it (no
	// principal, a forged or cross-origin decision), at level Warn. Resolve
	// audits the decisions themselves. Nil discards.
	Audit *slog.Logger
}

// keySize is the size of a random key, and the least a Key may have.
const keySize = 32

// maxForm bounds a decision's body: an id, a digest, a token and a word.
const maxForm = 4 << 10

var (
	//go:embed static/page.html
	pageHTML string
	//go:embed static/app.js
	appJS []byte
	//go:embed static/app.css
	appCSS []byte

	pageTmpl = template.Must(template.New("page").Parse(pageHTML))
)

// handler is the page of one Confirms.
type handler struct {
	x     Confirms
	opt   Options
	key   []byte
	audit *slog.Logger
	mux   *http.ServeMux
}

// Handler returns the page for x. It serves, relative to where it is
// mounted (under a prefix, with [http.StripPrefix]):
//
//	GET  /        the page
//	GET  /events  the page's live updates (server-sent events)
//	POST /decide  a decision (form fields id, digest, token, decision)
//	GET  /app.js, /app.css  the page's script and style
//
// Every response carries Cache-Control: no-store and the security headers
// of the package doc; any other method or path is refused.
func Handler(x Confirms, opt Options) (http.Handler, error) {
	if x == nil {
		return nil, errors.New("ocpweb: no Confirms")
	}
	if opt.Principal == nil {
		return nil, errors.New("ocpweb: Options.Principal is required: the page decides as the principal the Hub authenticates")
	}
	h := &handler{x: x, opt: opt, audit: opt.Audit}
	if h.audit == nil {
		h.audit = slog.New(slog.DiscardHandler)
	}
	switch {
	case opt.Key == nil:
		h.key = make([]byte, keySize)
		rand.Read(h.key)
	case len(opt.Key) < keySize:
		return nil, fmt.Errorf("ocpweb: Options.Key has %d bytes, fewer than %d", len(opt.Key), keySize)
	default:
		h.key = append([]byte(nil), opt.Key...)
	}
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.refuse(w, r, http.StatusForbidden, textCrossOrigin, "cross-origin decision", slog.String("origin", r.Header.Get("Origin")), slog.String("sec_fetch_site", r.Header.Get("Sec-Fetch-Site")))
	}))
	m := http.NewServeMux()
	m.HandleFunc("GET /{$}", h.page)
	m.HandleFunc("GET /events", h.events)
	m.Handle("POST /decide", cop.Handler(http.HandlerFunc(h.decide)))
	m.HandleFunc("GET /app.js", staticFile(appJS, "text/javascript; charset=utf-8"))
	m.HandleFunc("GET /app.css", staticFile(appCSS, "text/css; charset=utf-8"))
	h.mux = m
	return h, nil
}

// ServeHTTP sets the headers every response carries, then serves r.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; require-trusted-types-for 'script'; trusted-types ocpweb")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
	hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	h.mux.ServeHTTP(w, r)
}

// staticFile serves an embedded file.
func staticFile(b []byte, typ string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", typ)
		w.Write(b)
	}
}

// principal authenticates r. It answers r itself and returns false when
// the page may not be served: no principal, or one without a channel.
func (h *handler) principal(w http.ResponseWriter, r *http.Request) (ocp.Principal, bool) {
	p, err := h.opt.Principal(r)
	if err != nil {
		h.refuse(w, r, http.StatusUnauthorized, textNoPrincipal, "no principal", slog.String("detail", err.Error()))
		return ocp.Principal{}, false
	}
	if p.Peer == "" {
		h.refuse(w, r, http.StatusForbidden, textNoPeer, "a principal without a channel", slog.String("principal", p.ID))
		return ocp.Principal{}, false
	}
	return p, true
}

// token is the value a decision of p must carry: a MAC of p's ID and Peer
// under the handler's key, so that only a page served to p holds it.
func (h *handler) token(p ocp.Principal) string {
	m := hmac.New(sha256.New, h.key)
	io.WriteString(m, "ocpweb decision token v1\x00")
	for _, s := range []string{p.ID, p.Peer} {
		m.Write(binary.BigEndian.AppendUint64(nil, uint64(len(s))))
		io.WriteString(m, s)
	}
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// validToken reports whether t is p's token, in constant time.
func (h *handler) validToken(p ocp.Principal, t string) bool {
	return hmac.Equal([]byte(t), []byte(h.token(p)))
}

// refuse audits a request the page refuses and answers it with status and
// text.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, status int, text, why string, attrs ...slog.Attr) {
	attrs = append(attrs, slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", status))
	h.audit.LogAttrs(r.Context(), slog.LevelWarn, "ocpweb.refused", append(attrs, slog.String("reason", why))...)
	h.answer(w, r, status, text, false)
}
