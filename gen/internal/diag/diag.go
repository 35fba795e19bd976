// Package diag holds the generator's error and warning type: every message
// points at its input, as file:line:col for the classification file, or as
// file, tool and JSON pointer for the snapshot.
package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Severity is Error or Warning.
type Severity uint8

const (
	// Error stops generation: nothing is written.
	Error Severity = iota
	// Warning is printed on stderr; generation goes on.
	Warning
)

// Code names a kind of finding that a caller may act on by kind (check
// -strict turns the unclassified ones into errors) rather than by reading
// its message. Diagnostics of other kinds have the empty code.
type Code string

// The codes.
const (
	// CodeNoClassification: there is no classification file, so every tool
	// is an unclassified write and no tier is authorized.
	CodeNoClassification Code = "no-classification"
	// CodeUnclassified: the classification does not list the tool
	// (Diagnostic.Tool), so it is a write at the default tier.
	CodeUnclassified Code = "unclassified"
	// CodeTaskRequired: the tool declares execution.taskSupport "required"
	// (MCP 2025-11-25): it can only be called as a task, which the go-sdk
	// client cannot do, so it is left out of the generated catalogue.
	CodeTaskRequired Code = "task-required"
	// CodePatternUntranslatable: a pattern (Diagnostic.Pointer) has no
	// ECMA-262 translation the gate can match in linear time (internal/ecmare
	// says why); generation goes on, and the gate refuses every call of the
	// tool (fail closed).
	CodePatternUntranslatable Code = "pattern-untranslatable"
	// CodeIntegerRange: integer arguments of the tool whose schema admits
	// values beyond the Go type's range (int64, or uint64): a valid call
	// with such a value is refused. The message lists their pointers.
	CodeIntegerRange Code = "integer-range"
	// CodeNumberPrecision: number arguments of the tool, typed float64: a
	// valid call with a literal a float64 does not hold exactly
	// (0.1000000000000000055) is refused. The message lists their
	// pointers.
	CodeNumberPrecision Code = "number-precision"
	// CodeRefusedEverywhere: a rule the gate applies to every argument of
	// every tool, whatever the schema (a lone surrogate escape in a string,
	// a number literal beyond the gate's bounds): one diagnostic for the
	// package, naming the rule.
	CodeRefusedEverywhere Code = "refused-everywhere"
	// CodeUndeclaredArgument: the tool's schema admits top-level keys it
	// does not declare, which the gate refuses (it forwards only declared
	// arguments).
	CodeUndeclaredArgument Code = "undeclared-argument"
	// CodeInvisibleName: the tool's name holds characters a reader cannot
	// see (internal/invisible: controls, format characters, the rest of
	// Unicode's Default_Ignorable_Code_Point set, unassigned code points),
	// so it can read as another tool's name. The message lists them.
	CodeInvisibleName Code = "invisible-name"
)

// Diagnostic is one message about an input file.
type Diagnostic struct {
	Severity Severity
	// Code is the finding's kind, "" for most diagnostics.
	Code Code
	// File is the input file's name as the user gave it.
	File string
	// Line and Col are 1-based positions in File (classification file); 0
	// when unknown.
	Line, Col int
	// Tool is the MCP tool name the message is about, if any.
	Tool string
	// Pointer is a JSON pointer from the root of the snapshot file (e.g.
	// "/tools/3/inputSchema/properties/mode"), if any.
	Pointer string
	// Msg is the message, lower case, no trailing period.
	Msg string
}

// String formats the diagnostic as
//
//	file:line:col: msg
//	file: tool "name": /pointer: msg
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Col > 0 {
			fmt.Fprintf(&b, ":%d", d.Col)
		}
	}
	b.WriteString(": ")
	if d.Severity == Warning {
		b.WriteString("warning: ")
	}
	if d.Tool != "" {
		fmt.Fprintf(&b, "tool %q: ", d.Tool)
	}
	if d.Pointer != "" {
		b.WriteString(d.Pointer)
		b.WriteString(": ")
	}
	b.WriteString(d.Msg)
	return b.String()
}

// Error implements error.
func (d Diagnostic) Error() string { return d.String() }

// List is an ordered list of diagnostics. As an error it prints one per line.
type List []Diagnostic

// Error implements error.
func (l List) Error() string {
	s := make([]string, len(l))
	for i, d := range l {
		s[i] = d.String()
	}
	return strings.Join(s, "\n")
}

// Errors returns the diagnostics of severity Error.
func (l List) Errors() List {
	var out List
	for _, d := range l {
		if d.Severity == Error {
			out = append(out, d)
		}
	}
	return out
}

// Err returns the list's errors as an error, or nil when there are none.
func (l List) Err() error {
	if e := l.Errors(); len(e) > 0 {
		return e
	}
	return nil
}

// Sort orders the list by file, line, column, tool and pointer, so output
// does not depend on the order checks ran in.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		return a.Pointer < b.Pointer
	})
}
