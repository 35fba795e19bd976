package gen

import (
	"bufio"
	"bytes"
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/diff"
	"github.com/ocpgen/ocpgen/internal/ocpfile"
)

// CheckOptions control Check.
type CheckOptions struct {
	// Package is the Go package name. Empty means: the package clause of
	// the committed generated files, else the base name of Dir.
	Package string
	// Dir names the checked directory in messages and diff headers
	// ("internal/fsbridge"); it is not read.
	Dir string
	// Strict makes the classification lint fail: a tool the classification
	// does not list, or no classification file at all, is an error instead
	// of a warning.
	Strict bool
}

// The values of FileCheck.State.
const (
	// FileStale is a committed generated file whose bytes differ.
	FileStale = "stale"
	// FileMissing is a file generate would write that is not committed.
	FileMissing = "missing"
	// FileExtra is a committed generated file (it has the ocpgen header)
	// that generate no longer writes: its tool is gone.
	FileExtra = "extra"
	// FileForeign is a file at a generated file's name that ocpgen did not
	// write (no header): generate refuses to replace it.
	FileForeign = "foreign"
)

// FileCheck is one file that is not as generate would leave it.
type FileCheck struct {
	// Name is the base name.
	Name string
	// Path is Dir joined with Name, slash-separated.
	Path string
	// State is FileStale, FileMissing, FileExtra or FileForeign.
	State string
	// Line is the first line of the committed file that differs (1 for a
	// missing file).
	Line int
	// Diff is a unified diff from the committed file to the generated one
	// (empty for FileForeign).
	Diff string
}

// CheckResult is the outcome of Check.
type CheckResult struct {
	// Files are the files that differ, sorted by name.
	Files []FileCheck
	// Diagnostics are generate's warnings and, under Strict, the lint's
	// errors, sorted.
	Diagnostics Diagnostics
	// Generated counts the files generate writes.
	Generated int
	// Package is the package name the files were generated with.
	Package string
}

// OK reports whether the committed code is up to date and the lint found
// no error.
func (r *CheckResult) OK() bool {
	return len(r.Files) == 0 && r.Diagnostics.Err() == nil
}

// Check regenerates the package in memory and compares it with the
// committed directory, given as an fs.FS (os.DirFS(dir) in a command or a
// test; a directory that does not exist counts as empty). Nothing is
// written. The error is a diag.List when the inputs do not generate (the
// committed code cannot be judged then), or an error reading committed.
func Check(in Input, opts CheckOptions, committed fs.FS) (*CheckResult, error) {
	have, err := readCommitted(committed)
	if err != nil {
		return nil, err
	}
	pkg := opts.Package
	if pkg == "" {
		pkg = committedPackage(have)
	}
	if pkg == "" {
		pkg = path.Base(strings.TrimRight(path.Clean("/"+strings.ReplaceAll(opts.Dir, `\`, "/")), "/"))
		if pkg == "/" || pkg == "." {
			return nil, errors.New("no package name: set the package, or name the directory")
		}
	}
	res, err := Generate(in, Options{Package: pkg})
	if err != nil {
		return nil, err
	}
	r := &CheckResult{Generated: len(res.Files), Package: pkg, Diagnostics: lint(res.Diagnostics, opts.Strict)}
	join := func(name string) string {
		if opts.Dir == "" {
			return name
		}
		return path.Join(strings.ReplaceAll(opts.Dir, `\`, "/"), name)
	}
	names := make([]string, 0, len(res.Files)+len(have))
	for name := range res.Files {
		names = append(names, name)
	}
	for name := range have {
		if _, ok := res.Files[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		want, gen := res.Files[name]
		got, committed := have[name]
		p := join(name)
		fc := FileCheck{Name: name, Path: p, Line: 1}
		switch {
		case gen && !committed:
			fc.State = FileMissing
			fc.Diff = diff.Unified("/dev/null", "b/"+p, "", string(want))
		case gen && !bytes.Equal(got, want):
			if !ocpfile.IsGenerated(got) {
				fc.State = FileForeign
				break
			}
			fc.State = FileStale
			fc.Line = firstDiffLine(got, want)
			fc.Diff = diff.Unified("a/"+p, "b/"+p, string(got), string(want))
		case !gen && ocpfile.IsGenerated(got) && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go"):
			fc.State = FileExtra
			fc.Diff = diff.Unified("a/"+p, "/dev/null", string(got), "")
		default:
			continue
		}
		r.Files = append(r.Files, fc)
	}
	return r, nil
}

// readCommitted reads the regular files at the root of fsys.
func readCommitted(fsys fs.FS) (map[string][]byte, error) {
	have := map[string][]byte{}
	entries, err := fs.ReadDir(fsys, ".")
	if errors.Is(err, fs.ErrNotExist) {
		return have, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		data, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		have[e.Name()] = data
	}
	return have, nil
}

// committedPackage returns the package name of the committed generated
// files ("" when there are none or they disagree).
func committedPackage(have map[string][]byte) string {
	name := ""
	for _, fn := range slices.Sorted(maps.Keys(have)) {
		data := have[fn]
		if !ocpfile.IsGenerated(data) {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), fn, data, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		if name != "" && name != f.Name.Name {
			return ""
		}
		name = f.Name.Name
	}
	return name
}

// firstDiffLine returns the first 1-based line at which a and b differ.
func firstDiffLine(a, b []byte) int {
	sa, sb := bufio.NewScanner(bytes.NewReader(a)), bufio.NewScanner(bytes.NewReader(b))
	sa.Buffer(nil, len(a)+1)
	sb.Buffer(nil, len(b)+1)
	for line := 1; ; line++ {
		oka, okb := sa.Scan(), sb.Scan()
		if !oka || !okb || sa.Text() != sb.Text() {
			return line
		}
	}
}

// lint returns generate's warnings with, under strict, the findings of the
// classification lint (codes diag.CodeNoClassification,
// diag.CodeUnclassified and diag.CodeTaskRequired) turned into errors: the same diagnostics, not a
// second copy of them.
func lint(warnings diag.List, strict bool) diag.List {
	if !strict {
		return warnings
	}
	out := make(diag.List, 0, len(warnings))
	for _, d := range warnings {
		switch d.Code {
		case diag.CodeNoClassification:
			d.Severity = diag.Error
			d.Msg = "no classification file: every tool is an unclassified write (-strict requires a classification that lists every tool)"
		case diag.CodeUnclassified:
			d.Severity = diag.Error
			d.Msg = "not classified: it is a write at the default tier; -strict requires an entry (access: read or write) for every tool"
		case diag.CodeTaskRequired:
			d.Severity = diag.Error
			d.Msg += " (-strict fails on a tool of the snapshot that the Hub cannot offer)"
		}
		out = append(out, d)
	}
	out.Sort()
	return out
}
