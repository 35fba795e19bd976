// Command ocpgen generates, from a snapshot of an MCP server's tools/list and
// a classification file, a Go package that lets an OCP Hub offer the server's
// tools behind its own authorization and confirm gate.
//
// Usage:
//
//	ocpgen init -snapshot S [-o FILE] [-force]
//	ocpgen generate -snapshot S [-classify C] [-package P] -out DIR
//	ocpgen generate [-config ocpgen.yaml]
//	ocpgen check -snapshot S [-classify C] [-package P] -out DIR [-strict]
//	ocpgen check [-config ocpgen.yaml] [-strict]
//	ocpgen diff OLD NEW [-classify-old C1 -classify-new C2] [-format text|markdown|json] [-fail-on LEVELS]
//	ocpgen diff -git-base REF -snapshot S [-classify C] [-format ...] [-fail-on LEVELS]
//	ocpgen diff -git-base REF [-config ocpgen.yaml] [-format ...] [-fail-on LEVELS]
//	ocpgen vet [packages]
//	ocpgen version
//
// A snapshot (NAME.tools.json) is recorded by the command ocpgen-snapshot,
// once a command of ocpgen, with the same flags: ocpgen itself links neither
// the MCP client nor the network stack.
//
// Without -snapshot, generate, check and diff -git-base run over every server
// listed in the configuration file: ocpgen.yaml in the working directory or a
// parent up to the module root, or -config FILE.
//
// Exit status, in every command: 0 clean, 1 findings (check: stale files or
// lint errors; diff: a -fail-on level reached; vet: a bypass), 2 trouble (a
// usage error, an input that does not load or does not generate, including
// a diff whose new side has such problems, not a git repository).
package main

import (
	"os"
	"runtime/debug"
)

func main() {
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneGC sets the collector to GOGC=200 under a 512 MiB soft memory limit,
// unless the user set GOGC or GOMEMLIMIT: a heap twice Go's default before
// each collection, and no more than the limit.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(200)
		debug.SetMemoryLimit(512 << 20)
	}
}
