// Package argshapes builds the worst shapes of a tool call's arguments for
// the memory benchmarks and tests of the argument engine and the gate:
// each is an object {"v": …} whose one property is made of the values that
// cost a JSON parser, a validator or a typed decode the most per byte, as
// large as fits in a number of bytes and of JSON values.
package argshapes

import (
	"fmt"
	"strings"
)

// Shape is one shape of arguments.
type Shape struct {
	// Name names the shape in benchmark and test names.
	Name string
	// Schema is the JSON Schema of the property "v"; [Shape.InputSchema]
	// is the tool's.
	Schema string
	// Go is the Go type of "v" in the tool's argument struct, as the
	// generator writes it for Schema (the tests declare the structs).
	Go string
	// item returns the k-th item of the value of "v" and the JSON values
	// it holds; nil for a shape of one string.
	item func(k int) (string, int)
	// open and close wrap the items, separated by commas.
	open, close string
	// unit is, for a shape of one string, what the string repeats.
	unit string
}

// Dense reports whether the shape holds a value every few bytes, so that
// the bound of values refuses it before the bound of bytes does.
func (s Shape) Dense() bool { return s.item != nil && s.Name != "big-numbers" }

// InputSchema is the input schema of a tool whose one required property
// "v" has the shape's schema.
func (s Shape) InputSchema() string {
	return `{"type":"object","properties":{"v":` + s.Schema + `},"required":["v"]}`
}

// Args returns the largest arguments of the shape of at most size bytes
// and values JSON values: {"v": value}.
func (s Shape) Args(size, values int) []byte {
	const wrap = len(`{"v":}`)
	var b strings.Builder
	b.Grow(size)
	b.WriteString(`{"v":`)
	n := size - wrap
	if s.item == nil {
		b.WriteByte('"')
		b.WriteString(strings.Repeat(s.unit, (n-2)/len(s.unit)))
		b.WriteByte('"')
	} else {
		start := b.Len()
		values -= 2 // the root and "v"
		b.WriteString(s.open)
		for k := 0; ; k++ {
			it, v := s.item(k)
			if b.Len()-start+len(it)+1+len(s.close) > n || v > values {
				break
			}
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(it)
			values -= v
		}
		b.WriteString(s.close)
	}
	b.WriteString(`}`)
	out := []byte(b.String())
	if len(out) > size {
		panic(fmt.Sprintf("argshapes: %s: %d bytes for %d", s.Name, len(out), size))
	}
	return out
}

// Deep is the nesting of each element of the shape "deep".
const Deep = 9000

// bigNumber is a number literal of 127 bytes (the engine takes 128), neither
// an int64 nor a float64.
var bigNumber = "-" + strings.Repeat("9", 100) + "." + strings.Repeat("7", 20) + "e-300"

func same(it string, values int) func(int) (string, int) {
	return func(int) (string, int) { return it, values }
}

// nameChars are the characters a member name holds unescaped in one byte:
// printable ASCII but the quote and the backslash.
const nameChars = ` !#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_` + "`" + `abcdefghijklmnopqrstuvwxyz{|}~`

// shortName returns the k-th of the shortest distinct names written
// without escapes: one character of nameChars, then two, then three…
func shortName(k int) string {
	n := len(nameChars)
	width := 1
	for span := n; k >= span; span *= n {
		k -= span
		width++
	}
	b := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		b[i] = nameChars[k%n]
		k /= n
	}
	return string(b)
}

// All are the shapes.
var All = []Shape{
	// One value per two bytes: [0,0,…].
	{Name: "tiny-numbers", Schema: `{"type":"array","items":{"type":"integer"}}`, Go: "[]int64",
		open: "[", close: "]", item: same("0", 1)},
	// tiny-numbers in a union's branch (a generated union of an array of
	// integers and a string): [0,0,…].
	{Name: "union-numbers", Schema: `{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"string"}]}`,
		Go: "a union of []int64 and string", open: "[", close: "]", item: same("0", 1)},
	// One string per three bytes: ["","",…].
	{Name: "tiny-strings", Schema: `{"type":"array","items":{"type":"string"}}`, Go: "[]string",
		open: "[", close: "]", item: same(`""`, 1)},
	// One object of one member per eight bytes: [{"a":0},…].
	{Name: "tiny-objects", Schema: `{"type":"array","items":{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}}`, Go: "[]struct{A *int64 `json:\"a,omitzero\"`}",
		open: "[", close: "]", item: same(`{"a":0}`, 2)},
	// Integers written with a fraction: [1.0,1.0,…], which the typed
	// decode takes as 1, so the re-encoding differs from the arguments.
	{Name: "integral-numbers", Schema: `{"type":"array","items":{"type":"integer"}}`, Go: "[]int64",
		open: "[", close: "]", item: same("1.0", 1)},
	// Nulls into pointers: [null,null,…].
	{Name: "nulls", Schema: `{"type":"array","items":{"type":["integer","null"]}}`, Go: "[]*int64",
		open: "[", close: "]", item: same("null", 1)},
	// Tiny numbers checked twice by one shared schema (items and contains
	// both refer to it), whose verdicts the validator remembers.
	{Name: "shared-ref", Schema: `{"type":"array","$defs":{"n":{"type":"integer","minimum":0}},"items":{"$ref":"#/properties/v/$defs/n"},"contains":{"$ref":"#/properties/v/$defs/n"}}`, Go: "[]int64",
		open: "[", close: "]", item: same("0", 1)},
	// Arrays nested Deep levels, side by side: [[[[…]]],[[[…]]],…].
	{Name: "deep", Schema: `{}`, Go: "json.RawMessage",
		open: "[", close: "]", item: same(strings.Repeat("[", Deep)+strings.Repeat("]", Deep), Deep)},
	// Objects and their members' arrays nested Deep levels, side by side:
	// [{"":[{"":[…]}]},…], the nesting whose values take two words each.
	{Name: "deep-members", Schema: `{}`, Go: "json.RawMessage",
		open: "[", close: "]", item: same(strings.Repeat(`{"":[`, Deep/2)+strings.Repeat(`]}`, Deep/2), Deep)},
	// An object of the shortest distinct keys (shortName).
	{Name: "wide-object", Schema: `{"type":"object","additionalProperties":{"type":"integer"}}`, Go: "map[string]int64",
		open: "{", close: "}", item: func(k int) (string, int) { return `"` + shortName(k) + `":0`, 1 }},
	// Short strings with escapes that the re-encoding writes otherwise:
	// ["\/","\/",…].
	{Name: "escaped-strings", Schema: `{"type":"array","items":{"type":"string"}}`, Go: "[]string",
		open: "[", close: "]", item: same(`"\/"`, 1)},
	// An object of the shortest distinct keys with an escape, the
	// cheapest: "\/" (two bytes for one decoded) and a shortName.
	{Name: "escaped-names", Schema: `{"type":"object","additionalProperties":{"type":"integer"}}`, Go: "map[string]int64",
		open: "{", close: "}", item: func(k int) (string, int) { return `"\/` + shortName(k) + `":0`, 1 }},
	// An object of the shortest distinct escaped keys, all additional
	// properties beside an optional declared one (a generated struct with
	// an AdditionalProperties map, which its encoding writes in key order
	// after the declared properties).
	{Name: "wide-extra", Schema: `{"type":"object","properties":{"s":{"type":"string"}},"additionalProperties":{"type":"integer"}}`,
		Go:   "struct{S *string `json:\"s,omitzero\"`; AdditionalProperties map[string]int64 `json:\"-\"`} with ocpimpl's MarshalWithExtra, UnmarshalWithExtra",
		open: "{", close: "}", item: func(k int) (string, int) { return `"\/` + shortName(k) + `":0`, 1 }},
	// Number literals of 127 bytes.
	{Name: "big-numbers", Schema: `{"type":"array","items":{"type":"number"}}`, Go: "json.RawMessage",
		open: "[", close: "]", item: same(bigNumber, 1)},
	// One string of the whole size.
	{Name: "long-string", Schema: `{"type":"string"}`, Go: "string", unit: "a"},
	// One string of escapes, each six bytes for two decoded.
	{Name: "escaped-string", Schema: `{"type":"string"}`, Go: "string", unit: `\u00e9`},
	// One string of '<', which json.Marshal would write as six bytes.
	{Name: "html-string", Schema: `{"type":"string"}`, Go: "string", unit: "<"},
	// One string of U+00AD (soft hyphen, two bytes), which the gate
	// forwards escaped as six.
	{Name: "invisible-string", Schema: `{"type":"string"}`, Go: "string", unit: "\u00ad"},
}
