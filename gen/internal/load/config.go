package load

import (
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ocpgen/ocpgen/gen/internal/diag"
)

// MaxConfigSize is the largest configuration file (ocpgen.yaml) read.
const MaxConfigSize = 1 << 20

// The keys of the configuration file; any other is an error.
var (
	configTopKeys    = []string{"version", "servers"}
	configServerKeys = []string{"snapshot", "classify", "package", "out"}
)

// Config is a module's configuration file (ocpgen.yaml): every server whose
// bridge package ocpgen generates.
type Config struct {
	File    string
	Servers []ConfigServer
}

// ConfigServer is one entry of the configuration file. Paths are resolved
// against the configuration file's directory (absolute ones are kept) and
// cleaned; Package is the entry's package or, without one, the name of Out's
// last element.
type ConfigServer struct {
	Pos      Pos
	Snapshot string
	Classify string // "" without a classification file
	Package  string
	Out      string
}

// LoadConfig parses a configuration file:
//
//	version: 1
//	servers:
//	  - snapshot: internal/memory/memory.tools.json   # required
//	    classify: internal/memory/memory.ocp.yaml     # optional
//	    package: memoryocp                            # optional: out's name
//	    out: internal/memory/memoryocp                # required
//
// Paths are relative to the file's directory, written with "/". Unknown and
// duplicate keys, wrong types, a missing snapshot or out, an invalid package
// name and two servers with the same out are errors with the file's line and
// column. Two outs are the same when they are one directory on disk: the
// existing part of each is resolved through its symbolic links (and two
// existing directories are compared with os.SameFile), so gen/link, a link
// to gen/a, is gen/a's out. When the list holds an error the returned
// config is nil.
func LoadConfig(file string, data []byte) (*Config, diag.List) {
	l := &classLoader{file: file}
	if len(data) > MaxConfigSize {
		l.errorf(nil, "file is %d bytes, over the limit of %d MiB", len(data), MaxConfigSize>>20)
		return nil, l.diags
	}
	c := l.config(data)
	if len(l.diags) > 0 {
		return nil, l.diags
	}
	return c, nil
}

func (l *classLoader) config(data []byte) *Config {
	root := l.document(data)
	if root == nil {
		return nil
	}
	top, ok := l.versioned(root, configTopKeys)
	if !ok {
		return nil
	}
	if f, ok := top["version"]; ok {
		l.version(f.val)
	}
	f, ok := top["servers"]
	if !ok {
		l.errorf(root, "missing \"servers\": list the servers, each with snapshot and out")
		return nil
	}
	items, ok := l.list(f.val, "servers")
	if !ok {
		return nil
	}
	if len(items) == 0 {
		l.errorf(f.val, "servers is empty: list at least one")
		return nil
	}
	c := &Config{File: l.file}
	dir := filepath.Dir(l.file)
	type outDir struct {
		out  string      // as resolved against dir
		info fs.FileInfo // nil if it does not exist yet
		pos  Pos
	}
	outs := map[string]outDir{} // by realDir
	var existing []outDir       // the outs that exist, for os.SameFile
	for i, it := range items {
		what := fmt.Sprintf("servers[%d]", i)
		m, ok := l.fields(it, what, configServerKeys)
		if !ok {
			continue
		}
		s := ConfigServer{Pos: posOf(it)}
		resolve := func(key string, required bool) string {
			f, ok := m[key]
			if !ok {
				if required {
					l.errorf(it, "%s: missing %q", what, key)
				}
				return ""
			}
			p, ok := l.str(f.val, what+"."+key)
			if !ok {
				return ""
			}
			if p == "" {
				l.errorf(f.val, "%s.%s is empty", what, key)
				return ""
			}
			if strings.ContainsRune(p, 0) {
				l.errorf(f.val, "%s.%s contains a NUL byte", what, key)
				return ""
			}
			p = filepath.FromSlash(p)
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			return filepath.Clean(p)
		}
		s.Snapshot = resolve("snapshot", true)
		s.Classify = resolve("classify", false)
		s.Out = resolve("out", true)
		if f, ok := m["package"]; ok {
			if name, ok := l.str(f.val, what+".package"); ok {
				if l.packageName(f.val, name, what+".package") {
					s.Package = name
				}
			}
		} else if s.Out != "" {
			name := filepath.Base(s.Out)
			if l.packageName(m["out"].val, name, what+": the package name taken from out (set package)") {
				s.Package = name
			}
		}
		if s.Out != "" {
			real, info := realDir(s.Out)
			od := outDir{s.Out, info, s.Pos}
			prev, dup := outs[real]
			for _, o := range existing {
				if !dup && info != nil && os.SameFile(info, o.info) {
					prev, dup = o, true
				}
			}
			if dup {
				also := ""
				if prev.out != s.Out {
					also = fmt.Sprintf(" (%s and %s are one directory)", prev.out, s.Out)
				}
				l.errorf(m["out"].val, "%s.out %q is also the out of the server at line %d%s: two servers cannot write the same package", what, m["out"].val.Value, prev.pos.Line, also)
				continue
			}
			outs[real] = od
			if info != nil {
				existing = append(existing, od)
			}
		}
		c.Servers = append(c.Servers, s)
	}
	return c
}

// packageName reports, at n, a name that cannot be a generated package's.
func (l *classLoader) packageName(n *yaml.Node, name, what string) bool {
	switch {
	case name == "main":
		l.errorf(n, "%s: the generated package cannot be package main (Hub code imports it)", what)
		return false
	case !token.IsIdentifier(name):
		l.errorf(n, "%s %q is not a valid Go package name", what, name)
		return false
	}
	return true
}

// realDir is the directory that writing to out would write to: the longest
// prefix of out that exists with its symbolic links resolved, joined with
// the rest of out, and the directory's FileInfo if it exists. Two outs that
// differ only by a symbolic link (gen/link → gen/a) or by the link of a
// parent have one realDir; two that name one directory by other means (a
// bind mount, a case-insensitive file system) have FileInfos that
// os.SameFile matches.
func realDir(out string) (string, fs.FileInfo) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return out, nil
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			real := filepath.Join(r, rest)
			info, err := os.Stat(real)
			if err != nil || !info.IsDir() {
				info = nil
			}
			return real, info
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}
