package model

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headingCases are lines around go/doc/comment's heading rules.
var headingCases = []string{
	"Heading", "Heading 2", "heading", "Heading.", "Heading:", "# Heading", "#", "# ", "#Heading",
	" Heading", "\tHeading", "Über", "Ünicode heading", "Émile 1", "ÉMILE", "Δelta", "ǅ title",
	"A (b), c", "A; b", "A_b", "Foo bar baz", "Foo bar baz.", "The end 1", "Ⅻ roman", "Ⅻ",
	"X", "1 Heading", "- Heading", "* Heading", "Foo 'bar' baz", "Foo \"bar\" baz", "Foo's bar",
	"Go's heading", "Ａ fullwidth", "Ω", "ß lower", "İstanbul",
}

// TestMayBeHeading: mayBeHeading is never false for a line that
// go/doc/comment reads as a heading, on the cases above and every line of
// every description in the corpus.
func TestMayBeHeading(t *testing.T) {
	lines := append([]string(nil), headingCases...)
	paths, _ := filepath.Glob("../../../testdata/corpus/*.tools.json")
	if len(paths) == 0 {
		t.Fatal("no corpus")
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		// Every string in the snapshot, descriptions included.
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				lines = append(lines, strings.Split(x, "\n")...)
			case map[string]any:
				for k, e := range x {
					lines = append(lines, k)
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		walk(doc)
	}
	headings := 0
	for _, l := range lines {
		l = strings.TrimRight(l, " \t\r")
		if l == "" || strings.ContainsAny(l, "\r\n") {
			continue
		}
		if parsesAsHeading(l) {
			headings++
			if !mayBeHeading(l) {
				t.Errorf("%q is a heading, but mayBeHeading says it cannot be", l)
			}
		}
	}
	if headings == 0 {
		t.Error("no line was a heading: the test checks nothing")
	}
}

// FuzzMayBeHeading: the same, on any line.
func FuzzMayBeHeading(f *testing.F) {
	for _, l := range headingCases {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, l string) {
		if strings.ContainsAny(l, "\r\n\u0085\u2028\u2029") {
			return
		}
		if parsesAsHeading(l) && !mayBeHeading(l) {
			t.Errorf("%q is a heading, but mayBeHeading says it cannot be", l)
		}
	})
}
