package report

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ocpgen/ocpgen/gen"
)

// CheckText writes a check result for a terminal or a CI log: one line per
// file that differs, then each file's unified diff, then the diagnostics.
// regen is the command that brings the files up to date, for the message
// ("go generate ./...").
func CheckText(w io.Writer, r *gen.CheckResult, dir, regen string) error {
	var b strings.Builder
	if len(r.Files) > 0 {
		fmt.Fprintf(&b, "%s is out of date with its snapshot and classification; run %s:\n", dirName(dir), regen)
		for _, f := range r.Files {
			fmt.Fprintf(&b, "  %-8s %s%s\n", f.State, f.Path, stateNote(f.State))
		}
		for _, f := range r.Files {
			if f.Diff != "" {
				b.WriteString("\n")
				b.WriteString(f.Diff)
			}
		}
	}
	if len(r.Diagnostics) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		for _, d := range r.Diagnostics {
			b.WriteString(d.String())
			b.WriteString("\n")
		}
	}
	if r.OK() {
		fmt.Fprintf(&b, "%s is up to date (%d generated files)\n", dirName(dir), r.Generated)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func dirName(dir string) string {
	if dir == "" {
		return "the generated package"
	}
	return dir
}

func stateNote(state string) string {
	switch state {
	case gen.FileExtra:
		return " (generated for a tool that is gone; generate removes it)"
	case gen.FileForeign:
		return " (not written by ocpgen: generate refuses to replace it; move it away)"
	}
	return ""
}

// CheckAnnotations returns GitHub Actions workflow commands
// ("::error file=F,line=L::message") for the files that differ and for the
// diagnostics of a check result, so a CI run marks them on the pull
// request.
func CheckAnnotations(r *gen.CheckResult) []string {
	var out []string
	for _, f := range r.Files {
		out = append(out, fmt.Sprintf("::error file=%s,line=%d,title=%s::%s", ghProp(f.Path), f.Line, ghProp("ocpgen check"),
			ghData(fmt.Sprintf("generated file is %s%s: run go generate (or ocpgen generate) and commit the result", f.State, stateNote(f.State)))))
	}
	for _, d := range r.Diagnostics {
		out = append(out, annotation(d))
	}
	return out
}

// Annotations returns GitHub Actions workflow commands for the diagnostics
// of an error returned by Generate or Check (nil for any other error).
func Annotations(err error) []string {
	var l gen.Diagnostics
	if !errors.As(err, &l) {
		return nil
	}
	var out []string
	for _, d := range l {
		out = append(out, annotation(d))
	}
	return out
}

// annotation formats a diagnostic as a workflow command.
func annotation(d gen.Diagnostic) string {
	level := "error"
	if d.Severity == gen.SeverityWarning {
		level = "warning"
	}
	props := "file=" + ghProp(strings.ReplaceAll(d.File, `\`, "/"))
	if d.Line > 0 {
		props += fmt.Sprintf(",line=%d", d.Line)
		if d.Col > 0 {
			props += fmt.Sprintf(",col=%d", d.Col)
		}
	}
	msg := d.Msg
	if d.Pointer != "" {
		msg = d.Pointer + ": " + msg
	}
	if d.Tool != "" {
		msg = fmt.Sprintf("tool %q: %s", d.Tool, msg)
	}
	return fmt.Sprintf("::%s %s,title=%s::%s", level, props, ghProp("ocpgen"), ghData(msg))
}

// ghData escapes a workflow command's message.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProp escapes a workflow command's property value.
func ghProp(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
