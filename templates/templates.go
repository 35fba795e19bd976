// Package templates holds the text templates of ocpgen's non-Go outputs,
// such as the classification skeleton that "ocpgen init" writes. Go code is
// printed by gen/internal/emit, never from these templates.
package templates

import "embed"

// FS holds every *.tmpl file of this directory.
//
//go:embed *.tmpl
var FS embed.FS
