// The module README.md's "Your own Hub" makes, with the checkout at ../..
// where the README has it at ../ocpgen. Its "go mod tidy" adds the
// requirements; its test (TestOwnHubRecipe in examples/readme) runs it.
module example.com/hub

go 1.26.0

replace github.com/ocpgen/ocpgen => ../..

tool (
	github.com/ocpgen/ocpgen/cmd/ocpgen
	github.com/ocpgen/ocpgen/cmd/ocpgen-snapshot
	github.com/ocpgen/ocpgen/cmd/ocpgen-vet
)
