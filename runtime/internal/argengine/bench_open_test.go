package argengine

import (
	"reflect"
	"testing"

	"github.com/ocpgen/ocpgen/e2e/memoryocp"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// benchClosedItem is memoryocp.CreateEntitiesArgsEntitiesItem without its
// AdditionalProperties.
type benchClosedItem struct {
	EntityType   string   `json:"entityType"`
	Name         string   `json:"name"`
	Observations []string `json:"observations"`
}
type benchClosedArgs struct {
	ocpimpl.Write `json:"-"`
	Entities      []benchClosedItem `json:"entities"`
}

// BenchmarkArgsOpenObject measures Check on create_entities'
// arguments with the item struct as the generator writes it now (open: an
// AdditionalProperties map, which the codec decodes and encodes itself)
// against the same struct closed (no map), as it was written before issue
// 25. BENCHMARKS.md §1 has the figures.
func BenchmarkArgsOpenObject(b *testing.B) {
	raw := []byte(`{"entities":[{"name":"alice","entityType":"person","observations":["likes tea","lives in Paris"]},{"name":"bob","entityType":"person","observations":["plays chess"]}]}`)
	for _, tc := range []struct {
		name string
		typ  reflect.Type
	}{
		{"closed", reflect.TypeFor[benchClosedArgs]()},
		{"open", reflect.TypeFor[memoryocp.CreateEntitiesArgs]()},
	} {
		e, err := Compile([]byte(memoryocp.CreateEntities.Desc.InputSchema), tc.typ, testLimits)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			all := allFields(e)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := e.Check(raw, all); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
