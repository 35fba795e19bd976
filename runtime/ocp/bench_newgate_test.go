package ocp

import (
	"testing"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// corpusArgs is the argument type of every tool of corpusCatalogues: the
// per-tool work of NewGate does not look at the fields (newGate's check that
// no two tools share a type is left out, with the map inserts).
type corpusArgs struct {
	Read `json:"-"`
}

// corpusCatalogues returns one catalogue per corpus snapshot, each tool's
// descriptor made as the generator makes it (canonical schema, its
// fingerprint), keeping the tools newGateTool accepts.
func corpusCatalogues(b *testing.B) []*Catalogue {
	b.Helper()
	var out []*Catalogue
	tools := 0
	byFile := map[string][]testcorpus.Tool{}
	var files []string
	for _, st := range testcorpus.Tools(b) {
		if byFile[st.File] == nil {
			files = append(files, st.File)
		}
		byFile[st.File] = append(byFile[st.File], st)
	}
	for _, f := range files {
		var ts []*Tool
		seen := map[string]bool{}
		for _, st := range byFile[f] {
			if seen[st.Name] || st.Name == "" {
				continue
			}
			seen[st.Name] = true
			in, err := CanonicalJSON(st.InputSchema)
			if err != nil {
				continue
			}
			fp, err := SchemaFingerprint(in)
			if err != nil {
				continue
			}
			d := Descriptor{Name: st.Name, InputSchema: string(in), Fingerprint: fp, Policy: Policy{
				Kind: ocpimpl.KindRead, Classified: true, Tier: "member", Failure: "failed",
				Resource: ocpimpl.Template{{Text: "r"}},
			}}
			if len(st.OutputSchema) > 0 && string(st.OutputSchema) != "null" {
				if out, err := CanonicalJSON(st.OutputSchema); err == nil {
					d.OutputSchema = string(out)
				}
			}
			t := &Tool{Args: (*corpusArgs)(nil), Desc: d}
			if _, err := newGateTool(t, defaultLimits, defaultMaxResources); err != nil {
				continue
			}
			ts = append(ts, t)
		}
		tools += len(ts)
		out = append(out, NewCatalogue(testTiers, ts...))
	}
	if tools < 400 {
		b.Fatalf("only %d corpus tools", tools)
	}
	return out
}

// BenchmarkNewGateCorpus is NewGate's work for every tool of the corpus:
// each catalogue verified (its digest), each tool's descriptor checked
// (the input schema against its fingerprint, the output schema's
// fingerprint) and its schemas parsed, resolved and compiled.
func BenchmarkNewGateCorpus(b *testing.B) {
	cats := corpusCatalogues(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, c := range cats {
			if err := c.Verify(); err != nil {
				b.Fatal(err)
			}
			for _, t := range c.Tools() {
				if _, err := newGateTool(t, defaultLimits, defaultMaxResources); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
}
