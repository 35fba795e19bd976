package argengine

import (
	"sync"

	"github.com/ocpgen/ocpgen/runtime/internal/branchcheck"
)

// Union branches are chosen by the same validator as the arguments: a
// generated union's UnmarshalJSON (runtime/ocpimpl.UnmarshalUnion) asks
// branchCheck through branchcheck.Valid.
func init() { branchcheck.Valid = branchCheck }

// branchSchemas caches the compiled branch schemas by their JSON text (a
// generated package has a fixed set of them); a schema that does not
// compile is stored as nil.
var branchSchemas sync.Map // string → *Schema

// branchCheck is branchcheck.Valid.
func branchCheck(schema string, value []byte) (valid, compiled bool) {
	v, ok := branchSchemas.Load(schema)
	if !ok {
		s, err := CompileSchema([]byte(schema))
		if err != nil {
			s = nil
		}
		v, _ = branchSchemas.LoadOrStore(schema, s)
	}
	s := v.(*Schema)
	if s == nil {
		return false, false
	}
	return s.ValidateJSON(value) == nil, true
}
