package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/gen/report"
	"github.com/ocpgen/ocpgen/internal/cli"
	"github.com/ocpgen/ocpgen/internal/outdir"
	"github.com/ocpgen/ocpgen/internal/par"
)

// findConfig looks for ocpgen.yaml in the working directory and its parents,
// up to the module root (the first directory holding a go.mod) or the file
// system's root. The path it returns is relative to the working directory
// ("ocpgen.yaml", "../../ocpgen.yaml"), so that the paths the file resolves
// to, and the messages naming them, are too.
func findConfig() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("ocpgen: %w", err)
	}
	rel := ""
	for dir := wd; ; dir = filepath.Dir(dir) {
		p := filepath.Join(rel, gen.ConfigFile)
		if _, err := os.Stat(filepath.Join(dir, gen.ConfigFile)); err == nil {
			return p, nil
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("ocpgen: %w", err)
		}
		_, modErr := os.Stat(filepath.Join(dir, "go.mod"))
		if modErr == nil || filepath.Dir(dir) == dir {
			return "", fmt.Errorf("ocpgen: no %s in %s or its parents up to %s; name the server with -snapshot and -out, or the file with -config",
				gen.ConfigFile, wd, dir)
		}
		rel = filepath.Join(rel, "..")
	}
}

// loadConfig reads the configuration file named by -config, or found by
// findConfig when that is "".
func loadConfig(file string) (*gen.Config, error) {
	if file == "" {
		var err error
		if file, err = findConfig(); err != nil {
			return nil, err
		}
	}
	data, err := readLimited(file, gen.MaxConfigSize)
	if err != nil {
		return nil, err
	}
	return gen.LoadConfig(file, data)
}

// at prefixes err with the configuration file's position of server s, for
// errors (a file that cannot be read) that do not name a line of their own.
func at(cfg *gen.Config, s gen.ConfigServer, err error) error {
	return fmt.Errorf("%s:%d:%d: %w", cfg.File, s.Pos.Line, s.Pos.Col, err)
}

// eachServer runs f on every server of cfg, on all CPUs, and returns its
// results in the file's order.
func eachServer[T any](cfg *gen.Config, f func(gen.ConfigServer) T) []T {
	out := make([]T, len(cfg.Servers))
	par.Each(len(cfg.Servers), func(i int) { out[i] = f(cfg.Servers[i]) })
	return out
}

// generateConfig regenerates every server of the configuration file in one
// process. Every package is generated in memory first; if any fails, nothing
// is written. Then every output directory is checked for files ocpgen did
// not write; if one has such a file, nothing is written. Then the packages
// are written in the file's order, each all or nothing (outdir.Write): a
// failure there (a full disk) leaves the packages before it written, it and
// those after it as they were, and is reported with the list.
//
// Each server's line (generated) goes to progress as its package is done,
// in the order they finish; the files written follow at the end.
func generateConfig(file string, stderr, progress io.Writer) error {
	cfg, err := loadConfig(file)
	if err != nil {
		return err
	}
	type result struct {
		res *gen.Result
		err error
	}
	var mu sync.Mutex // progress lines from the servers' goroutines
	results := eachServer(cfg, func(s gen.ConfigServer) result {
		start := time.Now()
		in, err := readInputs(s.Snapshot, s.Classify)
		if err != nil {
			return result{err: at(cfg, s, err)}
		}
		res, err := gen.Generate(in, gen.Options{Package: s.Package})
		if err == nil {
			mu.Lock()
			fmt.Fprintln(progress, generated(s.Out, s.Package, res, time.Since(start)))
			mu.Unlock()
		}
		return result{res, err}
	})
	failed := 0
	for _, r := range results {
		if r.res != nil {
			for _, d := range r.res.Diagnostics {
				fmt.Fprintln(stderr, d)
			}
		}
		if r.err != nil {
			fmt.Fprintln(stderr, r.err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("ocpgen: %d of %d servers in %s did not generate; nothing was written", failed, len(results), cfg.File)
	}
	for i, s := range cfg.Servers {
		if _, _, _, err := outdir.Plan(s.Out, results[i].res.Files); err != nil {
			return fmt.Errorf("ocpgen: %w; nothing was written", at(cfg, s, err))
		}
	}
	for i, s := range cfg.Servers {
		ch, err := outdir.Write(s.Out, results[i].res.Files)
		if err != nil {
			return fmt.Errorf("ocpgen: %w; the %d package(s) before it were written, it and the %d after it were left as they were",
				at(cfg, s, err), i, len(cfg.Servers)-i-1)
		}
		reportWritten(progress, s.Out, ch)
	}
	return nil
}

// checkConfig checks every server of the configuration file, on all CPUs,
// and prints the reports in the file's order. Its error is trouble when a
// server could not be checked, else findings when one is stale or its
// classification fails the lint.
func checkConfig(file string, strict bool, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(file)
	if err != nil {
		return err
	}
	type checked struct {
		out bytes.Buffer
		err error
	}
	results := eachServer(cfg, func(s gen.ConfigServer) *checked {
		c := new(checked)
		if c.err = checkOne(s.Snapshot, s.Classify, s.Package, s.Out, strict, &c.out); c.err != nil {
			var f *cli.FindingsError
			if !errors.As(c.err, &f) {
				c.err = at(cfg, s, c.err)
			}
		}
		return c
	})
	trouble, found := 0, 0
	for _, c := range results {
		if _, err := stdout.Write(c.out.Bytes()); err != nil {
			return fmt.Errorf("ocpgen: %w", err)
		}
		var f *cli.FindingsError
		switch {
		case c.err == nil:
		case errors.As(c.err, &f):
			found++
			fmt.Fprintln(stderr, c.err)
		default:
			trouble++
			fmt.Fprintln(stderr, c.err)
		}
	}
	if trouble > 0 {
		return fmt.Errorf("ocpgen check: %d of %d servers in %s could not be checked", trouble, len(results), cfg.File)
	}
	if found > 0 {
		return cli.Findings("ocpgen check: %d of %d servers in %s have findings", found, len(results), cfg.File)
	}
	return nil
}

// diffConfig compares every server of the configuration file with its files
// at the git revision base, and writes one report per server in the file's
// order (with -format json, a JSON array of them). -fail-on applies to each.
// A server that cannot be compared (its files cannot be read, or do not
// load) gets gen.DiffFailed's report in its place, and the others are still
// compared; then, as when a report has problems, the error is trouble.
func diffConfig(file, base, format string, levels report.FailOn, failOn string, stdout io.Writer) error {
	cfg, err := loadConfig(file)
	if err != nil {
		return err
	}
	var reports []*gen.Report
	var fails, troubles []string
	for _, s := range cfg.Servers {
		old, nw, err := gitInputs(base, s.Snapshot, s.Classify)
		var r *gen.Report
		if err == nil {
			r, err = gen.Diff(old, nw)
		}
		if err != nil {
			if old.SnapshotFile == "" {
				old = gen.Input{SnapshotFile: base + ":" + filepath.ToSlash(s.Snapshot)}
				if s.Classify != "" {
					old.ClassifyFile = base + ":" + filepath.ToSlash(s.Classify)
				}
			}
			if nw.SnapshotFile == "" {
				nw = gen.Input{SnapshotFile: s.Snapshot, ClassifyFile: s.Classify}
			}
			if _, ok := errors.AsType[gen.Diagnostics](err); !ok {
				err = at(cfg, s, err)
			}
			r = gen.DiffFailed(old, nw, err)
		}
		reports = append(reports, r)
		if why := problems(r); why != "" {
			troubles = append(troubles, why)
		} else if why := report.Fails(r, levels); why != "" {
			fails = append(fails, fmt.Sprintf("%s: %s", s.Snapshot, why))
		}
	}
	var b bytes.Buffer
	if format == "json" {
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err = enc.Encode(reports)
	}
	for i, r := range reports {
		if format == "json" {
			break
		}
		if i > 0 {
			b.WriteString("\n")
		}
		if format == "markdown" {
			err = report.DiffMarkdown(&b, r)
		} else {
			err = report.DiffText(&b, r)
		}
		if err != nil {
			break
		}
	}
	if err == nil {
		_, err = stdout.Write(b.Bytes())
	}
	if err != nil {
		return fmt.Errorf("ocpgen: %w", err)
	}
	if len(troubles) > 0 {
		return fmt.Errorf("ocpgen diff: %d of %d servers in %s have problems: %s", len(troubles), len(reports), cfg.File, strings.Join(troubles, "; "))
	}
	if len(fails) > 0 {
		return cli.Findings("ocpgen diff: %d of %d servers reach -fail-on %s: %s", len(fails), len(reports), failOn, strings.Join(fails, "; "))
	}
	return nil
}
