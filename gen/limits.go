package gen

import "github.com/ocpgen/ocpgen/gen/internal/load"

// Input size limits, in bytes. Generate refuses larger inputs; a caller
// reading files can refuse them before reading (docs/security-model.md lists
// every limit).
const (
	MaxSnapshotSize       = load.MaxSnapshotSize
	MaxClassificationSize = load.MaxClassificationSize
	MaxConfigSize         = load.MaxConfigSize
)
