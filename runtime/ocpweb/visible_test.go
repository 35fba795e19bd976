package ocpweb

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/invisible"
)

// Every class of character the gate escapes in prompts is shown as the
// gate's escape, marked, in plain text and in JSON text; escapes of
// visible characters, and escaped backslashes, are left alone.
func TestVisible(t *testing.T) {
	type want struct {
		text string
		esc  []string // the marked pieces, in order
	}
	for _, c := range []struct {
		name     string
		in       string
		jsonText bool
		want     want
	}{
		{"plain", "close_ticket", false, want{"close_ticket", nil}},
		{"a C0 control", "a\tb\nc", false, want{`a\u0009b\u000ac`, []string{`\u0009`, `\u000a`}}},
		{"DEL and a C1 control", "a\x7fb\u0085", false, want{`a\u007fb\u0085`, []string{`\u007f`, `\u0085`}}},
		{"bidi override, isolate, mark", "a\u202eb\u2066c\u200fd\u061c", false, want{`a\u202eb\u2066c\u200fd\u061c`, []string{`\u202e`, `\u2066`, `\u200f`, `\u061c`}}},
		{"zero-width, BOM, soft hyphen", "a\u200bb\u200dc\ufeffd\u00ad", false, want{`a\u200bb\u200dc\ufeffd\u00ad`, []string{`\u200b`, `\u200d`, `\ufeff`, `\u00ad`}}},
		{"Hangul fillers", "purge_all\u3164\u115f\u1160\uffa0", false, want{`purge_all\u3164\u115f\u1160\uffa0`, []string{`\u3164`, `\u115f`, `\u1160`, `\uffa0`}}},
		{"grapheme joiner, variation selectors", "a\u034fb\ufe0fc\U000E0100", false, want{`a\u034fb\ufe0fc\udb40\udd00`, []string{`\u034f`, `\ufe0f`, `\udb40\udd00`}}},
		{"tag characters", "x\U000E0041\U000E007F", false, want{`x\udb40\udc41\udb40\udc7f`, []string{`\udb40\udc41`, `\udb40\udc7f`}}},
		{"line and paragraph separators", "a\u2028b\u2029", false, want{`a\u2028b\u2029`, []string{`\u2028`, `\u2029`}}},
		{"private use, unassigned", "\ue000\u2065\ufff0", false, want{`\ue000\u2065\ufff0`, []string{`\ue000`, `\u2065`, `\ufff0`}}},
		{"not UTF-8", "a\xffb", false, want{`a\xffb`, []string{`\xff`}}},
		{"visible non-ASCII", "café ☕ 日本 שלום", false, want{"café ☕ 日本 שלום", nil}},
		{"plain text's backslash-u is text", `a\u202eb`, false, want{`a\u202eb`, nil}},

		{"JSON: the gate's escapes", `{"t":"a\u202eb\u200B\u3164"}`, true, want{`{"t":"a\u202eb\u200B\u3164"}`, []string{`\u202e`, `\u200B`, `\u3164`}}},
		{"JSON: a surrogate pair is one character", `"\udb40\udc41"`, true, want{`"\udb40\udc41"`, []string{`\udb40\udc41`}}},
		{"JSON: a lone surrogate", `"\ud800x"`, true, want{`"\ud800x"`, []string{`\ud800`}}},
		{"JSON: escapes of visible characters", `"\u0041\u003c/script\u003e\u00e9"`, true, want{`"\u0041\u003c/script\u003e\u00e9"`, nil}},
		{"JSON: an escaped backslash", `"a\\u202e"`, true, want{`"a\\u202e"`, nil}},
		{"JSON: an escaped backslash, then an escape", `"\\\u202e"`, true, want{`"\\\u202e"`, []string{`\u202e`}}},
		{"JSON: other escapes", `"\"\n\t\/"`, true, want{`"\"\n\t\/"`, nil}},
		{"JSON: a line feed between tokens", "{\n  \"a\": 1\n}", true, want{"{\n  \"a\": 1\n}", nil}},
		{"JSON: a raw invisible character", "\"a\u202eb\"", true, want{`"a\u202eb"`, []string{`\u202e`}}},
		{"JSON: a raw tab", "\"a\tb\"", true, want{`"a\u0009b"`, []string{`\u0009`}}},
		{"JSON: a cut escape", `"\u20`, true, want{`"\u20`, nil}},
		{"JSON: a backslash before an invisible character", "\\\x00\\\u202e", true, want{`\\u0000\\u202e`, []string{`\u0000`, `\u202e`}}},
	} {
		ps := visible(c.in, c.jsonText)
		var esc []string
		for i, p := range ps {
			if p.Esc {
				esc = append(esc, p.Text)
			} else if i > 0 && !ps[i-1].Esc {
				t.Errorf("%s: two plain pieces in a row: %+v", c.name, ps)
			}
		}
		if got := plainText(ps); got != c.want.text {
			t.Errorf("%s: shown %q, want %q", c.name, got, c.want.text)
		}
		if strings.Join(esc, "|") != strings.Join(c.want.esc, "|") {
			t.Errorf("%s: marked %q, want %q", c.name, esc, c.want.esc)
		}
	}
}

// Over the code points (every one of the BMP and of the supplementary
// ranges the rule names, every 101st of the rest): an invisible one is
// shown as the gate's escape, marked, and nothing else is marked.
func TestVisibleEveryCodePoint(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r > 0xFFFF && r%101 != 0 && !unicode.Is(invisible.DefaultIgnorable, r) {
			continue
		}
		if utf16.IsSurrogate(r) {
			continue // not encodable as UTF-8
		}
		ps := visible("a"+string(r)+"b", false)
		if invisible.Is(r) {
			if len(ps) != 3 || !ps[1].Esc || ps[1].Text != string(invisible.AppendEscape(nil, r)) {
				t.Fatalf("U+%04X: %+v", r, ps)
			}
		} else if len(ps) != 1 || ps[0].Esc {
			t.Fatalf("U+%04X is visible but shown as %+v", r, ps)
		}
	}
}

// Whatever the text, what the page shows holds no invisible character, and
// in plain text the marked escapes decode back to the text.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"a\u202eb", `"\u202e\\u202e"`, "\xff\u3164", `"\udb40\udc41"`, "x\n\ty", ""} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, jsonText bool) {
		ps := visible(s, jsonText)
		shown := plainText(ps)
		for _, r := range shown {
			if invisible.Is(r) && !(jsonText && r == '\n') {
				t.Fatalf("%q is shown as %q, which holds U+%04X", s, shown, r)
			}
		}
		if jsonText {
			return
		}
		var back strings.Builder
		for _, p := range ps {
			switch {
			case !p.Esc:
				back.WriteString(p.Text)
			case strings.HasPrefix(p.Text, `\x`):
				var b byte
				for _, c := range []byte(p.Text[2:]) {
					b = b<<4 | hexVal(c)
				}
				back.WriteByte(b)
			default:
				r, n := unicodeEscape(p.Text)
				if n != len(p.Text) {
					t.Fatalf("marked %q is not one escape", p.Text)
				}
				back.WriteRune(r)
			}
		}
		if back.String() != s {
			t.Fatalf("%q shown as %q decodes to %q", s, shown, back.String())
		}
	})
}

func hexVal(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

// plainText is the text of pieces, as a browser's textContent gives it.
func plainText(ps []piece) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Text)
	}
	return b.String()
}
