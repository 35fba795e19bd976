package ocp

import (
	"context"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// BenchmarkNumberWorst sets the worst number inputs against an ordinary
// request of the same size (issue 14 item 1; BENCHMARKS.md gives the
// ratios). Every request is about 1 MiB:
//
//   - ordinary: an array of short prices ("12.25"), all valid;
//   - longest-literals: an array of literals of argengine.MaxNumberLen bytes, each a
//     multiple of 0.01 checked exactly, refused only at the end (a float64
//     does not hold them), so every step runs on every number;
//   - one-long-literal: a single literal of 1 MiB ("1." and zeros), which
//     used to cost big.Rat seconds, refused by the length bound;
//   - tiny-exponents: "1e-999999" repeated, refused by the exponent bound
//     at the first.
func BenchmarkNumberWorst(b *testing.B) {
	const size = 1 << 20
	fill := func(item string) string {
		var sb strings.Builder
		sb.WriteString(`{"prices":[`)
		for sb.Len() < size {
			if sb.Len() > len(`{"prices":[`) {
				sb.WriteByte(',')
			}
			sb.WriteString(item)
		}
		sb.WriteString(`]}`)
		return sb.String()
	}
	long := strings.Repeat("9", argengine.MaxNumberLen-3) + ".01"
	cases := []struct{ name, args string }{
		{"ordinary", fill("12.25")},
		{"longest-literals", fill(long)},
		{"one-long-literal", `{"prices":[1.` + strings.Repeat("0", size) + `]}`},
		{"tiny-exponents", fill("1e-999999")},
	}
	c := NewCatalogue(testTiers, FidTool)
	g, err := NewGate(Config{
		Catalogue: c, Server: &spyCaller{}, ACL: AllowAllResources, Broker: newMemoryBroker(),
		Audit: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	g.one().syncCatalogue(liveOf(c))
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			r := req("b", "fid_args", tc.args)
			b.SetBytes(int64(len(tc.args)))
			for b.Loop() {
				res := g.Dispatch(context.Background(), alice, r)
				if res.OK != (tc.name == "ordinary") {
					b.Fatalf("%+v", res)
				}
			}
		})
	}
}
