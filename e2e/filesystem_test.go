package e2e_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// TestFilesystemPipeline snapshots the real, pinned
// @modelcontextprotocol/server-filesystem, pointed at a temporary
// directory, twice (byte for byte the same), writes the init skeleton for it,
// generates the bridge package from the two and compiles it. With the
// skeleton unedited, every generated tool is a write.
func TestFilesystemPipeline(t *testing.T) {
	endToEnd(t)
	srv := npmServer(t, "server-filesystem")
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(root, " \t\"'") {
		t.Fatalf("temp dir %q needs quoting on the -command line", root)
	}
	command := "node " + srv.entry + " " + root

	in := t.TempDir()
	first, second := filepath.Join(in, "filesystem.tools.json"), filepath.Join(tmp, "second.tools.json")
	a := snapshotTwice(t, nil, first, second, "-command", command)
	snap := parseSnapshot(t, "snapshot", a)
	tools := toolNames(t, snap)
	// A few tools every recent server-filesystem has; the generated
	// package is checked against the snapshot's full list below.
	for _, want := range []string{"list_allowed_directories", "read_text_file", "write_file"} {
		if !slices.Contains(tools, want) {
			t.Fatalf("the server does not list %s: %v", want, tools)
		}
	}
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 1 {
		t.Fatalf("listing the tools changed the served directory: %v, %v", entries, err)
	}

	skel := filepath.Join(in, "filesystem.ocp.yaml")
	runOcpgen(t, in, nil, "init", "-snapshot", "filesystem.tools.json", "-o", skel)

	out := filepath.Join(genDir(t), "filesystemocp")
	runOcpgen(t, in, nil, "generate", "-snapshot", "filesystem.tools.json", "-classify", "filesystem.ocp.yaml", "-package", "filesystemocp", "-out", out)
	goBuild(t, out)
	gofmtClean(t, out)

	catalogue, err := os.ReadFile(filepath.Join(out, "catalogue.go"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(catalogue), "_ ocpimpl.WriteArgs"); n != len(tools) {
		t.Errorf("catalogue.go asserts %d write markers, want one per tool (%d):\n%s", n, len(tools), catalogue)
	}
	if strings.Contains(string(catalogue), "ocpimpl.ReadArgs") {
		t.Errorf("an unedited skeleton generated a read:\n%s", catalogue)
	}
}

// filesystemClassification classifies three of server-filesystem's tools
// and leaves the rest out: those are writes at the default tier.
const filesystemClassification = `version: 1
tiers: [visitor, member]
default: {tier: member}
tools:
  read_text_file:
    access: read
    tier: visitor
    scopes: [fs.read]
    resource: "fs/{path}"
  list_allowed_directories:
    access: read
    tier: visitor
    scopes: [fs.read]
  write_file:
    access: write
    scopes: [fs.write]
    resource: "fs/{path}"
    confirm: {prompt: "Write {path}?", ttl: 2m}
    failure: "Could not write that file."
`

// filesystemHub is a Hub program, compiled against the freshly generated
// package: it fronts server-filesystem through the gate and exits non-zero
// with a message when a check fails. IMPORT is replaced with the generated
// package's import path.
const filesystemHub = `// Command fshub is TestFilesystemGate's Hub.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	fsocp "IMPORT"
	ocp "github.com/ocpgen/ocpgen/runtime/ocp"
)

func main() {
	if err := run(os.Args[1], os.Args[2], os.Args[3], os.Args[4]); err != nil {
		fmt.Fprintln(os.Stderr, "fshub:", err)
		os.Exit(1)
	}
	fmt.Println("fshub: ok")
}

func run(node, entry, root, outside string) error {
	ctx := context.Background()
	broker := ocp.NewMemoryBroker()
	confirms := make(chan ocp.ConfirmRequest, 4)
	defer broker.Subscribe(func(r ocp.ConfirmRequest) { confirms <- r })()
	client, err := ocp.Dial(ctx, func(context.Context) (mcp.Transport, error) {
		return &mcp.CommandTransport{Command: exec.Command(node, entry, root)}, nil
	}, ocp.ClientOptions{})
	if err != nil {
		return err
	}
	fmt.Println("fshub: MCP revision", client.ProtocolVersion())
	g, err := ocp.NewGate(ocp.Config{
		Server:    client,
		Catalogue: fsocp.Catalogue,
		ACL:       ocp.AllowAllResources,
		Broker:    broker,
	})
	if err != nil {
		client.Close()
		return err
	}
	defer client.Close()

	done := make(chan ocp.ActionResult, 1)
	next := func() (ocp.ConfirmRequest, error) {
		select {
		case r := <-confirms:
			return r, nil
		case r := <-done: // the confirm was skipped: fail now, not at the minute
			return ocp.ConfirmRequest{}, fmt.Errorf("the write returned before a confirm request was published: ok %v, reason %q, output %s", r.OK, r.Reason, r.Output)
		case <-time.After(time.Minute):
			return ocp.ConfirmRequest{}, fmt.Errorf("no confirm request was published")
		}
	}
	// result waits for a write's result, as next waits for its confirm.
	result := func() ocp.ActionResult {
		select {
		case r := <-done:
			return r
		case <-time.After(time.Minute):
			return ocp.ActionResult{ID: "(none)", Error: "the write did not return within a minute"}
		}
	}
	reader := ocp.Principal{ID: "ann", Tier: "visitor", Scopes: []string{"fs.read"}, Peer: "model"}
	writer := ocp.Principal{ID: "ann", Tier: "member", Scopes: []string{"fs.read", "fs.write"}, Peer: "model"}
	peer := ocp.Principal{ID: "bob", Tier: "member", Scopes: []string{"fs.read", "fs.write"}, Peer: "phone"}

	adv := g.Advertisement()
	if len(adv.Tools) != len(fsocp.Catalogue.Tools()) {
		return fmt.Errorf("advertised %d tools, generated %d", len(adv.Tools), len(fsocp.Catalogue.Tools()))
	}
	for _, td := range adv.Tools {
		read := td.Name == "read_text_file" || td.Name == "list_allowed_directories"
		if td.Write == read {
			return fmt.Errorf("%s advertised with write=%v", td.Name, td.Write)
		}
	}

	// A read.
	r := g.Call(ctx, reader, fsocp.ReadTextFileArgs{Path: root + "/hello.txt"})
	if !r.OK || !strings.Contains(string(r.Output), "hello") {
		return fmt.Errorf("read_text_file: %+v", r)
	}

	// A write, held until the peer approves.
	go func() {
		done <- g.Call(ctx, writer, fsocp.WriteFileArgs{Path: root + "/approved.txt", Content: "approved\n"})
	}()
	req, err := next()
	if err != nil {
		return err
	}
	if _, err := os.Stat(root + "/approved.txt"); err == nil {
		return fmt.Errorf("the file exists before the confirm resolved")
	}
	if err := g.Resolve(ctx, peer, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); err != nil {
		return err
	}
	if r := result(); !r.OK {
		return fmt.Errorf("approved write_file: %+v", r)
	}

	// A denied write.
	go func() {
		done <- g.Call(ctx, writer, fsocp.WriteFileArgs{Path: root + "/denied.txt", Content: "denied\n"})
	}()
	if req, err = next(); err != nil {
		return err
	}
	if err := g.Resolve(ctx, peer, ocp.ConfirmDecision{ID: req.ID, Approve: false, Digest: req.Digest}); err != nil {
		return err
	}
	if r := result(); r.OK || r.Reason != ocp.ReasonDenied {
		return fmt.Errorf("denied write_file: %+v", r)
	}

	// A tool the classification does not list is a write at the default
	// tier: it asks for a confirm (denied here), and the reader may not.
	if r := g.Call(ctx, reader, fsocp.CreateDirectoryArgs{Path: root + "/sub"}); r.Reason != ocp.ReasonForbidden {
		return fmt.Errorf("unclassified create_directory as a visitor: %+v", r)
	}
	go func() {
		done <- g.Call(ctx, writer, fsocp.CreateDirectoryArgs{Path: root + "/sub"})
	}()
	if req, err = next(); err != nil {
		return err
	}
	if req.Tool != "create_directory" {
		return fmt.Errorf("confirm for %q", req.Tool)
	}
	if err := g.Resolve(ctx, peer, ocp.ConfirmDecision{ID: req.ID, Approve: false, Digest: req.Digest}); err != nil {
		return err
	}
	if r := result(); r.Reason != ocp.ReasonDenied {
		return fmt.Errorf("denied create_directory: %+v", r)
	}

	// Outside the allowed directory the server refuses; its error text
	// (which names paths) does not reach the result.
	go func() {
		done <- g.Call(ctx, writer, fsocp.WriteFileArgs{Path: outside, Content: "x"})
	}()
	if req, err = next(); err != nil {
		return err
	}
	if err := g.Resolve(ctx, peer, ocp.ConfirmDecision{ID: req.ID, Approve: true, Digest: req.Digest}); err != nil {
		return err
	}
	r = result()
	if r.OK || r.Reason != ocp.ReasonFailed || !strings.HasPrefix(r.Error, "Could not write that file. (ref ") || strings.Contains(r.Error, outside) || strings.Contains(r.Error, "denied") {
		return fmt.Errorf("write_file outside the root: %+v", r)
	}
	return nil
}
`

// TestFilesystemGate generates a bridge for the real server-filesystem with
// a classification that makes two tools reads, one a confirmed write and
// leaves the rest out, then compiles a Hub program against the generated
// package and runs it: a read returns the file; an approved write creates
// the file, a denied one does not; an unlisted tool is a write (forbidden to
// a visitor, confirmed for a member); a server error is redacted. The test
// then checks the served directory itself.
func TestFilesystemGate(t *testing.T) {
	endToEnd(t)
	srv := npmServer(t, "server-filesystem")
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "hello.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := t.TempDir()
	runSnapshot(t, in, nil, "-command", "node "+srv.entry+" "+root, "-o", "fs.tools.json")
	if err := os.WriteFile(filepath.Join(in, "fs.ocp.yaml"), []byte(filesystemClassification), 0o644); err != nil {
		t.Fatal(err)
	}
	gen := genDir(t)
	runOcpgen(t, in, nil, "generate", "-snapshot", "fs.tools.json", "-classify", "fs.ocp.yaml", "-package", "fsocp", "-out", filepath.Join(gen, "fsocp"))

	hub := filepath.Join(gen, "fshub")
	if err := os.MkdirAll(hub, 0o755); err != nil {
		t.Fatal(err)
	}
	importPath := testcorpus.ScratchModulePath + "/fsocp"
	if err := os.WriteFile(filepath.Join(hub, "main.go"), []byte(strings.Replace(filesystemHub, "IMPORT", importPath, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(tmp, "outside.txt")
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "fshub")
	build := exec.Command(goTool(t), "build", "-o", bin, ".")
	build.Dir = hub
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the Hub program does not compile against the generated package: %v\n%s", err, b)
	}
	out, err := exec.CommandContext(ctx, bin, srv.node, srv.entry, root, outside).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("fshub: ok")) {
		t.Fatalf("the Hub program failed: %v\n%s", err, out)
	}
	if _, rev, ok := strings.Cut(string(out), "fshub: MCP revision "); ok {
		rev, _, _ = strings.Cut(rev, "\n")
		t.Logf("@modelcontextprotocol/server-filesystem negotiated MCP revision %s", rev)
	} else {
		t.Errorf("the Hub program did not say which MCP revision it negotiated:\n%s", out)
	}

	if b, err := os.ReadFile(filepath.Join(root, "approved.txt")); err != nil || string(b) != "approved\n" {
		t.Errorf("approved write: %q, %v", b, err)
	}
	for _, name := range []string{"denied.txt", "sub"} {
		if _, err := os.Stat(filepath.Join(root, name)); err == nil {
			t.Errorf("%s exists although its write was denied", name)
		}
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the server wrote outside its root")
	}
}
