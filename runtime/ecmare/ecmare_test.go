package ecmare

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The translation is held to JavaScript itself: node runs every pattern
// with the "u" flag on every subject, and Go must give the same verdicts.

var patterns = []string{
	`^\S+$`, `^\s*$`, `\s`, `[\s]`, `[\S]`, `[^\s]`, `[^\S]`, `[\s\d]`, `[^\s\d]`,
	`^.$`, `^.+$`, `^[^]$`, `^[]$`, `[\b]`, `\bword\b`, `\Bx`, `^\d+$`, `^\w+$`, `^\D\W$`,
	`^\u00e9$`, `^\ud83d\ude00$`, `^\u{1F600}$`, `^\x41$`, `^\cJ$`, `^\0$`, `^a\/b$`,
	`^[a-z]{2,3}$`, `^(?<year>\d{4})-\d{2}$`, `^(?:ab)+$`, `[[]`, `^[[:]+$`,
	`^\p{Lu}+$`, `^\p{Letter}+$`, `^\p{digit}+$`, `^\P{Decimal_Number}$`, `^\p{gc=Uppercase_Letter}$`, `^\p{Script=Greek}+$`, `^\p{gc=Nd}$`, `^[\p{L}\s]+$`, `^\P{L}$`,
	`^[\-a]$`, `\t\n\v\f\r`, `^a|b$`, `^(a|b)*?c$`, `^\$\^\.\*\+\?\(\)\[\]\{\}\|\\$`,
	`^((([1-9]|[1-9][0-9]|[1-2][0-9][0-9]|3[0-5][0-9]|36[0-4])d(control)?)|(([1-9]|[1-4][0-9]|5[0-2])w(control)?))$`,
	`^([/_.\-A-Za-z0-9=, ()!])+$`, `^[.\-A-Za-z0-9]+([=!,]{1,2}[./\-A-Za-z0-9]+)+$`,
}

var subjects = []string{
	"", "a", "admin", "admin\u00a0", "a b", "\t", "\v", "\u2028", "\u3000", "\ufeff", "\u200b",
	"x\n", "\n", "\r", "😀", "é", "e\u0301", "A", "1", "12", "word", "a word here", "xx",
	"\b", "\x00", "a/b", "ab", "abc", "2024-01", "abab", "[", ":", "ΑΒΓ", "Ωmega", "٣", "ABC",
	"-", "\t\n\v\f\r", "b", "aabc", "$^.*+?()[]{}|\\", "12d", "5wcontrol", "a.b-c", "x=y", "a==b",
	"\u0085", "\u1680", "\u180e",
}

// untranslatable are valid ECMA-262 (or RE2) patterns that must be errors.
var untranslatable = []string{
	`^(?=a)`, `(?!a)`, `(?<=a)b`, `(?<!a)b`, `(a)\1`, `(?<n>a)\k<n>`, `(?i)a`, `\z`, `\Q`, `a{`, `a}`,
	`]`, `\p{Greek}`, `\p{letter}`, `\p{Script=Letter}`, `\ud800`, `a{1001}`,
}

func TestTranslationAgreesWithJavaScript(t *testing.T) {
	want := nodeVerdicts(t, patterns, subjects)
	for i, p := range patterns {
		if want[i] == nil {
			t.Errorf("%s: JavaScript refuses it", p)
			continue
		}
		agree(t, p, subjects, want[i])
	}
	// Most of these JavaScript accepts: they are errors because Go cannot
	// match them in linear time (or lacks the property), not because they
	// are invalid.
	valid := nodeVerdicts(t, untranslatable, []string{""})
	for i, p := range untranslatable {
		if _, err := Compile(p); err == nil {
			t.Errorf("%s: compiled (valid in JavaScript: %v), want an error", p, valid[i] != nil)
		} else {
			t.Logf("%s (valid in JavaScript: %v): %v", p, valid[i] != nil, err)
		}
	}
}

// nodeVerdicts runs patterns (u flag) on subjects in JavaScript; a pattern
// JavaScript refuses has a nil row.
func nodeVerdicts(t *testing.T, patterns, subjects []string) [][]bool {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node not found, and CI=true: the differential test needs JavaScript (.ci/node.sh installs it)")
		}
		t.Skip("node not found: the differential test needs JavaScript")
	}
	in, _ := json.Marshal(map[string]any{"p": patterns, "s": subjects})
	script := `const {p, s} = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(p.map(x => { try { const r = new RegExp(x, "u"); return s.map(y => r.test(y)) } catch (e) { return null } })));`
	cmd := exec.Command(node, "-e", script)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var want [][]bool
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	return want
}

func TestRandomPatternsAgreeWithJavaScript(t *testing.T) {
	atoms := []string{`\s`, `\S`, `.`, `\d`, `\D`, `\w`, `\W`, `\b`, `\B`, `[\s\d]`, `[^\S]`, `[^\s]`, `[\S\d]`,
		`a`, `é`, `\u00a0`, `[^]`, `[]`, `[\b]`, `[a-c]`, `\u{1F600}`, `😀`, ` `, `\n`, `[.]`, `\.`}
	ops := []string{"", "", "*", "+", "?", "{1,2}", "*?"}
	r := uint64(1)
	next := func(n int) int { r = r*6364136223846793005 + 1442695040888963407; return int(r>>33) % n }
	var pats []string
	for range 1500 {
		var b strings.Builder
		if next(3) == 0 {
			b.WriteByte('^')
		}
		for range 1 + next(4) {
			if next(6) == 0 {
				b.WriteString("(?:" + atoms[next(len(atoms))] + "|" + atoms[next(len(atoms))] + ")")
			} else {
				b.WriteString(atoms[next(len(atoms))])
			}
			b.WriteString(ops[next(len(ops))])
		}
		if next(3) == 0 {
			b.WriteByte('$')
		}
		pats = append(pats, b.String())
	}
	chars := []string{"a", "b", "é", " ", "\u00a0", "\u2028", "\n", "\r", "\v", "\ufeff", "1", "_", "😀", "\b", ".", "\u3000", "\u0085"}
	var subs []string
	for range 60 {
		var b strings.Builder
		for range next(5) {
			b.WriteString(chars[next(len(chars))])
		}
		subs = append(subs, b.String())
	}
	want := nodeVerdicts(t, pats, subs)
	for i, p := range pats {
		if want[i] != nil { // else JavaScript refuses it; whether Go does too is not the point here
			agree(t, p, subs, want[i])
		}
	}
}

// agree compiles p, which JavaScript accepts, and checks Go's verdict on
// each subject against JavaScript's.
func agree(t *testing.T, p string, subjects []string, want []bool) {
	t.Helper()
	re, err := Compile(p)
	if err != nil {
		t.Errorf("%s: %v (JavaScript accepts it)", p, err)
		return
	}
	for j, s := range subjects {
		if got := re.MatchString(s); got != want[j] {
			t.Errorf("%s on %q: Go %v, JavaScript %v (translated: %s)", p, s, got, want[j], re)
		}
	}
}
