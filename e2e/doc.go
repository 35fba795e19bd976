// Package e2e holds ocpgen's end-to-end tests: the whole pipeline (snapshot,
// init, classification, generate, compile, gate) against real MCP servers —
// third-party servers from the npm registry run with node
// (@modelcontextprotocol/server-memory and server-filesystem, pinned in
// node/package.json), and the example ticket desk over Streamable HTTP,
// restarted in the middle of a session.
//
// The node servers are installed with
//
//	npm ci --prefix e2e/node --no-audit --no-fund
//
// (.ci/node.sh does it and exports OCPGEN_E2E_NODE_MODULES). Without node
// or the packages the tests that need them skip, except under CI=true, where
// they fail.
//
// memoryocp is the bridge generated for server-memory from memory.tools.json
// and memory.ocp.yaml; the tests check that it is current with the live
// server. Regenerate both with go generate ./e2e after changing the pinned
// version or the classification. filesystemocp (server-filesystem) and
// notesocp (the go-sdk note store of package notesserver, whose read_graph
// shares server-memory's name) are made the same way, for the test that
// fronts all three servers through one ocp.NewMux.
package e2e

//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen-snapshot -command "node node/node_modules/@modelcontextprotocol/server-memory/dist/index.js" -o memory.tools.json
//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen generate -snapshot memory.tools.json -classify memory.ocp.yaml -package memoryocp -out memoryocp
//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen-snapshot -command "node node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js ." -o filesystem.tools.json
//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen generate -snapshot filesystem.tools.json -classify filesystem.ocp.yaml -package filesystemocp -out filesystemocp
//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen-snapshot -command "go run ./notesserver/cmd/notes-server" -o notes.tools.json
//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen generate -snapshot notes.tools.json -classify notes.ocp.yaml -package notesocp -out notesocp
