package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/importer"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"hash/fnv"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"
	"golang.org/x/tools/go/packages"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// The generator's fuzz targets. Each runs Generate, the pure function every
// command shares, and checks its output with checkGenerated: never a panic;
// on success every file parses, a sample type-checks against the real
// runtime, every descriptor holds exactly the tool's name, description and
// canonical input schema, and description text changes nothing but comments
// and string literals. Run one longer with, e.g.:
//
//	go test ./gen -run '^$' -fuzz '^FuzzGenerate$' -fuzztime 10m -parallel 1
//
// Seeds: testdata/fuzz/<target>/ (committed; made from testdata/corpus and
// testdata/adversarial by TestWriteFuzzSeeds with -write-fuzz-seeds).
// FuzzGenerate's and FuzzSnapshot's seeds, which are the corpus's and the
// adversarial cases' breadth, are skipped under -race
// (testcorpus.SkipUnderRace): .ci/breadth.sh replays them without -race,
// and .ci/fuzz.sh again before it fuzzes.

// FuzzGenerate fuzzes schema → model → emit: one tool with a fuzzed name,
// description and input schema.
func FuzzGenerate(f *testing.F) {
	f.Add("get_issue", "Get an issue.\n*/ func init() { panic(\"PWNED\") } /*", []byte(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`))
	f.Add("type", "//go:generate rm -rf /", []byte(`{"type":"object","properties":{"func":{"type":"string","format":"x\nfunc init(){}"},"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/a"}}}}}`))
	testcorpus.SkipUnderRace(f)
	warmTypeCheck(f)
	f.Fuzz(func(t *testing.T, name, description string, schema []byte) {
		if !json.Valid(schema) {
			return
		}
		snap := fuzzSnapshot(name, description, schema)
		checkGenerate(t, Input{SnapshotFile: "s.tools.json", Snapshot: snap}, sampled(snap, 4))
	})
}

// FuzzSnapshot fuzzes the snapshot loader and everything after it: any bytes
// as the snapshot file.
func FuzzSnapshot(f *testing.F) {
	f.Add([]byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`))
	f.Add([]byte(`{"server":{"name":"s","version":"1"},"tools":[{"name":"a-b","inputSchema":{"type":"object"}},{"name":"a_b","inputSchema":{"type":"object"}}]}`))
	testcorpus.SkipUnderRace(f)
	warmTypeCheck(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkGenerate(t, Input{SnapshotFile: "s.tools.json", Snapshot: data}, sampled(data, 4))
	})
}

// fuzzClassifySnapshot is the fixed snapshot of FuzzClassification: a read
// and a write candidate with scalar, array, enum and object arguments.
const fuzzClassifySnapshot = `{"tools":[
 {"name":"read_graph","description":"Read.","inputSchema":{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}}}},
 {"name":"delete_entities","inputSchema":{"type":"object","properties":{"entityNames":{"type":"array","items":{"type":"string"}},"mode":{"enum":["soft","hard"]},"meta":{"type":"object","properties":{"x":{"type":"string"}}}},"required":["entityNames"]}},
 {"name":"get-item","inputSchema":{"type":"object","properties":{"id":{"type":["string","null"]},"flag":{"type":"boolean"}}}}
]}`

// FuzzClassification fuzzes the classification parser and the policy
// model: any bytes as the classification file of a fixed snapshot. Besides
// checkGenerated's checks, a tool is generated as a read only if the file,
// read independently, lists it with access: read.
func FuzzClassification(f *testing.F) {
	f.Add([]byte("version: 1\ntiers: [visitor, member]\ndefault: {tier: member}\ntools:\n  read_graph: {access: read, tier: visitor, resource: \"graph/{q}\"}\n  delete_entities:\n    access: write\n    resource: \"graph/{entityNames}\"\n    confirm: {prompt: \"Delete {entityNames}?\", ttl: 2m}\n"))
	f.Add([]byte("version: 1\ntiers: [a]\ndefault: {tier: a}\ntools:\n  get-item: {access: read, resource: \"i/{id}\"}\n"))
	f.Add([]byte("version: 1\ntiers: [a]\ndefault: {tier: a}\ntools:\n  read_graph: {acess: read}\n"))
	warmTypeCheck(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		in := Input{SnapshotFile: "s.tools.json", Snapshot: []byte(fuzzClassifySnapshot), ClassifyFile: "c.ocp.yaml", Classify: data}
		res := checkGenerate(t, in, sampled(data, 4))
		if res == nil {
			return
		}
		var listed struct {
			Tools map[string]struct {
				Access string `yaml:"access"`
			} `yaml:"tools"`
		}
		yamlErr := yaml.Unmarshal(data, &listed)
		for name, kind := range descriptorKinds(t, res.Files) {
			if kind != "KindRead" {
				continue
			}
			if yamlErr != nil || listed.Tools[name].Access != "read" {
				t.Fatalf("tool %q generated as a read, but the file does not list it with access: read (yaml: %v)", name, yamlErr)
			}
		}
	})
}

// warmTypeCheck loads the runtime's type information before fuzzing starts,
// so that the seconds it takes are not charged to the first input (the
// fuzzer would take them for a hang).
func warmTypeCheck(f *testing.F) {
	if _, err := fuzzImporter(); err != nil {
		f.Fatalf("loading the runtime for type-checks: %v", err)
	}
}

// fuzzSnapshot wraps one tool in a snapshot; schema is used as it is.
func fuzzSnapshot(name, description string, schema []byte) []byte {
	n, _ := json.Marshal(name)
	d, _ := json.Marshal(description)
	return []byte(`{"tools":[{"name":` + string(n) + `,"description":` + string(d) + `,"inputSchema":` + string(schema) + `}]}`)
}

// sampled picks one input in n, by a hash of the input, for type-checking:
// the choice is the same whenever the input is replayed.
func sampled(data []byte, n uint32) bool {
	h := fnv.New32a()
	h.Write(data)
	return h.Sum32()%n == 0
}

// checkGenerate runs Generate and checks its outcome; it returns the result,
// nil when generation failed with diagnostics.
func checkGenerate(t *testing.T, in Input, typecheck bool) *Result {
	t.Helper()
	res, err := Generate(in, Options{Package: "bridge"})
	if err != nil {
		var l diag.List
		if !errors.As(err, &l) {
			t.Fatalf("not a diagnostic: %v", err)
		}
		if len(l) == 0 {
			t.Fatal("failure without a diagnostic")
		}
		for _, d := range l {
			if d.Severity != diag.Error || d.Msg == "" || d.File == "" {
				t.Fatalf("malformed error diagnostic %+v", d)
			}
		}
		return nil
	}
	if err := checkGenerated(in, res); err != nil {
		t.Fatal(err)
	}
	if typecheck {
		if err := typeCheckFiles(res.Files); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// checkGenerated checks a successful generation:
//
//   - every file is gofmt-clean and parses, and every comment in it is a "//" line comment
//     that is not a compiler directive (so nothing from an input can end a
//     comment, or turn one into a directive);
//   - every tool of the snapshot has exactly one descriptor, whose Name,
//     Description and Title literals are the tool's, whose InputSchema
//     literal is the canonical JSON of its input schema and whose
//     Fingerprint is that JSON's;
//   - the files made from the snapshot with every description replaced by
//     a neutral text have the same names and, comments aside, the same
//     tokens except for the values of string literals: description text
//     reaches nothing but comments and string literals.
func checkGenerated(in Input, res *Result) error {
	tools, err := snapshotTools(in.Snapshot)
	if err != nil {
		return fmt.Errorf("Generate accepted a snapshot that does not decode: %v", err)
	}
	descs := map[string]descriptorLits{}
	for name, src := range res.Files {
		if err := checkComments(name, src); err != nil {
			return err
		}
		// Emit formats each file with go/format once: the output must be
		// its fixed point, whatever the descriptions say (doc comments).
		if again, err := format.Source(src); err != nil || !bytes.Equal(again, src) {
			return fmt.Errorf("%s: gofmt would change the generated file (err %v):\n%s", name, err, lineDiff(again, src))
		}
		ds, err := descriptors(name, src)
		if err != nil {
			return err
		}
		for _, d := range ds {
			if _, dup := descs[d.Name]; dup {
				return fmt.Errorf("two descriptors for tool %q", d.Name)
			}
			descs[d.Name] = d
		}
	}
	if len(descs) != len(tools) {
		return fmt.Errorf("%d descriptors for %d tools", len(descs), len(tools))
	}
	for _, tl := range tools {
		d, ok := descs[tl.Name]
		if !ok {
			return fmt.Errorf("no descriptor for tool %q", tl.Name)
		}
		canonical, err := canon.JSON(tl.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %q: canonical schema: %v", tl.Name, err)
		}
		switch {
		case d.Description != tl.Description:
			return fmt.Errorf("tool %q: Description literal %q, want %q", tl.Name, d.Description, tl.Description)
		case d.Title != tl.Title:
			return fmt.Errorf("tool %q: Title literal %q, want %q", tl.Name, d.Title, tl.Title)
		case d.InputSchema != string(canonical):
			return fmt.Errorf("tool %q: InputSchema literal\n%s\nwant the canonical schema\n%s", tl.Name, d.InputSchema, canonical)
		case d.Fingerprint != mustSchemaFingerprint(canonical):
			return fmt.Errorf("tool %q: Fingerprint %s, want %s", tl.Name, d.Fingerprint, mustSchemaFingerprint(canonical))
		}
	}

	neutral, changed, err := neutralDescriptions(in.Snapshot)
	if err != nil || !changed {
		return err
	}
	in.Snapshot = neutral
	res2, err := Generate(in, Options{Package: "bridge"})
	if err != nil {
		return fmt.Errorf("generation fails once descriptions are neutral: %v", err)
	}
	if !reflect.DeepEqual(sortedKeys(res.Files), sortedKeys(res2.Files)) {
		return fmt.Errorf("descriptions change the file names: %v, neutral %v", sortedKeys(res.Files), sortedKeys(res2.Files))
	}
	for name, src := range res.Files {
		if err := sameCode(name, src, res2.Files[name]); err != nil {
			return fmt.Errorf("description text reaches code: %v", err)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// snapTool is a tool as encoding/json reads the snapshot, independently of
// the loader.
type snapTool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

func snapshotTools(data []byte) ([]snapTool, error) {
	var s struct {
		Tools []snapTool `json:"tools"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return s.Tools, nil
}

// checkComments parses a generated file and checks its comments.
func checkComments(name string, src []byte) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return fmt.Errorf("%s does not parse: %v\n%s", name, err, src)
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			switch {
			case !strings.HasPrefix(c.Text, "//"):
				return fmt.Errorf("%s: %s: a block comment, which text could close: %.80q", name, fset.Position(c.Pos()), c.Text)
			case strings.ContainsAny(c.Text, "\n\r"):
				return fmt.Errorf("%s: %s: a line comment holding a line break: %q", name, fset.Position(c.Pos()), c.Text)
			case isDirective(c.Text):
				return fmt.Errorf("%s: %s: a directive: %q", name, fset.Position(c.Pos()), c.Text)
			}
		}
	}
	return nil
}

// isDirective reports whether a line comment is read by a tool: //go:,
// //line, //export, //extern, //sys, or a build constraint.
func isDirective(c string) bool {
	for _, p := range []string{"//go:", "//line ", "//export ", "//extern ", "//sys", "// +build", "//+build"} {
		if strings.HasPrefix(c, p) {
			return true
		}
	}
	return false
}

// descriptorLits are the literals of one generated descriptor.
type descriptorLits struct {
	Name, Title, Description, InputSchema, Fingerprint string
	// Kind is the selector of Policy.Kind (KindRead or KindWrite).
	Kind string
}

// descriptors finds the ocpimpl.Descriptor composite literals of a file.
func descriptors(name string, src []byte) ([]descriptorLits, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []descriptorLits
	var bad error
	ast.Inspect(f, func(n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok || !isSel(cl.Type, "Descriptor") {
			return true
		}
		var d descriptorLits
		for _, e := range cl.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key := kv.Key.(*ast.Ident).Name
			if lit, ok := kv.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					bad = fmt.Errorf("%s: %s: %v", name, key, err)
				}
				switch key {
				case "Name":
					d.Name = v
				case "Title":
					d.Title = v
				case "Description":
					d.Description = v
				case "InputSchema":
					d.InputSchema = v
				case "Fingerprint":
					d.Fingerprint = v
				}
			}
			if pol, ok := kv.Value.(*ast.CompositeLit); ok && key == "Policy" {
				for _, pe := range pol.Elts {
					if pkv, ok := pe.(*ast.KeyValueExpr); ok && pkv.Key.(*ast.Ident).Name == "Kind" {
						if sel, ok := pkv.Value.(*ast.SelectorExpr); ok {
							d.Kind = sel.Sel.Name
						}
					}
				}
			}
		}
		out = append(out, d)
		return false
	})
	return out, bad
}

func isSel(e ast.Expr, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == name
}

// descriptorKinds maps each tool name to its Policy.Kind selector.
func descriptorKinds(t *testing.T, files map[string][]byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, src := range files {
		ds, err := descriptors(name, src)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Kind != "KindRead" && d.Kind != "KindWrite" {
				t.Fatalf("tool %q: Policy.Kind %q", d.Name, d.Kind)
			}
			out[d.Name] = d.Kind
		}
	}
	return out
}

// neutralText replaces every description in neutralDescriptions.
const neutralText = "D"

// neutralDescriptions returns the snapshot with the value of every
// "description" member that is a non-empty string replaced by neutralText,
// and whether it changed anything. Numbers keep their exact text.
func neutralDescriptions(data []byte) ([]byte, bool, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, err
	}
	changed := false
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "description" && s != "" && s != neutralText {
					x[k] = neutralText
					changed = true
					continue
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out, err := json.Marshal(v)
	return out, changed, err
}

// sameCode compares two files token by token, comments left out; string
// literals must be string literals in both, with any value.
func sameCode(name string, a, b []byte) error {
	ta, err := codeTokens(a)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	tb, err := codeTokens(b)
	if err != nil {
		return fmt.Errorf("%s (neutral): %v", name, err)
	}
	for i := 0; i < len(ta) || i < len(tb); i++ {
		if i >= len(ta) || i >= len(tb) {
			return fmt.Errorf("%s: %d tokens, %d once descriptions are neutral", name, len(ta), len(tb))
		}
		x, y := ta[i], tb[i]
		if x.tok != y.tok || (x.tok != token.STRING && x.lit != y.lit) {
			return fmt.Errorf("%s: token %d is %s %q, %s %q once descriptions are neutral", name, i, x.tok, x.lit, y.tok, y.lit)
		}
	}
	return nil
}

type tokLit struct {
	tok token.Token
	lit string
}

// codeTokens scans Go source without comments.
func codeTokens(src []byte) ([]tokLit, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	var out []tokLit
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok == token.SEMICOLON {
			lit = ";" // "\n" when inserted; the same either way
		}
		out = append(out, tokLit{tok, lit})
	}
	if errs.Len() > 0 {
		return nil, errs.Err()
	}
	return out, nil
}

// fuzzImporter imports the runtime and the standard library from the
// export data go/packages finds, loaded once per process.
var fuzzImporter = sync.OnceValues(func() (types.Importer, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedImports | packages.NeedDeps,
		Env:  append(os.Environ(), "GOFLAGS=-mod=mod"),
	}
	pkgs, err := packages.Load(cfg, "github.com/ocpgen/ocpgen/runtime/ocpimpl", "encoding/json", "time")
	if err != nil {
		return nil, err
	}
	byPath := map[string]*types.Package{}
	var errs []error
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
		if p.Types != nil {
			byPath[p.PkgPath] = p.Types
		}
	})
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return mapImporter(byPath), nil
})

type mapImporter map[string]*types.Package

func (m mapImporter) Import(path string) (*types.Package, error) {
	if p, ok := m[path]; ok {
		return p, nil
	}
	return importer.Default().Import(path)
}

// typeCheckFiles type-checks generated files as one package.
func typeCheckFiles(files map[string][]byte) error {
	imp, err := fuzzImporter()
	if err != nil {
		return fmt.Errorf("loading the runtime: %v", err)
	}
	fset := token.NewFileSet()
	var parsed []*ast.File
	for _, name := range sortedKeys(files) {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		parsed = append(parsed, f)
	}
	var errs []string
	conf := types.Config{Importer: imp, Error: func(err error) {
		if len(errs) < 5 {
			errs = append(errs, err.Error())
		}
	}}
	if _, err := conf.Check("example.com/bridge", fset, parsed, nil); err != nil {
		var b strings.Builder
		for _, name := range sortedKeys(files) {
			if len(files[name]) < 20000 {
				fmt.Fprintf(&b, "-- %s --\n%s", name, files[name])
			}
		}
		return fmt.Errorf("generated code does not type-check:\n\t%s\n%s", strings.Join(errs, "\n\t"), b.String())
	}
	return nil
}

// TestFuzzChecker shows that checkGenerated can fail: text outside a
// comment, a block comment, a directive, and a descriptor whose schema is
// not the input's are each reported.
func TestFuzzChecker(t *testing.T) {
	snap := fuzzSnapshot("a", "hello PWNED", []byte(`{"type":"object","properties":{"x":{"type":"string"}}}`))
	in := Input{SnapshotFile: "s.tools.json", Snapshot: snap}
	res, err := Generate(in, Options{Package: "bridge"})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkGenerated(in, res); err != nil {
		t.Fatalf("clean output: %v", err)
	}
	if err := typeCheckFiles(res.Files); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"text outside a comment", "// hello PWNED", "// hello\nvar PWNED = 1", "reaches code"},
		{"block comment", "// hello PWNED", "/* hello PWNED */", "block comment"},
		{"directive", "// hello PWNED", "//go:generate PWNED", "directive"},
		{"schema", `"type":"string"`, `"type":"integer"`, "InputSchema"},
		{"description", `Description: "hello PWNED"`, `Description: "hello"`, "Description"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := &Result{Files: map[string][]byte{}}
			n := 0
			for name, src := range res.Files {
				n += strings.Count(string(src), tc.old)
				bad.Files[name] = []byte(strings.ReplaceAll(string(src), tc.old, tc.new))
			}
			if n == 0 {
				t.Fatalf("%q not in the output", tc.old)
			}
			err := checkGenerated(in, bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if err := typeCheckFiles(map[string][]byte{"a.go": []byte("package bridge\nvar x int = \"s\"\n")}); err == nil {
		t.Fatal("type-check accepted a type error")
	}
}

// mustSchemaFingerprint is canon.SchemaFingerprint, "" on an error.
func mustSchemaFingerprint(canonical []byte) string {
	fp, _ := canon.SchemaFingerprint(canonical)
	return fp
}
