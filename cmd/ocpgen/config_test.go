package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/cli"
)

// hubModule writes a module with two servers' inputs and an ocpgen.yaml
// listing them, and returns its root.
func hubModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":                      "module hub\n\ngo 1.26\n",
		"bridges/fs/fs.tools.json":    snapV1,
		"bridges/fs/fs.ocp.yaml":      classV1,
		"bridges/other/fs.tools.json": snapV1,
		"cmd/hub/main.go":             "package main\n",
		"ocpgen.yaml": `version: 1
servers:
  - snapshot: bridges/fs/fs.tools.json
    classify: bridges/fs/fs.ocp.yaml
    out: bridges/fs/fsocp
  - snapshot: bridges/other/fs.tools.json
    package: otherocp
    out: bridges/other/gen
`,
	})
	return root
}

// TestConfigGenerateCheck: generate with no flags finds ocpgen.yaml above
// the working directory and writes every server, paths relative to the
// file; check reads the same file.
func TestConfigGenerateCheck(t *testing.T) {
	t.Setenv("GITHUB_ACTIONS", "")
	root := hubModule(t)
	t.Chdir(filepath.Join(root, "cmd", "hub")) // as go generate runs a line in cmd/hub
	code, _, errs := ocpgen(t, "generate")
	if code != cli.ExitOK {
		t.Fatalf("generate: exit %d\n%s", code, errs)
	}
	for _, f := range []string{"bridges/fs/fsocp/catalogue.go", "bridges/other/gen/catalogue.go"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Errorf("not written: %v", err)
		}
		if want := "wrote " + filepath.Join("..", "..", filepath.FromSlash(f)); !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	src, _ := os.ReadFile(filepath.Join(root, "bridges/other/gen/catalogue.go"))
	if !strings.Contains(string(src), "package otherocp") {
		t.Errorf("package: %.200s", src)
	}
	// The second server has no classification file: generate says so.
	if !strings.Contains(errs, "fs.tools.json: warning:") {
		t.Errorf("no warning for the unclassified server:\n%s", errs)
	}
	// Each server has a line when its package is done: its directory,
	// package, tools and time (in the order they finish).
	done := regexp.MustCompile(`(?m)^generated (\S+) \(package (\w+)\): (\d+) tools, in [0-9.]+(ns|µs|ms|s)$`)
	var lines []string
	for _, m := range done.FindAllStringSubmatch(errs, -1) {
		lines = append(lines, m[1]+" "+m[2]+" "+m[3])
	}
	slices.Sort(lines)
	fsOut, otherOut := filepath.Join("..", "..", "bridges", "fs", "fsocp"), filepath.Join("..", "..", "bridges", "other", "gen")
	if want := []string{fsOut + " fsocp 2", otherOut + " otherocp 2"}; !slices.Equal(lines, want) {
		t.Errorf("progress lines %q, want %q, in:\n%s", lines, want, errs)
	}
	// -q: warnings only, no line per server or file.
	code, _, errs = ocpgen(t, "generate", "-q")
	if code != cli.ExitOK || strings.Contains(errs, "generated ") || strings.Contains(errs, "wrote ") || !strings.Contains(errs, "fs.tools.json: warning:") {
		t.Errorf("generate -q: exit %d\n%s", code, errs)
	}

	code, out, errs := ocpgen(t, "check")
	if code != cli.ExitOK || strings.Count(out, "is up to date") != 2 {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	// -strict: the server without a classification has findings.
	code, _, errs = ocpgen(t, "check", "-strict")
	if code != cli.ExitFindings || !strings.Contains(errs, "1 of 2 servers in ../../ocpgen.yaml have findings") {
		t.Fatalf("check -strict: exit %d\n%s", code, errs)
	}

	// A stale package is a finding; generate -config repairs it.
	stale := filepath.Join(root, "bridges/fs/fsocp/catalogue.go")
	if err := os.WriteFile(stale, append(src, "// edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(root)
	if code, out, errs := ocpgen(t, "check", "-config", "ocpgen.yaml"); code != cli.ExitFindings || !strings.Contains(out, "out of date") {
		t.Fatalf("stale: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := ocpgen(t, "generate", "-config", "ocpgen.yaml"); code != cli.ExitOK || !strings.Contains(errs, "wrote "+filepath.FromSlash("bridges/fs/fsocp/catalogue.go")) {
		t.Fatalf("regenerate: exit %d\n%s", code, errs)
	}
	if code, out, errs := ocpgen(t, "check"); code != cli.ExitOK {
		t.Fatalf("after regenerate: exit %d\n%s%s", code, out, errs)
	}
}

// TestConfigNothingWritten: when one server fails, no server is written.
func TestConfigNothingWritten(t *testing.T) {
	root := hubModule(t)
	t.Chdir(root)

	// An input that does not load: the error names its file, nothing written.
	writeFiles(t, root, map[string]string{"bridges/other/fs.tools.json": "{\"tools\": [}"})
	code, _, errs := ocpgen(t, "generate")
	if code != cli.ExitTrouble || !strings.Contains(errs, filepath.FromSlash("bridges/other/fs.tools.json")+":") ||
		!strings.Contains(errs, "1 of 2 servers in ocpgen.yaml did not generate; nothing was written") {
		t.Fatalf("bad snapshot: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "bridges/fs/fsocp")); !os.IsNotExist(err) {
		t.Errorf("the good server was written: %v", err)
	}

	// A missing file: named with the server's line in ocpgen.yaml.
	os.Remove(filepath.Join(root, "bridges/other/fs.tools.json"))
	code, _, errs = ocpgen(t, "generate")
	if code != cli.ExitTrouble || !strings.Contains(errs, "ocpgen.yaml:6:5: ocpgen: open "+filepath.FromSlash("bridges/other/fs.tools.json")) {
		t.Fatalf("missing snapshot: exit %d\n%s", code, errs)
	}

	// A file ocpgen did not write in the second output: nothing written.
	writeFiles(t, root, map[string]string{
		"bridges/other/fs.tools.json":    snapV1,
		"bridges/other/gen/catalogue.go": "package otherocp // hand-written\n",
	})
	code, _, errs = ocpgen(t, "generate")
	if code != cli.ExitTrouble || !strings.Contains(errs, "was not written by ocpgen") || !strings.Contains(errs, "nothing was written") {
		t.Fatalf("foreign file: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(root, "bridges/fs/fsocp")); !os.IsNotExist(err) {
		t.Errorf("the first server was written: %v", err)
	}
}

// TestConfigOutThroughALink: a second out that is the first's directory
// through a symbolic link is refused before anything is written; the
// second package used to replace the first.
func TestConfigOutThroughALink(t *testing.T) {
	root := hubModule(t)
	t.Chdir(root)
	if code, _, errs := ocpgen(t, "generate"); code != cli.ExitOK {
		t.Fatalf("generate: exit %d\n%s", code, errs)
	}
	first := filepath.Join(root, "bridges/fs/fsocp/catalogue.go")
	before, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "bridges/other/gen")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "fs", "fsocp"), filepath.Join(root, "bridges/other/gen")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	code, _, errs := ocpgen(t, "generate")
	if code != cli.ExitTrouble || !strings.Contains(errs, `ocpgen.yaml:8:10: servers[1].out "bridges/other/gen" is also the out of the server at line 3`) {
		t.Fatalf("generate through a link: exit %d\n%s", code, errs)
	}
	if after, _ := os.ReadFile(first); string(after) != string(before) {
		t.Errorf("the first package was rewritten:\n%.300s", after)
	}
}

// TestConfigNotFoundAndUsage: the search stops at the module root; -config
// does not go with the flags naming one server.
func TestConfigNotFoundAndUsage(t *testing.T) {
	outer := t.TempDir()
	writeFiles(t, outer, map[string]string{
		"ocpgen.yaml": "version: 1\nservers: [{snapshot: x.tools.json, out: x}]\n", // outside the module
		"mod/go.mod":  "module hub\n\ngo 1.26\n",
	})
	t.Chdir(filepath.Join(outer, "mod"))
	for _, cmd := range []string{"generate", "check"} {
		code, _, errs := ocpgen(t, cmd)
		if code != cli.ExitTrouble || !strings.Contains(errs, "no ocpgen.yaml in") || !strings.Contains(errs, "-config") {
			t.Errorf("%s without a config: exit %d\n%s", cmd, code, errs)
		}
	}
	for _, args := range [][]string{
		{"generate", "-config", "ocpgen.yaml", "-snapshot", "x"},
		{"check", "-config", "ocpgen.yaml", "-out", "x"},
		{"diff", "-config", "ocpgen.yaml"},
		{"diff", "-git-base", "HEAD", "-config", "ocpgen.yaml", "-snapshot", "x"},
	} {
		code, _, errs := ocpgen(t, args...)
		if code != cli.ExitTrouble || !strings.Contains(errs, "-config") || !strings.Contains(errs, "usage:") {
			t.Errorf("%v: exit %d\n%s", args, code, errs)
		}
	}
	writeFiles(t, ".", map[string]string{"bad.yaml": "version: 1\nservers:\n  - snapshot: a\n    outt: b\n"})
	code, _, errs := ocpgen(t, "generate", "-config", "bad.yaml")
	if code != cli.ExitTrouble || !strings.Contains(errs, `bad.yaml:4:5: unknown key "outt" (did you mean "out"?)`) {
		t.Errorf("bad config: exit %d\n%s", code, errs)
	}
}

// TestConfigDiffGitBase: diff -git-base with no -snapshot reports every
// server of ocpgen.yaml, and -fail-on applies to each.
func TestConfigDiffGitBase(t *testing.T) {
	needGit(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	root := hubModule(t)
	gitRun(t, root, "init", "-q")
	gitRun(t, root, "add", ".")
	gitRun(t, root, "commit", "-q", "-m", "one")
	writeFiles(t, root, map[string]string{"bridges/fs/fs.tools.json": snapV2, "bridges/fs/fs.ocp.yaml": classV2})
	t.Chdir(filepath.Join(root, "bridges"))

	code, out, errs := ocpgen(t, "diff", "-git-base", "HEAD", "-fail-on", "security")
	if code != cli.ExitFindings || !strings.Contains(errs, "1 of 2 servers reach -fail-on security: "+filepath.FromSlash("../bridges/fs/fs.tools.json")) {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if strings.Count(out, "ocpgen diff: ") != 2 || strings.Count(out, "\nHEAD:") != 2 || !strings.Contains(out, "+ stat_file (added") || !strings.Contains(out, "no changes (2 tools unchanged)") {
		t.Errorf("reports:\n%s", out)
	}
	code, out, errs = ocpgen(t, "diff", "-git-base", "HEAD", "-format", "json")
	if code != cli.ExitOK || !strings.HasPrefix(out, "[\n  {") || strings.Count(out, `"snapshot": "HEAD:`) != 2 {
		t.Errorf("json: exit %d %s\n%.300s", code, errs, out)
	}
}

// TestConfigDiffReportsEachServer is issue 29's multi-server review: each
// Markdown report is headed with its server and files; a server whose
// classification does not load is reported as trouble in its place, the
// others are still compared, and the exit status is 2.
func TestConfigDiffReportsEachServer(t *testing.T) {
	needGit(t)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	root := hubModule(t)
	named := strings.Replace(snapV1, `{"tools"`, `{"server": {"name": "other-server", "version": "2.0"}, "tools"`, 1)
	writeFiles(t, root, map[string]string{"bridges/other/fs.tools.json": named})
	gitRun(t, root, "init", "-q")
	gitRun(t, root, "add", ".")
	gitRun(t, root, "commit", "-q", "-m", "one")
	// The first server's classification breaks; the second's snapshot changes.
	writeFiles(t, root, map[string]string{
		"bridges/fs/fs.ocp.yaml":      strings.Replace(classV1, "read_file: {access: read}", "read_file: {acess: read}", 1),
		"bridges/other/fs.tools.json": strings.Replace(named, "Read a file.", "Read any file.", 1),
	})
	t.Chdir(root)

	code, out, errs := ocpgen(t, "diff", "-git-base", "HEAD", "-format", "markdown")
	if code != cli.ExitTrouble || !strings.Contains(errs, "1 of 2 servers in ocpgen.yaml have problems") {
		t.Errorf("exit %d, stderr %s", code, errs)
	}
	reports := strings.Split(out, "### ocpgen diff: ")
	if len(reports) != 3 || reports[0] != "" {
		t.Fatalf("want two reports, each headed \"### ocpgen diff: \":\n%s", out)
	}
	broken, other := reports[1], reports[2]
	for _, want := range []string{
		"`bridges/fs/fs.tools.json`\n",
		"`HEAD:bridges/fs/fs.tools.json` + `HEAD:bridges/fs/fs.ocp.yaml` → `bridges/fs/fs.tools.json` + `bridges/fs/fs.ocp.yaml`",
		"**Not compared: the inputs do not load.",
		`- bridges/fs/fs.ocp.yaml:6:15: unknown key "acess" (did you mean "access"?)`,
	} {
		if !strings.Contains(broken, want) {
			t.Errorf("the broken server's report lacks %q:\n%s", want, broken)
		}
	}
	for _, want := range []string{
		"server `other-server 2.0`\n",
		"`HEAD:bridges/other/fs.tools.json` (no classification) → `bridges/other/fs.tools.json` (no classification)",
		"| `read_file` | changed |",
	} {
		if !strings.Contains(other, want) {
			t.Errorf("the other server's report lacks %q:\n%s", want, other)
		}
	}
	if strings.Contains(other, "Not compared") || strings.Contains(other, "Problems") {
		t.Errorf("the other server's report has problems:\n%s", other)
	}

	code, out, _ = ocpgen(t, "diff", "-git-base", "HEAD", "-format", "json")
	var rs []struct {
		Compared bool
		New      struct{ Server, Snapshot string }
		Problems []struct{ Message string }
		Tools    []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(out), &rs); err != nil || code != cli.ExitTrouble {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	if len(rs) != 2 || rs[0].Compared || len(rs[0].Problems) == 0 || rs[0].New.Snapshot != "bridges/fs/fs.tools.json" ||
		!rs[1].Compared || rs[1].New.Server != "other-server 2.0" || len(rs[1].Tools) != 1 {
		t.Errorf("json reports: %+v", rs)
	}
}
