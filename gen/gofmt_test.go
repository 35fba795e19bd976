package gen

import (
	"bytes"
	"go/format"
	"os"
	"path/filepath"
	"testing"
)

// TestOutputIsGofmtClean checks that gofmt would change no generated file,
// so a Hub repo's gofmt check passes on committed output. Descriptions that
// gofmt rewrites on a second pass (a one-line paragraph without final
// punctuation becomes a doc heading) were the reason for this test; since
// the emitter prints gofmt's layout itself (no go/format), it also checks
// the alignment. TestEmitMatchesGofmt does the same on every known input.
func TestOutputIsGofmtClean(t *testing.T) {
	inputs := map[string][]byte{
		"heading.tools.json": []byte(`{"tools":[{"name":"read_graph","description":"Read the entire knowledge graph",
			"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"Query\n\nSecond paragraph"}}},
			"annotations":{"readOnlyHint":true}}]}`),
	}
	paths, err := filepath.Glob(filepath.Join(corpusDir(t), "*.tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(p)] = b
	}
	for name, data := range inputs {
		res, err := Generate(Input{SnapshotFile: name, Snapshot: data}, Options{Package: "p"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for file, src := range res.Files {
			formatted, err := format.Source(src)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, file, err)
			}
			if !bytes.Equal(formatted, src) {
				t.Errorf("%s: gofmt would change %s:\n%s", name, file, lineDiff(formatted, src))
			}
		}
	}
}
