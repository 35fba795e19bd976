package model

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"unicode/utf8"
)

// Naming rules. Every Go identifier the generator emits is derived here from
// a JSON name (tool name, property name, enum value) by local facts only:
//
//   - The name is split into words at every character that is not an ASCII
//     letter or digit (snake_case, kebab-case, dots, slashes, spaces), and at
//     camelCase boundaries ("entityNames" → entity, Names; "HTTPServer" →
//     HTTP, Server). Digits stay with the word they follow ("v2", "sha256").
//   - Non-ASCII letters are folded to ASCII where a plain Latin form exists
//     (é → e, ß → ss) and dropped otherwise.
//   - Each word is capitalised; common initialisms are upper-cased whole
//     (id → ID, url → URL, and plurals: ids → IDs).
//   - A name that yields no word at all (empty, punctuation only, a script
//     with no ASCII form) becomes "X" plus 6 hex digits of the SHA-256 of the
//     exact name: stable, and different for different names.
//   - An identifier that would start with a digit gets the prefix "X".
//   - A name giving more than 64 characters is cut to 55, plus "_" and 8
//     hex digits of the SHA-256 of the exact name.
//   - Exported identifiers never clash with Go keywords or predeclared
//     identifiers (those are all lower case).
//
// Collisions (two JSON names giving one identifier, like "get_issue" and
// "get-issue") are resolved by [resolve], never by input order.

// initialisms are upper-cased whole when they form a word.
var initialisms = map[string]bool{
	"ACL": true, "API": true, "ASCII": true, "CPU": true, "CSS": true, "CSV": true,
	"DB": true, "DNS": true, "EOF": true, "GUID": true, "HTML": true, "HTTP": true,
	"HTTPS": true, "ID": true, "IP": true, "JSON": true, "JWT": true, "LHS": true,
	"OS": true, "PR": true, "QPS": true, "RAM": true, "RHS": true, "RPC": true,
	"SHA": true, "SLA": true, "SMTP": true, "SQL": true, "SSH": true, "SSO": true,
	"TCP": true, "TLS": true, "TTL": true, "UDP": true, "UI": true, "UID": true,
	"URI": true, "URL": true, "UTF8": true, "UUID": true, "VM": true, "XML": true,
	"XMPP": true, "XSRF": true, "XSS": true, "YAML": true,
}

// foldTable maps common non-ASCII Latin letters to ASCII.
var foldTable = map[rune]string{
	'à': "a", 'á': "a", 'â': "a", 'ã': "a", 'ä': "a", 'å': "a", 'ā': "a", 'ă': "a", 'ą': "a",
	'À': "A", 'Á': "A", 'Â': "A", 'Ã': "A", 'Ä': "A", 'Å': "A", 'Ā': "A", 'Ă': "A", 'Ą': "A",
	'æ': "ae", 'Æ': "AE", 'ç': "c", 'Ç': "C", 'ć': "c", 'Ć': "C", 'č': "c", 'Č': "C",
	'ď': "d", 'Ď': "D", 'đ': "d", 'Đ': "D", 'ð': "d", 'Ð': "D",
	'è': "e", 'é': "e", 'ê': "e", 'ë': "e", 'ē': "e", 'ė': "e", 'ę': "e", 'ě': "e",
	'È': "E", 'É': "E", 'Ê': "E", 'Ë': "E", 'Ē': "E", 'Ė': "E", 'Ę': "E", 'Ě': "E",
	'ğ': "g", 'Ğ': "G", 'ì': "i", 'í': "i", 'î': "i", 'ï': "i", 'ī': "i", 'ı': "i",
	'Ì': "I", 'Í': "I", 'Î': "I", 'Ï': "I", 'Ī': "I", 'İ': "I",
	'ł': "l", 'Ł': "L", 'ñ': "n", 'ń': "n", 'ň': "n", 'Ñ': "N", 'Ń': "N", 'Ň': "N",
	'ò': "o", 'ó': "o", 'ô': "o", 'õ': "o", 'ö': "o", 'ø': "o", 'ō': "o", 'ő': "o",
	'Ò': "O", 'Ó': "O", 'Ô': "O", 'Õ': "O", 'Ö': "O", 'Ø': "O", 'Ō': "O", 'Ő': "O",
	'œ': "oe", 'Œ': "OE", 'ř': "r", 'Ř': "R", 'ś': "s", 'š': "s", 'ş': "s", 'Ś': "S", 'Š': "S", 'Ş': "S",
	'ß': "ss", 'ť': "t", 'Ť': "T", 'þ': "th", 'Þ': "TH",
	'ù': "u", 'ú': "u", 'û': "u", 'ü': "u", 'ū': "u", 'ů': "u", 'ű': "u",
	'Ù': "U", 'Ú': "U", 'Û': "U", 'Ü': "U", 'Ū': "U", 'Ů': "U", 'Ű': "U",
	'ý': "y", 'ÿ': "y", 'Ý': "Y", 'ž': "z", 'ź': "z", 'ż': "z", 'Ž': "Z", 'Ź': "Z", 'Ż': "Z",
}

// fold returns s with non-ASCII letters folded to ASCII (or dropped) and
// invalid UTF-8 dropped.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			// invalid byte or U+FFFD: a separator
			b.WriteByte(' ')
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		default:
			if f, ok := foldTable[r]; ok {
				b.WriteString(f)
			} else {
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// words splits a JSON name into words, as described above.
func words(name string) []string {
	s := fold(name)
	var out []string
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, s[start:end])
		}
		start = -1
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLower(c) && !isUpper(c) && !isDigit(c) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := s[i-1]
		if isUpper(c) && (isLower(prev) || isDigit(prev)) {
			// camelCase boundary: "entityNames", "v2Beta"
			flush(i)
			start = i
		} else if isUpper(c) && isUpper(prev) && i+1 < len(s) && isLower(s[i+1]) {
			// end of an upper-case run: "HTTPServer" → HTTP, Server
			flush(i)
			start = i
		}
	}
	flush(len(s))
	return out
}

// capWord capitalises one word, upper-casing initialisms.
func capWord(w string) string {
	up := strings.ToUpper(w)
	if initialisms[up] {
		return up
	}
	if len(up) > 1 && up[len(up)-1] == 'S' && initialisms[up[:len(up)-1]] {
		return up[:len(up)-1] + "s" // ids → IDs
	}
	return up[:1] + strings.ToLower(w[1:])
}

// camel joins words into an exported identifier fragment. It may start with
// a digit; it is "" when there are no words.
func camel(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(capWord(w))
	}
	return b.String()
}

// shortHash is the first n hex digits of the SHA-256 of s.
func shortHash(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

// Ident returns the exported Go identifier for a JSON name, before collision
// resolution.
func Ident(name string) string {
	id := identPart(name)
	if isDigit(id[0]) {
		return "X" + id
	}
	return id
}

// maxIdentPart is the longest identifier fragment one JSON name gives.
// Nested type names join the fragments of their path, so the bound keeps
// them (and the generated files) small whatever names a snapshot holds.
const maxIdentPart = 64

// identPart returns the fragment a JSON value adds to a prefix (enum
// constants: prefix + part). A leading digit needs no "X" there. A fragment
// longer than maxIdentPart is cut and given 8 hex digits of the SHA-256 of
// the exact name, so different long names stay different.
func identPart(name string) string {
	id := camel(words(name))
	if id == "" {
		return "X" + shortHash(name, 6)
	}
	if len(id) > maxIdentPart {
		id = id[:maxIdentPart-9] + "_" + shortHash(name, 8)
	}
	return id
}

// snake returns the lower-case snake_case form of a JSON name's words.
func snake(name string) string {
	ws := words(name)
	for i, w := range ws {
		ws[i] = strings.ToLower(w)
	}
	return strings.Join(ws, "_")
}

// canonical reports whether name is the natural source of its identifier:
// lower-case snake_case words, exactly as [snake] would write them back.
func canonical(name string) bool {
	return name != "" && name == snake(name)
}

// candidate is one JSON name competing for an identifier.
type candidate struct {
	// ident is the natural identifier (see [Ident]).
	ident string
	// source is the exact JSON name (or a longer stable key, such as a tool
	// name and a JSON pointer); the suffix is derived from it.
	source string
	// rank orders candidates of different importance (lower wins); equal for
	// peers.
	rank int
	// out receives the final identifier.
	out *string
}

// resolve assigns identifiers to candidates, resolving collisions by a rule
// that depends on the colliding names only, never on input order:
//
//  1. Candidates are grouped by natural identifier; a group of one keeps it.
//  2. In a group, the winner is the candidate with the lowest rank, then the
//     one whose source is canonical (lower snake_case, "get_issue" beats
//     "get-issue" and "getIssue"), then the byte-wise smallest source.
//  3. Every other member gets "_" and 6 hex digits of the SHA-256 of its
//     exact source ("GetIssue_1a2b3c"); on the (unlikely) clash of such a
//     name with another, 16 hex digits.
//
// So a new name never renames an existing one unless it is a better source
// for the same identifier (a canonical name arriving beside a non-canonical
// one): adding "get-issue" next to "get_issue" leaves GetIssue alone.
// reserved identifiers are never assigned as they are; a candidate whose
// identifier is reserved gets the suffix "_".
func resolve(cands []candidate, reserved map[string]bool) {
	for i := range cands {
		if reserved[cands[i].ident] {
			cands[i].ident += "_"
		}
	}
	groups := map[string][]int{}
	for i, c := range cands {
		groups[c.ident] = append(groups[c.ident], i)
	}
	taken := map[string]bool{}
	for k := range groups {
		taken[k] = true
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		sort.SliceStable(g, func(a, b int) bool {
			ca, cb := cands[g[a]], cands[g[b]]
			if ca.rank != cb.rank {
				return ca.rank < cb.rank
			}
			if canonical(ca.source) != canonical(cb.source) {
				return canonical(ca.source)
			}
			return ca.source < cb.source
		})
		*cands[g[0]].out = k
		for _, i := range g[1:] {
			id := k + "_" + shortHash(cands[i].source, 6)
			if taken[id] {
				id = k + "_" + shortHash(cands[i].source, 16)
			}
			taken[id] = true
			*cands[i].out = id
		}
	}
}
