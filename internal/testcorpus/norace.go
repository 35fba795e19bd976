//go:build !race

package testcorpus

// Race is true in a binary built with the race detector (go test -race).
const Race = false
