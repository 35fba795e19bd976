package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/gen/report"
	"github.com/ocpgen/ocpgen/internal/cli"
)

func cmdCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", "-snapshot FILE [-classify FILE] [-package NAME] -out DIR [-strict]\n       ocpgen check [-config FILE] [-strict]", stderr)
	config := fs.String("config", "", "configuration file listing every server (default: "+gen.ConfigFile+" in this directory or a parent, up to the module root)")
	snapshot := fs.String("snapshot", "", "snapshot of the server's tools/list (NAME.tools.json)")
	classify := fs.String("classify", "", "classification file (NAME.ocp.yaml)")
	pkg := fs.String("package", "", "Go package name (default: the committed files' package, else the -out directory's name; never main)")
	out := fs.String("out", "", "directory of the committed generated package")
	strict := fs.Bool("strict", false, "fail on a tool the classification does not list, and without a classification file")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if useConfig, err := configMode(fs, *config, "snapshot", "classify", "package", "out"); err != nil || useConfig {
		if err != nil {
			return err
		}
		return checkConfig(*config, *strict, stdout, stderr)
	}
	if err := cli.Missing(fs, "snapshot", "out"); err != nil {
		return err
	}
	return checkOne(*snapshot, *classify, *pkg, *out, *strict, stdout)
}

// checkOne checks one server's committed package in out.
func checkOne(snapshot, classify, name, out string, strict bool, stdout io.Writer) error {
	dir := out
	if abs, err := filepath.Abs(dir); err == nil && filepath.Base(dir) == "." {
		dir = filepath.Base(abs) // name "." after the directory, for messages
	}
	in, err := readInputs(snapshot, classify)
	if err != nil {
		return err
	}
	annotate := os.Getenv("GITHUB_ACTIONS") == "true"
	res, err := gen.Check(in, gen.CheckOptions{Package: name, Dir: filepath.ToSlash(out), Strict: strict}, os.DirFS(out))
	if err != nil {
		if annotate {
			for _, a := range report.Annotations(err) {
				fmt.Fprintln(stdout, a)
			}
		}
		return err
	}
	if err := report.CheckText(stdout, res, filepath.ToSlash(dir), "go generate (or ocpgen generate)"); err != nil {
		return err
	}
	if annotate {
		for _, a := range report.CheckAnnotations(res) {
			fmt.Fprintln(stdout, a)
		}
	}
	if !res.OK() {
		var why []string
		if len(res.Files) > 0 {
			why = append(why, fmt.Sprintf("%d generated file(s) out of date", len(res.Files)))
		}
		if n := len(res.Diagnostics.Errors()); n > 0 {
			why = append(why, fmt.Sprintf("%d classification error(s)", n))
		}
		return cli.Findings("ocpgen check: %s", strings.Join(why, ", "))
	}
	return nil
}
