// Package ocpgentest lets a Hub's own tests fail when the generated bridge
// package is out of date with its snapshot and classification: the
// golden-file test to keep in CI, beside "ocpgen check".
//
//	func TestGenerated(t *testing.T) {
//		ocpgentest.Check(t, "fs.tools.json", "fs.ocp.yaml", "fsbridge", ocpgentest.Strict())
//	}
//
// Paths are relative to the test's package directory, where go test runs.
// On failure the test prints which files differ and a unified diff of each,
// and the command that regenerates them.
package ocpgentest

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/gen/report"
)

// Option changes what Check checks.
type Option func(*options)

type options struct {
	pkg    string
	strict bool
}

// Strict makes a tool the classification does not list (or a missing
// classification file) fail the test, as "ocpgen check -strict" does.
func Strict() Option {
	return func(o *options) { o.strict = true }
}

// Package sets the generated package's name. By default it is the package
// clause of the committed generated files, else the directory's base name.
func Package(name string) Option {
	return func(o *options) { o.pkg = name }
}

// Check regenerates, in memory, the package that "ocpgen generate
// -snapshot snapshot -classify classification -out dir" would write, and
// fails t when dir does not hold exactly that: a file stale, missing, left
// over from a removed tool, or not written by ocpgen. classification may be
// "" (no classification file: every tool an unclassified write). Nothing is
// written. Generator warnings are logged; under Strict, the classification
// lint fails the test.
func Check(t testing.TB, snapshot, classification, dir string, opts ...Option) {
	t.Helper()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	in := gen.Input{SnapshotFile: snapshot, ClassifyFile: classification}
	var err error
	if in.Snapshot, err = os.ReadFile(snapshot); err != nil {
		t.Fatalf("ocpgentest: %v", err)
		return
	}
	if classification != "" {
		if in.Classify, err = os.ReadFile(classification); err != nil {
			t.Fatalf("ocpgentest: %v", err)
			return
		}
	}
	res, err := gen.Check(in, gen.CheckOptions{Package: o.pkg, Dir: dir, Strict: o.strict}, os.DirFS(dir))
	if err != nil {
		t.Fatalf("ocpgentest: the inputs do not generate:\n%v", err)
		return
	}
	regen := regenCommand(snapshot, classification, dir, res.Package)
	var b strings.Builder
	if err := report.CheckText(&b, res, dir, regen); err != nil {
		t.Fatalf("ocpgentest: %v", err)
		return
	}
	if res.OK() {
		if len(res.Diagnostics) > 0 {
			t.Logf("ocpgentest: %s", strings.TrimSuffix(b.String(), "\n"))
		}
		return
	}
	t.Errorf("ocpgentest: %s", strings.TrimSuffix(b.String(), "\n"))
}

// regenCommand is the ocpgen command line that rewrites dir.
func regenCommand(snapshot, classification, dir, pkg string) string {
	args := []string{"ocpgen generate", "-snapshot", snapshot}
	if classification != "" {
		args = append(args, "-classify", classification)
	}
	if pkg != "" {
		args = append(args, "-package", pkg)
	}
	args = append(args, "-out", dir)
	return fmt.Sprintf("go generate, or %s", strings.Join(args, " "))
}
