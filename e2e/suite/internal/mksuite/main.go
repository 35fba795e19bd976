// Command mksuite writes the snapshot (suite.tools.json) and the
// classification (suite.ocp.yaml) of the JSON Schema Test Suite's tools
// into the current directory, from the suite files in the module's
// testdata/jsonschema-suite. go generate ./e2e/suite runs it, then ocpgen
// generate on its output.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ocpgen/ocpgen/e2e/suite/internal/suitecases"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mksuite:", err)
		os.Exit(1)
	}
}

func run() error {
	groups, err := suitecases.Load(os.DirFS(filepath.Join("..", "..", suitecases.Dir)))
	if err != nil {
		return err
	}
	snap, class, left, err := suitecases.Inputs(groups)
	if err != nil {
		return err
	}
	for _, l := range left {
		for _, d := range l.Diagnostics {
			fmt.Fprintf(os.Stderr, "mksuite: left out %s (%s group %d): %s\n", l.Tool, l.File, l.Index, d)
		}
	}
	if err := os.WriteFile(suitecases.SnapshotFile, snap, 0o644); err != nil {
		return err
	}
	return os.WriteFile(suitecases.ClassifyFile, class, 0o644)
}
