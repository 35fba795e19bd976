// Package gen is the ocpgen generator: from a snapshot of an MCP server's
// tools/list and a classification file, it makes the Go package that offers
// those tools behind an OCP Hub's authorization and confirm gate. Generate is
// a pure function, shared by the generate, check and diff commands and by
// the golden tests; the caller does all I/O.
package gen

import (
	"fmt"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
	"github.com/ocpgen/ocpgen/gen/internal/emit"
	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/gen/internal/model"
)

// Options control generation.
type Options struct {
	// Package is the Go package name of the output.
	Package string
}

// Input is the generator's input: file names (as the user gave them; only
// their base names reach the output) and contents.
type Input struct {
	SnapshotFile string
	Snapshot     []byte
	ClassifyFile string
	// Classify is nil when there is no classification file: every tool is
	// then an unclassified write.
	Classify []byte
}

// Result is the generated package.
type Result struct {
	// Files maps file names (no directory) to their contents.
	Files map[string][]byte
	// Diagnostics are warnings, to print on stderr.
	Diagnostics diag.List
}

// Generate loads the inputs, builds the model and renders the files. The
// same inputs give the same bytes, whatever the order of tools or keys in
// them. On failure the error is a diag.List of the errors (warnings left
// out), or an internal error when rendering fails; nothing is generated.
func Generate(in Input, opts Options) (*Result, error) {
	var diags diag.List
	snap, ds := load.LoadSnapshot(in.SnapshotFile, in.Snapshot)
	diags = append(diags, ds...)
	var class *load.Classification
	if in.Classify != nil {
		class, ds = load.LoadClassification(in.ClassifyFile, in.Classify)
		diags = append(diags, ds...)
	}
	if err := diags.Err(); err != nil {
		return nil, sorted(diags.Errors())
	}
	diags = append(diags, load.CheckStale(snap, class)...)
	if diags.Err() != nil {
		return nil, sorted(diags.Errors())
	}
	pkg, ds := model.Build(snap, class, opts.Package)
	diags = append(diags, ds...)
	if diags.Err() != nil {
		return nil, sorted(diags.Errors())
	}
	files, err := emit.Files(pkg)
	if err != nil {
		return nil, fmt.Errorf("ocpgen internal error: %w", err)
	}
	return &Result{Files: files, Diagnostics: sorted(diags)}, nil
}

func sorted(l diag.List) diag.List {
	l.Sort()
	return l
}
