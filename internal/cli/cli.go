// Package cli holds what ocpgen's commands (cmd/ocpgen and
// cmd/ocpgen-snapshot) share: their exit statuses, the errors that choose
// one, flag sets that print a command's help.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// Exit statuses, as diff(1) and gofmt -l: the same in every command.
const (
	// ExitOK: the command ran and found nothing.
	ExitOK = 0
	// ExitFindings: the command ran and found something (check: stale
	// files or lint errors; diff: a -fail-on level reached; vet: a bypass).
	ExitFindings = 1
	// ExitTrouble: the command could not run: a usage error, an input that
	// does not load, a file that cannot be read or written, a server that
	// cannot be listed, not a git repository.
	ExitTrouble = 2
)

// ErrUsage marks a usage error; the command has printed its usage.
var ErrUsage = errors.New("usage")

// FindingsError is what a command returns when it ran and found something:
// its exit status is ExitFindings, not ExitTrouble.
type FindingsError struct{ msg string }

func (e *FindingsError) Error() string { return e.msg }

// Findings returns a FindingsError.
func Findings(format string, args ...any) error {
	return &FindingsError{fmt.Sprintf(format, args...)}
}

// Status is the exit status for a command's error. It prints the error on
// stderr, unless it is a usage error (the usage is printed already) or a
// request for help.
func Status(err error, stderr io.Writer) int {
	var found *FindingsError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.Is(err, ErrUsage):
		return ExitTrouble
	case errors.As(err, &found):
		fmt.Fprintln(stderr, err)
		return ExitFindings
	default:
		fmt.Fprintln(stderr, err)
		return ExitTrouble
	}
}

// NewFlags returns the flag set of the command prog (with name, its
// subcommand: "ocpgen generate"; without, the command alone:
// "ocpgen-snapshot"). It prints its usage on stderr ("usage: " the command,
// synopsis, then help and the flags, if any) and returns errors instead of
// exiting.
func NewFlags(prog, name, synopsis, help string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(strings.TrimSpace(prog+" "+name), flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "%s\n\n", strings.TrimSpace("usage: "+fs.Name()+" "+synopsis))
		flags := 0
		fs.VisitAll(func(*flag.Flag) { flags++ })
		if flags == 0 {
			fmt.Fprintf(fs.Output(), "%s\n", help)
			return
		}
		if help != "" {
			fmt.Fprintf(fs.Output(), "%s\n\n", help)
		}
		fmt.Fprintln(fs.Output(), "flags:")
		fs.PrintDefaults()
	}
	return fs
}

// prog is the program a flag set of NewFlags belongs to, which names it in
// messages.
func prog(fs *flag.FlagSet) string {
	p, _, _ := strings.Cut(fs.Name(), " ")
	return p
}

// Parse parses args, which must be flags only, and maps flag errors to
// ErrUsage (flag.ErrHelp is returned as is).
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return ErrUsage
	}
	if fs.NArg() > 0 {
		return UsageError(fs, "%s: unexpected argument %q", prog(fs), fs.Arg(0))
	}
	return nil
}

// Missing is a usage error naming the first of the flags names that is not
// set, nil if all are.
func Missing(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			return UsageError(fs, "%s: -%s is required", prog(fs), n)
		}
	}
	return nil
}

// UsageError prints a message and the usage, and returns ErrUsage.
func UsageError(fs *flag.FlagSet, format string, args ...any) error {
	fmt.Fprintf(fs.Output(), format+"\n", args...)
	fs.Usage()
	return ErrUsage
}

// OneLine keeps a value that came from an input on one line of output.
func OneLine(s string) string {
	return strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\r`).Replace(s)
}

// Tools is "1 tool" or "N tools".
func Tools(n int) string {
	if n == 1 {
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", n)
}

// Version is the module version the command was built at ("(devel)" in a
// checkout). It is never written into generated files or snapshots, where
// it would make diff noise between teammates.
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
