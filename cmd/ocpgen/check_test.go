package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/cli"
)

// checkSetup writes the inputs into a temporary working directory and
// generates the bridge into out/ with "ocpgen generate".
func checkSetup(t *testing.T, class string) {
	t.Helper()
	t.Chdir(t.TempDir())
	writeFiles(t, ".", map[string]string{"fs.tools.json": snapV1, "fs.ocp.yaml": class})
	if code, _, errs := ocpgen(t, "generate", "-snapshot", "fs.tools.json", "-classify", "fs.ocp.yaml", "-package", "fsbridge", "-out", "out"); code != cli.ExitOK {
		t.Fatalf("generate: exit %d: %s", code, errs)
	}
}

func TestCheckUpToDateAndStale(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	checkSetup(t, classV1)
	args := []string{"check", "-snapshot", "fs.tools.json", "-classify", "fs.ocp.yaml", "-out", "out", "-strict"}
	code, out, errs := ocpgen(t, args...)
	if code != cli.ExitOK || !strings.Contains(out, "out is up to date") {
		t.Fatalf("fresh: exit %d\n%s%s", code, out, errs)
	}

	// The snapshot changes but nobody regenerates.
	writeFiles(t, ".", map[string]string{"fs.tools.json": snapV2})
	code, out, errs = ocpgen(t, args...)
	if code != cli.ExitFindings {
		t.Fatalf("stale: exit %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{
		"out is out of date",
		"stale    out/delete_file.go",
		"missing  out/stat_file.go",
		"--- a/out/delete_file.go",
		"+++ b/out/stat_file.go",
		`fs.ocp.yaml: tool "stat_file": not classified`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "generated file(s) out of date, 1 classification error(s)") {
		t.Errorf("stderr: %s", errs)
	}
	if strings.Contains(out, "::error") {
		t.Errorf("annotations outside GitHub Actions:\n%s", out)
	}

	// In GitHub Actions, the same findings become annotations.
	t.Setenv("GITHUB_ACTIONS", "true")
	_, out, _ = ocpgen(t, args...)
	for _, want := range []string{
		"::error file=out/delete_file.go,line=",
		",title=ocpgen check::generated file is stale: run go generate",
		"::error file=out/stat_file.go,line=1,",
		`::error file=fs.ocp.yaml,title=ocpgen::tool "stat_file": not classified`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("annotations lack %q:\n%s", want, out)
		}
	}

	// Without -strict the unlisted tool is a warning, and only the files fail.
	_, out, _ = ocpgen(t, "check", "-snapshot", "fs.tools.json", "-classify", "fs.ocp.yaml", "-out", "out")
	if !strings.Contains(out, "::warning file=fs.ocp.yaml,title=ocpgen::tool \"stat_file\"") {
		t.Errorf("non-strict: no warning annotation:\n%s", out)
	}
}

func TestCheckInputErrors(t *testing.T) {
	checkSetup(t, classV1)
	t.Setenv("GITHUB_ACTIONS", "true")
	writeFiles(t, ".", map[string]string{"bad.ocp.yaml": "version: 1\ntiers: [member]\ndefault: {tier: member}\ntools:\n  read_file: {acess: read}\n"})
	code, out, errs := ocpgen(t, "check", "-snapshot", "fs.tools.json", "-classify", "bad.ocp.yaml", "-out", "out")
	if code != cli.ExitTrouble || !strings.Contains(errs, "bad.ocp.yaml:5:") || !strings.Contains(out, "::error file=bad.ocp.yaml,line=5,col=") {
		t.Errorf("bad classification: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"check", "-out", "out"}, cli.ExitTrouble, "-snapshot is required"},
		{[]string{"check", "-snapshot", "fs.tools.json"}, cli.ExitTrouble, "-out is required"},
		{[]string{"check", "-snapshot", "nope.json", "-out", "out"}, cli.ExitTrouble, "nope.json"},
	} {
		code, out, errs := ocpgen(t, tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.msg) {
			t.Errorf("%q: exit %d, %s%s", tc.args, code, out, errs)
		}
	}
	// A directory that does not exist: every file is missing.
	code, out, _ = ocpgen(t, "check", "-snapshot", "fs.tools.json", "-classify", "fs.ocp.yaml", "-package", "fsbridge", "-out", "elsewhere")
	if code != cli.ExitFindings || !strings.Contains(out, "missing  elsewhere/catalogue.go") {
		t.Errorf("absent directory: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join("elsewhere")); err == nil {
		t.Error("check created the directory")
	}
}
