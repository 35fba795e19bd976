package gen

import (
	"github.com/ocpgen/ocpgen/gen/internal/emit"
	"github.com/ocpgen/ocpgen/gen/internal/load"
)

// Skeleton returns a classification file for the snapshot in data (read from
// snapshotFile, a name used in messages) that lists every tool as a write,
// with the server's annotations as comments marked "not trusted". It is the
// starting point a person edits: nothing in it grants a read.
func Skeleton(snapshotFile string, data []byte) ([]byte, error) {
	s, diags := load.LoadSnapshot(snapshotFile, data)
	if err := diags.Err(); err != nil {
		return nil, err
	}
	return emit.Skeleton(s)
}
