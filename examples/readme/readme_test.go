// Package readme holds the README's Hub code as files that the build
// compiles (go vet ./... and go test ./... build them), and a test that the
// README shows exactly these files.
package readme

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// fileBlock is a README code block that shows a repository file: a line
// "<!-- file: PATH -->" followed by a ```go fence.
var fileBlock = regexp.MustCompile("(?s)<!-- file: ([^ ]+) -->\n```go\n(.*?)```\n")

// TestReadmeShowsTheFiles: every file block of the README equals the file
// it names, and each Hub of this folder is shown.
func TestReadmeShowsTheFiles(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, m := range fileBlock.FindAllSubmatch(readme, -1) {
		path := string(m[1])
		shown[path] = true
		want, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("README shows %s: %v", path, err)
			continue
		}
		if !bytes.Equal(m[2], want) {
			t.Errorf("README's block for %s differs from the file: copy the file into the README (the file is what the build compiles)", path)
		}
	}
	for _, path := range []string{"examples/readme/stdiohub/main.go", "examples/readme/httphub/main.go", "examples/readme/redismodes/redismodes.go", "examples/readme/muxhub/main.go", "examples/readme/telemetry/telemetry.go", "examples/readme/replica/replica.go"} {
		if !shown[path] {
			t.Errorf("README does not show %s (a line <!-- file: %s --> before its go block)", path, path)
		}
	}
}
