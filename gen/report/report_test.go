package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/gen/internal/diff"
)

var update = flag.Bool("update", false, "rewrite the diff golden files")

// diffGoldenDir holds the diff golden cases. A case has the inputs
// old.tools.json, old.ocp.yaml, new.tools.json and new.ocp.yaml (each
// optional: an absent section is an absent file), and the three renderings
// report.txt, report.md and report.json, after an "error" section when the
// diff fails (the renderings are then gen.DiffFailed's). Run
// "go test ./gen/report -run TestDiffGolden -update" to rewrite them.
func diffGoldenDir() string { return filepath.Join("..", "..", "testdata", "golden", "diff") }

var diffInputs = []string{"old.tools.json", "old.ocp.yaml", "new.tools.json", "new.ocp.yaml"}

func diffCase(ar *txtar.Archive) (old, nw gen.Input) {
	old = gen.Input{SnapshotFile: "old.tools.json", ClassifyFile: "old.ocp.yaml"}
	nw = gen.Input{SnapshotFile: "new.tools.json", ClassifyFile: "new.ocp.yaml"}
	for _, f := range ar.Files {
		data := append([]byte{}, f.Data...)
		switch f.Name {
		case "old.tools.json":
			old.Snapshot = data
		case "old.ocp.yaml":
			old.Classify = data
		case "new.tools.json":
			nw.Snapshot = data
		case "new.ocp.yaml":
			nw.Classify = data
		}
	}
	return old, nw
}

// renderAll returns the three renderings of a diff; when it fails, its
// error and the three renderings of gen.DiffFailed's report.
func renderAll(t *testing.T, old, nw gen.Input) []txtar.File {
	t.Helper()
	r, err := gen.Diff(old, nw)
	var out []txtar.File
	if err != nil {
		out = append(out, txtar.File{Name: "error", Data: []byte(err.Error() + "\n")})
		r = gen.DiffFailed(old, nw, err)
	}
	var txt, md, js bytes.Buffer
	if err := DiffText(&txt, r); err != nil {
		t.Fatal(err)
	}
	if err := DiffMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	return append(out, txtar.File{Name: "report.txt", Data: txt.Bytes()}, txtar.File{Name: "report.md", Data: md.Bytes()}, txtar.File{Name: "report.json", Data: js.Bytes()})
}

func TestDiffGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(diffGoldenDir(), "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 8 {
		t.Fatalf("found %d diff golden cases in %s, want at least 8", len(paths), diffGoldenDir())
	}
	seen := map[string]bool{}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			old, nw := diffCase(ar)
			got := renderAll(t, old, nw)
			// Deterministic: a second run gives the same bytes.
			again := renderAll(t, old, nw)
			for i := range got {
				if !bytes.Equal(got[i].Data, again[i].Data) {
					t.Errorf("%s differs between two runs", got[i].Name)
				}
			}
			if r, err := gen.Diff(old, nw); err == nil {
				for _, tool := range r.Tools {
					for _, c := range tool.Changes {
						seen[c.Kind] = true
					}
				}
			}
			want := &txtar.Archive{Comment: ar.Comment}
			for _, f := range ar.Files {
				if slices.Contains(diffInputs, f.Name) {
					want.Files = append(want.Files, f)
				}
			}
			want.Files = append(want.Files, got...)
			if *update {
				if err := os.WriteFile(path, txtar.Format(want), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, g := range got {
				var have []byte
				found := false
				for _, f := range ar.Files {
					if f.Name == g.Name {
						have, found = f.Data, true
					}
				}
				if !found {
					t.Errorf("section %q missing from %s (run with -update)", g.Name, path)
					continue
				}
				if !bytes.Equal(have, g.Data) {
					t.Errorf("%s: %s differs from the golden file (run with -update):\n%s", name, g.Name,
						diff.Unified("golden/"+g.Name, "got/"+g.Name, string(have), string(g.Data)))
				}
			}
		})
	}
	// Every kind of change the issue lists is covered by some case.
	if !t.Failed() && !*update {
		for _, k := range []string{
			"tool-added", "tool-removed",
			"property-added", "property-added-required", "property-removed", "property-required", "property-optional",
			"type-changed", "type-narrowed", "type-widened",
			"enum-value-added", "enum-value-removed", "const-changed",
			"constraint-tightened", "constraint-loosened", "constraint-changed",
			"additional-properties-disallowed", "additional-properties-allowed",
			"description-changed", "title-changed",
			"access-loosened", "access-tightened", "classified", "unclassified",
			"tier-lowered", "tier-raised", "scope-removed", "scope-added",
			"resource-widened", "resource-narrowed", "resource-changed",
			"confirm-prompt-added", "confirm-prompt-removed", "confirm-prompt-changed",
			"confirm-ttl-lengthened", "confirm-ttl-shortened", "failure-changed",
			"hint-changed", "output-schema-added", "alternative-added", "ref-changed",
			"task-support-changed", "task-support-required", "icons-changed", "meta-changed",
		} {
			if !seen[k] {
				t.Errorf("no golden case has a change of kind %q", k)
			}
		}
	}
}

func TestParseFailOn(t *testing.T) {
	r := &gen.Report{Summary: gen.DiffSummary{Changes: 3, Breaking: 1}}
	for _, tc := range []struct {
		in, fails string
		err       bool
	}{
		{"", "", false},
		{"none", "", false},
		{"any", "3 changes", false},
		{"breaking", "1 breaking change", false},
		{"security", "", false},
		{"security, breaking", "1 breaking change", false},
		{"bogus", "", true},
	} {
		f, err := ParseFailOn(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseFailOn(%q): error %v", tc.in, err)
			continue
		}
		if got := Fails(r, f); got != tc.fails {
			t.Errorf("-fail-on %q: Fails = %q, want %q", tc.in, got, tc.fails)
		}
	}
}

var codeSpan = regexp.MustCompile("(`+)[^`]*?(`+)")

// TestMarkdownEscapes checks that hostile text cannot break out of the
// Markdown report: no raw HTML, no mention, no early end of a fence.
func TestMarkdownEscapes(t *testing.T) {
	oldSnap := []byte(`{"tools":[{"name":"x|<b>","description":"ok","inputSchema":{"type":"object"}}]}`)
	newSnap := []byte(`{"tools":[{"name":"x|<b>","description":"` + "```" + `\n<img src=x onerror=alert(1)> @admins ` + "````" + `","inputSchema":{"type":"object","properties":{"a<script>":{"type":"string"}}}}]}`)
	r, err := gen.Diff(gen.Input{SnapshotFile: "o", Snapshot: oldSnap}, gen.Input{SnapshotFile: "n", Snapshot: newSnap})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := DiffMarkdown(&buf, r); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	// Outside fenced blocks, no "<" and no "@" may appear raw.
	inFence := ""
	for _, line := range strings.Split(md, "\n") {
		trim := strings.TrimLeft(line, " ")
		if inFence == "" && strings.HasPrefix(trim, "```") {
			inFence = strings.TrimRight(trim, "diff")
			continue
		}
		if inFence != "" {
			if trim == inFence {
				inFence = ""
			} else if !strings.HasPrefix(trim, "-") && !strings.HasPrefix(trim, "+") && !strings.HasPrefix(trim, " ") && trim != "" {
				t.Errorf("line in a diff block does not start with -, + or space: %q", line)
			}
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		if strings.Contains(line, "<") && !strings.HasPrefix(line, "<sub>") {
			t.Errorf("raw < outside a fence: %q", line)
		}
		if strings.Contains(line, "@") {
			t.Errorf("raw @ outside a fence: %q", line)
		}
	}
	if inFence != "" {
		t.Errorf("fence %q never closed:\n%s", inFence, md)
	}
	if !strings.Contains(md, "| `x\\|<b>` |") {
		t.Errorf("tool name not escaped as a table cell:\n%s", md)
	}
}

// TestDiffKindsDocumented checks that every kind a golden case produces is
// documented in ChangeKinds with the flags it is reported with.
func TestDiffKindsDocumented(t *testing.T) {
	kinds := map[string]gen.ChangeKind{}
	for _, k := range gen.ChangeKinds() {
		if _, dup := kinds[k.Kind]; dup {
			t.Errorf("kind %q listed twice", k.Kind)
		}
		kinds[k.Kind] = k
	}
	paths, _ := filepath.Glob(filepath.Join(diffGoldenDir(), "*.txtar"))
	for _, path := range paths {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := gen.Diff(diffCase(ar))
		if err != nil {
			continue
		}
		for _, tool := range r.Tools {
			for _, c := range tool.Changes {
				k, ok := kinds[c.Kind]
				if !ok {
					t.Errorf("%s: kind %q is not in ChangeKinds", path, c.Kind)
					continue
				}
				brk := k.Breaking
				if c.Area == "output" {
					brk = k.BreakingOutput
				}
				if c.Area != "text" && (brk != c.Breaking || k.Security != c.Security) {
					t.Errorf("%s: %s %s: breaking=%v security=%v, documented breaking=%v security=%v",
						path, tool.Name, c.Kind, c.Breaking, c.Security, brk, k.Security)
				}
			}
		}
	}
}
