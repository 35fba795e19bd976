package model

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// BenchmarkLoadModel is load.LoadSnapshot and Build alone (no rendering)
// over every corpus snapshot, without a classification.
func BenchmarkLoadModel(b *testing.B) {
	files := testcorpus.Files(b)
	datas := make([][]byte, len(files))
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		datas[i] = data
	}
	b.ReportAllocs()
	for b.Loop() {
		for i, data := range datas {
			s, diags := load.LoadSnapshot(filepath.Base(files[i]), data)
			if s == nil {
				b.Fatal(diags)
			}
			if _, diags := Build(s, nil, "bridge"); diags.Err() != nil {
				b.Fatal(diags)
			}
		}
	}
}
