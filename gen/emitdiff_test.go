package gen

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// The emitter builds each file with jennifer and formats it with go/format
// once. TestEmitOutputs holds every output the generator produces for every
// input the tests know (the corpus with and without its classification
// skeleton, the goldens, the adversarial cases, synthetic catalogues, every
// committed fuzz seed and a description gofmt re-heads) to being
// go/format's fixed point, so that a Hub repository's gofmt check passes on
// committed output, and to type-checking against the runtime.
//
// Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race: the
// generator's concurrency is driven under -race by TestGolden,
// TestDeterministic, TestSynthCatalogueGenerates and TestMarker.

var dumpEmit = flag.String("dump-emit", "", "write every output of TestEmitOutputs' inputs (files, or the error) into this directory, to compare two commits' output byte for byte")

// emitCase is one input of TestEmitOutputs.
type emitCase struct {
	name string
	in   Input
	pkg  string
}

// emitCases lists every input TestEmitOutputs runs.
func emitCases(t *testing.T) []emitCase {
	t.Helper()
	// A one-line paragraph without final punctuation, which gofmt makes a
	// heading (a second pass would change the first's output unless the
	// emitter writes the doc comment in canonical form).
	cases := []emitCase{{"heading", Input{SnapshotFile: "heading.tools.json", Snapshot: []byte(`{"tools":[{"name":"read_graph","description":"Read the entire knowledge graph",
			"inputSchema":{"type":"object","properties":{"q":{"type":"string","description":"Query\n\nSecond paragraph"}}},
			"annotations":{"readOnlyHint":true}}]}`)}, "heading"}}
	paths, err := filepath.Glob(filepath.Join(corpusDir(t), "*.tools.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("corpus: %v (%d files)", err, len(paths))
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		base := serverName(p)
		in := Input{SnapshotFile: filepath.Base(p), Snapshot: data}
		cases = append(cases, emitCase{"corpus/" + base, in, pkgName(base)})
		skel, err := Skeleton(filepath.Base(p), data)
		if err != nil {
			t.Fatalf("%s: skeleton: %v", base, err)
		}
		in.ClassifyFile, in.Classify = base+".ocp.yaml", skel
		cases = append(cases, emitCase{"corpus-skel/" + base, in, pkgName(base) + "_skel"})
	}
	goldens, err := filepath.Glob(filepath.Join(goldenDir(t), "*.txtar"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("goldens: %v (%d files)", err, len(goldens))
	}
	for _, p := range goldens {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		in := Input{SnapshotFile: "tools.json", ClassifyFile: "classify.yaml"}
		for _, f := range ar.Files {
			switch f.Name {
			case "tools.json":
				in.Snapshot = f.Data
			case "classify.yaml":
				in.Classify = f.Data
			}
		}
		cases = append(cases, emitCase{"golden/" + strings.TrimSuffix(filepath.Base(p), ".txtar"), in, "bridge"})
	}
	for _, c := range loadAdversarial(t) {
		if testing.Short() && len(c.in.Snapshot) > shortMaxSnapshot {
			continue
		}
		cases = append(cases, emitCase{"adversarial/" + c.name, c.in, "adv"})
	}
	sizes := []int{1, 10, 137, 1000}
	if !testing.Short() {
		sizes = append(sizes, 3000)
	}
	for _, n := range sizes {
		cases = append(cases, emitCase{fmt.Sprintf("synth/%d", n), Input{SnapshotFile: "synth.tools.json", Snapshot: synthCatalogue(n)}, "synth"})
	}
	seeds, err := fuzzSeedCases(filepath.Join("testdata", "fuzz"))
	if err != nil {
		t.Fatal(err)
	}
	return append(cases, seeds...)
}

// fuzzSeedCases reads the committed seed corpora of the fuzz targets and
// turns each seed into the input its target would generate.
func fuzzSeedCases(dir string) ([]emitCase, error) {
	var cases []emitCase
	for _, target := range []string{"FuzzGenerate", "FuzzSnapshot", "FuzzClassification"} {
		paths, err := filepath.Glob(filepath.Join(dir, target, "*"))
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("no fuzz seeds in %s", filepath.Join(dir, target))
		}
		for _, p := range paths {
			vals, err := readFuzzSeed(p)
			if err != nil {
				return nil, err
			}
			name := "fuzz/" + target + "/" + filepath.Base(p)
			switch {
			case target == "FuzzGenerate" && len(vals) == 3:
				snap := fuzzSnapshot(string(vals[0]), string(vals[1]), vals[2])
				cases = append(cases, emitCase{name, Input{SnapshotFile: "s.tools.json", Snapshot: snap}, "p"})
			case target == "FuzzSnapshot" && len(vals) == 1:
				cases = append(cases, emitCase{name, Input{SnapshotFile: "s.tools.json", Snapshot: vals[0]}, "p"})
			case target == "FuzzClassification" && len(vals) == 1:
				cases = append(cases, emitCase{name, Input{SnapshotFile: "s.tools.json", Snapshot: []byte(fuzzClassifySnapshot), ClassifyFile: "c.ocp.yaml", Classify: vals[0]}, "p"})
			default:
				return nil, fmt.Errorf("%s: %d values, not %s's", p, len(vals), target)
			}
		}
	}
	return cases, nil
}

// readFuzzSeed reads a "go test fuzz v1" file whose values are string or
// []byte literals.
func readFuzzSeed(path string) ([][]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) == 0 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("%s: not a go test fuzz v1 file", path)
	}
	var vals [][]byte
	for _, l := range lines[1:] {
		e, err := parser.ParseExpr(l)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		call, ok := e.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return nil, fmt.Errorf("%s: unexpected value %q", path, l)
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return nil, fmt.Errorf("%s: unexpected value %q", path, l)
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		vals = append(vals, []byte(s))
	}
	return vals, nil
}

func TestEmitOutputs(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	cases := emitCases(t)
	var files, generated, failed int
	var check []tcPackage
	for i, c := range cases {
		res, err := Generate(c.in, Options{Package: c.pkg})
		if *dumpEmit != "" {
			writeDump(t, filepath.Join(*dumpEmit, c.name), res, err)
		}
		if err != nil {
			var l Diagnostics
			if !errors.As(err, &l) {
				t.Errorf("%s: not a diagnostic list: %v", c.name, err)
			}
			continue
		}
		generated++
		if !typeCheckedElsewhere(c.name) {
			check = append(check, tcPackage{name: fmt.Sprintf("%s%d", c.pkg, i), files: res.Files})
		}
		for _, name := range sortedKeys(res.Files) {
			files++
			src := res.Files[name]
			again, err := format.Source(src)
			if err != nil {
				t.Errorf("%s: %s does not parse: %v", c.name, name, err)
				continue
			}
			if !bytes.Equal(again, src) {
				if failed++; failed <= 10 {
					t.Errorf("%s: gofmt would change %s:\n%s", c.name, name, lineDiff(again, src))
				}
			}
		}
	}
	if failed > 10 {
		t.Errorf("... and %d more files", failed-10)
	}
	t.Logf("%d inputs (%d generated), %d files", len(cases), generated, files)
	if generated < len(cases)/2 {
		t.Fatalf("only %d of %d inputs generated", generated, len(cases))
	}
	if testing.Short() {
		t.Skip("-short: the generated packages are not type-checked")
	}
	requireTypeChecks(t, check)
}

// typeCheckedElsewhere reports whether another test type-checks the output
// of the emitCase named name: TestCorpus the corpus with and without its
// skeleton, TestGolden the goldens, TestAdversarial the adversarial cases.
func typeCheckedElsewhere(name string) bool {
	for _, prefix := range []string{"corpus/", "corpus-skel/", "golden/", "adversarial/"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// writeDump writes one case's output (or error) under dir.
func writeDump(t *testing.T, dir string, res *Result, err error) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		if werr := os.WriteFile(filepath.Join(dir, "ERROR"), []byte(err.Error()+"\n"), 0o644); werr != nil {
			t.Fatal(werr)
		}
		return
	}
	if len(res.Diagnostics) > 0 {
		if werr := os.WriteFile(filepath.Join(dir, "WARNINGS"), []byte(res.Diagnostics.Error()+"\n"), 0o644); werr != nil {
			t.Fatal(werr)
		}
	}
	for name, src := range res.Files {
		if werr := os.WriteFile(filepath.Join(dir, name), src, 0o644); werr != nil {
			t.Fatal(werr)
		}
	}
}

// lineDiff shows where got differs from want: the first differing lines
// with three lines of context, want as "-" and got as "+", and the number
// of differing lines.
func lineDiff(want, got []byte) string {
	w := strings.Split(string(want), "\n")
	g := strings.Split(string(got), "\n")
	first := 0
	for first < len(w) && first < len(g) && w[first] == g[first] {
		first++
	}
	lastW, lastG := len(w)-1, len(g)-1
	for lastW >= first && lastG >= first && w[lastW] == g[lastG] {
		lastW--
		lastG--
	}
	var b strings.Builder
	show := func(mark string, n int, l string) {
		if len(l) > 160 {
			l = l[:160] + "…"
		}
		fmt.Fprintf(&b, "%s %5d  %s\n", mark, n, l)
	}
	from := max(first-3, 0)
	for i := from; i < first; i++ {
		show(" ", i+1, w[i])
	}
	const most = 20
	for i := first; i <= lastW && i < first+most; i++ {
		show("-", i+1, w[i])
	}
	for i := first; i <= lastG && i < first+most; i++ {
		show("+", i+1, g[i])
	}
	fmt.Fprintf(&b, "(%d lines of gofmt's output against %d of the emitter's differ)", lastW-first+1, lastG-first+1)
	return b.String()
}
