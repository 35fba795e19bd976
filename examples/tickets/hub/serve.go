package main

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"

	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
	"github.com/ocpgen/ocpgen/runtime/ocpweb"
)

// approvalPage serves the approval page for alice on 127.0.0.1. Whoever
// opens the sign-in address (it holds a random key) is signed in as alice,
// each browser on a channel of its own; a real Hub signs people in with
// its own authentication. It returns the sign-in address and a function
// that stops the server.
func approvalPage(x ocpweb.Confirms) (signIn string, stop func(), err error) {
	key := rand.Text()
	var (
		mu       sync.Mutex
		sessions = map[string]string{} // cookie -> the browser's Peer
	)
	page, err := ocpweb.Handler(x, ocpweb.Options{
		Principal: func(r *http.Request) (ocp.Principal, error) {
			c, err := r.Cookie("hub_session")
			if err != nil {
				return ocp.Principal{}, errors.New("not signed in")
			}
			mu.Lock()
			peer, ok := sessions[c.Value]
			mu.Unlock()
			if !ok {
				return ocp.Principal{}, errors.New("no such session")
			}
			p := phone // alice, with her rights, on this browser's channel
			p.Peer = peer
			return p, nil
		},
	})
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/confirms/", http.StripPrefix("/confirms", page))
	mux.HandleFunc("GET /sign-in", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("key")), []byte(key)) != 1 {
			http.Error(w, "This sign-in address is not the one the Hub printed.", http.StatusForbidden)
			return
		}
		id := rand.Text()
		mu.Lock()
		sessions[id] = fmt.Sprintf("browser-%d", len(sessions)+1)
		mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "hub_session", Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, r, "/confirms/", http.StatusSeeOther)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/sign-in?key=" + key, func() { srv.Close() }, nil
}
