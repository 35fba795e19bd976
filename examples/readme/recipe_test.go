package readme

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// recipeBlock is a shell block of README.md that TestOwnHubRecipe runs: a
// line "<!-- recipe: NAME -->" followed by a ```sh fence.
var recipeBlock = regexp.MustCompile("(?s)<!-- recipe: ([a-z]+) -->\n```sh\n(.*?)```\n")

// recipeSteps are the recipe's blocks, in the order the README gives them.
var recipeSteps = []string{"module", "snapshot", "build"}

// TestOwnHubRecipe runs README.md's "Your own Hub" in a new module outside
// the repository, as a newcomer would: the README's own shell blocks, in a
// temporary directory holding the module (hub) beside the checkout
// (ocpgen, a link to this repository). Between the blocks it does what the
// README asks a person to do: edit the classification (here, the bundled
// example's) and write the Hub's code (examples/hub, whose go.mod the
// recipe makes). The last block generates, builds, vets with ocpgen's vet
// tool and runs the Hub's tests: the generated package is fresh, a read
// passes the gate, and a write reaches the server only after a peer
// approves it. Then a direct CallTool must make the README's vet line fail.
//
// The module's go.sum starts as the checkout's, which holds the sums of
// every module the recipe needs: with a warm module cache the recipe needs
// no network (GOPROXY=off works).
func TestOwnHubRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped under -short: the recipe builds a module of its own (about a minute of CPU)")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]string{}
	var order []string
	for _, m := range recipeBlock.FindAllSubmatch(readme, -1) {
		blocks[string(m[1])] = string(m[2])
		order = append(order, string(m[1]))
	}
	if !reflect.DeepEqual(order, recipeSteps) {
		t.Fatalf("README.md's recipe blocks (<!-- recipe: NAME --> before a ```sh fence) are %q, want %q", order, recipeSteps)
	}

	dir := t.TempDir()
	if err := os.Symlink(root, filepath.Join(dir, "ocpgen")); err != nil {
		t.Fatal(err)
	}
	hub, bin := filepath.Join(dir, "hub"), filepath.Join(dir, "bin")
	for _, d := range []string{hub, bin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, filepath.Join(root, "go.sum"), filepath.Join(hub, "go.sum"))
	env := append(os.Environ(), "GOWORK=off", "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	run(t, hub, env, "module", blocks["module"])
	sameDirectives(t, hub, filepath.Join(root, "examples", "hub"), env)
	// The same checkout, named by its real path: the build cache keys the
	// checkout's packages by their directory, so through the link every
	// run would compile them anew.
	run(t, hub, env, "the checkout's real path", "go mod edit -replace github.com/ocpgen/ocpgen="+root)
	run(t, hub, env, "snapshot", blocks["snapshot"])
	// What a person writes: the classification (the skeleton edited) and
	// the Hub's code.
	copyFile(t, filepath.Join(root, "examples", "tickets", "tickets.ocp.yaml"), filepath.Join(hub, "tickets.ocp.yaml"))
	src := filepath.Join(root, "examples", "hub")
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(src, p)
		switch {
		case err != nil:
			return err
		case d.IsDir() && rel == "ticketsocp":
			return fs.SkipDir // generated in place by a run of the recipe there
		case d.IsDir():
			return os.MkdirAll(filepath.Join(hub, rel), 0o755)
		case rel != "go.mod" && rel != "go.sum":
			copyFile(t, p, filepath.Join(hub, rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	run(t, hub, env, "build", blocks["build"])

	// The vet line is not a no-op: a call around the gate fails it.
	var vet string
	for _, line := range strings.Split(blocks["build"], "\n") {
		if strings.HasPrefix(line, "go vet ") {
			vet, _, _ = strings.Cut(line, "#")
		}
	}
	if vet == "" {
		t.Fatal(`README.md's recipe block "build" has no "go vet" line`)
	}
	bypass := filepath.Join(hub, "bypass")
	if err := os.Mkdir(bypass, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bypass, "bypass.go"), []byte(bypassSource), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := script(t, hub, env, vet)
	if err == nil || !strings.Contains(out, "bypass.go") || !strings.Contains(out, "without the Hub's authorization and confirm gate") {
		t.Fatalf("%s on a package that calls CallTool directly: want it to fail naming bypass.go, got %v\n%s", vet, err, out)
	}
}

// bypassSource calls an MCP server's tool around the gate.
const bypassSource = `package bypass

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func Delete(ctx context.Context, cs *mcp.ClientSession) error {
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "close_ticket"})
	return err
}
`

// run runs one of the README's recipe blocks in dir, and fails the test
// with its output if a command of the block fails.
func run(t *testing.T, dir string, env []string, name, block string) {
	t.Helper()
	if out, err := script(t, dir, env, block); err != nil {
		t.Fatalf("README.md's recipe block %q failed: %v\n%s", name, err, out)
	}
}

// script runs a shell script in dir (sh -e: the first command that fails
// ends it), for at most five minutes.
func script(t *testing.T, dir string, env []string, text string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-e", "-x", "-c", text)
	cmd.Dir, cmd.Env, cmd.WaitDelay = dir, env, 10*time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		err = errors.New("did not finish within 5 minutes")
	}
	return string(out), err
}

// sameDirectives fails unless the go.mod the recipe made in hub has the
// tool and replace directives of examples/hub/go.mod (the checkout at
// ../ocpgen there, ../.. here).
func sameDirectives(t *testing.T, hub, example string, env []string) {
	t.Helper()
	type gomod struct {
		Tool    []struct{ Path string }
		Replace []struct{ Old, New struct{ Path string } }
	}
	read := func(dir string) gomod {
		out, err := script(t, dir, env, "go mod edit -json")
		if err != nil {
			t.Fatalf("go mod edit -json in %s: %v\n%s", dir, err, out)
		}
		var m gomod
		if err := json.Unmarshal([]byte(out[strings.Index(out, "{"):]), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	got, want := read(hub), read(example)
	for i := range want.Replace {
		if want.Replace[i].New.Path == "../.." {
			want.Replace[i].New.Path = "../ocpgen"
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the recipe's go.mod has tools and replacements %+v; examples/hub/go.mod has %+v", got, want)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
