package gen

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/emit"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// goldenDir is testdata/golden at the module root.
func goldenDir(t *testing.T) string {
	return filepath.Join(moduleRoot(t), "testdata", "golden")
}

// runGolden generates one golden case. A case has a tools.json section, an
// optional classify.yaml section, and then either the generated files (and
// a "warnings" section when there are warnings) or an "errors" section.
func runGolden(ar *txtar.Archive) (files map[string][]byte, warnings, errors string, err error) {
	in := Input{SnapshotFile: "tools.json", ClassifyFile: "classify.yaml"}
	for _, f := range ar.Files {
		switch f.Name {
		case "tools.json":
			in.Snapshot = f.Data
		case "classify.yaml":
			in.Classify = f.Data
		}
	}
	res, gerr := Generate(in, Options{Package: "bridge"})
	if gerr != nil {
		l, ok := gerr.(diag.List)
		if !ok {
			return nil, "", "", gerr
		}
		return nil, "", l.Error() + "\n", nil
	}
	if len(res.Diagnostics) > 0 {
		warnings = res.Diagnostics.Error() + "\n"
	}
	return res.Files, warnings, "", nil
}

func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(goldenDir(t), "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 8 {
		t.Fatalf("found %d golden cases in %s, want at least 8", len(paths), goldenDir(t))
	}
	var check []tcPackage
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files, warnings, errs, err := runGolden(ar)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := &txtar.Archive{Comment: ar.Comment}
		for _, f := range ar.Files {
			if f.Name == "tools.json" || f.Name == "classify.yaml" {
				want.Files = append(want.Files, f)
			}
		}
		got := &txtar.Archive{Comment: ar.Comment, Files: want.Files}
		if errs != "" {
			got.Files = append(got.Files, txtar.File{Name: "errors", Data: []byte(errs)})
		} else {
			if warnings != "" {
				got.Files = append(got.Files, txtar.File{Name: "warnings", Data: []byte(warnings)})
			}
			got.Files = append(got.Files, sortedFiles(files)...)
			check = append(check, tcPackage{name: strings.ReplaceAll(name, "-", "_"), files: files})
		}
		gotBytes := txtar.Format(got)
		if *update {
			if err := os.WriteFile(path, gotBytes, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if wantBytes := txtar.Format(ar); !bytes.Equal(gotBytes, wantBytes) {
			t.Errorf("%s: output differs from the golden file (run go test ./gen -update and review the diff):\n%s",
				name, firstDiff(wantBytes, gotBytes))
		}
	}
	// Every generated golden package type-checks against the real runtime.
	requireTypeChecks(t, check)
}

func sortedFiles(m map[string][]byte) []txtar.File {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]txtar.File, len(names))
	for i, n := range names {
		out[i] = txtar.File{Name: n, Data: m[n]}
	}
	return out
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n\twant: " + w + "\n\tgot:  " + g
		}
	}
	return "(no line differs)"
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// corpusDir returns the corpus of real tools/list results (testdata/corpus,
// or $OCPGEN_CORPUS).
func corpusDir(t testing.TB) string {
	t.Helper()
	return testcorpus.Dir(t)
}

// TestCorpus generates every real snapshot of the corpus, without a
// classification and with the skeleton classification, and type-checks the
// output. Its value is its breadth, so it is skipped under -race
// (testcorpus.SkipUnderRace) and .ci/breadth.sh runs it without -race;
// TestDeterministic generates four of the largest corpus servers under
// -race.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: generates and type-checks the whole corpus (44 packages); the full suite runs it")
	}
	testcorpus.SkipUnderRace(t)
	dir := corpusDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.tools.json"))
	var check []tcPackage
	for _, path := range paths {
		base := strings.TrimSuffix(filepath.Base(path), ".tools.json")
		pkg := "c_" + strings.ReplaceAll(base, "-", "_")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Generate(Input{SnapshotFile: filepath.Base(path), Snapshot: data}, Options{Package: pkg})
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		check = append(check, tcPackage{name: pkg, files: res.Files})

		snap, ds := load.LoadSnapshot(filepath.Base(path), data)
		if ds.Err() != nil {
			t.Fatalf("%s: %v", base, ds.Err())
		}
		skel, err := emit.Skeleton(snap)
		if err != nil {
			t.Fatalf("%s: skeleton: %v", base, err)
		}
		res2, err := Generate(Input{SnapshotFile: filepath.Base(path), Snapshot: data, ClassifyFile: base + ".ocp.yaml", Classify: skel},
			Options{Package: pkg + "_skel"})
		if err != nil {
			t.Errorf("%s with skeleton: %v", base, err)
			continue
		}
		for _, d := range res2.Diagnostics {
			if d.Code == diag.CodeUnclassified {
				t.Errorf("%s with skeleton: %v", base, d)
			}
		}
		check = append(check, tcPackage{name: pkg + "_skel", files: res2.Files})
	}
	requireTypeChecks(t, check)
}

// shuffled re-encodes a snapshot with its tools in another order and every
// object's keys in another order.
func shuffled(t *testing.T, data []byte, r *rand.Rand) []byte {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	if m, ok := v.(map[string]any); ok {
		if tools, ok := m["tools"].([]any); ok {
			r.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		}
	}
	var buf bytes.Buffer
	writeShuffled(&buf, v, r)
	return buf.Bytes()
}

func writeShuffled(buf *bytes.Buffer, v any, r *rand.Rand) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			writeShuffled(buf, x[k], r)
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeShuffled(buf, e, r)
		}
		buf.WriteByte(']')
	default:
		b, _ := json.Marshal(x)
		buf.Write(b)
	}
}

// TestDeterministic generates corpus snapshots and the golden inputs twice
// from differently ordered input (tools and object keys shuffled): the
// output bytes must be identical; the input digest in the headers is of the
// snapshot's content, not its bytes, so it is the same too.
func TestDeterministic(t *testing.T) {
	dir := corpusDir(t)
	for _, base := range []string{"memory", "github", "calm", "kubernetes"} {
		data, err := os.ReadFile(filepath.Join(dir, base+".tools.json"))
		if err != nil {
			t.Fatal(err)
		}
		ref, err := Generate(Input{SnapshotFile: "s.tools.json", Snapshot: data}, Options{Package: "p"})
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, uint64(len(data))))
		for round := 0; round < 3; round++ {
			sh := shuffled(t, data, r)
			if bytes.Equal(sh, data) {
				t.Fatal("shuffle did not change the input")
			}
			got, err := Generate(Input{SnapshotFile: "s.tools.json", Snapshot: sh}, Options{Package: "p"})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Files) != len(ref.Files) {
				t.Fatalf("%s: %d files, want %d", base, len(got.Files), len(ref.Files))
			}
			if refDigest, gotDigest := digestOf(t, data), digestOf(t, sh); refDigest != gotDigest {
				t.Errorf("%s: snapshot digest %s changed to %s by shuffling", base, refDigest, gotDigest)
			}
			for name, want := range ref.Files {
				g := got.Files[name]
				if !bytes.Equal(g, want) {
					t.Errorf("%s: %s differs after shuffling the input:\n%s", base, name, firstDiff(want, g))
				}
			}
			// Diagnostics point into the file, so their tool index follows
			// the input order; everything else must match.
			if normIndex(got.Diagnostics.Error()) != normIndex(ref.Diagnostics.Error()) {
				t.Errorf("%s: diagnostics differ after shuffling:\n%s\nvs\n%s", base, got.Diagnostics, ref.Diagnostics)
			}
		}
	}
}

var toolIndex = regexp.MustCompile(`/tools/[0-9]+`)

func normIndex(s string) string {
	lines := strings.Split(toolIndex.ReplaceAllString(s, "/tools/N"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func digestOf(t *testing.T, data []byte) string {
	s, ds := load.LoadSnapshot("x", data)
	if ds.Err() != nil {
		t.Fatal(ds.Err())
	}
	return s.Digest
}

// TestMarker checks that the markers are enforced by the compiler: a pointer
// to a write's arguments does not satisfy ocp.ReadArgs (a Hub function that
// must never write cannot be given one), and one to a read's does; a value
// satisfies neither, nor does a struct that embeds both kinds of arguments;
// argument structs cannot be compared.
func TestMarker(t *testing.T) {
	snap := []byte(`{"tools": [
	  {"name": "delete_entities", "inputSchema": {"type": "object", "properties": {"entityNames": {"type": "array", "items": {"type": "string"}}}, "required": ["entityNames"]}},
	  {"name": "read_graph", "inputSchema": {"type": "object"}}
	]}`)
	class := []byte("version: 1\ntiers: [member]\ndefault: {tier: member}\ntools:\n  delete_entities: {access: write}\n  read_graph: {access: read}\n")
	res, err := Generate(Input{SnapshotFile: "m.tools.json", Snapshot: snap, ClassifyFile: "m.ocp.yaml", Classify: class}, Options{Package: "markerpkg"})
	if err != nil {
		t.Fatal(err)
	}
	use := func(expr string) map[string][]byte {
		return map[string][]byte{"use.go": []byte(`package use

import (
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
	pkg "{{pkg:markerpkg}}"
)

func onlyReads[A ocp.ReadArgs](a A) {}

func onlyWrites[A ocp.WriteArgs](a A) {}

func _() { ` + expr + ` }
`)}
	}
	errs := typeCheck(t, []tcPackage{
		{name: "markerpkg", files: res.Files},
		{name: "readok", files: use("onlyReads(&pkg.ReadGraphArgs{}); onlyWrites(&pkg.DeleteEntitiesArgs{})")},
		{name: "writeasread", files: use("onlyReads(&pkg.DeleteEntitiesArgs{})")},
		{name: "readaswrite", files: use("onlyWrites(&pkg.ReadGraphArgs{})")},
		// The markers' methods have pointer receivers: a value carries none.
		{name: "readvalue", files: use("onlyReads(pkg.ReadGraphArgs{})")},
		{name: "writevalue", files: use("onlyWrites(pkg.DeleteEntitiesArgs{})")},
		// A struct embedding both markers has neither method.
		{name: "both", files: use("type both struct{ pkg.ReadGraphArgs; pkg.DeleteEntitiesArgs }; onlyReads(&both{})")},
		{name: "bothwrite", files: use("type both struct{ pkg.ReadGraphArgs; pkg.DeleteEntitiesArgs }; onlyWrites(&both{})")},
		// Argument structs are not comparable (the markers hold a [0]func()).
		{name: "compare", files: use("_ = pkg.ReadGraphArgs{} == pkg.ReadGraphArgs{}")},
	})
	for _, ok := range []string{"markerpkg", "readok"} {
		if len(errs[ok]) > 0 {
			t.Errorf("%s: unexpected errors: %v", ok, errs[ok])
		}
	}
	for bad, method := range map[string]string{
		"writeasread": "ocpRead", "readaswrite": "ocpWrite",
		"readvalue": "ocpRead", "writevalue": "ocpWrite",
		"both": "ocpRead", "bothwrite": "ocpWrite",
		"compare": "cannot be compared",
	} {
		msgs := strings.Join(errs[bad], "\n")
		if msgs == "" {
			t.Errorf("%s: compiled, want a type error", bad)
		} else if !strings.Contains(msgs, method) {
			t.Errorf("%s: error does not mention the missing method %s: %s", bad, method, msgs)
		}
	}
}
