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

// branchSchema is the compiled branch schema of the JSON text schema, or
// nil when it does not compile: the one place a branch schema is compiled,
// for branchCheck and for the codec's unions (codecBranch).
func branchSchema(schema string) *Schema {
	v, ok := branchSchemas.Load(schema)
	if !ok {
		s, err := CompileSchema([]byte(schema))
		if err != nil {
			s = nil
		}
		v, _ = branchSchemas.LoadOrStore(schema, s)
	}
	return v.(*Schema)
}

// branchCheck is branchcheck.Valid.
func branchCheck(schema string, value []byte) (valid, compiled bool) {
	s := branchSchema(schema)
	if s == nil {
		return false, false
	}
	return s.ValidateJSON(value) == nil, true
}

// validTape is s.ValidateJSON's verdict (valid or not) on value i of t,
// read on the tape: validate's, without the second pass that says why.
func (s *Schema) validTape(t *tape, i int) bool {
	if s.sc.refusal != nil {
		return false // validate refuses every value
	}
	ok, _ := s.sc.run(t, i)
	return ok
}
