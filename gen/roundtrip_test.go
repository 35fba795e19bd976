package gen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"golang.org/x/tools/txtar"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/model"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// rtSample is one instance to round-trip through a generated type.
type rtSample struct {
	Server string `json:"-"`
	Tool   string `json:"-"`
	// Kind is "min", "max/N" (variant N), for input or output.
	Kind string `json:"-"`
	// Key names the generated type: "<pkg>.<Type>".
	Key  string          `json:"k"`
	Args json.RawMessage `json:"v"`
	// GatePkg and GateTool, for an input sample, make the driver send it
	// through a gate as a call of the tool (roundtrip_gate_test.go).
	GatePkg  string `json:"p,omitempty"`
	GateTool string `json:"t,omitempty"`
	// Cats are the sample's categories in the report; Expect is
	// expectRefuseSurrogate for a sample the gate must refuse.
	Cats   []string `json:"-"`
	Expect string   `json:"-"`
}

// rtServer is one corpus server's line in the report.
type rtServer struct {
	name                          string
	tools, types, fallbacks       int
	samples, skipped, differences int
}

// sampleInst is one sample and the categories its sampler's choices hit.
type sampleInst struct {
	b    []byte
	hits map[string]bool
}

// samplesFor derives the minimal and the maximal instances (one per variant)
// of a schema and keeps those that validate against it. It returns the
// samples and the number it made but had to skip as invalid.
func samplesFor(t *testing.T, raw json.RawMessage, root *jsonschema.Schema, input bool) (samples []sampleInst, skipped int, err error) {
	var fresh jsonschema.Schema
	if err := json.Unmarshal(raw, &fresh); err != nil {
		return nil, 0, err
	}
	// A remote $ref (which the generator does not follow either) is taken
	// to accept anything.
	resolved, err := fresh.Resolve(&jsonschema.ResolveOptions{
		Loader: func(*url.URL) (*jsonschema.Schema, error) { return &jsonschema.Schema{}, nil },
	})
	if err != nil {
		return nil, 0, fmt.Errorf("resolve: %w", err)
	}
	seen := map[string]bool{}
	add := func(v any, hits map[string]bool) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal sample: %v", err)
		}
		if seen[string(b)] {
			return
		}
		seen[string(b)] = true
		var inst any
		if err := json.Unmarshal(b, &inst); err != nil {
			t.Fatalf("sample: %v", err)
		}
		if err := resolved.Validate(inst); err != nil {
			skipped++
			if testing.Verbose() {
				t.Logf("invalid sample skipped: %s: %v", b, err)
			}
			return
		}
		samples = append(samples, sampleInst{b, hits})
	}
	minS := &sampler{root: root, input: input}
	if v, ok := minS.value(root, 0); ok {
		add(v, minS.hits)
	} else {
		skipped++
	}
	for k := 0; ; k++ {
		s := &sampler{root: root, variant: k, max: true, input: input}
		if v, ok := s.value(root, 0); ok {
			add(v, s.hits)
		} else {
			skipped++
		}
		if k+1 >= s.choices || k >= 63 {
			break
		}
	}
	return samples, skipped, nil
}

// TestRoundTrip is the lossless round-trip check over the whole corpus: for
// every tool of every snapshot it derives instances of the input schema (and
// of the output schema, for XxxResult), checks that each validates against
// the schema, decodes it strictly (unknown fields refused) into the generated type,
// encodes it back and compares the two as JSON values (numbers exactly). A
// difference fails the test naming the tool and the JSON pointer.
//
// Its value is its breadth, and the driver it runs is built without the
// race detector anyway, so it is skipped under -race
// (testcorpus.SkipUnderRace); .ci/breadth.sh runs it without -race.
func TestRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a program over the whole corpus")
	}
	testcorpus.SkipUnderRace(t)
	dir := corpusDir(t)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.tools.json"))
	type input struct {
		name string
		data []byte
		// classify is the golden case's classification (nil for the corpus).
		classify []byte
		// golden inputs may hold schemas no instance satisfies.
		golden bool
	}
	var inputs []input
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{name: strings.TrimSuffix(filepath.Base(path), ".tools.json"), data: data})
	}
	// The golden cases (one per mapping rule) round-trip too.
	goldens, _ := filepath.Glob(filepath.Join(goldenDir(t), "*.txtar"))
	for _, path := range goldens {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(filepath.Base(path), "err-") {
			continue
		}
		in := input{name: "golden/" + strings.TrimSuffix(filepath.Base(path), ".txtar"), golden: true}
		for _, f := range ar.Files {
			switch f.Name {
			case "tools.json":
				in.data = f.Data
			case "classify.yaml":
				in.classify = f.Data
			}
		}
		if in.data != nil {
			inputs = append(inputs, in)
		}
	}
	var pkgs []tcPackage
	var samples []rtSample
	var report []*rtServer
	goldenSkips := 0
	for _, in := range inputs {
		base, data := in.name, in.data
		pkg := "rt_" + strings.NewReplacer("-", "_", "/", "_").Replace(base)
		// Without a classification no tier is authorized and no gate
		// starts: the corpus gets one that lists no tool, so that every
		// tool is a write at the one tier, confirmed by a second peer.
		classify := in.classify
		if classify == nil {
			classify = []byte("version: 1\ntiers: [member]\ndefault: {tier: member}\ntools: {}\n")
		}
		gi := Input{SnapshotFile: "tools.json", Snapshot: data, ClassifyFile: "classify.yaml", Classify: classify}
		res, err := Generate(gi, Options{Package: pkg})
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if slices.ContainsFunc(res.Diagnostics, func(d Diagnostic) bool { return d.Code == CodePatternUntranslatable && !regexpParses(d) }) {
			// A pattern no regexp here can compile: the sampler (and, until
			// the gate validates without jsonschema-go, NewGate) resolves
			// schemas with jsonschema-go, which refuses it. Its tool's calls
			// fail closed by design, so there is no valid call to forward.
			t.Logf("%s: left out: a pattern Go's regexp cannot parse (%s)", base, CodePatternUntranslatable)
			continue
		}
		pkgs = append(pkgs, tcPackage{name: pkg, files: res.Files, gate: true})
		snap, ds := load.LoadSnapshot("tools.json", data)
		if ds.Err() != nil {
			t.Fatal(ds.Err())
		}
		mp, _ := model.Build(snap, nil, pkg)
		if mp == nil {
			t.Fatalf("%s: model.Build failed", base)
		}
		srv := &rtServer{name: base, tools: len(snap.Tools), fallbacks: countFallbacks(res.Diagnostics)}
		report = append(report, srv)
		byName := map[string]*model.Tool{}
		for _, mt := range mp.Tools {
			byName[mt.Name] = mt
			srv.types += len(mt.Decls)
		}
		for _, tool := range snap.Tools {
			mt := byName[tool.Name]
			if mt == nil {
				continue // not generated: a tool that requires MCP tasks
			}
			for _, side := range []struct {
				raw    json.RawMessage
				schema *jsonschema.Schema
				typ    *model.Struct
				label  string
			}{
				{tool.InputSchemaRaw, tool.InputSchema, mt.Args, "input"},
				{tool.OutputSchemaRaw, tool.OutputSchema, mt.Result, "output"},
			} {
				if side.schema == nil || side.typ == nil {
					continue
				}
				input := side.label == "input"
				ss, skipped, err := samplesFor(t, side.raw, side.schema, input)
				if err != nil {
					t.Errorf("%s: tool %q: %s schema: %v", base, tool.Name, side.label, err)
					continue
				}
				if in.golden {
					goldenSkips += skipped
				} else {
					srv.skipped += skipped
				}
				for i, si := range ss {
					kind := side.label + "/min"
					if i > 0 {
						kind = side.label + "/max/" + strconv.Itoa(i-1)
					}
					smp := rtSample{Server: base, Tool: tool.Name, Kind: kind, Key: pkg + "." + side.typ.Name, Args: si.b}
					if !input {
						samples = append(samples, smp)
						srv.samples++
						continue
					}
					smp.GatePkg, smp.GateTool = pkg, tool.Name
					smp.Cats = sampleCategories(si.b, si.hits)
					samples = append(samples, smp)
					srv.samples++
					// The sampler's non-ASCII string, with its "é" sent as a
					// lone surrogate escape (refused) and as a pair (kept).
					if j := bytes.Index(si.b, []byte(`\u0026\u003e é`)); j >= 0 {
						j += len(`\u0026\u003e `)
						for _, v := range []struct{ esc, expect, cat string }{
							{`\ud800`, expectRefuseSurrogate, catSurrogate},
							{`\ud83d\ude00`, "", catPair},
						} {
							b := slices.Concat(si.b[:j], []byte(v.esc), si.b[j+len("é"):])
							samples = append(samples, rtSample{Server: base, Tool: tool.Name, Kind: kind + "/" + v.cat,
								Key: smp.Key, Args: b, GatePkg: pkg, GateTool: tool.Name, Expect: v.expect,
								Cats: []string{v.cat}})
							srv.samples++
						}
					}
				}
			}
		}
	}
	// The check must be able to fail: a deliberately lossy hand-written
	// type goes through the same driver, and each of its samples must be
	// reported with the right pointer.
	pkgs = append(pkgs, tcPackage{name: "rt_selfcheck", files: map[string][]byte{"lossy.go": []byte(lossySource)}})
	selfStart := len(samples)
	for _, c := range lossyCases {
		samples = append(samples, rtSample{Key: "rt_selfcheck.Lossy", Args: json.RawMessage(c.sample)})
	}
	outs := runDriver(t, pkgs, samples)
	for i, c := range lossyCases {
		o := outs[selfStart+i]
		ptr, same := jsonDiff([]byte(c.sample), o.Out)
		switch {
		case c.wantPtr == "decode" && o.Err == "":
			t.Errorf("self-check %s: decoded, want a decode error", c.sample)
		case c.wantPtr == "" && (o.Err != "" || !same):
			t.Errorf("self-check %s: got %s (err %q, diff at %q), want no difference", c.sample, o.Out, o.Err, ptr)
		case c.wantPtr != "" && c.wantPtr != "decode" && (o.Err != "" || same || ptr != c.wantPtr):
			t.Errorf("self-check %s: got %s (err %q, diff at %q), want a difference at %q", c.sample, o.Out, o.Err, ptr, c.wantPtr)
		}
	}
	samples, outs = samples[:selfStart], outs[:selfStart]
	gateTable := gateReport(t, samples, outs)
	for i, s := range samples {
		if s.GateTool != "" {
			continue // gateReport checked it
		}
		o := outs[i]
		if o.Err != "" {
			t.Errorf("%s: tool %q (%s): %s does not decode: %s\n\tsample: %s", s.Server, s.Tool, s.Kind, s.Key, o.Err, s.Args)
			reportFor(report, s.Server).differences++
			continue
		}
		if ptr, ok := jsonDiff(s.Args, o.Out); !ok {
			t.Errorf("%s: tool %q (%s): round trip through %s changes the value at %q\n\tsent: %s\n\tgot:  %s",
				s.Server, s.Tool, s.Kind, s.Key, ptr, s.Args, o.Out)
			reportFor(report, s.Server).differences++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-26s %6s %6s %9s %8s %8s %11s\n", "server", "tools", "types", "fallbacks", "samples", "skipped", "differences")
	var tot rtServer
	for _, r := range report {
		fmt.Fprintf(&b, "%-26s %6d %6d %9d %8d %8d %11d\n", r.name, r.tools, r.types, r.fallbacks, r.samples, r.skipped, r.differences)
		tot.tools += r.tools
		tot.types += r.types
		tot.fallbacks += r.fallbacks
		tot.samples += r.samples
		tot.skipped += r.skipped
		tot.differences += r.differences
	}
	fmt.Fprintf(&b, "%-26s %6d %6d %9d %8d %8d %11d\n", "total", tot.tools, tot.types, tot.fallbacks, tot.samples, tot.skipped, tot.differences)
	t.Logf("round trip over the corpus and the golden cases (%d golden samples skipped as unsatisfiable):\n%s", goldenSkips, b.String())
	t.Logf("input samples through the gate (Gate.Dispatch, every tool a write approved by a second peer, a spy server):\n%s", gateTable)
	if tot.samples == 0 {
		t.Fatal("no samples")
	}
	if tot.skipped > 0 {
		t.Errorf("%d samples were skipped as invalid (run with -v to see them)", tot.skipped)
	}
}

// lossySource is a type with the usual lossy mappings: omitempty drops an
// explicit zero, float64 rounds a big integer, a plain field drops a null.
const lossySource = `package rt_selfcheck

// Lossy maps a schema the way lossy generators do.
type Lossy struct {
	A int64   ` + "`json:\"a,omitempty\"`" + `
	B float64 ` + "`json:\"b,omitempty\"`" + `
	C *string ` + "`json:\"c,omitempty\"`" + `
	D []int64 ` + "`json:\"d,omitempty\"`" + `
}
`

var lossyCases = []struct{ sample, wantPtr string }{
	{`{"a":0}`, "/a"},
	{`{"b":9007199254740993}`, "/b"},
	{`{"c":null}`, "/c"},
	{`{"d":[]}`, "/d"},
	{`{"a":1,"d":[1,2]}`, ""},
	{`{"e":1}`, "decode"},
}

func reportFor(rs []*rtServer, name string) *rtServer {
	for _, r := range rs {
		if r.name == name {
			return r
		}
	}
	return &rtServer{}
}

// countFallbacks counts the warnings that report a json.RawMessage fallback.
func countFallbacks(l diag.List) int {
	n := 0
	for _, d := range l {
		if d.Severity == diag.Warning && strings.Contains(d.Msg, "json.RawMessage") {
			n++
		}
	}
	return n
}

// rtOut is the driver's answer for one sample.
type rtOut struct {
	Out json.RawMessage `json:"out,omitempty"`
	Err string          `json:"err,omitempty"`
	// Fwd is what the server received through the gate, or Refusal why the
	// gate refused the call.
	Fwd     json.RawMessage `json:"fwd,omitempty"`
	Refusal string          `json:"refusal,omitempty"`
}

// runDriver writes the generated packages and a driver program into a
// scratch module outside the repository (moduleTempDir), runs the driver
// once over every sample and returns its answers in sample order.
func runDriver(t *testing.T, pkgs []tcPackage, samples []rtSample) []rtOut {
	t.Helper()
	root, importBase := moduleTempDir(t, "roundtrip")
	dir := filepath.Join(root, "roundtrip")
	keys := map[string]bool{}
	for _, s := range samples {
		keys[s.Key] = true
	}
	sortedKeys := make([]string, 0, len(keys))
	for k := range keys {
		sortedKeys = append(sortedKeys, k)
	}
	sort.Strings(sortedKeys)
	for _, p := range pkgs {
		pdir := filepath.Join(dir, p.name)
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, src := range p.files {
			if err := os.WriteFile(filepath.Join(pdir, name), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	src := driverMain(importBase, pkgs, sortedKeys)
	mainDir := filepath.Join(dir, "driver")
	if err := os.MkdirAll(mainDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mainDir, "main.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mainDir, "gate.go"), []byte(gateDriverSource), 0o644); err != nil {
		t.Fatal(err)
	}
	var input bytes.Buffer
	for _, s := range samples {
		line, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		input.Write(line)
		input.WriteByte('\n')
	}
	cmd := exec.Command("go", "run", importBase+"/driver")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	cmd.Stdin = &input
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("driver: %v\n%s", err, stderr.String())
	}
	var outs []rtOut
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var o rtOut
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("driver output: %v", err)
		}
		outs = append(outs, o)
	}
	if len(outs) != len(samples) {
		t.Fatalf("driver answered %d samples, want %d\n%s", len(outs), len(samples), stderr.String())
	}
	return outs
}

// jsonDiff compares two JSON texts as values (numbers exactly, as
// rationals) and returns the JSON pointer of the first difference.
func jsonDiff(a, b []byte) (string, bool) {
	parse := func(x []byte) (any, error) {
		d := json.NewDecoder(bytes.NewReader(x))
		d.UseNumber()
		var v any
		err := d.Decode(&v)
		return v, err
	}
	va, err := parse(a)
	if err != nil {
		return "", false
	}
	vb, err := parse(b)
	if err != nil {
		return "", false
	}
	return valueDiff(va, vb, "")
}

func valueDiff(a, b any, ptr string) (string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return ptr, false
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, dup := x[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			xv, okx := x[k]
			yv, oky := y[k]
			if okx != oky {
				return p, false
			}
			if d, ok := valueDiff(xv, yv, p); !ok {
				return d, false
			}
		}
		return "", true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return ptr, false
		}
		for i := range x {
			if d, ok := valueDiff(x[i], y[i], ptr+"/"+strconv.Itoa(i)); !ok {
				return d, false
			}
		}
		return "", true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return ptr, false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		if !okx || !oky || rx.Cmp(ry) != 0 {
			return ptr, false
		}
		return "", true
	default:
		if a != b {
			return ptr, false
		}
		return "", true
	}
}

// driverMain is the driver program's main.go: rt instantiated for every
// sampled type (keys are "package.Type"), the catalogues of the packages
// that start a gate, and a loop that answers one sample a line.
func driverMain(importBase string, pkgs []tcPackage, keys []string) []byte {
	used := map[string]bool{}
	var types, catalogues strings.Builder
	for _, k := range keys {
		pkg, typ, _ := strings.Cut(k, ".")
		used[pkg] = true
		fmt.Fprintf(&types, "\t%s: rt[%s.%s],\n", strconv.Quote(k), pkg, typ)
	}
	// Every generated catalogue of a golden case with a classification must
	// start a gate: the gate binds each tool's resource and confirm prompt
	// templates to its argument struct, and the generator must accept only
	// templates the runtime binds.
	for _, p := range pkgs {
		if p.gate {
			used[p.name] = true
			fmt.Fprintf(&catalogues, "\t%s: %s.Catalogue,\n", strconv.Quote(p.name), p.name)
		}
	}
	var imports strings.Builder
	for _, p := range pkgs {
		if used[p.name] {
			fmt.Fprintf(&imports, "\t%s %s\n", p.name, strconv.Quote(importBase+"/"+p.name))
		}
	}
	return fmt.Appendf(nil, driverMainSource, imports.String(), types.String(), catalogues.String())
}

const driverMainSource = `package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
%s)

// rt decodes one value strictly into a T and encodes it again.
func rt[T any](b []byte) ([]byte, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data")
	}
	return json.Marshal(v)
}

var types = map[string]func([]byte) ([]byte, error){
%s}

var catalogues = map[string]*ocp.Catalogue{
%s}

func main() {
	for name, c := range catalogues {
		g, err := newGateRun(c)
		gates[name] = g
		if err != nil {
			fmt.Fprintf(os.Stderr, "package %%s: %%v\n", name, err)
			os.Exit(2)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 67108864)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var s struct {
			K string          ` + "`json:\"k\"`" + `
			V json.RawMessage ` + "`json:\"v\"`" + `
			P string          ` + "`json:\"p\"`" + `
			T string          ` + "`json:\"t\"`" + `
		}
		var r struct {
			Out     json.RawMessage ` + "`json:\"out,omitempty\"`" + `
			Err     string          ` + "`json:\"err,omitempty\"`" + `
			Fwd     json.RawMessage ` + "`json:\"fwd,omitempty\"`" + `
			Refusal string          ` + "`json:\"refusal,omitempty\"`" + `
		}
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			r.Err = "driver: " + err.Error()
		} else if s.P != "" {
			r.Fwd, r.Refusal = gateCall(s.P, s.T, s.V)
		} else if fn, ok := types[s.K]; !ok {
			r.Err = "driver: unknown type " + s.K
		} else if b, err := fn(s.V); err != nil {
			r.Err = err.Error()
		} else {
			r.Out = b
		}
		line, _ := json.Marshal(r)
		out.Write(append(line, '\n'))
	}
}
`

// regexpParses reports whether the pattern a pattern-untranslatable
// warning quotes (`pattern "…":`) is one Go's regexp parses.
func regexpParses(d Diagnostic) bool {
	q, ok := strings.CutPrefix(d.Msg, "pattern ")
	if !ok {
		return false
	}
	p, err := strconv.QuotedPrefix(q)
	if err != nil {
		return false
	}
	p, _ = strconv.Unquote(p)
	_, err = regexp.Compile(p)
	return err == nil
}
