package ecmare

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// The translation is held to JavaScript itself: one node process runs
// each pattern with the "u" flag on its subjects (RegExp.prototype.test),
// and ecmare must give the same verdicts. A pattern node refuses must be
// an error here; one node accepts must translate, or be a documented
// refusal (an *Error with refused set), and then match as node does.

// TestMain stops the node process, if a test started one.
func TestMain(m *testing.M) {
	code := m.Run()
	if js.cmd != nil {
		js.in.Close()
		js.cmd.Wait()
	}
	os.Exit(code)
}

const nodeScript = `
const rl = require('readline').createInterface({input: process.stdin, crlfDelay: Infinity});
rl.on('line', line => {
  const {p, s} = JSON.parse(line);
  let out;
  try { const r = new RegExp(p, 'u'); out = {m: s.map(x => r.test(x))}; }
  catch (e) { out = {e: String(e.message)}; }
  process.stdout.write(JSON.stringify(out) + '\n');
});
rl.on('close', () => process.exit(0));
console.log(JSON.stringify({unicode: process.versions.unicode}));
`

// js is the node process, started by the first test that needs it.
var js struct {
	once    sync.Once
	err     error
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	unicode string // node's Unicode version
	mu      sync.Mutex
}

// node returns the verdicts of new RegExp(p, "u").test(s) for each
// subject, or JavaScript's SyntaxError message. Without node the test is
// skipped, or fails under CI=true.
func node(t *testing.T, p string, subjects []string) (matches []bool, syntaxErr string) {
	t.Helper()
	js.once.Do(startNode)
	if js.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v, and CI=true: the differential test needs JavaScript (.ci/node.sh installs it)", js.err)
		}
		t.Skipf("%v: the differential test needs JavaScript", js.err)
	}
	if subjects == nil {
		subjects = []string{}
	}
	line, err := json.Marshal(map[string]any{"p": p, "s": subjects})
	if err != nil {
		t.Fatal(err)
	}
	js.mu.Lock()
	defer js.mu.Unlock()
	if _, err := js.in.Write(append(line, '\n')); err != nil {
		t.Fatalf("node: %v", err)
	}
	reply, err := js.out.ReadBytes('\n')
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var v struct {
		M []bool
		E *string
	}
	if err := json.Unmarshal(reply, &v); err != nil {
		t.Fatalf("node's reply %q: %v", reply, err)
	}
	if v.E != nil {
		return nil, *v.E
	}
	if len(v.M) != len(subjects) {
		t.Fatalf("node answered %d verdicts for %d subjects", len(v.M), len(subjects))
	}
	return v.M, ""
}

func startNode() {
	path, err := exec.LookPath("node")
	if err != nil {
		js.err = errors.New("node not found")
		return
	}
	cmd := exec.Command(path, "-e", nodeScript)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		js.err = err
		return
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		js.err = err
		return
	}
	if err := cmd.Start(); err != nil {
		js.err = err
		return
	}
	js.cmd, js.in, js.out = cmd, in, bufio.NewReader(out)
	first, err := js.out.ReadBytes('\n')
	var hello struct{ Unicode string }
	if err == nil {
		err = json.Unmarshal(first, &hello)
	}
	if err != nil {
		js.err = fmt.Errorf("node: %v", err)
		return
	}
	js.unicode = hello.Unicode
}

// tally counts the differential verdicts.
type tally struct {
	patterns, translated, refused, bothRefuse, matches int
	reasons                                            map[string]int // refusal kind → patterns
}

func (c *tally) log(t *testing.T, what string) {
	t.Helper()
	var kinds []string
	for k, n := range c.reasons {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	t.Logf("%s: %d patterns: %d translated (%d verdicts agree with node), %d refused (%s), %d refused by both ECMA-262 and ecmare",
		what, c.patterns, c.translated, c.matches, c.refused, strings.Join(kinds, ", "), c.bothRefuse)
}

// refusalKind names the documented refusal an error is, or "".
func refusalKind(err error) string {
	var e *Error
	if !errors.As(err, &e) || !e.refused {
		return ""
	}
	for _, k := range []string{"lookaround", "back-reference", "Script_Extensions", "unicode package has no", "Go's regexp limits", "exceeds"} {
		if strings.Contains(e.Reason, k) {
			return k
		}
	}
	return ""
}

// differ compares ecmare with node on p over subjects.
func differ(t *testing.T, c *tally, p string, subjects []string) {
	t.Helper()
	c.patterns++
	want, jsErr := node(t, p, subjects)
	re, err := Compile(p)
	switch {
	case jsErr != "" && err == nil:
		t.Errorf("%q: translated (to %.200s), but JavaScript refuses it: %s", p, re, jsErr)
	case jsErr != "":
		var e *Error
		if errors.As(err, &e) && e.refused {
			t.Errorf("%q: JavaScript refuses it (%s), and ecmare says it is valid: %v", p, jsErr, err)
		}
		c.bothRefuse++
	case err != nil:
		k := refusalKind(err)
		if k == "" {
			t.Errorf("%q: JavaScript accepts it, and ecmare refuses it for no documented reason: %v", p, err)
			return
		}
		c.refused++
		if c.reasons == nil {
			c.reasons = map[string]int{}
		}
		c.reasons[k]++
	default:
		c.translated++
		for i, s := range subjects {
			if got := re.MatchString(s); got != want[i] {
				t.Errorf("%q on %q: ecmare %v, JavaScript %v (translated: %.300s)", p, s, got, want[i], re)
			} else {
				c.matches++
			}
		}
	}
}

// TestSuitePatterns: every pattern and patternProperties key of the JSON
// Schema Test Suite's draft 2020-12 files, on every string of its group's
// instances (object keys included).
func TestSuitePatterns(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "jsonschema-suite", "tests", "draft2020-12")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files in %s: %v", dir, err)
	}
	files = append(files, filepath.Join(dir, "optional", "ecmascript-regex.json"), filepath.Join(dir, "optional", "non-bmp-regex.json"))
	var c tally
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var groups []struct {
			Schema any
			Tests  []struct{ Data any }
		}
		if err := json.Unmarshal(b, &groups); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range groups {
			pats := schemaPatterns(g.Schema, nil)
			if len(pats) == 0 {
				continue
			}
			var subjects []string
			for _, tc := range g.Tests {
				subjects = instanceStrings(tc.Data, subjects)
			}
			for _, p := range pats {
				differ(t, &c, p, subjects)
			}
		}
	}
	c.log(t, "suite")
	if c.patterns < 40 {
		t.Errorf("only %d patterns in the suite: the walk misses some", c.patterns)
	}
}

func schemaPatterns(v any, out []string) []string {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "pattern" {
				out = append(out, s)
			}
			if pp, ok := x.(map[string]any); ok && k == "patternProperties" {
				for key := range pp {
					out = append(out, key)
				}
			}
			out = schemaPatterns(x, out)
		}
	case []any:
		for _, x := range v {
			out = schemaPatterns(x, out)
		}
	}
	return out
}

func instanceStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case map[string]any:
		for k, x := range v {
			out = append(out, k)
			out = instanceStrings(x, out)
		}
	case []any:
		for _, x := range v {
			out = instanceStrings(x, out)
		}
	}
	return out
}

var patterns = []string{
	`^\S+$`, `^\s*$`, `\s`, `[\s]`, `[\S]`, `[^\s]`, `[^\S]`, `[\s\d]`, `[^\s\d]`,
	`^.$`, `^.+$`, `^[^]$`, `^[]$`, `[\b]`, `\bword\b`, `\Bx`, `^\d+$`, `^\w+$`, `^\D\W$`,
	`^\u00e9$`, `^\ud83d\ude00$`, `^\u{1F600}$`, `^\x41$`, `^\cJ$`, `^[\cj]$`, `^\0$`, `^[\0]$`, `^a\/b$`,
	`^[a-z]{2,3}$`, `^(?<year>\d{4})-\d{2}$`, `^(?:ab)+$`, `[[]`, `^[[:]+$`,
	`^\p{Lu}+$`, `^\p{Script=Greek}+$`, `^\p{gc=Nd}$`, `^[\p{L}\s]+$`, `^\P{L}$`, `^\p{Letter}+$`,
	`^\p{General_Category=Letter}$`, `^\p{Uppercase_Letter}$`, `^\p{sc=Grek}$`, `^[^\P{Ll}]$`,
	`^[\-a]$`, `\t\n\v\f\r`, `^a|b$`, `^(a|b)*?c$`, `^\$\^\.\*\+\?\(\)\[\]\{\}\|\\$`,
	`^((([1-9]|[1-9][0-9]|[1-2][0-9][0-9]|3[0-5][0-9]|36[0-4])d(control)?)|(([1-9]|[1-4][0-9]|5[0-2])w(control)?))$`,
	`^([/_.\-A-Za-z0-9=, ()!])+$`, `^[.\-A-Za-z0-9]+([=!,]{1,2}[./\-A-Za-z0-9]+)+$`,
	`^a{1001}$`, `^(?:ab){0,1500}$`, `^(?:a{10}){200}$`, `^a{2,}$`, `^a{0,99999999999999999999}$`,
	`^[\ud800-\udfff]$`, `^[^\ud800]$`, `^\ud800$`, `^(?<$x\u0041>a)$`, `^(?:)$`, `^(|a)$`, `^[\d-]$`, `^[a-b-c]+$`,
	`^\u{0000000041}$`, `^[\u{1F600}-\u{1F64F}]$`, `^.{3}$`, `^[^a]$`, `^.{0,5000}$`, `^a{1999,}$`, `a{2000}`,
}

var subjects = []string{
	"", "a", "admin", "admin\u00a0", "a b", "\t", "\v", "\u2028", "\u3000", "\ufeff", "\u200b",
	"x\n", "\n", "\r", "😀", "é", "e\u0301", "A", "1", "12", "word", "a word here", "xx",
	"\b", "\x00", "a/b", "ab", "abc", "2024-01", "abab", "[", ":", "ΑΒΓ", "Ωmega", "٣", "ABC",
	"-", "\t\n\v\f\r", "b", "aabc", "$^.*+?()[]{}|\\", "12d", "5wcontrol", "a.b-c", "x=y", "a==b",
	"\u0085", "\u1680", "\u180e", "\U0001F64F", "\U0001F650", "😀😀😀", "\U00010000", "\U0010FFFF", "\ufffd",
	strings.Repeat("a", 1001), strings.Repeat("a", 1000), strings.Repeat("ab", 1500), strings.Repeat("ab", 1501),
	strings.Repeat("a", 2000), strings.Repeat("a", 1999), "aa", "abc-", "\u0391", "\u1f00",
}

// invalid are patterns ECMA-262 refuses in Unicode mode (some RE2 accepts);
// refused are valid ones ecmare documents as having no translation.
var invalid = []string{
	`(?i)a`, `(?i:a)`, `\z`, `\Q`, `a{`, `a}`, `]`, `{1}`, `a{,5}`, `a{2,1}`, `a**`, `a?+`, `^*`, `\b+`,
	`(?=a)*`, `\p{Greek}`, `\p{letter}`, `\p{L }`, `\p{Hyphen}`, `\p{Other_Alphabetic}`, `\p{gc=Any}`,
	`\p{sc=Hrkt}`, `\p{White_Space=Yes}`, `\p{sc=Lu}`, `\p`, `\p{`, `\pL`, `\-`, `[\B]`, `[\1]`, `[\k]`, `\00`, `\01`,
	`[\d-z]`, `[a-\d]`, `[z-a]`, `\c`, `\c1`, `[\c_]`, `\x4`, `\u12`, `\u{}`, `\u{110000}`, `\u{-1}`, `(?<1a>x)`,
	`(?<a>x)(?<a>y)`, `(?<>x)`, `(?<a`, `(a`, `a)`, `[a`, `\`, `\1`, `(a)\2`, `\k<a>`, `(?<a>.)\k<b>`, `\k`,
	`(?P<a>x)`, `\a`, `\e`, `\h`, `x{1,2}{3}`,
}

var refused = []string{
	`^(?=a)`, `(?!a)`, `(?<=a)b`, `(?<!a)b`, `(a)\1`, `(?<n>a)\k<n>`, `(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10`,
	`\p{scx=Greek}`, `\p{Script_Extensions=Latin}`, `\p{Emoji}`, `\P{Extended_Pictographic}`,
	`[\p{XID_Start}]`, `\p{CWCF}`, `\p{Default_Ignorable_Code_Point}`, `\p{Bidi_M}`, `\p{Case_Ignorable}`,
	`a{99999999999999999999}`, `(?:(?:a{1000}){1000}){1000}`, `.{0,1000000}`, `(?:a{1000}){1000}`,
}

func TestTables(t *testing.T) {
	var c tally
	for _, p := range patterns {
		differ(t, &c, p, subjects)
	}
	c.log(t, "patterns table")
	if c.translated != len(patterns) {
		t.Errorf("%d of the table's %d patterns translated", c.translated, len(patterns))
	}
	for _, p := range invalid {
		if _, js := node(t, p, nil); js == "" {
			t.Errorf("%q: JavaScript accepts it; the table says ECMA-262 refuses it", p)
		}
		_, err := Compile(p)
		var e *Error
		if !errors.As(err, &e) || e.refused {
			t.Errorf("%q: %v; want an error saying ECMA-262 refuses it", p, err)
		}
	}
	for _, p := range refused {
		if _, js := node(t, p, nil); js != "" {
			t.Errorf("%q: JavaScript refuses it (%s); the table says ECMA-262 accepts it", p, js)
		}
		if _, err := Compile(p); refusalKind(err) == "" {
			t.Errorf("%q: %v; want a documented refusal", p, err)
		} else {
			t.Logf("%s: %v", p, err)
		}
	}
}

// TestErrorsWithoutNode pins each table's verdict where node is absent.
func TestErrorsWithoutNode(t *testing.T) {
	for _, p := range patterns {
		if _, err := Compile(p); err != nil {
			t.Errorf("%q: %v", p, err)
		}
	}
	for _, p := range invalid {
		var e *Error
		if _, err := Compile(p); !errors.As(err, &e) || e.refused {
			t.Errorf("%q: %v; want an ECMA-262 syntax error", p, err)
		}
	}
	for _, p := range refused {
		if _, err := Compile(p); refusalKind(err) == "" {
			t.Errorf("%q: %v; want a documented refusal", p, err)
		}
	}
}

// rng is a seeded, deterministic generator.
type rng uint64

func (r *rng) intn(n int) int {
	*r = *r*6364136223846793005 + 1442695040888963407
	return int(uint64(*r)>>33) % n
}

func (r *rng) pick(s []string) string { return s[r.intn(len(s))] }

// TestGeneratedPatterns holds 3,000 random patterns (atoms, groups,
// quantifiers, the forms ECMA-262 refuses) on random subjects to node, as
// TestTables holds the fixed table.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: no
// test of this package translates concurrently.
func TestGeneratedPatterns(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	atoms := []string{`\s`, `\S`, `.`, `\d`, `\D`, `\w`, `\W`, `\b`, `\B`, `^`, `$`, `[\s\d]`, `[^\S]`, `[^\s]`, `[\S\d]`,
		`a`, `b`, `é`, `\u00a0`, `[^]`, `[]`, `[\b]`, `[a-c]`, `\u{1F600}`, `😀`, ` `, `\n`, `\r`, `[.]`, `\.`, `\/`,
		`\u2028`, `[\u2028\u2029]`, `\ud83d\ude00`, `[\ud83d\ude00-\ud83d\ude4f]`, `\ud800`, `[\ud800-\udbff]`, `[^\udc00]`,
		`\cJ`, `\cm`, `[\cI-\cM]`, `\0`, `[\0-\x1f]`, `\x41`, `\u{10FFFF}`, `[\u{10000}-\u{10FFFF}]`, `\t`, `\v`, `\f`,
		`\p{L}`, `\P{L}`, `\p{Lu}`, `\p{Ll}`, `\p{Nd}`, `\p{Zs}`, `\p{Cc}`, `\p{Cn}`, `\p{Co}`, `\p{So}`, `\p{Letter}`,
		`\p{sc=Latin}`, `\p{Script=Greek}`, `\p{sc=Zyyy}`, `\p{sc=Zinh}`, `\p{sc=Unknown}`, `\p{White_Space}`, `\p{Any}`,
		`\p{ASCII}`, `\p{Assigned}`, `\p{Alphabetic}`, `\p{Lowercase}`, `\p{Uppercase}`, `\p{ID_Start}`, `\p{IDC}`,
		`[\p{L}\d]`, `[^\p{L}\d]`, `[\P{L}a]`, `[^\P{Lu}]`, `[\p{Lu}\p{Nd}_-]`, `[\w\-]`, `[\s\S]`, `[^\s\S]`, `[\d-]`,
		`[-a]`, `[a-]`, `[\--z]`, `[[]`, `[\]]`, `[\^]`, `[a^]`, `[\u{1F600}]`, `[😀-🙏]`, `(?<g>a)`, `(?:a|😀)`,
		`(?=a)`, `(?!a)`, `(?<=a)`, `(?<!a)`, `(a)\1`, `\p{Emoji}`, `\p{scx=Latn}`,
		// ECMA-262 refuses these in Unicode mode:
		`{`, `}`, `]`, `\-`, `\z`, `\c1`, `\x4`, `\p{lu}`, `\p{Greek}`, `(?i)`, `\u{110000}`, `[z-a]`, `[\d-z]`, `\00`, `\8`,
	}
	// Counts above Go's 1000 only on an atom: over a group, node's
	// backtracking would take years on some subjects.
	ops := []string{"", "", "", "*", "+", "?", "{1,2}", "*?", "{2}", "{0}", "{0,}", "{3,}", "+?"}
	big := []string{"{1002}", "{0,1003}", "{1001,}", "{2,1500}?"}
	r := rng(1)
	var pats []string
	for range 3000 {
		var b strings.Builder
		for range 1 + r.intn(4) {
			switch r.intn(8) {
			case 0:
				b.WriteString("(?:" + r.pick(atoms) + "|" + r.pick(atoms) + r.pick(ops) + ")")
				b.WriteString(r.pick(ops))
			case 1:
				b.WriteString(r.pick(atoms) + r.pick(big))
			default:
				b.WriteString(r.pick(atoms) + r.pick(ops))
			}
		}
		pats = append(pats, b.String())
	}
	chars := []string{"a", "b", "c", "é", "A", "Z", " ", "\u00a0", "\u2028", "\u2029", "\n", "\r", "\t", "\v", "\f",
		"\ufeff", "1", "_", "-", "😀", "🙏", "\U0001F650", "\U00010000", "\U0010FFFF", "\U000E0001", "\b", ".", "/",
		"\u3000", "\u0085", "\x00", "\x1f", "\u0378", "\ue000", "\ufffd", "Ω", "ǅ", "٣", "\u0301", "\u200b", "^", "[", "]"}
	var subs []string
	for range 80 {
		var b strings.Builder
		for range r.intn(6) {
			b.WriteString(r.pick(chars))
		}
		subs = append(subs, b.String())
	}
	var c tally
	for _, p := range pats {
		differ(t, &c, p, subs)
	}
	c.log(t, "generated")
	if c.translated < len(pats)/3 || c.bothRefuse < len(pats)/20 || c.refused < len(pats)/50 {
		t.Errorf("the generator's mix is off: %+v", c)
	}
}

// propertySamples are code points at the edges and in the middle of every
// Go Unicode table, and around them, that Go's tables and node's agree
// are assigned with the same general category and script; a code point
// whose category or script differs between node's Unicode version and Go's
// (unicode.Version) has no single expected verdict.
func propertySamples() []rune {
	seen := map[rune]bool{}
	add := func(r rune) {
		if r >= 0 && r <= unicode.MaxRune && (r < 0xd800 || r > 0xdfff) {
			seen[r] = true
		}
	}
	var tables []*unicode.RangeTable
	for _, m := range []map[string]*unicode.RangeTable{unicode.Categories, unicode.Scripts, unicode.Properties} {
		for _, tab := range m {
			tables = append(tables, tab)
		}
	}
	for _, tab := range tables {
		s := tableSet(tab)
		for _, i := range []int{0, len(s) / 3, len(s) / 2, len(s) - 1} {
			add(s[i][0])
			add(s[i][1])
			add(s[i][0] - 1)
			add(s[i][1] + 1)
			add(s[i][0] + (s[i][1]-s[i][0])/2)
		}
	}
	for r := rune(0); r < 0x100; r++ {
		add(r)
	}
	out := make([]rune, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// unicodeDrift are the samples whose binary properties (but not their
// category or script) changed after Unicode 15.0, Go's tables: ID_Continue
// gained U+200C, U+200D, U+30FB and U+FF65 in 15.1; Grapheme_Extend (so
// Grapheme_Base lost) some spacing marks, Diacritic, Alphabetic,
// Sentence_Terminal and Terminal_Punctuation code points in 16.0. They are
// left out when node's Unicode version is not Go's.
var unicodeDrift = map[string][]rune{
	"ID_Continue":          {0x200c, 0x200d, 0x30fb, 0xff65},
	"Grapheme_Extend":      {0xcc7, 0xcc8, 0x1715, 0x1734, 0x1bf3, 0xa953, 0x1d16d},
	"Grapheme_Base":        {0xcc7, 0xcc8, 0x1715, 0x1734, 0x1bf3, 0xa953, 0x1d16d},
	"Alphabetic":           {0x36f},
	"Diacritic":            {0x5c7, 0xe3a, 0x1734, 0x1a60, 0x1bf3, 0x1da3, 0x1da4, 0x1da5, 0xa82c, 0x1133b},
	"Sentence_Terminal":    {0x2cf9},
	"Terminal_Punctuation": {0x2cf9},
}

// TestProperties holds every \p name ecmare accepts to node: the name is
// valid ECMA-262, every alias means the same set, and the set agrees with
// node on sample code points; every name it refuses is valid ECMA-262.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: no
// test of this package translates concurrently.
func TestProperties(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	var names []string
	for n := range generalCategories {
		names = append(names, n, "gc="+n, "General_Category="+n)
	}
	for n := range scripts {
		names = append(names, "sc="+n, "Script="+n)
	}
	for n := range binaryProperties {
		names = append(names, n)
	}
	sort.Strings(names)
	canon := map[string]string{} // translation → first name with it
	var c tally
	for _, n := range names {
		p := `\p{` + n + `}`
		if _, js := node(t, p, nil); js != "" {
			t.Errorf("%s: JavaScript refuses it: %s", p, js)
		}
		s, err := Translate(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if _, ok := canon[s]; !ok {
			canon[s] = n
		}
	}
	for n := range missingProperties {
		differ(t, &c, `\p{`+n+`}`, nil)
	}
	for _, n := range []string{"scx=Latn", "Script_Extensions=Greek", "scx=Zyyy"} {
		differ(t, &c, `\p{`+n+`}`, nil)
	}
	if c.refused != len(missingProperties)+3 {
		t.Errorf("%d of %d refused properties are refused", c.refused, len(missingProperties)+3)
	}

	// The sets, one pattern each, on the samples less those whose general
	// category or script node's Unicode gives otherwise.
	samples := propertySamples()
	var subs []string
	for _, r := range samples {
		subs = append(subs, string(r))
	}
	drift := map[rune]bool{}
	leaf := []string{"Cc", "Cf", "Cn", "Co", "Ll", "Lm", "Lo", "Lt", "Lu", "Mc", "Me", "Mn", "Nd", "Nl", "No",
		"Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Sc", "Sk", "Sm", "So", "Zl", "Zp", "Zs"}
	var stable []string
	for _, gc := range leaf {
		stable = append(stable, "gc="+gc)
	}
	for sc := range unicode.Scripts {
		stable = append(stable, "sc="+sc)
	}
	for _, n := range stable {
		want, _ := node(t, `^\p{`+n+`}$`, subs)
		set, _, _ := lookupProperty(n)
		for i, r := range samples {
			if want[i] != inSet(set, r) {
				drift[r] = true
			}
		}
	}
	t.Logf("node's Unicode is %s, Go's %s: %d of %d samples have another category or script in node", js.unicode, unicode.Version, len(drift), len(samples))
	if js.unicode == strings.Join(strings.Split(unicode.Version, ".")[:2], ".") && len(drift) > 0 {
		t.Errorf("node and Go have the same Unicode version, but %d samples differ in category or script", len(drift))
	}
	if len(drift) > len(samples)/20 {
		t.Errorf("%d of %d samples drift: too many to test", len(drift), len(samples))
	}
	subs = subs[:0]
	for _, r := range samples {
		if !drift[r] {
			subs = append(subs, string(r))
		}
	}
	var sets tally
	versionsDiffer := js.unicode != strings.Join(strings.Split(unicode.Version, ".")[:2], ".")
	for tr, n := range canon {
		sub := subs
		for prop, rs := range unicodeDrift {
			if want, _ := Translate(`\p{` + prop + `}`); want == tr && versionsDiffer {
				sub = slices.DeleteFunc(slices.Clone(subs), func(s string) bool {
					return slices.Contains(rs, []rune(s)[0])
				})
			}
		}
		differ(t, &sets, `^\p{`+n+`}$`, sub)
	}
	// Each drift listed is one: node's verdict is not Go's.
	if versionsDiffer {
		for prop, rs := range unicodeDrift {
			set, _, _ := lookupProperty(prop)
			var s []string
			for _, r := range rs {
				s = append(s, string(r))
			}
			want, _ := node(t, `^\p{`+prop+`}$`, s)
			for i, r := range rs {
				if want[i] == inSet(set, r) {
					t.Errorf("unicodeDrift lists U+%04X for %s, but node (Unicode %s) agrees with Go", r, prop, js.unicode)
				}
			}
		}
	}
	// Negation, in and out of classes, on a part of the samples.
	few := subs[:0:0]
	for i := 0; i < len(subs); i += 17 {
		few = append(few, subs[i])
	}
	for _, n := range []string{"L", "Lu", "Cn", "sc=Greek", "sc=Unknown", "Any", "Assigned", "White_Space", "ID_Continue"} {
		for _, p := range []string{`^\P{%s}$`, `^[^\p{%s}]$`, `^[^\P{%s}]$`, `^[\P{%s}a]$`, `^[^\p{%s}a-z]$`} {
			differ(t, &sets, fmt.Sprintf(p, n), few)
		}
	}
	sets.log(t, "property sets")
}

// TestGoTables checks what the translation of \p assumes of Go's tables:
// the leaf general categories partition the code points, and each
// one-letter category (and LC) is the union of its leaves.
func TestGoTables(t *testing.T) {
	var leaves []runeSet
	byMajor := map[string][]runeSet{}
	for name, tab := range unicode.Categories {
		if len(name) == 2 && name != "LC" {
			s := tableSet(tab)
			leaves = append(leaves, s)
			byMajor[name[:1]] = append(byMajor[name[:1]], s)
		}
	}
	total := 0
	for _, s := range leaves {
		for _, r := range s {
			total += int(r[1]-r[0]) + 1
		}
	}
	if u := union(leaves...); len(u) != 1 || u[0] != [2]rune{0, unicode.MaxRune} || total != unicode.MaxRune+1 {
		t.Errorf("the leaf categories do not partition the code points (%d ranges, %d code points)", len(u), total)
	}
	for major, subs := range byMajor {
		if !slices.Equal(categories(major), union(subs...)) {
			t.Errorf("category %s is not the union of its %d leaves", major, len(subs))
		}
	}
	if !slices.Equal(categories("LC"), categories("Lu", "Ll", "Lt")) {
		t.Errorf("LC is not Lu, Ll and Lt")
	}
	// setSyntax writes a category's set as \p{name}: Go's regexp must
	// resolve every name to its table.
	for name := range unicode.Categories {
		re, err := syntax.Parse(`[\p{`+name+`}]`, syntax.Perl)
		if err != nil {
			t.Errorf("Go's regexp refuses \\p{%s}: %v", name, err)
			continue
		}
		var got runeSet
		if re.Op == syntax.OpLiteral { // a one-code-point category
			re.Rune = []rune{re.Rune[0], re.Rune[0]}
		}
		for i := 0; i+1 < len(re.Rune); i += 2 {
			got = append(got, [2]rune{re.Rune[i], re.Rune[i+1]})
		}
		if !slices.Equal(normalize(got), categories(name)) {
			t.Errorf("Go's regexp \\p{%s} is not unicode.Categories[%q]", name, name)
		}
	}
	for name := range scriptAliases {
		if unicode.Scripts[name] == nil {
			t.Errorf("script %s: not in Go's unicode.Scripts", name)
		}
	}
	for name := range unicode.Scripts {
		if _, ok := scriptAliases[name]; !ok {
			t.Errorf("script %s: no aliases listed", name)
		}
	}
}

func TestTranslateRefusesInvalidUTF8(t *testing.T) {
	if _, err := Translate("a\xffb"); err == nil {
		t.Error("invalid UTF-8 translated")
	}
}

// FuzzTranslate: no input panics; a translation always compiles (no
// "bug in ecmare" error), and an error is an *Error.
func FuzzTranslate(f *testing.F) {
	for _, tab := range [][]string{patterns, invalid, refused} {
		for _, p := range tab {
			f.Add(p)
		}
	}
	f.Fuzz(func(t *testing.T, p string) {
		re, err := Compile(p)
		var e *Error
		switch {
		case err == nil && re == nil:
			t.Fatalf("%q: no regexp and no error", p)
		case err != nil && !errors.As(err, &e):
			t.Fatalf("%q: %v is not an *Error", p, err)
		case err != nil && strings.Contains(e.Reason, "bug in ecmare"):
			t.Fatalf("%q: %v", p, err)
		}
	})
}
