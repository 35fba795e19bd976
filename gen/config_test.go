package gen

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestConfigLoads(t *testing.T) {
	cfg, err := LoadConfig(filepath.Join("hub", "ocpgen.yaml"), []byte(`version: 1
servers:
  - snapshot: bridges/memory.tools.json
    classify: bridges/memory.ocp.yaml
    out: bridges/memoryocp
  - snapshot: /abs/fs.tools.json
    package: fsbridge
    out: ./bridges/../fs/out
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []ConfigServer{
		{Snapshot: filepath.FromSlash("hub/bridges/memory.tools.json"), Classify: filepath.FromSlash("hub/bridges/memory.ocp.yaml"), Package: "memoryocp", Out: filepath.FromSlash("hub/bridges/memoryocp")},
		{Snapshot: filepath.FromSlash("/abs/fs.tools.json"), Package: "fsbridge", Out: filepath.FromSlash("hub/fs/out")},
	}
	if len(cfg.Servers) != len(want) {
		t.Fatalf("servers: %+v", cfg.Servers)
	}
	for i, s := range cfg.Servers {
		s.Pos = want[i].Pos
		if s != want[i] {
			t.Errorf("server %d: got %+v, want %+v", i, s, want[i])
		}
	}
	if p := cfg.Servers[1].Pos; p.Line != 6 || p.Col != 5 {
		t.Errorf("position of server 1: %+v", p)
	}
}

// TestConfigErrors: every rule of the configuration file, each an error with
// the file's line and column.
func TestConfigErrors(t *testing.T) {
	const ok = "  - snapshot: a.tools.json\n    out: a\n"
	for _, tc := range []struct{ name, file, want string }{
		{"empty", "", "ocpgen.yaml: file is empty"},
		{"syntax", "version: 1\nservers: [\n", "ocpgen.yaml"},
		{"no version", "servers:\n" + ok, `ocpgen.yaml:1:1: missing "version: 1"`},
		{"version 2", "version: 2\nservers:\n" + ok, "ocpgen.yaml:1:10: version must be 1"},
		{"no servers", "version: 1\n", `ocpgen.yaml:1:1: missing "servers"`},
		{"servers empty", "version: 1\nservers: []\n", "ocpgen.yaml:2:10: servers is empty"},
		{"servers a mapping", "version: 1\nservers: {a: b}\n", "ocpgen.yaml:2:10: servers must be a list, got a mapping"},
		{"unknown top key", "version: 1\nserver:\n" + ok, `ocpgen.yaml:2:1: unknown key "server" (did you mean "servers"?)`},
		{"unknown key", "version: 1\nservers:\n  - snaphot: a.tools.json\n    out: a\n", `ocpgen.yaml:3:5: unknown key "snaphot" (did you mean "snapshot"?)`},
		{"duplicate key", "version: 1\nservers:\n  - snapshot: a.tools.json\n    out: a\n    out: b\n", `ocpgen.yaml:5:5: duplicate key "out" (first at line 4)`},
		{"no snapshot", "version: 1\nservers:\n  - out: a\n", `ocpgen.yaml:3:5: servers[0]: missing "snapshot"`},
		{"no out", "version: 1\nservers:\n  - snapshot: a.tools.json\n", `ocpgen.yaml:3:5: servers[0]: missing "out"`},
		{"empty out", "version: 1\nservers:\n  - snapshot: a.tools.json\n    out: \"\"\n", "ocpgen.yaml:4:10: servers[0].out is empty"},
		{"out a number", "version: 1\nservers:\n  - snapshot: a.tools.json\n    out: 12\n", "ocpgen.yaml:4:10: servers[0].out must be a string, got a number"},
		{"entry a string", "version: 1\nservers:\n  - a.tools.json\n", "ocpgen.yaml:3:5: servers[0] must be a mapping, got a string"},
		{"package main", "version: 1\nservers:\n  - snapshot: a.tools.json\n    package: main\n    out: a\n", "ocpgen.yaml:4:14: servers[0].package: the generated package cannot be package main"},
		{"bad package", "version: 1\nservers:\n  - snapshot: a.tools.json\n    package: my-pkg\n    out: a\n", `ocpgen.yaml:4:14: servers[0].package "my-pkg" is not a valid Go package name`},
		{"bad out name", "version: 1\nservers:\n  - snapshot: a.tools.json\n    out: x/my-pkg\n", `ocpgen.yaml:4:10: servers[0]: the package name taken from out (set package) "my-pkg" is not a valid Go package name`},
		{"same out", "version: 1\nservers:\n" + ok + "  - snapshot: b.tools.json\n    out: ./x/../a\n", `ocpgen.yaml:6:10: servers[1].out "./x/../a" is also the out of the server at line 3: two servers cannot write the same package`},
		{"alias", "version: 1\nservers:\n  - &s {snapshot: a.tools.json, out: a}\n  - *s\n", "ocpgen.yaml:4:5: alias *s: aliases are not allowed"},
		{"two documents", "version: 1\nservers:\n" + ok + "---\nversion: 1\n", "ocpgen.yaml:6:1: a second YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadConfig("ocpgen.yaml", []byte(tc.file))
			if err == nil || cfg != nil {
				t.Fatalf("no error (config %+v)", cfg)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

func TestConfigTooLarge(t *testing.T) {
	_, err := LoadConfig("ocpgen.yaml", make([]byte, MaxConfigSize+1))
	if err == nil || !strings.Contains(err.Error(), "over the limit") {
		t.Fatalf("got %v", err)
	}
}

func FuzzConfig(f *testing.F) {
	f.Add([]byte("version: 1\nservers:\n  - snapshot: a.tools.json\n    out: a\n"))
	f.Add([]byte("version: 1\nservers: [{snapshot: a, out: b, package: c, classify: d}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := LoadConfig("ocpgen.yaml", data)
		if (cfg == nil) == (err == nil) {
			t.Fatalf("config %v and error %v", cfg, err)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "ocpgen.yaml") {
			t.Fatalf("error does not name the file: %v", err)
		}
	})
}

// TestConfigOutsAreRealDirectories: two outs that name one directory
// through a symbolic link (of the directory, of a parent of a directory
// not created yet) are one package's, an error before anything is written;
// two outs that only look alike are not.
func TestConfigOutsAreRealDirectories(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"gen/a", "gen/b"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"gen/link": "a", "alias": "gen", "abs": filepath.Join(root, "gen", "b")} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	file := filepath.Join(root, "ocpgen.yaml")
	two := func(out1, out2 string) string {
		return "version: 1\nservers:\n  - snapshot: a.tools.json\n    out: " + out1 + "\n  - snapshot: b.tools.json\n    package: second\n    out: " + out2 + "\n"
	}
	for _, tc := range []struct{ out1, out2 string }{
		{"gen/a", "gen/link"},         // a link to the directory
		{"gen/link", "gen/a"},         // in either order
		{"gen/new", "alias/new"},      // a link to a parent; new does not exist
		{"alias/link/x", "gen/a/x"},   // both
		{"gen/b", "abs"},              // an absolute link
		{"gen/a", root + "/alias/a/"}, // an absolute out
	} {
		_, err := LoadConfig(file, []byte(two(tc.out1, tc.out2)))
		want := "ocpgen.yaml:7:10: servers[1].out " + strconv.Quote(tc.out2) + " is also the out of the server at line 3 ("
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "are one directory): two servers cannot write the same package") {
			t.Errorf("outs %s and %s: err = %v, want %q…", tc.out1, tc.out2, err, want)
		}
	}
	for _, tc := range []struct{ out1, out2 string }{
		{"gen/a", "gen/b"},
		{"gen/link/x", "gen/a/y"},
		{"gen/new", "alias/other"},
	} {
		if _, err := LoadConfig(file, []byte(two(tc.out1, tc.out2))); err != nil {
			t.Errorf("outs %s and %s: %v", tc.out1, tc.out2, err)
		}
	}
}
