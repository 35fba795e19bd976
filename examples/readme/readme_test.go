package readme

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// fileBlock is a code block that shows a repository file: a line
// "<!-- file: PATH -->" followed by a fence (```go, ```yaml, ...).
var fileBlock = regexp.MustCompile("(?s)<!-- file: ([^ ]+) -->\n```[a-z]*\n(.*?)```\n")

// goFence is the opening line of a Go code block.
var goFence = regexp.MustCompile("(?m)^ *```go$")

// mustShow names the files each document must show: the Hub code of
// examples/hub, which TestOwnHubRecipe compiles and tests.
var mustShow = map[string]string{
	"examples/hub/main.go":                  "README.md",
	"examples/hub/ocpgen.yaml":              "README.md",
	"examples/hub/generated_test.go":        "README.md",
	"examples/hub/cmd/httphub/main.go":      "docs/runtime.md",
	"examples/hub/cmd/muxhub/main.go":       "docs/production.md",
	"examples/hub/replica/replica.go":       "docs/production.md",
	"examples/hub/redismodes/redismodes.go": "docs/production.md",
	"examples/hub/telemetry/telemetry.go":   "docs/production.md",
	"examples/hub/cmd/approve/main.go":      "docs/approving.md",
}

// docs returns README.md, BENCHMARKS.md and every docs/*.md, by their
// paths from the repository's root.
func docs(t *testing.T, root string) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(root, "README.md"), filepath.Join(root, "BENCHMARKS.md"))
	out := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = b
	}
	return out
}

// TestDocsShowTheFiles: every file block of the docs equals
// the file it names, every Go block is such a file block (so every Go
// block shown is compiled), and each document shows the files mustShow
// gives it, and every Hub file of examples/hub is given to one.
func TestDocsShowTheFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	shown := map[string][]string{}
	for doc, text := range docs(t, root) {
		for _, m := range fileBlock.FindAllSubmatch(text, -1) {
			path := string(m[1])
			shown[path] = append(shown[path], doc)
			want, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
			if err != nil {
				t.Errorf("%s shows %s: %v", doc, path, err)
				continue
			}
			if !bytes.Equal(m[2], want) {
				t.Errorf("%s: the block for %s differs from the file: copy the file into the block (the file is what the build compiles)", doc, path)
			}
		}
		for _, loc := range goFence.FindAllIndex(text, -1) {
			before := strings.TrimSuffix(string(text[:loc[0]]), "\n")
			last := before[strings.LastIndex(before, "\n")+1:]
			if !strings.HasPrefix(last, "<!-- file: ") {
				line := bytes.Count(text[:loc[0]], []byte("\n")) + 1
				t.Errorf("%s:%d: a Go block that is not a compiled file: put the code in a file of examples/hub and a line <!-- file: PATH --> before the block", doc, line)
			}
		}
	}
	for path, doc := range mustShow {
		found := false
		for _, d := range shown[path] {
			found = found || d == doc
		}
		if !found {
			t.Errorf("%s does not show %s (a line <!-- file: %s --> before its block)", doc, path, path)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "examples", "hub"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".go" || strings.HasSuffix(p, "_test.go") {
			return err
		}
		if b, err := os.ReadFile(p); err != nil || bytes.HasPrefix(b, []byte("// Code generated ")) {
			return err // a package go generate wrote (it is not committed)
		}
		rel, _ := filepath.Rel(root, p)
		if rel = filepath.ToSlash(rel); mustShow[rel] == "" {
			t.Errorf("%s is Hub code no document shows: add it to mustShow and to the document", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// link is a Markdown link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// fence is a fenced code block; code is one or a code span.
var (
	fence = regexp.MustCompile("(?s)```.*?```")
	code  = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")
)

// heading is a Markdown heading line.
var heading = regexp.MustCompile(`(?m)^#{1,6} (.+)$`)

// slug is the anchor GitHub gives a heading: lower case, spaces as
// hyphens, punctuation but '-' and '_' left out.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDocsLinks: every relative link of the docs names a
// file of the repository and, with a #fragment into a Markdown file, one
// of its headings; and README.md links every page of docs/.
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	all := docs(t, root)
	anchors := func(path string) map[string]bool {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(path)))
		if err != nil {
			t.Fatal(err)
		}
		text = fence.ReplaceAll(text, nil) // a "#" line in a code block is no heading
		out := map[string]bool{}
		for _, m := range heading.FindAllSubmatch(text, -1) {
			out[slug(string(m[1]))] = true
		}
		return out
	}
	linked := map[string]bool{}
	for doc, text := range all {
		text = code.ReplaceAll(text, nil)
		for _, m := range link.FindAllSubmatch(text, -1) {
			target := string(m[1])
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.ToSlash(filepath.Join(filepath.Dir(doc), file))
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(path))); err != nil {
					t.Errorf("%s links %s: no such file", doc, target)
					continue
				}
			}
			if doc == "README.md" {
				linked[path] = true
			}
			if frag != "" && strings.HasSuffix(path, ".md") {
				if !anchors(path)[frag] {
					t.Errorf("%s links %s: %s has no heading #%s", doc, target, path, frag)
				}
			}
		}
	}
	for doc := range all {
		if strings.HasPrefix(doc, "docs/") && !linked[doc] {
			t.Errorf("README.md does not link %s", doc)
		}
	}
}

// TestStagesBlocksAgree: README.md and docs/security-model.md show the same
// list of a call's stages (the block between <!-- stages --> and
// <!-- /stages -->, which runtime/ocp's TestStagesAreDocumented holds to the
// declaration), but for the paths of their links.
func TestStagesBlocksAgree(t *testing.T) {
	root := filepath.Join("..", "..")
	all := docs(t, root)
	block := func(doc string) string {
		text := string(all[doc])
		i, j := strings.Index(text, "<!-- stages -->"), strings.Index(text, "<!-- /stages -->")
		if i < 0 || j < i {
			t.Fatalf("%s has no block between <!-- stages --> and <!-- /stages -->", doc)
		}
		return text[i:j]
	}
	readme := strings.ReplaceAll(block("README.md"), "](docs/", "](")
	if sm := block("docs/security-model.md"); readme != sm {
		t.Errorf("README.md's stages differ from docs/security-model.md's: copy the block (links from docs/ lose their \"docs/\")")
	}
}
