package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/internal/cli"
	"github.com/ocpgen/ocpgen/internal/outdir"
)

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"generate", "generate the Go bridge package from a snapshot and a classification", cmdGenerate},
		{"init", "write a classification skeleton for a snapshot (every tool a write)", cmdInit},
		{"check", "fail when the committed generated code is stale; lint the classification", cmdCheck},
		{"diff", "report what changed between two snapshots and classifications, for review", cmdDiff},
		{"vet", "report MCP tool calls that bypass the Hub's gate (direct CallTool)", cmdVet},
		{"version", "print ocpgen's version", cmdVersion},
		{"help", "show a command's help: ocpgen help COMMAND", nil},
	}
}

// moved holds, per command that is now a program of its own, its summary
// there and the one line "ocpgen COMMAND" answers with.
var moved = map[string]struct{ summary, line string }{
	"snapshot": {
		"go tool ocpgen-snapshot: record an MCP server's tools/list into a snapshot file",
		`ocpgen: "ocpgen snapshot" is now its own command, with the same flags: go tool ocpgen-snapshot (or ocpgen-snapshot when installed); it moved out so that the generator does not link the network stack`,
	},
}

// helps holds, per command, what it does and one example, for its -h.
var helps = map[string]string{
	"generate": "Writes the Go package that offers a snapshot's tools behind the Hub's gate\n" +
		"into DIR (all files or none; stale generated files are removed, files ocpgen\n" +
		"did not write are never touched). The package is named after DIR unless\n" +
		"-package says otherwise, and is never main.\n\n" +
		"Without -snapshot it generates every server listed in " + gen.ConfigFile + " (found in\n" +
		"this directory or a parent, up to the module root) or in -config FILE, in one\n" +
		"process; if any server fails, nothing is written.\n\n" +
		"On stderr, a line per server as its package is done (directory, package,\n" +
		"server, tools, time), then one per file written; -q prints only warnings and\n" +
		"errors.\n\n" +
		"example: ocpgen generate -snapshot memory.tools.json -classify memory.ocp.yaml -out memoryocp\n" +
		"example: ocpgen generate",
	"init": "Writes a classification skeleton for a snapshot: every tool listed as a\n" +
		"write, the server's hints as comments (not trusted). Edit it, then generate.\n\n" +
		"example: ocpgen init -snapshot memory.tools.json -o memory.ocp.yaml",
	"check": "Regenerates in memory and fails, listing the files and their diffs, when the\n" +
		"committed code in DIR is stale; writes nothing. Lints the classification:\n" +
		"with -strict a tool it does not list (or no classification file) fails.\n" +
		"When GITHUB_ACTIONS=true, also prints GitHub Actions annotations. Without\n" +
		"-snapshot it checks every server of " + gen.ConfigFile + " (or -config FILE).\n\n" +
		"example: ocpgen check -snapshot memory.tools.json -classify memory.ocp.yaml -out memoryocp -strict",
	"vet":     "example: ocpgen vet ./...",
	"version": "Prints ocpgen's module version.\n\nexample: ocpgen version",
	"help": "Prints a command's help on stdout: its usage, what it does, an example and\n" +
		"its flags (the same as 'ocpgen COMMAND -h'). Without COMMAND, the list of\n" +
		"commands.\n\n" +
		"example: ocpgen help diff",
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: ocpgen <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "moved to a command of its own, with the same flags:")
	for _, name := range slices.Sorted(maps.Keys(moved)) {
		fmt.Fprintf(w, "  %-9s %s\n", name, moved[name].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'ocpgen help <command>' (or 'ocpgen <command> -h') for a command's help.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "exit status: 0 clean, 1 findings (check, diff -fail-on, vet), 2 trouble")
	fmt.Fprintln(w, "(usage, an input that does not load or does not generate, including a diff")
	fmt.Fprintln(w, "whose new side has such problems, not a git repository).")
}

// run executes the command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return cli.ExitTrouble
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || (args[0] == "help" && len(args) == 1) {
		usage(stdout)
		return cli.ExitOK
	}
	if args[0] == "help" {
		if len(args) == 2 && args[1] == "help" {
			fmt.Fprintf(stdout, "usage: ocpgen help [COMMAND]\n\n%s\n", helps["help"])
			return cli.ExitOK
		}
		if m, ok := moved[args[1]]; ok && len(args) == 2 {
			fmt.Fprintln(stdout, m.line)
			return cli.ExitOK
		}
		if len(args) > 2 || lookup(args[1]) == nil {
			fmt.Fprintf(stderr, "ocpgen help: unknown command %q\n\n", strings.Join(args[1:], " "))
			usage(stderr)
			return cli.ExitTrouble
		}
		// A command's help goes to stdout when asked for.
		return run([]string{args[1], "-h"}, stdout, stdout)
	}
	if m, ok := moved[args[0]]; ok {
		fmt.Fprintln(stderr, m.line)
		return cli.ExitTrouble
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "ocpgen: unknown command %q\n\n", args[0])
		usage(stderr)
		return cli.ExitTrouble
	}
	return cli.Status(c.run(args[1:], stdout, stderr), stderr)
}

// lookup returns the command named name, nil if none.
func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			return &c
		}
	}
	return nil
}

// newFlags returns the flag set of "ocpgen name", whose usage shows the
// command's help.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	return cli.NewFlags("ocpgen", name, synopsis, helps[name], stderr)
}

// configMode reports whether a command runs over the configuration file:
// with -config, or with none of the flags that name one server (single).
// -config with one of those is a usage error.
func configMode(fs *flag.FlagSet, config string, single ...string) (bool, error) {
	var set []string
	for _, n := range single {
		if fs.Lookup(n).Value.String() != "" {
			set = append(set, "-"+n)
		}
	}
	switch {
	case config != "" && len(set) > 0:
		return false, cli.UsageError(fs, "ocpgen: -config lists the servers; it does not go with %s", strings.Join(set, ", "))
	case config != "":
		return true, nil
	}
	return len(set) == 0, nil
}

func cmdGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("generate", "-snapshot FILE [-classify FILE] [-package NAME] -out DIR\n       ocpgen generate [-config FILE]", stderr)
	config := fs.String("config", "", "configuration file listing every server (default: "+gen.ConfigFile+" in this directory or a parent, up to the module root)")
	snapshot := fs.String("snapshot", "", "snapshot of the server's tools/list (NAME.tools.json)")
	classify := fs.String("classify", "", "classification file (NAME.ocp.yaml); without it every tool is a write")
	pkg := fs.String("package", "", "Go package name (default: the -out directory's name; never main)")
	out := fs.String("out", "", "directory of the generated package")
	quiet := fs.Bool("q", false, "quiet: print only warnings and errors (no line per server generated, no file written)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	progress := stderr
	if *quiet {
		progress = io.Discard
	}
	if useConfig, err := configMode(fs, *config, "snapshot", "classify", "package", "out"); err != nil || useConfig {
		if err != nil {
			return err
		}
		return generateConfig(*config, stderr, progress)
	}
	if err := cli.Missing(fs, "snapshot", "out"); err != nil {
		return err
	}
	name := *pkg
	if name == "" {
		// Not $GOPACKAGE: that is the package of the go:generate line's
		// file, often main, not the package generated into -out.
		abs, err := filepath.Abs(*out)
		if err != nil {
			return err
		}
		name = filepath.Base(abs)
	}
	start := time.Now()
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
	reportWritten(progress, *out, ch)
	fmt.Fprintln(progress, generated(*out, name, res, time.Since(start)))
	return nil
}

// generated is the line generate prints when a server's package is done:
// "generated DIR (package P): server S, N tools, in 12ms".
func generated(out, pkg string, res *gen.Result, took time.Duration) string {
	server := ""
	if res.Server != "" {
		server = "server " + cli.OneLine(res.Server) + ", "
	}
	return fmt.Sprintf("generated %s (package %s): %s%s, in %v", out, pkg, server, cli.Tools(res.Tools), took.Round(time.Millisecond))
}

// reportWritten prints the files outdir.Write wrote and removed.
func reportWritten(w io.Writer, out string, ch outdir.Changes) {
	for _, f := range ch.Written {
		fmt.Fprintf(w, "wrote %s\n", filepath.Join(out, f))
	}
	for _, f := range ch.Removed {
		fmt.Fprintf(w, "removed %s (its tool is gone)\n", filepath.Join(out, f))
	}
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
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if err := cli.Missing(fs, "snapshot"); err != nil {
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
	if err := outdir.WriteFile(*output, skel); err != nil {
		return fmt.Errorf("ocpgen: %w", err)
	}
	return nil
}

func cmdVersion(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", "", stderr)
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ocpgen %s\n", cli.Version())
	return nil
}
