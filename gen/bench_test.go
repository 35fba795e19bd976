package gen

// Generation and build benchmarks. See BENCHMARKS.md at the module root for
// the commands and the numbers; every figure there is a ratio against a
// baseline measured in the same run. Nothing here asserts a time.
//
//	BenchmarkGenerate        gen.Generate in process: the corpus, and
//	                         synthetic catalogues of 100, 1,000, 10,000 tools
//	BenchmarkGenerateProcess one process per server, as go:generate runs it:
//	                         the ocpgen CLI and go-jsonschema on the corpus's
//	                         schemas (input and output, as ocpgen types both;
//	                         and input alone); the two paired server by
//	                         server (paired-corpus, with their ratios); the
//	                         CLI on the synthetic catalogues (with its peak
//	                         RSS, maxrss-KB)
//	BenchmarkBuild           go build of the generated packages, in a fresh
//	                         GOCACHE holding their dependencies; functions
//	                         compiled per tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// synthCatalogue returns a snapshot of n tools with varied, realistic input
// schemas: strings with enums, patterns and lengths, bounded integers and
// numbers, booleans, nullable fields, nested objects, arrays of strings and
// of objects, optional and required fields, some output schemas. The same n
// gives the same bytes.
func synthCatalogue(n int) []byte {
	type obj = map[string]any
	str := func(i int, desc string) obj {
		s := obj{"type": "string", "description": desc}
		switch i % 5 {
		case 1:
			s["minLength"] = 1
			s["maxLength"] = 200 + i%50
		case 2:
			s["pattern"] = "^[a-z][a-z0-9_-]*$"
		case 3:
			s["format"] = "date-time"
		}
		return s
	}
	enum := func(i int) obj {
		vals := []any{}
		for k := range 2 + i%5 {
			vals = append(vals, fmt.Sprintf("v%d_%d", i%7, k))
		}
		return obj{"type": "string", "enum": vals, "description": "One of a fixed set."}
	}
	integer := func(i int) obj {
		s := obj{"type": "integer", "minimum": 1, "description": "A count."}
		if i%2 == 0 {
			s["maximum"] = 100 + i%900
			s["default"] = 20
		}
		return s
	}
	tools := make([]obj, 0, n)
	for i := range n {
		props := obj{}
		var required []any
		props["id"] = str(i, fmt.Sprintf("Item %d id.", i))
		required = append(required, "id")
		props["mode"] = enum(i)
		props["limit"] = integer(i)
		if i%2 == 0 {
			props["verbose"] = obj{"type": "boolean", "description": "Return more detail."}
		}
		if i%3 == 0 {
			props["score"] = obj{"type": "number", "minimum": 0, "maximum": 1}
		}
		if i%4 == 0 {
			props["note"] = obj{"type": []any{"string", "null"}, "description": "Optional note."}
		}
		if i%3 == 1 {
			props["tags"] = obj{"type": "array", "items": obj{"type": "string", "minLength": 1}, "maxItems": 20}
		}
		if i%2 == 1 {
			props["filter"] = obj{
				"type": "object",
				"properties": obj{
					"field": str(i+1, "Field to filter on."),
					"op":    obj{"type": "string", "enum": []any{"eq", "ne", "lt", "gt", "contains"}},
					"value": obj{"type": "string"},
					"range": obj{"type": "object", "properties": obj{
						"from": obj{"type": "integer"}, "to": obj{"type": "integer"},
					}, "additionalProperties": false},
				},
				"required":             []any{"field", "op"},
				"additionalProperties": false,
			}
			required = append(required, "filter")
		}
		if i%5 == 2 {
			props["items"] = obj{"type": "array", "items": obj{
				"type": "object",
				"properties": obj{
					"name":     str(i+2, "Item name."),
					"quantity": obj{"type": "integer", "minimum": 0},
					"labels":   obj{"type": "array", "items": obj{"type": "string"}},
				},
				"required":             []any{"name"},
				"additionalProperties": false,
			}, "minItems": 1}
			required = append(required, "items")
		}
		tool := obj{
			"name":        fmt.Sprintf("tool_%05d", i),
			"description": fmt.Sprintf("Synthetic tool %d.", i),
			"inputSchema": obj{
				"type": "object", "properties": props, "required": required, "additionalProperties": false,
			},
		}
		if i%10 == 0 {
			tool["annotations"] = obj{"readOnlyHint": true}
		}
		if i%6 == 0 {
			tool["outputSchema"] = obj{"type": "object", "properties": obj{
				"count": obj{"type": "integer"}, "ids": obj{"type": "array", "items": obj{"type": "string"}},
			}, "required": []any{"count"}}
		}
		tools = append(tools, tool)
	}
	// Compact, so that 10,000 tools stay under the loader's 16 MiB limit
	// (load.MaxSnapshotSize): about 800 bytes a tool.
	b, err := json.Marshal(obj{
		"server": obj{"name": fmt.Sprintf("synth-%d", n), "version": "1.0.0"},
		"source": "synthetic (gen/bench_test.go synthCatalogue)",
		"tools":  tools,
	})
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}

// TestSynthCatalogueGenerates keeps the synthetic catalogue honest: it
// generates, without diagnostics errors, and type-checks (100 tools).
func TestSynthCatalogueGenerates(t *testing.T) {
	if !bytes.Equal(synthCatalogue(10), synthCatalogue(10)) {
		t.Fatal("synthCatalogue is not deterministic")
	}
	res, err := Generate(Input{SnapshotFile: "synth.tools.json", Snapshot: synthCatalogue(100)}, Options{Package: "synth100"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) < 100 {
		t.Fatalf("%d files for 100 tools", len(res.Files))
	}
	if testing.Short() {
		t.Skip("-short: generated, but not type-checked; the full suite type-checks it")
	}
	requireTypeChecks(t, []tcPackage{{name: "synth100", files: res.Files}})
}

// benchCorpus returns the snapshots of the corpus (see corpusDir).
func benchCorpus(b *testing.B) []string {
	b.Helper()
	m, err := filepath.Glob(filepath.Join(corpusDir(b), "*.tools.json"))
	if err != nil {
		b.Fatal(err)
	}
	return m
}

func serverName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".tools.json")
}

func pkgName(server string) string {
	return "c_" + strings.NewReplacer("-", "_", ".", "_").Replace(server)
}

var synthSizes = []int{100, 1000, 10000}

func BenchmarkGenerate(b *testing.B) {
	b.Run("corpus", func(b *testing.B) {
		var inputs []Input
		for _, p := range benchCorpus(b) {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			inputs = append(inputs, Input{SnapshotFile: filepath.Base(p), Snapshot: data})
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, in := range inputs {
				if _, err := Generate(in, Options{Package: "corpus"}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	for _, n := range synthSizes {
		b.Run(fmt.Sprintf("synth-%d", n), func(b *testing.B) {
			in := Input{SnapshotFile: "synth.tools.json", Snapshot: synthCatalogue(n)}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Generate(in, Options{Package: "synth"}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/tool")
		})
	}
}

var (
	ocpgenBinOnce sync.Once
	ocpgenBin     string
	ocpgenBinErr  error
)

// ocpgenBinary builds the CLI once per test process. OCPBENCH_OCPGEN names
// an ocpgen binary to measure instead: another build, against the same
// baseline in the same run.
func ocpgenBinary(b *testing.B) string {
	b.Helper()
	ocpgenBinOnce.Do(func() {
		if p := os.Getenv("OCPBENCH_OCPGEN"); p != "" {
			ocpgenBin = p
			return
		}
		dir, err := os.MkdirTemp("", "ocpgen-bench-bin-")
		if err != nil {
			ocpgenBinErr = err
			return
		}
		ocpgenBin = filepath.Join(dir, "ocpgen")
		out, err := exec.Command("go", "build", "-o", ocpgenBin, "github.com/ocpgen/ocpgen/cmd/ocpgen").CombinedOutput()
		if err != nil {
			ocpgenBinErr = fmt.Errorf("build ocpgen: %v\n%s", err, out)
		}
	})
	if ocpgenBinErr != nil {
		b.Fatal(ocpgenBinErr)
	}
	return ocpgenBin
}

// goJSONSchemaBinary finds go-jsonschema v0.24.1 (go install
// github.com/atombender/go-jsonschema@v0.24.1), or skips.
func goJSONSchemaBinary(b *testing.B) string {
	b.Helper()
	if p, err := exec.LookPath("go-jsonschema"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "go-jsonschema")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	b.Skip("go-jsonschema not installed: go install github.com/atombender/go-jsonschema@v0.24.1")
	return ""
}

// runProcess runs one process and returns its peak RSS in KB and its CPU
// time (user + system), measured by GNU time (the rusage Go reports for a
// child includes the parent's RSS at fork), or zeros without it. On a
// loaded machine the CPU time is the steadier figure.
func runProcess(b *testing.B, cmd *exec.Cmd) (kb int64, cpu time.Duration) {
	b.Helper()
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		cmd = exec.Command("/usr/bin/time", append([]string{"-f", "maxrss-KB %M cpu-s %U %S"}, cmd.Args...)...)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.Bytes())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var user, sys float64
	fmt.Sscanf(lines[len(lines)-1], "maxrss-KB %d cpu-s %g %g", &kb, &user, &sys)
	return kb, time.Duration((user + sys) * float64(time.Second))
}

// procStats accumulates runProcess's figures over a benchmark.
type procStats struct {
	rss int64
	cpu time.Duration
}

func (ps *procStats) run(b *testing.B, cmd *exec.Cmd) {
	b.Helper()
	kb, cpu := runProcess(b, cmd)
	ps.rss, ps.cpu = max(ps.rss, kb), ps.cpu+cpu
}

func (ps *procStats) report(b *testing.B) {
	b.ReportMetric(float64(ps.rss), "maxrss-KB")
	b.ReportMetric(float64(ps.cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// splitSchemas writes each tool's input schema of each corpus server to
// DIR/SERVER/TOOL.json (with the tool name as title, which go-jsonschema
// names the type after), the input go-jsonschema takes. With outputs, it
// also writes each output schema to DIR/SERVER/TOOL.result.json (titled
// TOOL_result): ocpgen makes a type of both (XxxArgs and XxxResult), so
// these are the same schemas it generates from.
func splitSchemas(b *testing.B, paths []string, dir string, outputs bool) map[string][]string {
	b.Helper()
	out := map[string][]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var snap struct {
			Tools []struct {
				Name         string         `json:"name"`
				InputSchema  map[string]any `json:"inputSchema"`
				OutputSchema map[string]any `json:"outputSchema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(data, &snap); err != nil {
			b.Fatal(err)
		}
		server := serverName(p)
		sdir := filepath.Join(dir, server)
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			b.Fatal(err)
		}
		write := func(name, title string, schema map[string]any) {
			if _, ok := schema["title"]; !ok {
				schema["title"] = title
			}
			sb, err := json.Marshal(schema)
			if err != nil {
				b.Fatal(err)
			}
			f := filepath.Join(sdir, name)
			if err := os.WriteFile(f, sb, 0o644); err != nil {
				b.Fatal(err)
			}
			out[server] = append(out[server], f)
		}
		for _, t := range snap.Tools {
			write(t.Name+".json", t.Name, t.InputSchema)
			if outputs && t.OutputSchema != nil {
				write(t.Name+".result.json", t.Name+"_result", t.OutputSchema)
			}
		}
	}
	return out
}

func BenchmarkGenerateProcess(b *testing.B) {
	b.Run("ocpgen-corpus", func(b *testing.B) {
		paths, bin := benchCorpus(b), ocpgenBinary(b)
		out := b.TempDir()
		var ps procStats
		for b.Loop() {
			for _, p := range paths {
				s := serverName(p)
				ps.run(b, exec.Command(bin, "generate", "-snapshot", p, "-package", pkgName(s), "-out", filepath.Join(out, s)))
			}
		}
		ps.report(b)
	})
	// One process for every server: ocpgen generate reading an ocpgen.yaml
	// that lists the corpus.
	b.Run("ocpgen-config-corpus", func(b *testing.B) {
		paths, bin := benchCorpus(b), ocpgenBinary(b)
		dir := b.TempDir()
		cfg := "version: 1\nservers:\n"
		for _, p := range paths {
			s := serverName(p)
			cfg += fmt.Sprintf("  - snapshot: %q\n    package: %s\n    out: %s\n", p, pkgName(s), s)
		}
		config := filepath.Join(dir, "ocpgen.yaml")
		if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
			b.Fatal(err)
		}
		var ps procStats
		for b.Loop() {
			ps.run(b, exec.Command(bin, "generate", "-config", config))
		}
		ps.report(b)
	})
	// The two generators paired server by server: for each server, one
	// ocpgen process and one go-jsonschema process on the same schemas
	// (inputs and outputs), the first of the two alternating from server to
	// server, so that a change in the machine's load falls on both sides.
	// It reports each side's wall and CPU time per corpus and their ratios
	// (ocpgen ÷ go-jsonschema).
	b.Run("paired-corpus", func(b *testing.B) {
		paths, bin, gjBin := benchCorpus(b), ocpgenBinary(b), goJSONSchemaBinary(b)
		out := b.TempDir()
		schemas := splitSchemas(b, paths, b.TempDir(), true)
		var side [2]struct {
			wall time.Duration
			ps   procStats
		}
		k := 0
		for b.Loop() {
			for _, p := range paths {
				s := serverName(p)
				cmds := [2]*exec.Cmd{
					exec.Command(bin, "generate", "-snapshot", p, "-package", pkgName(s), "-out", filepath.Join(out, "ocpgen", s)),
					exec.Command(gjBin, append([]string{"-p", pkgName(s), "-o", filepath.Join(out, "go-jsonschema", s, "types.go")}, schemas[s]...)...),
				}
				for j := range 2 {
					i := (j + k) % 2
					start := time.Now()
					side[i].ps.run(b, cmds[i])
					side[i].wall += time.Since(start)
				}
				k++
			}
		}
		n := float64(b.N)
		b.ReportMetric(float64(side[0].wall.Microseconds())/1000/n, "ocpgen-ms/op")
		b.ReportMetric(float64(side[1].wall.Microseconds())/1000/n, "gj-ms/op")
		b.ReportMetric(float64(side[0].ps.cpu.Microseconds())/1000/n, "ocpgen-cpu-ms/op")
		b.ReportMetric(float64(side[1].ps.cpu.Microseconds())/1000/n, "gj-cpu-ms/op")
		b.ReportMetric(float64(side[0].wall)/float64(side[1].wall), "wall-ratio")
		b.ReportMetric(float64(side[0].ps.cpu)/float64(side[1].ps.cpu), "cpu-ratio")
	})
	// go-jsonschema on the same schemas (each tool's input and output
	// schemas), and, as rounds 1 to 5 of BENCHMARKS.md §2 ran it, on the
	// input schemas alone.
	for _, gj := range []struct {
		name    string
		outputs bool
	}{{"go-jsonschema-corpus", true}, {"go-jsonschema-inputs-corpus", false}} {
		b.Run(gj.name, func(b *testing.B) {
			paths, bin := benchCorpus(b), goJSONSchemaBinary(b)
			out := b.TempDir()
			schemas := splitSchemas(b, paths, b.TempDir(), gj.outputs)
			var ps procStats
			for b.Loop() {
				for _, p := range paths {
					s := serverName(p)
					args := append([]string{"-p", pkgName(s), "-o", filepath.Join(out, s, "types.go")}, schemas[s]...)
					ps.run(b, exec.Command(bin, args...))
				}
			}
			ps.report(b)
		})
	}
	for _, n := range synthSizes {
		b.Run(fmt.Sprintf("ocpgen-synth-%d", n), func(b *testing.B) {
			bin := ocpgenBinary(b)
			dir := b.TempDir()
			snap := filepath.Join(dir, "synth.tools.json")
			if err := os.WriteFile(snap, synthCatalogue(n), 0o644); err != nil {
				b.Fatal(err)
			}
			var ps procStats
			for b.Loop() {
				out := filepath.Join(dir, "out")
				os.RemoveAll(out)
				ps.run(b, exec.Command(bin, "generate", "-snapshot", snap, "-package", "synth", "-out", out))
			}
			ps.report(b)
		})
	}
}

// benchPackages is a set of generated packages to build, each a directory
// under root, built with "go build" run in modDir.
type benchPackages struct {
	modDir string
	dirs   map[string]string // package name → directory
	files  int
	bytes  int
	tools  int
}

func (bp *benchPackages) add(b *testing.B, dir, pkg string, files map[string][]byte) {
	b.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			b.Fatal(err)
		}
		bp.files++
		bp.bytes += len(src)
	}
	bp.dirs[pkg] = dir
}

// countTools returns the number of tools of the snapshots at paths.
func countTools(b *testing.B, paths []string) int {
	b.Helper()
	n := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var snap struct{ Tools []json.RawMessage }
		if err := json.Unmarshal(data, &snap); err != nil {
			b.Fatal(err)
		}
		n += len(snap.Tools)
	}
	return n
}

// build compiles every package once per iteration, each time in a fresh
// build cache (GOCACHE) that already holds the packages' dependencies (the
// runtime, the standard library, built once into a seed cache and copied
// before each iteration, outside the timer): one compile action per
// package, as in a Hub repo after go generate. It reports the functions
// compiled (STEXT symbols of "go build -gcflags=-S", the packages
// themselves only), per tool, and the packages compiled.
func (bp *benchPackages) build(b *testing.B) {
	b.Helper()
	var patterns []string
	for _, dir := range bp.dirs {
		rel, err := filepath.Rel(bp.modDir, dir)
		if err != nil {
			b.Fatal(err)
		}
		patterns = append(patterns, "./"+filepath.ToSlash(rel))
	}
	tmp := b.TempDir()
	gocmd := func(cache string, args ...string) []byte {
		cmd := exec.Command("go", args...)
		cmd.Dir = bp.modDir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOCACHE="+cache)
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	// OCPBENCH_SEED_CACHE keeps the seed between runs (it only ever holds
	// dependencies, never the packages measured).
	seed := os.Getenv("OCPBENCH_SEED_CACHE")
	if seed == "" {
		seed = filepath.Join(tmp, "seed")
	}
	own := map[string]bool{}
	for _, p := range strings.Fields(string(gocmd(seed, append([]string{"list", "-f", "{{.ImportPath}}"}, patterns...)...))) {
		own[p] = true
	}
	var deps []string
	for _, p := range strings.Fields(string(gocmd(seed, append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, patterns...)...))) {
		if !own[p] && p != "unsafe" {
			deps = append(deps, p)
		}
	}
	gocmd(seed, append([]string{"build"}, deps...)...)
	round := 0
	fresh := func() string {
		round++
		dir := filepath.Join(tmp, fmt.Sprintf("cache-%d", round))
		if out, err := exec.Command("cp", "-a", seed, dir).CombinedOutput(); err != nil {
			b.Fatalf("copy the seed cache: %v\n%s", err, out)
		}
		return dir
	}
	asm := gocmd(fresh(), append([]string{"build", "-gcflags=-S"}, patterns...)...)
	funcs, pkgs := 0, 0
	for _, line := range strings.Split(string(asm), "\n") {
		if strings.HasPrefix(line, "# ") {
			pkgs++
		} else if f := strings.Fields(line); len(f) > 1 && f[1] == "STEXT" {
			funcs++
		}
	}
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cache := fresh()
		cmd := exec.Command("go", append([]string{"build"}, patterns...)...)
		cmd.Dir = bp.modDir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOCACHE="+cache)
		b.StartTimer()
		out, err := cmd.CombinedOutput()
		b.StopTimer()
		if err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
		// The go command waits for its compiles, so its rusage holds theirs:
		// CPU time depends much less on the machine's load than wall time.
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		os.RemoveAll(cache)
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(bp.bytes), "src-B")
	b.ReportMetric(float64(funcs), "funcs")
	b.ReportMetric(float64(pkgs), "pkgs")
	if bp.tools > 0 {
		b.ReportMetric(float64(funcs)/float64(bp.tools), "funcs/tool")
	}
}

func BenchmarkBuild(b *testing.B) {
	// Generated packages import the runtime, so they are built in a scratch
	// module that requires this checkout (moduleTempDir).
	inModule := func(b *testing.B) (*benchPackages, string) {
		mod, _ := moduleTempDir(b, "bench")
		return &benchPackages{modDir: mod, dirs: map[string]string{}}, filepath.Join(mod, "bench")
	}
	b.Run("ocpgen-corpus", func(b *testing.B) {
		bp, base := inModule(b)
		bp.tools = countTools(b, benchCorpus(b))
		for _, p := range benchCorpus(b) {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			pkg := pkgName(serverName(p))
			res, err := Generate(Input{SnapshotFile: filepath.Base(p), Snapshot: data}, Options{Package: pkg})
			if err != nil {
				b.Fatal(err)
			}
			bp.add(b, filepath.Join(base, pkg), pkg, res.Files)
		}
		bp.build(b)
	})
	b.Run("go-jsonschema-corpus", func(b *testing.B) {
		paths, bin := benchCorpus(b), goJSONSchemaBinary(b)
		mod := b.TempDir()
		gomod := "module gjbench\n\ngo 1.26\n"
		if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644); err != nil {
			b.Fatal(err)
		}
		bp := &benchPackages{modDir: mod, dirs: map[string]string{}, tools: countTools(b, paths)}
		schemas := splitSchemas(b, paths, b.TempDir(), false)
		needTypes := false
		for _, p := range paths {
			s := serverName(p)
			pkg := pkgName(s)
			dir := filepath.Join(mod, pkg)
			out := filepath.Join(dir, "types.go")
			runProcess(b, exec.Command(bin, append([]string{"-p", pkg, "-o", out}, schemas[s]...)...))
			src, err := os.ReadFile(out)
			if err != nil {
				b.Fatal(err)
			}
			needTypes = needTypes || bytes.Contains(src, []byte("go-jsonschema/pkg/types"))
			bp.add(b, dir, pkg, map[string][]byte{"types.go": src})
		}
		if needTypes {
			// Its output imports its own small types package for some formats.
			cmd := exec.Command("go", "get", "github.com/atombender/go-jsonschema@v0.24.1")
			cmd.Dir = mod
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Skipf("go-jsonschema output needs github.com/atombender/go-jsonschema/pkg/types: %v\n%s", err, out)
			}
		}
		bp.build(b)
	})
	// The fixed cost of a package: 22 packages that hold one variable of the
	// runtime's type, against 22 that hold one of encoding/json's.
	for _, imp := range []struct{ name, path, decl string }{
		{"import-ocpimpl", "github.com/ocpgen/ocpgen/runtime/ocpimpl", "var X *ocpimpl.Tool"},
		{"import-json", "encoding/json", "var X json.RawMessage"},
	} {
		b.Run(imp.name, func(b *testing.B) {
			bp, base := inModule(b)
			for i := range 22 {
				pkg := fmt.Sprintf("p%d", i)
				src := fmt.Sprintf("package %s\n\nimport %q\n\n%s\n", pkg, imp.path, imp.decl)
				bp.add(b, filepath.Join(base, pkg), pkg, map[string][]byte{"x.go": []byte(src)})
			}
			bp.build(b)
		})
	}
	for _, n := range []int{1000} {
		b.Run(fmt.Sprintf("ocpgen-synth-%d", n), func(b *testing.B) {
			bp, base := inModule(b)
			bp.tools = n
			res, err := Generate(Input{SnapshotFile: "synth.tools.json", Snapshot: synthCatalogue(n)}, Options{Package: "synth"})
			if err != nil {
				b.Fatal(err)
			}
			bp.add(b, filepath.Join(base, "synth"), "synth", res.Files)
			bp.build(b)
		})
	}
}
