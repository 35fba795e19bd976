package gen

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/scanner"
	"go/token"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// The adversarial suite: testdata/adversarial/NN-name.txtar. Each case is a
// hostile snapshot (and, optionally, classification) with its expected
// outcome. Its comment says what it attacks and what must happen. Sections:
//
//	tools.json      the snapshot; "{{remote}}" in it (and in expect) becomes
//	                the URL of a local HTTP server that must never be asked
//	                for anything
//	generate        instead of tools.json, for inputs too large to commit:
//	                one directive, "NAME N" (see adversarialSnapshot)
//	classify.yaml   optional
//	expect          "compiles", then optional assertions, one a line:
//	                  warning TEXT      a warning contains TEXT
//	                  tags TYPE A B …   the JSON names of TYPE's fields
//	                                    ("-" for none), exactly
//	                  ident NAME        NAME is declared at package level
//	                  kind TOOL read|write
//	                  files N           N files are generated
//	                or "error", then the exact error text, one diagnostic
//	                a line.
//
// Every case must finish within adversarialTimeout. A case that compiles is
// also checked by checkGenerated (descriptors, comments, description text
// only in comments and string literals), must not hold the marker PWNED
// outside comments and string literals, must generate only file names the
// go command builds on every platform, and is type-checked against the real
// runtime, all cases in one go/packages load.
//
// Its value is its breadth (every hostile input, several built to cost
// much), so it is skipped under -race (testcorpus.SkipUnderRace), where its
// blow-up cases take ten times longer and find no race: the generator's
// concurrency is driven under -race by TestGolden, TestDeterministic,
// TestSynthCatalogueGenerates and TestMarker. .ci/breadth.sh runs it
// without -race.

// adversarialTimeout bounds each case: a hang is a failure. It is a guard,
// not a measurement: the largest case takes about 5 s alone, ten times that
// under -race, and more again on a loaded machine, while what it guards
// against (time exponential in the input) would take hours.
const adversarialTimeout = 5 * time.Minute

// shortMaxSnapshot is the largest input of a case that runs under -short.
const shortMaxSnapshot = 1 << 20

var writeFuzzSeeds = flag.Bool("write-fuzz-seeds", false, "rewrite the committed seed corpora of gen's fuzz targets from testdata/corpus and testdata/adversarial")

func adversarialDir(t *testing.T) string {
	return filepath.Join(moduleRoot(t), "testdata", "adversarial")
}

// adversarialCase is one parsed case.
type adversarialCase struct {
	name   string
	ar     *txtar.Archive
	in     Input
	expect []string
	remote *atomic.Int64 // requests to the {{remote}} server
}

func loadAdversarial(t *testing.T) []*adversarialCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(adversarialDir(t), "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 40 {
		t.Fatalf("%d adversarial cases, want at least 40", len(paths))
	}
	var out []*adversarialCase
	for _, p := range paths {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c := &adversarialCase{name: strings.TrimSuffix(filepath.Base(p), ".txtar"), ar: ar}
		if len(bytes.TrimSpace(ar.Comment)) == 0 {
			t.Errorf("%s: no comment saying what the case attacks and what must happen", c.name)
		}
		c.in = Input{SnapshotFile: "tools.json", ClassifyFile: "classify.yaml"}
		for _, f := range ar.Files {
			switch f.Name {
			case "tools.json":
				c.in.Snapshot = f.Data
			case "generate":
				c.in.Snapshot, err = adversarialSnapshot(strings.TrimSpace(string(f.Data)))
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
			case "classify.yaml":
				c.in.Classify = f.Data
			case "expect":
				c.expect = strings.Split(strings.TrimRight(string(f.Data), "\n"), "\n")
			default:
				t.Fatalf("%s: unknown section %q", c.name, f.Name)
			}
		}
		if c.in.Snapshot == nil || len(c.expect) == 0 || (c.expect[0] != "compiles" && c.expect[0] != "error") {
			t.Fatalf("%s: needs tools.json or generate, and expect starting with compiles or error", c.name)
		}
		out = append(out, c)
	}
	return out
}

// adversarialSnapshot builds the snapshots too large to commit.
func adversarialSnapshot(directive string) ([]byte, error) {
	var name string
	var n int
	if _, err := fmt.Sscanf(directive, "%s %d", &name, &n); err != nil {
		return nil, fmt.Errorf("generate directive %q: %v", directive, err)
	}
	one := func(schema string) []byte {
		return []byte(`{"tools": [{"name": "hostile", "inputSchema": ` + schema + `}]}`)
	}
	var b strings.Builder
	switch name {
	case "nest-properties": // n schemas nested through properties
		return one(strings.Repeat(`{"type": "object", "properties": {"p": `, n) + `{"type": "string"}` + strings.Repeat(`}}`, n)), nil
	case "nest-items": // n schemas nested through items: n JSON levels
		return one(`{"type": "object", "properties": {"p": ` + strings.Repeat(`{"type": "array", "items": `, n) + `{}` + strings.Repeat(`}`, n) + `}}`), nil
	case "enum": // one property with an enum of n strings
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"value-%d"`, i)
		}
		return one(`{"type": "object", "properties": {"choice": {"type": "string", "enum": [` + b.String() + `]}}}`), nil
	case "one-of-consts": // one property with a oneOf of n string consts
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"const": "c%d", "description": "constant %d"}`, i, i)
		}
		return one(`{"type": "object", "properties": {"choice": {"oneOf": [` + b.String() + `]}}}`), nil
	case "properties": // n properties
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"p%d": {"type": "string", "description": "property %d"}`, i, i)
		}
		return one(`{"type": "object", "properties": {` + b.String() + `}}`), nil
	case "tools": // n minimal tools
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name": "tool_%d", "inputSchema": {"type": "object"}}`, i)
		}
		return []byte(`{"tools": [` + b.String() + `]}`), nil
	case "bytes": // a snapshot of about n bytes: realistic tools, repeated
		b.WriteString(`{"tools": [`)
		for i := 0; b.Len() < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name": "tool_%d", "description": "%s", "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "description": "%s"}, "n": {"type": "integer"}}}}`,
				i, strings.Repeat("Describe the tool at length. ", 200), strings.Repeat("x", 2000))
		}
		b.WriteString(`]}`)
		return []byte(b.String()), nil
	case "wide-properties": // tools of 400 properties each, n tools: the node limit
		b.WriteString(`{"tools": [`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name": "tool_%d", "inputSchema": {"type": "object", "properties": {`, i)
			for j := range 400 {
				if j > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `"p%d": {"type": "integer"}`, j)
			}
			b.WriteString(`}}}`)
		}
		b.WriteString(`]}`)
		return []byte(b.String()), nil
	case "long-property-name": // a property name of n bytes
		return one(`{"type": "object", "properties": {"` + strings.Repeat("a", n) + `": {"type": "string"}, "ok": {"type": "string"}}}`), nil
	case "long-tool-name": // a tool name of n bytes
		return []byte(`{"tools": [{"name": "` + strings.Repeat("t", n) + `", "inputSchema": {"type": "object"}}]}`), nil
	case "long-description": // a tool description of n bytes
		return []byte(`{"tools": [{"name": "t", "description": "` + strings.Repeat("d", n) + `", "inputSchema": {"type": "object"}}]}`), nil
	}
	return nil, fmt.Errorf("unknown generate directive %q", directive)
}

func TestAdversarial(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	cases := loadAdversarial(t)
	var check []tcPackage
	for _, c := range cases {
		var compiled *Result
		ok := t.Run(c.name, func(t *testing.T) {
			if testing.Short() && len(c.in.Snapshot) > shortMaxSnapshot {
				t.Skipf("-short: a %d-byte input (the cases over %d bytes are the slow ones); the full suite runs it", len(c.in.Snapshot), shortMaxSnapshot)
			}
			if bytes.Contains(c.in.Snapshot, []byte("{{remote}}")) {
				c.remote = new(atomic.Int64)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					c.remote.Add(1)
					_, _ = io.WriteString(w, `{"type": "string"}`)
				}))
				defer srv.Close()
				c.in.Snapshot = bytes.ReplaceAll(c.in.Snapshot, []byte("{{remote}}"), []byte(srv.URL+"/schema.json"))
				for i := range c.expect {
					c.expect[i] = strings.ReplaceAll(c.expect[i], "{{remote}}", srv.URL+"/schema.json")
				}
			}
			res, err := generateWithin(c.in, adversarialTimeout)
			if c.remote != nil && c.remote.Load() != 0 {
				t.Errorf("the remote $ref was fetched %d times", c.remote.Load())
			}
			if c.expect[0] == "error" {
				var l diag.List
				if !errors.As(err, &l) {
					t.Fatalf("want a diagnostic error, got %v (result %v)", err, res != nil)
				}
				if want := strings.Join(c.expect[1:], "\n"); err.Error() != want {
					t.Fatalf("error:\n%s\nwant:\n%s", err, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("generation failed: %v", err)
			}
			if err := checkGenerated(c.in, res); err != nil {
				t.Fatal(err)
			}
			for name, src := range res.Files {
				if err := noMarkerInCode(name, src, "PWNED"); err != nil {
					t.Error(err)
				}
				if err := buildsEverywhere(name, src); err != nil {
					t.Error(err)
				}
			}
			for _, a := range c.expect[1:] {
				if err := assertGenerated(res, a); err != nil {
					t.Errorf("%s: %v", a, err)
				}
			}
			compiled = res
		})
		if ok && compiled != nil {
			check = append(check, tcPackage{name: "adv_" + strings.NewReplacer("-", "_").Replace(c.name), files: compiled.Files})
		}
	}
	t.Run("typecheck", func(t *testing.T) {
		if testing.Short() {
			t.Skip("-short: the generated packages are not type-checked (most of this test's time); the full suite does")
		}
		requireTypeChecks(t, check)
	})
}

// generateWithin runs Generate, failing if it takes longer than d (a hang
// or a blow-up) or panics.
func generateWithin(in Input, d time.Duration) (res *Result, err error) {
	type out struct {
		res *Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- out{nil, fmt.Errorf("panic: %v", p)}
			}
		}()
		r, e := Generate(in, Options{Package: "bridge"})
		done <- out{r, e}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-time.After(d):
		return nil, fmt.Errorf("generation did not finish within %v", d)
	}
}

// noMarkerInCode reports the marker in a token that is neither a comment
// nor a string literal.
func noMarkerInCode(name string, src []byte, marker string) error {
	fset := token.NewFileSet()
	file := fset.AddFile(name, fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return nil
		}
		if tok != token.COMMENT && tok != token.STRING && strings.Contains(lit, marker) {
			return fmt.Errorf("%s: %s: %s in code: %q", name, fset.Position(pos), marker, lit)
		}
	}
}

// buildsEverywhere checks that the go command would compile the file on
// every platform: no _test suffix, no GOOS or GOARCH suffix, no build
// constraint.
func buildsEverywhere(name string, src []byte) error {
	if strings.HasSuffix(name, "_test.go") || !strings.HasSuffix(name, ".go") || strings.ContainsAny(name, "/\\") || len(name) > 200 {
		return fmt.Errorf("file name %q", name)
	}
	for _, p := range [][2]string{{"linux", "amd64"}, {"windows", "arm64"}, {"darwin", "arm64"}, {"js", "wasm"}, {"plan9", "386"}, {"aix", "ppc64"}} {
		ctx := build.Default
		ctx.GOOS, ctx.GOARCH = p[0], p[1]
		ctx.OpenFile = func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }
		ok, err := ctx.MatchFile(".", name)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		if !ok {
			return fmt.Errorf("%s is not built on %s/%s", name, p[0], p[1])
		}
	}
	return nil
}

// assertGenerated checks one assertion line of an expect section.
func assertGenerated(res *Result, line string) error {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return nil
	}
	all := func() string {
		var b strings.Builder
		for _, n := range sortedKeys(res.Files) {
			b.Write(res.Files[n])
		}
		return b.String()
	}
	switch fields[0] {
	case "warning":
		want := strings.TrimSpace(strings.TrimPrefix(line, "warning"))
		for _, d := range res.Diagnostics {
			if d.Severity == diag.Warning && strings.Contains(d.String(), want) {
				return nil
			}
		}
		return fmt.Errorf("no such warning in:\n%s", res.Diagnostics.Error())
	case "tags":
		if len(fields) < 2 {
			return errors.New("tags needs a type")
		}
		want := slices.Clone(fields[2:])
		if len(want) == 1 && want[0] == "-" {
			want = nil
		}
		got, ok := structTags(res.Files, fields[1])
		if !ok {
			return fmt.Errorf("no struct type %s", fields[1])
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			return fmt.Errorf("tags %q, want %q", got, want)
		}
	case "ident":
		re := regexp.MustCompile(`(?m)^(?:type|var|func) ` + regexp.QuoteMeta(fields[1]) + `\b|^\t` + regexp.QuoteMeta(fields[1]) + ` `)
		if !re.MatchString(all()) {
			return fmt.Errorf("%s is not declared", fields[1])
		}
	case "kind":
		kinds := map[string]string{}
		for name, src := range res.Files {
			ds, err := descriptors(name, src)
			if err != nil {
				return err
			}
			for _, d := range ds {
				kinds[d.Name] = d.Kind
			}
		}
		if want := "Kind" + strings.ToUpper(fields[2][:1]) + fields[2][1:]; kinds[fields[1]] != want {
			return fmt.Errorf("tool %q is %q, want %s", fields[1], kinds[fields[1]], want)
		}
	case "files":
		if n, _ := strconv.Atoi(fields[1]); len(res.Files) != n {
			return fmt.Errorf("%d files: %v", len(res.Files), sortedKeys(res.Files))
		}
	default:
		return fmt.Errorf("unknown assertion %q", fields[0])
	}
	return nil
}

// structTags returns the JSON names of the fields of the struct type name,
// read from the syntax tree (the marker and the catch-all map, tagged "-",
// left out).
func structTags(files map[string][]byte, name string) ([]string, bool) {
	for fname, src := range files {
		f, err := parser.ParseFile(token.NewFileSet(), fname, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, false
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, sp := range gd.Specs {
				ts, ok := sp.(*ast.TypeSpec)
				if !ok || ts.Name.Name != name {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					return nil, false
				}
				var out []string
				for _, fd := range st.Fields.List {
					if fd.Tag == nil {
						continue
					}
					raw, err := strconv.Unquote(fd.Tag.Value)
					if err != nil {
						return nil, false
					}
					tag, _ := reflect.StructTag(raw).Lookup("json")
					jsonName, _, _ := strings.Cut(tag, ",")
					if tag == "-" {
						continue
					}
					out = append(out, jsonName)
				}
				return out, true
			}
		}
	}
	return nil, false
}

// TestWriteFuzzSeeds writes the committed seed corpora of gen's fuzz
// targets (gen/testdata/fuzz) from testdata/corpus and the adversarial
// suite. It runs only with -write-fuzz-seeds.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*writeFuzzSeeds {
		t.Skip("run with -write-fuzz-seeds to rewrite the seed corpora")
	}
	dir := corpusDir(t)
	seeds := map[string][][]byte{} // target → encoded seed files
	add := func(target string, vals ...any) {
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		for _, v := range vals {
			switch x := v.(type) {
			case string:
				fmt.Fprintf(&b, "string(%s)\n", strconv.Quote(x))
			case []byte:
				fmt.Fprintf(&b, "[]byte(%s)\n", strconv.Quote(string(x)))
			}
		}
		seeds[target] = append(seeds[target], []byte(b.String()))
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.tools.json"))
	seen := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) < 64<<10 {
			add("FuzzSnapshot", data)
		}
		tools, err := snapshotTools(data)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, tl := range tools {
			// Up to 8 distinct small schemas per server: the fuzzer mutates
			// small inputs best, and every seed also runs in go test.
			if len(tl.InputSchema) > 4<<10 || seen[string(tl.InputSchema)] || n == 8 {
				continue
			}
			n++
			seen[string(tl.InputSchema)] = true
			desc := tl.Description
			if len(desc) > 256 {
				desc = desc[:256]
			}
			add("FuzzGenerate", tl.Name, desc, []byte(tl.InputSchema))
		}
	}
	goldens, _ := filepath.Glob(filepath.Join(goldenDir(t), "*.txtar"))
	for _, g := range goldens {
		ar, err := txtar.ParseFile(g)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if f.Name == "classify.yaml" {
				add("FuzzClassification", f.Data)
			}
		}
	}
	for _, c := range loadAdversarial(t) {
		if len(c.in.Snapshot) > 16<<10 {
			continue
		}
		add("FuzzSnapshot", c.in.Snapshot)
		if c.in.Classify != nil {
			add("FuzzClassification", c.in.Classify)
		}
		tools, err := snapshotTools(c.in.Snapshot)
		if err != nil {
			continue
		}
		for _, tl := range tools {
			if tl.InputSchema != nil {
				add("FuzzGenerate", tl.Name, tl.Description, []byte(tl.InputSchema))
			}
		}
	}
	root := moduleRoot(t)
	for target, list := range seeds {
		d := filepath.Join(root, "gen", "testdata", "fuzz", target)
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range list {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("seed-%03d", i)), s, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: %d seeds in %s", target, len(list), d)
	}
}
