package load

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"unicode/utf8"
)

// badStringRef is badString as it was (892dc9f), with its own scan for
// lone surrogate escapes; badString now asks jsonscan.Rewritten, which
// jsonscan.Unquote shares.
func badStringRef(quoted []byte) string {
	s := quoted[1 : len(quoted)-1]
	if !utf8.Valid(s) {
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Sprintf("invalid UTF-8 (byte 0x%02x at offset %d of the string); JSON text is UTF-8", s[i], i)
			}
			i += n
		}
	}
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		if s[i+1] != 'u' || i+6 > len(s) {
			i++ // a two-character escape
			continue
		}
		r, err := strconv.ParseUint(string(s[i+2:i+6]), 16, 16)
		if err != nil {
			return "" // not valid JSON; the syntax check reports it
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return fmt.Sprintf("a lone UTF-16 surrogate escape \\u%s (it would become U+FFFD)", s[i+2:i+6])
		case r >= 0xD800 && r <= 0xDBFF:
			if i+12 > len(s) || s[i+6] != '\\' || s[i+7] != 'u' {
				return fmt.Sprintf("a lone UTF-16 surrogate escape \\u%s (it would become U+FFFD)", s[i+2:i+6])
			}
			lo, err := strconv.ParseUint(string(s[i+8:i+12]), 16, 16)
			if err != nil || lo < 0xDC00 || lo > 0xDFFF {
				return fmt.Sprintf("a lone UTF-16 surrogate escape \\u%s (it would become U+FFFD)", s[i+2:i+6])
			}
			i += 11
		default:
			i += 5
		}
	}
	return ""
}

var badStringCases = []string{
	``, `a`, "\xff", "a\xc3", "\xe2\x82", `\ud800`, `\udc00`, `\ud800\u0041`, `\ud800\ud800\udc00`, `\ud83d\ude00`,
	`\ud83d\ude00\ude00`, `x\ud800` + "\xff", `\\ud800`, `\u12AbX`, `\"\ud800\"`, `\ud800\n`, `\udbff\udfff`,
}

func checkBadString(t *testing.T, quoted []byte) {
	t.Helper()
	if !json.Valid(quoted) {
		return
	}
	if got, want := badString(quoted), badStringRef(quoted); got != want {
		t.Fatalf("%q: badString = %q, want %q", quoted, got, want)
	}
}

func TestBadString(t *testing.T) {
	for _, c := range badStringCases {
		checkBadString(t, []byte(`"`+c+`"`))
	}
}

func FuzzBadString(f *testing.F) {
	for _, c := range badStringCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, inner []byte) {
		checkBadString(t, append(append([]byte{'"'}, inner...), '"'))
	})
}
