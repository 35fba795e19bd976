// Package ocpweb serves the page on which people approve or deny the
// writes a Hub holds for confirmation: a list of the confirms the signed-in
// principal may decide (prompt, the arguments as the JSON the server will
// receive, requester, server, tool, resources, time left), kept current
// with server-sent events, with approve and deny buttons that decide
// through the Hub's own Resolve.
//
//	page, err := ocpweb.Handler(gate, ocpweb.Options{
//		Principal: func(r *http.Request) (ocp.Principal, error) { return hub.Person(r) },
//	})
//	http.Handle("/confirms/", http.StripPrefix("/confirms", page))
//
// What the page guarantees:
//
//   - It shows a principal only the confirms that [ocp.Gate.MayDecide]
//     allows it to decide, and decides with the principal the Hub's
//     authentication returns, through Resolve: every rule of the gate
//     applies (never the requester's channel, the decider's rights as they
//     are now, the digest).
//   - What it shows is what runs: the arguments are the bytes the server
//     will receive, indented; every character the gate escapes in prompts
//     (internal/invisible's rule) is shown as that escape, marked; an
//     explicit null reads null and an absent argument is listed as not set;
//     a long value is shown whole, in a box that scrolls.
//   - A decision is a POST with the digest the page showed (a confirm that
//     changed is refused), a token bound to the principal, and the
//     browser's own same-origin headers ([http.CrossOriginProtection]); a
//     GET decides nothing. Responses are never cached, and carry a strict
//     Content-Security-Policy: the only script is the handler's own static
//     file, and no data is ever script.
//
// A refused decision is told as it is: the page says why (no longer
// pending, expired, changed, not yours to decide) and that nothing was
// decided.
package ocpweb
