// Package jsonptr builds JSON pointers (RFC 6901), the one way ocpgen names
// a place in a JSON document: in diagnostics, diff reports and the gate's
// refusals. It imports nothing but strings, so the runtime can use it too.
package jsonptr

import "strings"

var (
	tokenEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	tokenUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapeToken escapes one reference token: "~" becomes "~0" and "/" becomes
// "~1".
func EscapeToken(s string) string { return tokenEscaper.Replace(s) }

// UnescapeToken undoes [EscapeToken].
func UnescapeToken(s string) string { return tokenUnescaper.Replace(s) }

// Pointer joins reference tokens into a JSON pointer, escaping each:
// Pointer("tools", "a/b") is "/tools/a~1b", and Pointer() is "" (the whole
// document).
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(t))
	}
	return b.String()
}
