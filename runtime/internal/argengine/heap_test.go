package argengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/argshapes"
	"github.com/ocpgen/ocpgen/internal/heapmeter"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// The argument types of the shapes of internal/argshapes, as the generator
// writes them.
type (
	heapInts struct {
		V []int64 `json:"v"`
	}
	heapNulls struct {
		V []*int64 `json:"v"`
	}
	heapStrings struct {
		V []string `json:"v"`
	}
	heapObject struct {
		A *int64 `json:"a,omitzero"`
	}
	heapObjects struct {
		V []heapObject `json:"v"`
	}
	heapRaw struct {
		V json.RawMessage `json:"v"`
	}
	heapString struct {
		V string `json:"v"`
	}
	heapMap struct {
		V map[string]int64 `json:"v"`
	}
	heapUnion struct {
		V heapUnionV `json:"v"`
	}
	// heapUnionV is the union the generator writes for the schema of
	// union-numbers.
	heapUnionV struct {
		Array  *[]int64
		String *string
	}
	heapExtra struct {
		V heapExtraV `json:"v"`
	}
	heapExtraV struct {
		S                    *string          `json:"s,omitzero"`
		AdditionalProperties map[string]int64 `json:"-"`
	}
)

func (u *heapUnionV) OCPBranches() []ocpimpl.UnionBranch {
	return []ocpimpl.UnionBranch{
		ocpimpl.Branch(&u.Array, ocpimpl.JSONArray, `{"items":{"type":"integer"},"type":"array"}`),
		ocpimpl.Branch(&u.String, ocpimpl.JSONString, `{"type":"string"}`),
	}
}

func (u heapUnionV) MarshalJSON() ([]byte, error) {
	return ocpimpl.MarshalUnion("heapUnionV", u.OCPBranches()...)
}

func (u *heapUnionV) UnmarshalJSON(b []byte) error {
	return ocpimpl.UnmarshalUnion("heapUnionV", b, u.OCPBranches()...)
}

func (v heapExtraV) MarshalJSON() ([]byte, error) {
	type plain heapExtraV
	return ocpimpl.MarshalWithExtra(plain(v), v.AdditionalProperties)
}

func (v *heapExtraV) UnmarshalJSON(b []byte) error {
	type plain heapExtraV
	return ocpimpl.UnmarshalWithExtra(b, (*plain)(v), &v.AdditionalProperties, "s")
}

func (*heapExtraV) OCPWithExtra() {}

// heapLimits take the shapes whole: every value of MaxLimitBytes in one
// call.
var heapLimits = Limits{Bytes: MaxLimitBytes, Values: MaxLimitValues}

var heapTypes = map[string]reflect.Type{
	"tiny-numbers":     reflect.TypeFor[heapInts](),
	"union-numbers":    reflect.TypeFor[heapUnion](),
	"shared-ref":       reflect.TypeFor[heapInts](),
	"integral-numbers": reflect.TypeFor[heapInts](),
	"nulls":            reflect.TypeFor[heapNulls](),
	"tiny-strings":     reflect.TypeFor[heapStrings](),
	"tiny-objects":     reflect.TypeFor[heapObjects](),
	"deep":             reflect.TypeFor[heapRaw](),
	"deep-members":     reflect.TypeFor[heapRaw](),
	"long-string":      reflect.TypeFor[heapString](),
	"escaped-string":   reflect.TypeFor[heapString](),
	"html-string":      reflect.TypeFor[heapString](),
	"invisible-string": reflect.TypeFor[heapString](),
	"wide-object":      reflect.TypeFor[heapMap](),
	"escaped-names":    reflect.TypeFor[heapMap](),
	"wide-extra":       reflect.TypeFor[heapExtra](),
	"escaped-strings":  reflect.TypeFor[heapStrings](),
	"big-numbers":      reflect.TypeFor[heapRaw](),
}

func heapEngine(tb testing.TB, s argshapes.Shape) *Engine {
	tb.Helper()
	typ := heapTypes[s.Name]
	if typ == nil {
		tb.Fatalf("shape %s has no Go type here", s.Name)
	}
	e, err := Compile([]byte(s.InputSchema()), typ, heapLimits)
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkArgsHeap bounds the peak live heap of Check on the worst shapes
// of arguments (internal/argshapes) of 4 MiB, whatever their number of
// values (heapLimits), per byte of input,
// with internal/heapmeter (a forced collection at every phase boundary;
// the bound of a phase is the live heap at its start plus what it
// allocates), and next to it that of json.Unmarshal into an any of the same
// input, measured the same way. Metrics: peak-B/B, Check's peak (typed
// or not, as the sub-benchmark's name says); json-any-B/B; and the
// bound of each phase of Check run by hand: tape-B/B (the copy and the
// parse), validate-B/B, encode-B/B (the re-encoding from the tape, or the
// typed decode and the re-encoding), compare-B/B (the round-trip
// comparison), read-B/B (the typed arguments, typed only).
//
// Typed is what the gate asks for when a resource template reads the
// shape's field (templateRead): the field, a slice of it cut to the
// gate's default Config.MaxResources+1 elements, when a template can read
// it (a scalar, a pointer to one, a slice of them); nothing for a field a
// template cannot read (then typed is untyped).
func BenchmarkArgsHeap(b *testing.B) {
	for _, s := range argshapes.All {
		raw := s.Args(testLimits.Bytes, MaxLimitValues)
		e := heapEngine(b, s)
		for k, typed := range []*Typed{nil, templateRead(e)} {
			name := s.Name + "/untyped"
			if k == 1 {
				name = s.Name + "/typed"
			}
			b.Run(name, func(b *testing.B) {
				var peak, jsonPeak uint64
				var phases []heapmeter.Phase
				for b.Loop() {
					peak = max(peak, checkPeak(b, e, raw, typed))

					m := heapmeter.Start()
					var v any
					if err := json.Unmarshal(raw, &v); err != nil {
						b.Fatal(err)
					}
					m.Mark("json")
					runtime.KeepAlive(v)
					jsonPeak = max(jsonPeak, m.Peak())

					phases = checkPhases(b, e, raw, typed)
				}
				n := float64(len(raw))
				b.ReportMetric(float64(peak)/n, "peak-B/B")
				b.ReportMetric(float64(jsonPeak)/n, "json-any-B/B")
				for _, p := range phases {
					b.ReportMetric(float64(p.Peak)/n, p.Name+"-B/B")
				}
			})
		}
	}
}

// checkPeak returns internal/heapmeter's bound on the peak live heap of
// e.Check(raw, read), which must accept raw.
func checkPeak(tb testing.TB, e *Engine, raw []byte, read *Typed) uint64 {
	tb.Helper()
	m := heapmeter.Start()
	args, fwd, err := e.Check(raw, read)
	m.Mark("check")
	if err != nil {
		tb.Fatalf("%.40s…: %v", raw, err)
	}
	runtime.KeepAlive(args)
	runtime.KeepAlive(fwd)
	return m.Peak()
}

// checkPhases runs Check's phases one by one (as checkParsed does) under a
// heapmeter, and returns their bounds.
func checkPhases(b *testing.B, e *Engine, raw []byte, typed *Typed) []heapmeter.Phase {
	m := heapmeter.Start()
	t := getTape()
	t.maxValues = e.limits.Values
	own := bytes.Clone(raw)
	if err := t.parseOwned(own); err != nil {
		b.Fatal(err)
	}
	m.Mark("tape")
	if err := e.validate(t); err != nil {
		b.Fatal(err)
	}
	m.Mark("validate")
	_, fwd, _, err := e.reencode(t, own, false)
	if err != nil {
		b.Fatal(err)
	}
	m.Mark("encode")
	if err := sameAsTape(t, fwd); err != nil {
		b.Fatal(err)
	}
	m.Mark("compare")
	if typed != nil && len(typed.Fields) > 0 {
		args, err := e.decodeRead(t, typed)
		if err != nil {
			b.Fatal(err)
		}
		m.Mark("read")
		runtime.KeepAlive(args)
	}
	runtime.KeepAlive(fwd)
	putTape(t)
	return m.Phases()
}

// heapMaxResources is the gate's default Config.MaxResources
// (runtime/ocp), which a resource template's array may not exceed: the
// gate asks for one element more.
const heapMaxResources = 256

// templateRead is what the gate asks Check for when a resource template
// reads every field of e's type that one can read (runtime/ocp
// rendersAs): a scalar, a pointer to a scalar, a slice of scalars (cut to
// heapMaxResources+1 elements). Nil when there is none.
func templateRead(e *Engine) *Typed {
	scalar := func(t reflect.Type) bool {
		switch t.Kind() {
		case reflect.String, reflect.Int64, reflect.Uint64, reflect.Float64, reflect.Bool:
			return true
		}
		return false
	}
	var fields []int
	for i := range e.typ.NumField() {
		ft := e.typ.Field(i).Type
		if scalar(ft) || (ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice) && scalar(ft.Elem()) {
			fields = append(fields, i)
		}
	}
	if fields == nil {
		return nil
	}
	return &Typed{Fields: fields, Elems: heapMaxResources + 1}
}

// TestCheckHeapWideObject holds Check of an object as wide as the limit of
// values lets it be (a map, or a struct's additional properties, re-encoded
// in key order, so not the arguments' bytes), of short names with escapes
// or not, to 4 bytes of peak live heap a byte of arguments, by
// internal/heapmeter's bound: its name index is made once, of its size,
// and put in name order for the re-encoding, which the round trip reads
// again (with a list of its own, escaped names took 4.12; the additional
// properties, decoded into their map, 15.7). A map does the same when a
// smaller large object closes after it (the index keeps the largest: it
// kept the last, 4.28 and 4.63).
func TestCheckHeapWideObject(t *testing.T) {
	testcorpus.SkipUnderRace(t) // every shape at the largest size: slow under -race, which changes no allocation
	for _, name := range []string{"wide-object", "escaped-names", "wide-extra"} {
		i := slices.IndexFunc(argshapes.All, func(s argshapes.Shape) bool { return s.Name == name })
		if i < 0 {
			t.Fatalf("no %s shape", name)
		}
		s := argshapes.All[i]
		raw := s.Args(testLimits.Bytes, MaxLimitValues)
		e := heapEngine(t, s)
		got := float64(checkPeak(t, e, raw, nil)) / float64(len(raw))
		t.Logf("%s: %.2f bytes a byte", name, got)
		if got > 4 {
			t.Errorf("Check of %s, %d bytes: peak %.2f bytes a byte, want at most 4", name, len(raw), got)
		}

		if heapTypes[name] != reflect.TypeFor[heapMap]() {
			continue
		}
		// {"v":{…},"w":{17 members}}
		small := `{`
		for k := range smallObject + 1 {
			small += fmt.Sprintf(`%q:0,`, fmt.Sprint(k))
		}
		two := append(raw[:len(raw)-1:len(raw)-1], `,"w":`+small[:len(small)-1]+`}}`...)
		type twoMaps struct {
			V map[string]int64 `json:"v"`
			W map[string]int64 `json:"w"`
		}
		e2, err := Compile([]byte(`{"type":"object","properties":{"v":`+s.Schema+`,"w":`+s.Schema+`}}`), reflect.TypeFor[twoMaps](), heapLimits)
		if err != nil {
			t.Fatal(err)
		}
		got = float64(checkPeak(t, e2, two, nil)) / float64(len(two))
		t.Logf("%s and a smaller object after it: %.2f bytes a byte", name, got)
		if got > 4 {
			t.Errorf("Check of %s and a smaller object after it, %d bytes: peak %.2f bytes a byte, want at most 4", name, len(two), got)
		}
	}
}

// TestCheckHeapOtherTypes holds Check of every shape in the Go types the
// generator writes for other schemas than the shape's, to 4 bytes of peak
// live heap a byte of arguments: as an optional property (tagged omitzero,
// as the generator writes an optional map, slice or json.RawMessage),
// which the re-encoding writes from the tape as it does a required one (an
// optional map was decoded into its map first: 17.8 bytes a byte), and
// into a json.RawMessage (a property whose schema says nothing of its
// type), written from the tape with its integer-valued literals as
// integers, without another copy (integral numbers took 6.0: the general
// path).
func TestCheckHeapOtherTypes(t *testing.T) {
	testcorpus.SkipUnderRace(t) // every shape at the largest size: slow under -race, which changes no allocation
	for _, s := range argshapes.All {
		types := map[string]reflect.Type{"into a json.RawMessage": reflect.TypeFor[heapRaw]()}
		switch ft := heapTypes[s.Name].Field(0).Type; ft.Kind() {
		case reflect.Map, reflect.Slice: // a scalar or a struct is a pointer when optional
			types["as an optional property"] = reflect.StructOf([]reflect.StructField{{Name: "V", Type: ft, Tag: `json:"v,omitzero"`}})
		}
		raw := s.Args(testLimits.Bytes, MaxLimitValues)
		for what, typ := range types {
			e, err := Compile([]byte(`{"type":"object","properties":{"v":`+s.Schema+`}}`), typ, heapLimits)
			if err != nil {
				t.Fatal(err)
			}
			got := float64(checkPeak(t, e, raw, nil)) / float64(len(raw))
			t.Logf("%s %s: %.2f bytes a byte", s.Name, what, got)
			if got > 4 {
				t.Errorf("Check of %s %s, %d bytes: peak %.2f bytes a byte, want at most 4", s.Name, what, len(raw), got)
			}
		}
	}
}

// TestCheckHeapValidator holds Check of arrays of 4 MiB whose keywords
// the validator evaluates item by item to 4 bytes of peak live heap a byte,
// accepted or refused: anyOf, oneOf and not whose branches fail items
// (each failure's reason was formatted or boxed, though not the value's:
// 11, 51 and 11 bytes a byte), uniqueItems of distinct objects (a
// maphash.Hash on the heap for every member: 17.8) and of equal items (a
// table for every item before the first comparison: 19.0).
func TestCheckHeapValidator(t *testing.T) {
	testcorpus.SkipUnderRace(t) // every shape at the largest size: slow under -race, which changes no allocation
	items := func(item func(k int) string) []byte {
		var b strings.Builder
		b.WriteString(`{"v":[`)
		for k := 0; b.Len() < testLimits.Bytes-64; k++ {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item(k))
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	digit := func(k int) string { return strconv.Itoa(k % 10) }
	for _, c := range []struct {
		name, schema string
		args         []byte
		refused      bool
	}{
		{"anyOf, first branch failing", `{"type":"array","items":{"anyOf":[{"type":"string"},{"minimum":0}]}}`, items(digit), false},
		{"oneOf, a branch failing", `{"type":"array","items":{"oneOf":[{"type":"string"},{"maximum":-1},{"type":"integer"}]}}`, items(digit), false},
		{"not", `{"type":"array","items":{"not":{"type":"string","minLength":3}}}`, items(digit), false},
		{"uniqueItems, distinct objects", `{"type":"array","uniqueItems":true}`, items(func(k int) string { return `{"` + strconv.FormatInt(int64(k), 36) + `":0}` }), false},
		{"uniqueItems, distinct numbers", `{"type":"array","uniqueItems":true}`, items(strconv.Itoa), false},
		{"uniqueItems, equal items", `{"type":"array","uniqueItems":true}`, items(func(int) string { return "0" }), true},
	} {
		e, err := Compile([]byte(`{"type":"object","properties":{"v":`+c.schema+`}}`), reflect.TypeFor[heapRaw](), heapLimits)
		if err != nil {
			t.Fatal(err)
		}
		m := heapmeter.Start()
		_, _, err = e.Check(c.args, nil)
		m.Mark("check")
		if (err != nil) != c.refused {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := float64(m.Peak()) / float64(len(c.args))
		t.Logf("%s: %.2f bytes a byte", c.name, got)
		if got > 4 {
			t.Errorf("Check of %d bytes, %s: peak %.2f bytes a byte, want at most 4", len(c.args), c.name, got)
		}
	}
}

// TestCheckHeapRefusedByDecode holds Check of arguments that the schema
// accepts and the Go type refuses, after 4 MiB of tiny numbers, to 4 bytes
// of peak live heap a byte: the general path finds the decode's refusal
// without making the typed value (which took 7.0 bytes a byte).
func TestCheckHeapRefusedByDecode(t *testing.T) {
	s := argshapes.All[slices.IndexFunc(argshapes.All, func(s argshapes.Shape) bool { return s.Name == "tiny-numbers" })]
	raw := s.Args(testLimits.Bytes, MaxLimitValues)
	numbers := string(raw[len(`{"v":`) : len(raw)-1])
	type nested struct {
		V heapInts `json:"v"`
	}
	for _, c := range []struct {
		name, schema, args string
		typ                reflect.Type
	}{
		{"a number no int64 holds, last", s.InputSchema(), numbers[:len(numbers)-1] + `,1e30]`, reflect.TypeFor[heapInts]()},
		{"a member no field declares, last", `{"type":"object","properties":{"v":` + s.InputSchema() + `}}`,
			`{"v":{"v":` + numbers + `,"w":0}}`, reflect.TypeFor[nested]()},
	} {
		e, err := Compile([]byte(c.schema), c.typ, heapLimits)
		if err != nil {
			t.Fatal(err)
		}
		args := []byte(c.args)
		if c.typ == reflect.TypeFor[heapInts]() {
			args = []byte(`{"v":` + c.args + `}`)
		}
		m := heapmeter.Start()
		_, _, err = e.Check(args, nil)
		m.Mark("check")
		var r *Refusal
		if !errors.As(err, &r) || r.Rule != RuleGoType {
			t.Fatalf("%s: %v, want the Go type's refusal", c.name, err)
		}
		got := float64(m.Peak()) / float64(len(args))
		t.Logf("%s: %.2f bytes a byte (%v)", c.name, got, err)
		if got > 4 {
			t.Errorf("Check of %d bytes, %s: peak %.2f bytes a byte, want at most 4", len(args), c.name, got)
		}
	}
}

// TestCheckHeapTyped holds Check of every shape whose field a resource
// template can read, asked for what it reads (templateRead), to 4 bytes of
// peak live heap a byte of arguments: the typed arguments are decoded
// after the verdict, of the field read only, and of an array only the
// elements a template can render (before, the whole arguments were
// decoded: 5.0 to 8.7 bytes a byte for the dense arrays, 13.4 for a wide
// object).
func TestCheckHeapTyped(t *testing.T) {
	for _, s := range argshapes.All {
		raw := s.Args(testLimits.Bytes, MaxLimitValues)
		e := heapEngine(t, s)
		read := templateRead(e)
		if read == nil {
			continue // no template reads its field: Check is untyped
		}
		got := float64(checkPeak(t, e, raw, read)) / float64(len(raw))
		t.Logf("%s: %.2f bytes a byte", s.Name, got)
		if got > 4 {
			t.Errorf("typed Check of %s, %d bytes: peak %.2f bytes a byte, want at most 4", s.Name, len(raw), got)
		}
	}
}
