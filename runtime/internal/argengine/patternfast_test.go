package argengine

import (
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"encoding/json"

	"github.com/ocpgen/ocpgen/internal/ecmare"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

var fastPatterns = []string{
	`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, `^[A-Za-z0-9_-]{1,64}$`, `^\d+$`, `^[a-z]*$`, `^x?$`, `^$`, `^.$`, `^.{2,3}$`,
	`^[^a-c]{2}[é-ü]+$`, `^\w{3}\d?$`, `^[\s]+$`, `^\S{1,}$`, `^ab[c-e]{0,2}$`, `^\p{Lu}\p{Ll}*$`, `^[\x{1F600}-\x{1F64F}]+$`,
	`^#[0-9a-fA-F]{6}$`, `^v[0-9]+$`, `^a{2}b{0}c{1,}$`, `^[a-z][a-z]+$`, `^.*$`,
	// No fast matcher:
	`[0-9]`, `^a|b$`, `^(ab)+$`, `^a+b+$`, `^a+$|^b$`, `a$`, `^a`, `^\bx$`, `^(?:x)$`, `^[a-z]+?[0-9]$`,
}

// corpusPatterns returns the patterns of the corpus schemas.
func corpusPatterns(t testing.TB) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "pattern" {
					out = append(out, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, f := range testcorpus.Files(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		walk(v)
	}
	return out
}

// genMatchCandidate returns strings near what re's classes accept: runes
// from inside, at the edges of and outside every range, in lengths around
// the pattern's.
func genMatchCandidate(r *rand.Rand, q *runeSeq) string {
	var b strings.Builder
	for _, it := range q.items {
		n := it.min
		if it.max != it.min {
			hi := it.max
			if hi < 0 {
				hi = it.min + 4
			}
			n = it.min + r.IntN(hi-it.min+2)
		}
		if r.IntN(8) == 0 {
			n += r.IntN(3) - 1
		}
		for range max(n, 0) {
			k := 2 * r.IntN(len(it.ranges)/2)
			lo, hi := it.ranges[k], it.ranges[k+1]
			var c rune
			switch r.IntN(6) {
			case 0:
				c = lo - 1
			case 1:
				c = hi + 1
			case 2:
				c = lo
			case 3:
				c = hi
			case 4:
				c = rune(r.IntN(0x250))
			default:
				c = lo + rune(r.Int64N(int64(hi-lo)+1))
			}
			if !utf8.ValidRune(c) {
				c = 'x'
			}
			b.WriteRune(c)
		}
	}
	return b.String()
}

func TestPatternFastAgreesWithRegexp(t *testing.T) {
	patterns := append(corpusPatterns(t), fastPatterns...)
	r := rand.New(rand.NewPCG(5, 6))
	fast, matched := 0, 0
	for _, p := range patterns {
		re, err := ecmare.Compile(p)
		if err != nil {
			continue
		}
		q := compileRuneSeq(re)
		if q == nil {
			continue
		}
		fast++
		for range 2000 {
			s := genMatchCandidate(r, q)
			if got, want := q.match(s), re.MatchString(s); got != want {
				t.Fatalf("pattern %q (%s) on %q: fast matcher %v, regexp %v", p, re, s, got, want)
			} else if got {
				matched++
			}
		}
	}
	t.Logf("%d of %d patterns have a fast matcher; %d candidates matched", fast, len(patterns), matched)
	if matched < fast*200 {
		t.Errorf("only %d candidates matched over %d patterns: the test checks little", matched, fast)
	}
	for _, p := range []string{`[0-9]`, `^a|b$`, `^(ab)+$`, `^a+b+$`, `a$`, `^a`, `^\bx$`, `^[a-z]+?[0-9]$`} {
		if compileRuneSeq(regexp.MustCompile(p)) != nil {
			t.Errorf("%s has a fast matcher", p)
		}
	}
	for _, p := range []string{`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, `^[A-Za-z0-9_-]{1,64}$`, `^\d+$`} {
		if compileRuneSeq(regexp.MustCompile(p)) == nil {
			t.Errorf("%s has no fast matcher", p)
		}
	}
}

func FuzzPatternFast(f *testing.F) {
	f.Add(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`, "2024-01-31")
	f.Add(`^[A-Za-z0-9_-]{1,64}$`, "a_b")
	f.Add(`^.{2,3}$`, "é\n")
	f.Fuzz(func(t *testing.T, p, s string) {
		re, err := regexp.Compile(p)
		if err != nil || !utf8.ValidString(s) {
			return
		}
		if q := compileRuneSeq(re); q != nil && q.match(s) != re.MatchString(s) {
			t.Fatalf("pattern %q on %q: fast matcher %v, regexp %v", p, s, q.match(s), re.MatchString(s))
		}
	})
}
