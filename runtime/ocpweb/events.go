package ocpweb

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/ocpgen/ocpgen/runtime/ocp"
)

// streamBuffer is how many confirm events a stream holds for its browser.
// A stream that falls this far behind ends; the browser reconnects and
// starts again from a sync.
const streamBuffer = 64

// heartbeat is how often a quiet stream sends a comment, so that a browser
// gone away is noticed and proxies keep the stream open.
const heartbeat = 25 * time.Second

// The events of a stream, each a JSON object on one data line:
//
//	sync    {"cards":[{"id":…,"html":…}…],"gone":…}  the confirms p may decide now (first),
//	                                                 and what to say of a card no longer among them
//	opened  {"id":…,"html":…}                        a confirm p may decide opened
//	ended   {"id":…,"outcome":…,"text":…}            a confirm shown on this stream ended
type streamCard struct {
	ID   string `json:"id"`
	HTML string `json:"html"`
}

// events streams the changes of the confirms the principal may decide.
// Only confirms sent on the stream have their end sent, so a stream names
// no confirm that is not its principal's to see.
func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		h.refuse(w, r, http.StatusForbidden, textCrossOrigin, "cross-origin event stream", slog.String("sec_fetch_site", site))
		return
	}
	p, ok := h.principal(w, r)
	if !ok {
		return
	}
	ch := make(chan confirmEvent, streamBuffer)
	overflow := make(chan struct{})
	fell := sync.OnceFunc(func() { close(overflow) })
	queue := func(e confirmEvent) {
		// Called by the Hub while it opens or ends a confirm: never block.
		select {
		case ch <- e:
		default:
			fell()
		}
	}
	stop := h.x.Subscribe(
		func(r ocp.ConfirmRequest) { queue(confirmEvent{opened: &r}) },
		func(e ocp.ConfirmEnded) { queue(confirmEvent{ended: &e}) })
	defer stop()

	cards, err := h.decidable(r.Context(), p)
	if err != nil {
		h.refuse(w, r, http.StatusServiceUnavailable, "The writes waiting for a decision could not be listed ("+errorRef(err)+").", "pending failed")
		return
	}
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{}) // a stream lasts; the Hub's server may have a write timeout
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	shown := make(map[string]bool, len(cards))
	first := struct {
		Cards []streamCard `json:"cards"`
		Gone  string       `json:"gone"`
	}{Cards: []streamCard{}, Gone: endedText("")}
	for _, c := range cards {
		html, err := cardHTML(c)
		if err != nil {
			return
		}
		shown[c.ID] = true
		first.Cards = append(first.Cards, streamCard{c.ID, html})
	}
	if send(w, rc, "sync", first) != nil {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	var adv ocp.ToolsAdvertise
	for {
		var err error
		select {
		case <-r.Context().Done():
			return
		case <-overflow:
			return
		case <-tick.C:
			_, err = io.WriteString(w, ": heartbeat\n\n")
			if err == nil {
				err = rc.Flush()
			}
		case e := <-ch:
			switch {
			case e.opened != nil:
				if shown[e.opened.ID] {
					continue
				}
				v, ok := h.view(r.Context(), p, *e.opened, &adv, time.Now())
				if !ok {
					continue
				}
				html, herr := cardHTML(v)
				if herr != nil {
					return
				}
				shown[v.ID] = true
				err = send(w, rc, "opened", streamCard{v.ID, html})
			case e.ended != nil && shown[e.ended.ID]:
				delete(shown, e.ended.ID)
				err = send(w, rc, "ended", struct {
					ID      string      `json:"id"`
					Outcome ocp.Outcome `json:"outcome"`
					Text    string      `json:"text"`
				}{e.ended.ID, e.ended.Outcome, endedText(e.ended.Outcome)})
			}
		}
		if err != nil {
			return
		}
	}
}

// confirmEvent is one change of a confirm, as a stream queues it: exactly
// one of opened and ended is set.
type confirmEvent struct {
	opened *ocp.ConfirmRequest
	ended  *ocp.ConfirmEnded
}

// cardHTML draws v as the page does.
func cardHTML(v cardView) (string, error) {
	var b bytes.Buffer
	err := pageTmpl.ExecuteTemplate(&b, "card", v)
	return b.String(), err
}

// send writes one event and flushes it.
func send(w io.Writer, rc *http.ResponseController, name string, v any) error {
	if _, err := io.WriteString(w, "event: "+name+"\ndata: "); err != nil {
		return err
	}
	if err := writeJSON(w, v); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return rc.Flush()
}

// writeJSON writes v as one line of JSON (encoding/json escapes every line
// break, and <, > and &, in strings) and a line feed.
func writeJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
