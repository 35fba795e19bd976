// Package branchcheck lets runtime/ocpimpl's union decoding ask the gate's
// one validator (runtime/internal/argengine) whether a value is valid under
// a branch's schema, without importing it: argengine imports what
// generated code is made of, so ocpimpl cannot import argengine.
//
// Valid is set once, by argengine's package initialisation, which runs in
// every program that links runtime/ocp; it is never changed after.
package branchcheck

// Valid reports whether the JSON value is valid under the JSON Schema text
// schema, as the gate's validator decides; compiled is false when schema
// does not compile (then valid is false too). Nil until argengine is
// initialised.
var Valid func(schema string, value []byte) (valid, compiled bool)
