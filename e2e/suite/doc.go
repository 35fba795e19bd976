// Package suite holds the end-to-end test of the gate against the official
// JSON Schema Test Suite (draft 2020-12, testdata/jsonschema-suite, with the
// optional bignum, ecmascript-regex, float-overflow and non-bmp-regex
// files): every test group is a tool of a generated package, suiteocp, and
// every test a call through Gate.Dispatch, by an authorized principal, to a
// spy server that records the bytes it receives (suite_test.go). A valid
// instance must reach it as the same JSON value (canonical JSON, numbers
// exact); an invalid one must be refused as invalid, the server not
// called.
//
// How a group's schema becomes a tool's input schema without changing its
// meaning is the doc of internal/suitecases. Every tool is a read: a write
// takes the same argument path (parse, validate, typed decode, re-encode,
// forward) and adds the confirm, which does not touch the arguments, so a
// read needs no second peer and no broker.
//
// suite.tools.json and suite.ocp.yaml are made from the suite files by
// internal/mksuite (which leaves out, in a comment of suite.ocp.yaml, the
// groups the generator refuses), and suiteocp from them by ocpgen generate.
// Regenerate all three with
//
//	go generate ./e2e/suite
//
// TestSuiteGenerated fails when any of them is out of date.
//
// exceptions.txt is the one table of the cases whose outcome is not the
// suite's verdict, each with its reason. TestSuite fails on an outcome it
// does not list, on an entry that no longer happens, on an entry whose
// reason is still "TODO: unexplained", and on any invalid instance that is
// accepted, which no entry can excuse. Rewrite the table from what happens,
// keeping the reasons of the entries that remain (a new one gets the TODO
// reason, to be explained by hand), with
//
//	go test ./e2e/suite -run 'TestSuite$' -update-exceptions
package suite

//go:generate go run ./internal/mksuite
//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen generate -snapshot suite.tools.json -classify suite.ocp.yaml -package suiteocp -out suiteocp
