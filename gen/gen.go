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

// Input is a snapshot and a classification file, as file names (as the
// user gave them; only their base names reach generated output) and
// contents: the input of Generate and Check, and each side of a Diff.
type Input struct {
	SnapshotFile string
	// Snapshot is the snapshot file's content. Only Diff accepts nil, for
	// a side without a snapshot (the file did not exist at the git base);
	// Generate and Check report it as an error (an empty file).
	Snapshot     []byte
	ClassifyFile string
	// Classify is nil when there is no classification file: every tool is
	// then an unclassified write and no tier is authorized.
	Classify []byte
}

// Result is the generated package.
type Result struct {
	// Files maps file names (no directory) to their contents.
	Files map[string][]byte
	// Diagnostics are warnings, to print on stderr.
	Diagnostics Diagnostics
	// Unclassified are the MCP names of the tools the classification file
	// does not list, sorted; nil without a classification file (then every
	// tool is unclassified, and a diagnostic with the code
	// CodeNoClassification says so).
	Unclassified []string
	// Server is the snapshot's server name and version, "" if it records
	// none; Tools counts the tools of the generated catalogue.
	Server string
	Tools  int
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
	pkg, ds := buildModel(snap, class, opts.Package)
	diags = append(diags, ds...)
	if diags.Err() != nil {
		return nil, sorted(diags.Errors())
	}
	files, err := emit.Files(pkg)
	if err != nil {
		return nil, fmt.Errorf("ocpgen internal error: %w", err)
	}
	return &Result{Files: files, Diagnostics: sorted(diags), Unclassified: pkg.Unclassified, Server: pkg.Server, Tools: len(pkg.Tools)}, nil
}

// buildModel checks loaded inputs against each other (no entry for a tool
// the snapshot lacks) and builds the model: every error an input that loads
// can still have. Generate, and so check, stop on these; Diff reports the
// new side's as its Problems.
func buildModel(snap *load.Snapshot, class *load.Classification, pkgName string) (*model.Package, diag.List) {
	ds := load.CheckStale(snap, class)
	if ds.Err() != nil {
		return nil, ds
	}
	pkg, more := model.Build(snap, class, pkgName)
	return pkg, append(ds, more...)
}

func sorted(l diag.List) diag.List {
	l.Sort()
	return l
}

// Diagnostic is one error or warning about an input file: where (File with
// Line and Col for the classification file, or Tool and a JSON Pointer into
// the snapshot), what (Msg, lower case, no final period), how bad
// (Severity) and, for the findings a caller may act on by kind, a Code.
// String formats it as "file:line:col: msg" or
// "file: tool "name": /pointer: msg".
type Diagnostic = diag.Diagnostic

// Diagnostics is a sorted list of diagnostics. As an error (Generate,
// Check and Diff return one for inputs that do not load) it prints one
// diagnostic per line; errors.As finds it.
type Diagnostics = diag.List

// Severity is SeverityError or SeverityWarning.
type Severity = diag.Severity

// The severities.
const (
	// SeverityError stops generation: nothing is written.
	SeverityError = diag.Error
	// SeverityWarning is reported; generation goes on.
	SeverityWarning = diag.Warning
)

// Code names the kind of a finding.
type Code = diag.Code

// The codes.
const (
	// CodeNoClassification: no classification file, so every tool is an
	// unclassified write and no tier is authorized.
	CodeNoClassification = diag.CodeNoClassification
	// CodeUnclassified: the classification does not list the tool, so it
	// is a write at the default tier.
	CodeUnclassified = diag.CodeUnclassified
	// CodeTaskRequired: the tool can only be called as an MCP task
	// (execution.taskSupport "required"), which ocpgen's runtime cannot
	// drive, so it is left out of the generated catalogue.
	CodeTaskRequired = diag.CodeTaskRequired
	// CodePatternUntranslatable: a pattern has no ECMA-262 translation the
	// gate can match in linear time; the gate refuses every call of the
	// tool (fail closed), and generation goes on.
	CodePatternUntranslatable = diag.CodePatternUntranslatable
	// CodeIntegerRange: integer arguments typed int64 (uint64) whose schema
	// admits values beyond that range, which the gate refuses.
	CodeIntegerRange = diag.CodeIntegerRange
	// CodeNumberPrecision: number arguments typed float64: a valid literal
	// a float64 does not hold exactly is refused.
	CodeNumberPrecision = diag.CodeNumberPrecision
	// CodeRefusedEverywhere: the rules the gate applies to every argument of
	// every tool, whatever the schema (lone surrogate escapes, number
	// literals beyond its bounds); one warning per package.
	CodeRefusedEverywhere = diag.CodeRefusedEverywhere
	// CodeUndeclaredArgument: the schema admits top-level keys it does not
	// declare, which the gate refuses.
	CodeUndeclaredArgument = diag.CodeUndeclaredArgument
	// CodeInvisibleName: the tool's name holds characters a reader cannot
	// see (such as U+3164 HANGUL FILLER), so it can read as another name.
	CodeInvisibleName = diag.CodeInvisibleName
)
