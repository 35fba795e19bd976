package ocp

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/internal/argshapes"
	"github.com/ocpgen/ocpgen/internal/heapmeter"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// allTyped asks an engine of typ for every field: the typed arguments of
// the decode of the whole arguments, the reference of what a template
// reads.
func allTyped(typ reflect.Type) *argengine.Typed {
	r := &argengine.Typed{}
	for i := range typ.NumField() {
		r.Fields = append(r.Fields, i)
	}
	return r
}

// RenderArgs are the arguments of the rendering tests: every kind of
// placeholder a resource template has over a type the engine's codec
// decodes (values, optionals, arrays of strings and of integers).
type RenderArgs struct {
	Read `json:"-"`
	S    string   `json:"s"`
	O    *string  `json:"o,omitzero"`
	A    []string `json:"a,omitzero"`
	N    []int64  `json:"n,omitzero"`
	I    int64    `json:"i,omitzero"`
	X    []string `json:"x,omitzero"` // read by no template below
}

// RenderNullArgs add nullables, whose arrays a template may read element by
// element (BindNullableEach).
type RenderNullArgs struct {
	Read `json:"-"`
	S    string            `json:"s"`
	A    []string          `json:"a,omitzero"`
	U    Nullable[string]  `json:"u,omitzero"`
	L    Nullable[[]int64] `json:"l,omitzero"`
}

const renderSchema = `{"type":"object","properties":{"s":{"type":"string"},"o":{"type":"string"},` +
	`"a":{"type":"array","items":{"type":"string"}},"n":{"type":"array","items":{"type":"integer"}},` +
	`"i":{"type":"integer"},"x":{"type":"array","items":{"type":"string"}}},"required":["s"]}`

const renderNullSchema = `{"type":"object","properties":{"s":{"type":"string"},` +
	`"a":{"type":"array","items":{"type":"string"}},"u":{"type":["string","null"]},` +
	`"l":{"type":["array","null"],"items":{"type":"integer"}}},"required":["s"]}`

// The typed arguments a call decodes (its template's fields, an array to
// Config.MaxResources+1 elements: template.reads) render exactly what the
// decode of the whole arguments renders: the same resources, or the same
// refusal (rule, pointer, text), over templates of several placeholders in
// every order, with values, absent optionals, nulls (of nullables), empty arrays, arrays
// at, one over and far over the limit.
func TestTypedReadRendersAsTheWholeDecode(t *testing.T) {
	const max = 4
	arr := func(n int, f func(int) string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f(i))
		}
		b.WriteByte(']')
		return b.String()
	}
	strs := func(n int) string { return arr(n, func(i int) string { return fmt.Sprintf(`"a%d/."`, i) }) }
	ints := func(n int) string { return arr(n, func(i int) string { return fmt.Sprint(i * 7) }) }
	lens := []int{-1, 0, 1, 2, max - 1, max, max + 1, max + 2, 50} // -1: absent
	for _, tc := range []struct {
		name   string
		typ    reflect.Type
		schema string
		tpls   []string
		args   func(yield func(string) bool)
	}{
		{"codec", reflect.TypeFor[RenderArgs](), renderSchema, []string{
			"r/{s}", "r/{s}/{o}/{a}", "r/{a}/{o}", "{a}/{n}", "{n}/{a}", "{a}/{a}", "{o}/{a}/{s}/{n}", "{n}/{i}/{o}", "x/{a}", "{i}{n}{s}",
		}, func(yield func(string) bool) {
			for _, o := range []string{"", `,"o":"p q"`} {
				for _, na := range lens {
					for _, nn := range lens {
						for _, x := range []string{"", `,"x":` + strs(9)} {
							b := `{"s":".."` + o
							if na >= 0 {
								b += `,"a":` + strs(na)
							}
							if nn >= 0 {
								b += `,"n":` + ints(nn)
							}
							if !yield(b + x + `,"i":-3}`) {
								return
							}
						}
					}
				}
			}
		}},
		{"nullables", reflect.TypeFor[RenderNullArgs](), renderNullSchema, []string{
			"r/{u}/{a}", "{l}/{a}/{s}", "{a}/{l}/{u}", "{l}",
		}, func(yield func(string) bool) {
			for _, u := range []string{"", `,"u":null`, `,"u":"v"`} {
				for _, nl := range append(lens, -2) { // -2: null
					for _, na := range lens {
						b := `{"s":"s"` + u
						switch {
						case nl == -2:
							b += `,"l":null`
						case nl >= 0:
							b += `,"l":` + ints(nl)
						}
						if na >= 0 {
							b += `,"a":` + strs(na)
						}
						if !yield(b + `}`) {
							return
						}
					}
				}
			}
		}},
	} {
		e, err := argengine.Compile([]byte(tc.schema), tc.typ, argengine.Limits{Bytes: 1 << 20, Values: 1 << 16})
		if err != nil {
			t.Fatal(err)
		}
		all := allTyped(tc.typ)
		renders, refusals := 0, 0
		for _, src := range tc.tpls {
			tp := tpl(src)
			autoModes(tc.typ, tp, true)
			bt, err := bindTemplate(tc.typ, tp, true)
			if err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			read := bt.reads(max)
			for raw := range tc.args {
				whole, _, err := e.Check([]byte(raw), all)
				if err != nil {
					t.Fatalf("%s: %v", raw, err)
				}
				part, _, err := e.Check([]byte(raw), read)
				if err != nil {
					t.Fatalf("%s (reading %v): %v", raw, read, err)
				}
				want, wantErr := bt.resources(reflect.ValueOf(whole).Elem(), max)
				got, gotErr := bt.resources(reflect.ValueOf(part).Elem(), max)
				if !reflect.DeepEqual(got, want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || refusalOf(gotErr) != refusalOf(wantErr) {
					t.Fatalf("%s %s %s: renders %q, %v; the whole decode %q, %v", tc.name, src, raw, got, gotErr, want, wantErr)
				}
				if wantErr != nil {
					refusals++
				} else {
					renders++
				}
			}
		}
		t.Logf("%s: %d renderings, %d refusals", tc.name, renders, refusals)
		if renders == 0 || refusals == 0 {
			t.Errorf("%s: %d renderings, %d refusals: both kinds needed", tc.name, renders, refusals)
		}
	}
}

// refusalOf is an error's refusal (rule and pointer), if it has one.
func refusalOf(err error) string {
	var r *argengine.Refusal
	if errors.As(err, &r) {
		return string(r.Rule) + " at " + r.Pointer
	}
	return ""
}

// The arguments of the tools of TestTypedCallHeapIsBounded: the shape's
// "v" next to a small string "k".
type (
	heapReadK[T any] struct {
		Read `json:"-"`
		K    *string `json:"k,omitzero"`
		V    T       `json:"v"`
	}
	heapWriteK[T any] struct {
		Write `json:"-"`
		K     *string `json:"k,omitzero"`
		V     T       `json:"v"`
	}
	heapReadV[T any] struct {
		Read `json:"-"`
		K    *string `json:"k,omitzero"`
		V    T       `json:"v"`
	}
)

// heapArgsK are the types of "reads-k", "writes-k" and (for the arrays of
// scalars) "reads-v" of each dense shape (typedHeapTools).
var heapArgsK = map[string][3]any{
	"tiny-numbers":     {(*heapReadK[[]int64])(nil), (*heapWriteK[[]int64])(nil), (*heapReadV[[]int64])(nil)},
	"shared-ref":       {(*heapReadK[[]int64])(nil), (*heapWriteK[[]int64])(nil), (*heapReadV[[]int64])(nil)},
	"integral-numbers": {(*heapReadK[[]int64])(nil), (*heapWriteK[[]int64])(nil), (*heapReadV[[]int64])(nil)},
	"tiny-strings":     {(*heapReadK[[]string])(nil), (*heapWriteK[[]string])(nil), (*heapReadV[[]string])(nil)},
	"nulls":            {(*heapReadK[[]*int64])(nil), (*heapWriteK[[]*int64])(nil), nil},
	"tiny-objects":     {(*heapReadK[[]heapObject])(nil), (*heapWriteK[[]heapObject])(nil), nil},
	"wide-object":      {(*heapReadK[map[string]int64])(nil), (*heapWriteK[map[string]int64])(nil), nil},
}

// A call whose resource template reads an argument decodes only that
// argument (and of an array, one element more than Config.MaxResources):
// its peak live heap stays within 4× its size, with 64 KiB to spare, for
// every dense shape in "v" while the template reads a small "k" (read and
// write, approved), and while it reads "v" itself, an array of more than
// Config.MaxResources values, which is refused by ruleResources. (Before
// the engine decoded only what is read, the whole arguments were decoded:
// 5 to 13 bytes a byte.)
func TestTypedCallHeapIsBounded(t *testing.T) {
	const bytes, values = 1 << 20, 1 << 20
	for _, s := range argshapes.All {
		types, ok := heapArgsK[s.Name]
		if !ok {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			tools := typedHeapTools(s, types)
			var m *heapmeter.Meter
			g := heapGateOf(t, NewCatalogue(testTiers, tools...), heapMarks(&m), func(cfg *Config) { cfg.MaxArgsBytes, cfg.MaxArgsValues = bytes, values })
			raw := withKey(s, bytes, math.MaxInt)
			size := max(len(raw), len(escapeInvisible(raw)))
			limit := uint64(4*size + 64<<10)
			for _, tool := range tools {
				name := tool.Desc.Name
				peak, refused := heapDispatch(t, g, &m, name, raw)
				if want := name == "reads-v"; refused != want {
					t.Errorf("%s: refused %v, want %v", name, refused, want)
				}
				t.Logf("%s: %d bytes of arguments: peak %.2f× its size", name, len(raw), float64(peak)/float64(size))
				if peak > limit {
					t.Errorf("%s: %d bytes of arguments: peak %d bytes (%.2f× its size), beyond %d", name, len(raw), peak, float64(peak)/float64(size), limit)
				}
			}
		})
	}
}

// typedHeapTools are the tools of a shape whose arguments hold "v" and a
// small "k" (types, of heapArgsK): "reads-k" and "writes-k", whose
// resource templates read "k", and when the shape is an array of scalars
// "reads-v", whose template reads "v".
func typedHeapTools(s argshapes.Shape, types [3]any) []*Tool {
	schema := `{"type":"object","properties":{"k":{"type":"string"},"v":` + s.Schema + `},"required":["v"]}`
	tools := []*Tool{
		{Args: types[0], Desc: mustDesc(Descriptor{Name: "reads-k", InputSchema: schema,
			Policy: Policy{Kind: ocpimpl.KindRead, Classified: true, Tier: "member", Resource: tpl("r/{k}"), Failure: "no"}})},
		{Args: types[1], Desc: mustDesc(Descriptor{Name: "writes-k", InputSchema: schema,
			Policy: Policy{Kind: ocpimpl.KindWrite, Classified: true, Tier: "member", Resource: tpl("w/{k}"), Failure: "no", ConfirmTTL: time.Minute}})},
	}
	if types[2] != nil {
		tools = append(tools, &Tool{Args: types[2], Desc: mustDesc(Descriptor{Name: "reads-v", InputSchema: schema,
			Policy: Policy{Kind: ocpimpl.KindRead, Classified: true, Tier: "member", Resource: tpl("a/{v}"), Failure: "no"}})})
	}
	return tools
}

// withKey returns the shape's largest arguments of at most size bytes and
// values JSON values with "k" first: {"k":"key","v":…}.
func withKey(s argshapes.Shape, size, values int) []byte {
	const k = `"k":"key",`
	raw := s.Args(size-len(k), values-1)
	return append([]byte("{"+k), raw[1:]...)
}

// heapDispatch is heapCall for a call that succeeds, or that the resource
// limit refuses (refused is then true).
func heapDispatch(tb testing.TB, g *Gate, m **heapmeter.Meter, tool string, args []byte) (peak uint64, refused bool) {
	tb.Helper()
	req := ActionRequest{ID: "h", Tool: tool, Args: args}
	*m = heapmeter.Start()
	res := g.Dispatch(tb.Context(), alice, req)
	if !res.OK && (res.Reason != ReasonInvalid || !strings.Contains(res.Error, `rule "`+string(ruleResources)+`"`)) {
		tb.Fatalf("%s: %+v", tool, res)
	}
	return (*m).Peak(), !res.OK
}
