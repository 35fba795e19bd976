package argengine

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// allFields asks Check for every field of e's type: the typed arguments
// the decode of the whole arguments makes.
func allFields(e *Engine) *Typed {
	r := &Typed{}
	for i := range e.typ.NumField() {
		r.Fields = append(r.Fields, i)
	}
	return r
}

// tapeWrites reports whether Check writes the forwarded bytes of raw, an
// object e accepts, straight from the tape (codecNode.encodeTape) rather
// than by the general path (the typed decode and its encoding).
func tapeWrites(e *Engine, raw []byte) bool {
	t := getTape()
	defer putTape(t)
	t.maxValues = e.limits.Values
	own := bytes.Clone(raw)
	if t.parseOwned(own) != nil {
		return false
	}
	return e.codec.encodeTape(newFwdBuf(own), t, 0, false)
}

// readArgs has every kind of top-level field a template reads, and others.
type readArgs struct {
	Read `json:"-"`
	S    string            `json:"s"`
	P    *string           `json:"p,omitzero"`
	I    *int64            `json:"i,omitzero"`
	F    float64           `json:"f,omitempty"`
	B    bool              `json:"b"`
	L    []string          `json:"l,omitzero"`
	N    []int64           `json:"n"`
	U    []uint64          `json:"u,omitempty"`
	M    map[string]string `json:"m,omitzero"`
	R    json.RawMessage   `json:"r,omitzero"`
	O    []readArgsInner   `json:"o,omitzero"`
	Q    *[]float64        `json:"q,omitzero"`
}

type readArgsInner struct {
	K string   `json:"k"`
	V []string `json:"v,omitzero"`
}

const readArgsSchema = `{"type":"object","properties":{"s":{"type":"string"},"p":{"type":"string"},"i":{"type":"integer"},` +
	`"f":{"type":"number"},"b":{"type":"boolean"},"l":{"type":"array","items":{"type":"string"}},` +
	`"n":{"type":["array","null"],"items":{"type":"integer"}},"u":{"type":"array","items":{"type":"integer","minimum":0}},` +
	`"m":{"type":"object","additionalProperties":{"type":"string"}},"r":{},` +
	`"o":{"type":"array","items":{"type":"object","properties":{"k":{"type":"string"},"v":{"type":"array","items":{"type":"string"}}}}},` +
	`"q":{"type":["array","null"],"items":{"type":"number"}}}}`

// A field Check reads holds what the decode of the whole arguments gives
// it (a slice cut to Typed.Elems elements), every other field is zero, and
// the verdict and the forwarded bytes are those of a Check that reads
// nothing; none of its strings is the forwarded bytes (writing them
// changes nothing read). Over random arguments of the generator's shapes,
// structs with additional properties included, through the fast path and
// the general one.
func TestTypedReadIsTheWholeDecode(t *testing.T) {
	testcorpus.SkipUnderRace(t)
	r := rand.New(rand.NewPCG(7, 8))
	rounds := 3000
	if testing.Short() {
		rounds = 500
	}
	extraSchema := `{"type":"object","properties":{"x":{},"req":{},"in":{},"l":{},"t":{},"a":{},"n":{},"zz":{},"X":{}}}`
	for _, tool := range []struct {
		name, schema string
		typ          reflect.Type
	}{
		{"readArgs", readArgsSchema, reflect.TypeFor[readArgs]()},
		{"search_nodes", searchNodesSchema, reflect.TypeFor[SearchNodesArgs]()},
		{"add_observations", addObservationsSchema, reflect.TypeFor[AddObservationsArgs]()},
		{"extra", extraSchema, reflect.TypeFor[codecExtraArgs]()},
	} {
		e, err := Compile([]byte(tool.schema), tool.typ, testLimits)
		if err != nil {
			t.Fatal(err)
		}
		if e.codec == nil {
			t.Fatalf("%s: no codec", tool.name)
		}
		all := allFields(e)
		accepted, general, cut := 0, 0, 0
		for k := range rounds {
			var b strings.Builder
			switch {
			case tool.name == "extra":
				genExtraWith(r, 0, &b, "req")
			case k%2 == 0:
				v, _ := json.Marshal(genValue(r, e.typ, 0).Addr().Interface())
				b.Write(v)
			default:
				genFor(r, e.typ, 0, &b)
			}
			raw := []byte(b.String())
			_, wantFwd, wantErr := e.Check(raw, nil)
			whole, fwd, err := e.Check(raw, all)
			if (err == nil) != (wantErr == nil) || !bytes.Equal(fwd, wantFwd) {
				t.Fatalf("%s %s: reading all: %s, %v; reading none: %s, %v", tool.name, raw, fwd, err, wantFwd, wantErr)
			}
			if err != nil {
				continue
			}
			accepted++
			if !tapeWrites(e, raw) {
				general++
			}
			wv := reflect.ValueOf(whole).Elem()
			for i := range e.typ.NumField() {
				for _, elems := range []int{0, 1, 2} {
					part, fwd, err := e.Check(raw, &Typed{Fields: []int{i}, Elems: elems})
					if err != nil || !bytes.Equal(fwd, wantFwd) {
						t.Fatalf("%s %s: reading field %d: %s, %v; reading none: %s", tool.name, raw, i, fwd, err, wantFwd)
					}
					for j := range fwd {
						fwd[j] = 'x'
					}
					pv := reflect.ValueOf(part).Elem()
					for j := range e.typ.NumField() {
						want := wv.Field(j)
						switch {
						case j != i || !pv.Field(j).CanInterface():
							want = reflect.Zero(want.Type())
						case elems > 0 && want.Kind() == reflect.Slice && want.Type() != rawMessageType && want.Len() > elems:
							want = want.Slice(0, elems)
							cut++
						}
						if !pv.Field(j).CanInterface() {
							continue
						}
						if got := pv.Field(j).Interface(); !reflect.DeepEqual(got, want.Interface()) {
							t.Fatalf("%s %s: reading field %d (%d elements): field %d is %#v, want %#v", tool.name, raw, i, elems, j, got, want.Interface())
						}
					}
				}
			}
		}
		t.Logf("%s: %d of %d accepted, %d by the general path, %d slices cut", tool.name, accepted, rounds, general, cut)
		if accepted < rounds/10 {
			t.Errorf("%s: only %d accepted", tool.name, accepted)
		}
	}
}
