package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/internal/outdir"
)

// Exit codes.
const (
	exitOK    = 0
	exitInput = 1
	exitUsage = 2
)

// errUsage marks a usage error; the command has printed its usage.
var errUsage = errors.New("usage")

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"generate", "generate the Go bridge package from a snapshot and a classification", cmdGenerate},
		{"snapshot", "record an MCP server's tools/list into a snapshot file", cmdSnapshot},
		{"init", "write a classification skeleton for a snapshot (every tool a write)", cmdInit},
		{"check", "fail when the committed generated code is stale; lint the classification", cmdCheck},
		{"diff", "report what changed between two snapshots and classifications, for review", cmdDiff},
		{"vet", "report MCP tool calls that bypass the Hub's gate (direct CallTool)", cmdVet},
		{"version", "print ocpgen's version", cmdVersion},
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ocpgen <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'ocpgen <command> -h' for a command's flags.")
}

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return exitOK
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.Is(err, errUsage):
			return exitUsage
		default:
			fmt.Fprintln(stderr, err)
			return exitInput
		}
	}
	fmt.Fprintf(stderr, "ocpgen: unknown command %q\n\n", args[0])
	usage(stderr)
	return exitUsage
}

// newFlags returns a flag set that prints its usage on stderr and returns
// errors instead of exiting.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ocpgen "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ocpgen %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args and maps flag errors to errUsage.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "ocpgen: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return errUsage
	}
	return nil
}

func missing(fs *flag.FlagSet, names ...string) error {
	for _, n := range names {
		if fs.Lookup(n).Value.String() == "" {
			fmt.Fprintf(fs.Output(), "ocpgen: -%s is required\n", n)
			fs.Usage()
			return errUsage
		}
	}
	return nil
}

func cmdGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("generate", "-snapshot FILE [-classify FILE] [-package NAME] -out DIR", stderr)
	snapshot := fs.String("snapshot", "", "snapshot of the server's tools/list (NAME.tools.json)")
	classify := fs.String("classify", "", "classification file (NAME.ocp.yaml); without it every tool is a write")
	pkg := fs.String("package", "", "Go package name (default: $GOPACKAGE, else the -out directory's name)")
	out := fs.String("out", "", "directory of the generated package")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := missing(fs, "snapshot", "out"); err != nil {
		return err
	}
	name := *pkg
	if name == "" {
		name = os.Getenv("GOPACKAGE")
	}
	if name == "" {
		abs, err := filepath.Abs(*out)
		if err != nil {
			return err
		}
		name = filepath.Base(abs)
	}
	in, err := readInputs(*snapshot, *classify)
	if err != nil {
		return err
	}
	res, err := gen.Generate(in, gen.Options{Package: name})
	if res != nil {
		for _, d := range res.Diagnostics {
			fmt.Fprintln(stderr, d)
		}
	}
	if err != nil {
		return err
	}
	ch, err := outdir.Write(*out, res.Files)
	if err != nil {
		return fmt.Errorf("ocpgen: %w", err)
	}
	for _, f := range ch.Written {
		fmt.Fprintf(stderr, "wrote %s\n", filepath.Join(*out, f))
	}
	for _, f := range ch.Removed {
		fmt.Fprintf(stderr, "removed %s (its tool is gone)\n", filepath.Join(*out, f))
	}
	return nil
}

// readInputs reads the snapshot and, if named, the classification file.
func readInputs(snapshot, classify string) (gen.Input, error) {
	in := gen.Input{SnapshotFile: snapshot}
	var err error
	if in.Snapshot, err = readLimited(snapshot, gen.MaxSnapshotSize); err != nil {
		return in, err
	}
	if classify != "" {
		in.ClassifyFile = classify
		if in.Classify, err = readLimited(classify, gen.MaxClassificationSize); err != nil {
			return in, err
		}
	}
	return in, nil
}

// readLimited reads a file, refusing one larger than limit bytes without
// reading it all (a hostile snapshot must not cost its size in memory).
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ocpgen: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("ocpgen: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: file is over the limit of %d MiB", path, limit>>20)
	}
	return data, nil
}

func cmdInit(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("init", "-snapshot FILE [-o FILE] [-force]", stderr)
	snapshot := fs.String("snapshot", "", "snapshot of the server's tools/list (NAME.tools.json)")
	output := fs.String("o", "", "write the skeleton to this file instead of stdout")
	force := fs.Bool("force", false, "overwrite -o if it exists (a classification file is hand-written: this loses edits)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := missing(fs, "snapshot"); err != nil {
		return err
	}
	data, err := readLimited(*snapshot, gen.MaxSnapshotSize)
	if err != nil {
		return err
	}
	skel, err := gen.Skeleton(*snapshot, data)
	if err != nil {
		return err
	}
	if *output == "" {
		_, err := stdout.Write(skel)
		return err
	}
	if !*force {
		if _, err := os.Stat(*output); err == nil {
			return fmt.Errorf("ocpgen: %s exists; it is hand-written, so init will not overwrite it (use -force to replace it)", *output)
		}
	}
	return writeFileAtomic(*output, skel)
}

// writeFileAtomic writes data to a temporary file beside path, then renames
// it into place.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("ocpgen: %w", err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(f.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(f.Name(), path)
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("ocpgen: %w", werr)
	}
	return nil
}

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ocpgen %s\n", version())
	return nil
}

// version is the module version ocpgen was built at ("(devel)" in a
// checkout). It is printed by 'ocpgen version' and never written into
// generated files, where it would make diff noise between teammates.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return strings.TrimPrefix(bi.Main.Version, "")
	}
	return "(devel)"
}
