package load

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
)

// TestParseAheadWorkersPerCPU: the schemas are parsed on a goroutine per
// CPU, not per schema: loading 40 tools with input and output schemas
// starts at most GOMAXPROCS-1 goroutines, and every schema is parsed.
func TestParseAheadWorkersPerCPU(t *testing.T) {
	var tools []string
	for i := range 40 {
		tools = append(tools, fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}},"outputSchema":{"type":"object"}}`, i))
	}
	data := []byte(`{"tools":[` + strings.Join(tools, ",") + `]}`)
	runtime.GC() // the collector starts its workers at its first cycle
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	snap, ds := LoadSnapshot("s.tools.json", data)
	metrics.Read(s)
	if ds.Err() != nil {
		t.Fatal(ds)
	}
	if started, most := s[0].Value.Uint64()-before, uint64(runtime.GOMAXPROCS(0)-1); started > most {
		t.Fatalf("loading 80 schemas started %d goroutines, want at most %d (GOMAXPROCS-1)", started, most)
	}
	for _, tool := range snap.Tools {
		if tool.InputSchema == nil || tool.OutputSchema == nil {
			t.Fatalf("tool %s: a schema is not parsed", tool.Name)
		}
	}
}
