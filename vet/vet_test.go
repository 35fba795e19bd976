package vet_test

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"

	"github.com/ocpgen/ocpgen/vet"
)

// TestAnalyzer runs the analyzer on testdata/src: a Hub package seeding
// every form of bypass, a generated package (silent on its ocpgen-generated
// file, loud on the hand-written one beside it), another generator's output,
// and a stand-in for ocpgen's runtime (silent).
func TestAnalyzer(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), vet.Analyzer,
		"hub", "hub/bridge", "othergen", "github.com/ocpgen/ocpgen/runtime/ocp")
}
