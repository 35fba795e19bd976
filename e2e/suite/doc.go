// Package suite holds the end-to-end test of the gate against the official
// JSON Schema Test Suite (draft 2020-12, testdata/jsonschema-suite): every
// test group is a tool of a generated package, suiteocp, and every test a
// call through Gate.Dispatch to a spy server (see suite_test.go).
//
// suite.tools.json and suite.ocp.yaml are made from the suite files by
// internal/mksuite, and suiteocp from them by ocpgen generate; regenerate
// all three with
//
//	go generate ./e2e/suite
//
// TestSuiteGenerated fails when any of them is out of date.
package suite

//go:generate go run ./internal/mksuite
//go:generate go run github.com/ocpgen/ocpgen/cmd/ocpgen generate -snapshot suite.tools.json -classify suite.ocp.yaml -package suiteocp -out suiteocp
