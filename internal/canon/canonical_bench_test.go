package canon

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// corpusSchemas returns every input and output schema of the corpus, as
// the file writes it.
func corpusSchemas(tb testing.TB) [][]byte {
	tb.Helper()
	var out [][]byte
	for _, t := range testcorpus.Tools(tb) {
		for _, s := range []json.RawMessage{t.InputSchema, t.OutputSchema} {
			if len(s) > 0 && string(s) != "null" {
				out = append(out, s)
			}
		}
	}
	if len(out) < 500 {
		tb.Fatalf("only %d corpus schemas", len(out))
	}
	return out
}

// BenchmarkCanonicalCorpus: JSON of every corpus schema as
// written, and SchemaFingerprint of every canonical one (what NewGate
// computes for each descriptor).
func BenchmarkCanonicalCorpus(b *testing.B) {
	raws := corpusSchemas(b)
	canons := make([][]byte, len(raws))
	for i, r := range raws {
		c, err := JSON(r)
		if err != nil {
			b.Fatal(err)
		}
		canons[i] = c
	}
	b.Run("JSON", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, r := range raws {
				if _, err := JSON(r); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("SchemaFingerprint", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, c := range canons {
				if _, err := SchemaFingerprint(c); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkCanonicalOutOfOrder: JSON of objects out of key order
// nested n deep around a 1 MiB string. The writer reads each object's
// members before writing them in order, so the cost stays linear in the
// input: compare depth-4000 with depth-1000 (same size but for 3,000
// levels, a few KiB).
func BenchmarkCanonicalOutOfOrder(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		raw := []byte(strings.Repeat(`{"b":0,"a":`, n) + `"` + strings.Repeat("x", 1<<20) + `"` + strings.Repeat("}", n))
		b.Run(fmt.Sprintf("depth-%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if _, err := JSON(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
