package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/gen/report"
	"github.com/ocpgen/ocpgen/internal/cli"
)

const diffSynopsis = `OLD.tools.json NEW.tools.json [-classify-old C] [-classify-new C] [flags]
       ocpgen diff -git-base REF -snapshot S [-classify C] [flags]
       ocpgen diff -git-base REF [-config FILE] [flags]

Reports, tool by tool, what changed between two snapshots and their
classifications: tools added and removed, input and output schema changes
(breaking or compatible for a Hub), description and title changes (models
read them), classification changes (loosening is security-relevant) and
server hints that disagree with the classification.

With -git-base, the old side is S and C as committed at REF (git show
REF:./S); a file absent at REF counts as empty (every tool added). With
-git-base and no -snapshot, every server of the configuration file
(ocpgen.yaml, or -config) is compared, one report each in the file's order
(-format json: a JSON array of the reports).

Each report is headed with its server (the snapshot's name and version, else
the snapshot file) and the files of both sides.

-fail-on levels, comma-separated: breaking (a breaking change), security (a
security-relevant change), any (any change), none (the default). When a
level is reached the report is still written, and the exit status is 1.

Problems come before any level: an error that ocpgen generate and ocpgen
check stop on in the new side (a classification entry for a tool the new
snapshot no longer has, a confirm prompt naming an argument that is gone),
or an input that does not load. The report lists them (a server whose
inputs do not load gets a "not compared" report in its place, and the other
servers are still compared), and the exit status is 2, as check's and
generate's on the same files, whatever -fail-on says.

example: ocpgen diff -git-base origin/main -snapshot memory.tools.json -classify memory.ocp.yaml -format markdown -fail-on security`

func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("diff", diffSynopsis, stderr)
	classifyOld := fs.String("classify-old", "", "classification file of the old side")
	classifyNew := fs.String("classify-new", "", "classification file of the new side")
	gitBase := fs.String("git-base", "", "git revision of the old side (e.g. origin/main); use with -snapshot and -classify")
	snapshot := fs.String("snapshot", "", "with -git-base: the snapshot file, compared with its version at REF")
	classify := fs.String("classify", "", "with -git-base: the classification file, compared with its version at REF")
	config := fs.String("config", "", "with -git-base: the configuration file listing every server (default: "+gen.ConfigFile+" in this directory or a parent, up to the module root)")
	format := fs.String("format", "text", "output format: text, markdown or json")
	failOn := fs.String("fail-on", "none", "exit 1 when the report reaches a level: breaking, security, any, none (comma-separated)")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	levels, err := report.ParseFailOn(*failOn)
	if err != nil {
		return cli.UsageError(fs, "ocpgen: %v", err)
	}
	if *format != "text" && *format != "markdown" && *format != "json" {
		return cli.UsageError(fs, "ocpgen: -format must be text, markdown or json, not %q", *format)
	}

	var old, nw gen.Input
	if *config != "" && *gitBase == "" {
		return cli.UsageError(fs, "ocpgen: -config goes with -git-base")
	}
	if *gitBase != "" {
		if useConfig, err := configMode(fs, *config, "snapshot", "classify", "classify-old", "classify-new"); err != nil {
			return err
		} else if useConfig && len(pos) == 0 {
			return diffConfig(*config, *gitBase, *format, levels, *failOn, stdout)
		}
		if len(pos) > 0 {
			return cli.UsageError(fs, "ocpgen: -git-base takes no OLD NEW arguments (got %q)", pos[0])
		}
		if *classifyOld != "" || *classifyNew != "" {
			return cli.UsageError(fs, "ocpgen: with -git-base, use -classify (not -classify-old/-classify-new)")
		}
		if *snapshot == "" {
			return cli.UsageError(fs, "ocpgen: -git-base needs -snapshot")
		}
		if old, nw, err = gitInputs(*gitBase, *snapshot, *classify); err != nil {
			return err
		}
	} else {
		if *snapshot != "" || *classify != "" {
			return cli.UsageError(fs, "ocpgen: -snapshot and -classify go with -git-base; compare two files with OLD NEW [-classify-old C] [-classify-new C]")
		}
		if len(pos) != 2 {
			return cli.UsageError(fs, "ocpgen: diff needs OLD and NEW snapshot files (or -git-base)")
		}
		if old, err = fileInput(pos[0], *classifyOld); err != nil {
			return err
		}
		if nw, err = fileInput(pos[1], *classifyNew); err != nil {
			return err
		}
	}

	r, err := gen.Diff(old, nw)
	if err != nil {
		r = gen.DiffFailed(old, nw, err)
	}
	switch *format {
	case "markdown":
		err = report.DiffMarkdown(stdout, r)
	case "json":
		err = r.WriteJSON(stdout)
	default:
		err = report.DiffText(stdout, r)
	}
	if err != nil {
		return fmt.Errorf("ocpgen: %w", err)
	}
	if why := problems(r); why != "" {
		return fmt.Errorf("ocpgen diff: %s", why)
	}
	if why := report.Fails(r, levels); why != "" {
		return cli.Findings("ocpgen diff: %s (-fail-on %s)", why, *failOn)
	}
	return nil
}

// problems returns a one-line account of a report's problems, "" when it
// has none. A report with problems makes diff exit 2 (trouble), as check
// and generate do on the same inputs.
func problems(r *gen.Report) string {
	n := len(r.Problems)
	switch {
	case !r.Compared:
		return fmt.Sprintf("%s: not compared, the inputs do not load (%d problem(s), listed in the report)", report.Title(r), n)
	case n > 0:
		return fmt.Sprintf("%s: %d problem(s) in the new side that generate and check fail on (listed in the report)", report.Title(r), n)
	}
	return ""
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments ("diff old.json new.json -format json"), and returns
// the positional arguments. After "--" everything is positional.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		before := len(args)
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, cli.ErrUsage
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at "--" (consumed) or at the first non-flag.
		if consumed := before - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// fileInput reads a snapshot and an optional classification file.
func fileInput(snapshot, classify string) (gen.Input, error) {
	in := gen.Input{SnapshotFile: snapshot, ClassifyFile: classify}
	var err error
	if in.Snapshot, err = readLimited(snapshot, gen.MaxSnapshotSize); err != nil {
		return in, err
	}
	if in.Snapshot == nil {
		in.Snapshot = []byte{}
	}
	if classify != "" {
		if in.Classify, err = readLimited(classify, gen.MaxClassificationSize); err != nil {
			return in, err
		}
		if in.Classify == nil {
			in.Classify = []byte{}
		}
	}
	return in, nil
}

// gitInputs reads the new side from the working tree and the old side from
// the files as committed at ref.
func gitInputs(ref, snapshot, classify string) (old, nw gen.Input, err error) {
	if nw, err = fileInput(snapshot, classify); err != nil {
		return old, nw, err
	}
	if strings.HasPrefix(ref, "-") {
		return old, nw, fmt.Errorf("ocpgen diff: -git-base %q is not a revision", ref)
	}
	old.SnapshotFile = ref + ":" + filepath.ToSlash(snapshot)
	if old.Snapshot, err = gitShow(ref, snapshot); err != nil {
		return old, nw, err
	}
	if classify != "" {
		old.ClassifyFile = ref + ":" + filepath.ToSlash(classify)
		if old.Classify, err = gitShow(ref, classify); err != nil {
			return old, nw, err
		}
	}
	return old, nw, nil
}

// gitShow returns the content of path (a file of the working tree) as
// committed at ref, or nil when the file does not exist at ref. git runs in
// the file's directory and the path is given as "./name", so it resolves
// relative to that directory wherever the repository root is.
func gitShow(ref, path string) ([]byte, error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	git := func(args ...string) ([]byte, error) {
		var out, errb bytes.Buffer
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			// git's first line says what went wrong; later ones are advice
			// for git's own command line.
			msg, _, _ := strings.Cut(strings.TrimSpace(errb.String()), "\n")
			if msg == "" {
				msg = "git " + strings.Join(args, " ") + ": " + err.Error()
			}
			return nil, errors.New(msg)
		}
		return out.Bytes(), nil
	}
	// git's own message comes first: "not a git repository", or "bad
	// revision" for a ref the repository lacks. The fetch-depth hint is
	// added only when it can be the cause: a shallow clone.
	if _, err := git("rev-parse", "--git-dir"); err != nil {
		return nil, fmt.Errorf("ocpgen diff: -git-base %s: %v (git -C %s, for %s)", ref, err, dir, path)
	}
	if _, err := git("rev-parse", ref+"^{commit}", "--"); err != nil {
		msg := fmt.Sprintf("ocpgen diff: -git-base %s: %v (in the repository holding %s)", ref, err, path)
		if out, _ := git("rev-parse", "--is-shallow-repository"); strings.TrimSpace(string(out)) == "true" {
			msg += "; the clone is shallow, so the revision may not have been fetched: fetch it first (in CI, actions/checkout with fetch-depth: 0)"
		}
		return nil, errors.New(msg)
	}
	id, err := git("rev-parse", "--verify", "--quiet", ref+":./"+name)
	if err != nil {
		return nil, nil // absent at ref: every tool is added
	}
	data, err := git("cat-file", "blob", strings.TrimSpace(string(id)))
	if err != nil {
		return nil, fmt.Errorf("ocpgen diff: %s at %s: %v", path, ref, err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}
