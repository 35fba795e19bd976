package argengine

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// The typed decode and re-encoding of the arguments, compiled per argument
// type: a codec decodes straight from the tape into the argument struct and
// encodes the struct into the bytes json.Marshal would produce, through a
// plan built once, by Compile.
//
// A codec exists only for types that are made of plain parts: structs with
// exported, uniquely named fields (an embedded field only with json:"-", the
// read/write markers), strings, bools, integers, floats, pointers, slices
// (not []byte) and maps with string keys, none of them with a method of
// json.Marshaler, json.Unmarshaler, encoding.TextMarshaler,
// encoding.TextUnmarshaler or (under omitzero) IsZero, and no ",string"
// option; and of three generated parts whose JSON methods it does itself:
// json.RawMessage, a struct with additional properties
// (ocpimpl.WithExtra: its AdditionalProperties map holds the members no
// other field declares), ocpimpl.Nullable of a type it covers, and a
// generated union (a struct of pointer fields listed by its OCPBranches)
// whose branch types it covers. Any other argument type (any, a union
// generated before OCPBranches) is decoded and encoded by encoding/json.
//
// For such a type the codec gives what encoding/json gives: the same verdict
// and the same value (TestArgCodecAgreesWithEncodingJSON, FuzzArgCodec,
// TestArgCodecExtraRaw), and the same bytes. Its decode is
// stricter in one way that changes no verdict: a member name that is not
// exactly a field's is refused (kept in AdditionalProperties, for a struct
// that has it), where encoding/json would match it case-insensitively or
// drop it; the gate refuses both anyway, because the re-encoding would not
// equal the arguments. Inside a union's branch, where a failed decode
// tries the next branch, it matches names as encoding/json does (see
// decodeMode).

type codecKind uint8

const (
	ckString codecKind = iota
	ckBool
	ckInt
	ckUint
	ckFloat
	ckPtr
	ckSlice
	ckMap
	ckStruct
	ckRaw      // json.RawMessage
	ckNullable // ocpimpl.Nullable[T], T's plan in elem
	ckUnion    // a generated union, its branches in branches
)

// codecNode is the plan for one type.
type codecNode struct {
	kind   codecKind
	typ    reflect.Type
	bits   int          // ckInt, ckUint, ckFloat: the size in bits
	elem   *codecNode   // ckPtr, ckSlice, ckMap, ckNullable: the element (map value, T)
	fields []codecField // ckStruct, in encoding order
	// extra is, for a struct with additional properties (ckStruct), the
	// plan of its AdditionalProperties map (ckMap), whose field index is
	// extraIndex; nil for any other struct.
	extra      *codecNode
	extraIndex int
	// branches are a union's (ckUnion), in schema order.
	branches []codecBranch
}

// codecBranch is one branch of a union: what ocpimpl.Branch was given.
type codecBranch struct {
	kinds uint8 // ocpimpl.JSONKind
	// schema is the branch schema compiled (branchSchema), or nil when the
	// branch has none or it does not compile: then required decides.
	schema   *Schema
	required []string
	index    int        // the field, a *T
	node     *codecNode // T's plan
}

// codecField is one encoded field of a struct.
type codecField struct {
	name   string // the member name
	prefix string // `"name":` as json.Marshal writes it
	// plainPrefix is `"name":` as an Encoder without HTML escaping writes
	// it (a valid tag name or a Go identifier needs no other escape).
	plainPrefix string
	index       int
	omitEmpty   bool
	omitZero    bool
	node        *codecNode
}

var (
	jsonMarshalerType   = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType   = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	isZeroerType        = reflect.TypeFor[interface{ IsZero() bool }]()
	withExtraType       = reflect.TypeFor[withExtra]()
	nullableType        = reflect.TypeFor[nullable]()
	unionBranchType     = reflect.TypeFor[unionBranch]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
)

// withExtra is runtime/ocpimpl.WithExtra, the marker of a generated struct
// with additional properties, declared here by its method so that the
// engine does not import ocpimpl (which asks the engine to check union
// branches, see branch.go).
type withExtra interface{ OCPWithExtra() }

// nullable is the part of *runtime/ocpimpl.Nullable[T]'s methods that the
// codec uses (declared here, as withExtra is): OCPSetNull makes it a null,
// OCPSetValue makes it hold a value and returns a *T to store it in, and
// OCPValue returns a *T to its value, or nil when it is absent or null.
type nullable interface {
	OCPSetNull()
	OCPSetValue() any
	OCPValue() any
}

// unionBranch is runtime/ocpimpl.UnionBranch's method for the codec
// (declared here, as withExtra is): what ocpimpl.Branch was given, the
// field as its **T. A generated union's pointer has the method
// OCPBranches, which returns its []ocpimpl.UnionBranch, in schema order
// (called through reflect: the engine cannot name the type).
type unionBranch interface {
	OCPBranch() (kinds uint8, schema string, required []string, field any)
}

// isUnion reports whether t, a struct, is a generated union with
// OCPBranches (a union generated before it has only its JSON methods,
// which leave it to encoding/json).
func isUnion(t reflect.Type) bool {
	_, ok := reflect.PointerTo(t).MethodByName("OCPBranches")
	return ok && t.Kind() == reflect.Struct
}

// compileCodec returns the codec of the struct type typ, or nil when typ
// has a part the codec does not cover.
func compileCodec(typ reflect.Type) *codecNode {
	c := codecCompiler{seen: map[reflect.Type]*codecNode{}}
	n := c.node(typ)
	if c.bad || n == nil || n.kind != ckStruct {
		return nil
	}
	return n
}

type codecCompiler struct {
	seen map[reflect.Type]*codecNode
	bad  bool
}

func hasJSONMethods(t reflect.Type) bool {
	for _, it := range []reflect.Type{jsonMarshalerType, jsonUnmarshalerType, textMarshalerType, textUnmarshalerType} {
		if t.Implements(it) || reflect.PointerTo(t).Implements(it) {
			return true
		}
	}
	return false
}

func (c *codecCompiler) node(t reflect.Type) *codecNode {
	if n := c.seen[t]; n != nil {
		return n // a recursive type: the plan being built
	}
	if t == rawMessageType {
		n := &codecNode{typ: t, kind: ckRaw}
		c.seen[t] = n
		return n
	}
	if t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(withExtraType) {
		return c.extraStruct(t)
	}
	if t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(nullableType) {
		return c.nullable(t)
	}
	if t.Kind() == reflect.Struct && isUnion(t) {
		return c.union(t)
	}
	// A pointer has its element's methods: one to a struct with
	// additional properties, to a Nullable or to a union is a pointer to
	// what extraStruct, nullable or union plans.
	plannedPtr := t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && (t.Implements(withExtraType) || t.Implements(nullableType) || isUnion(t.Elem()))
	if !plannedPtr && hasJSONMethods(t) {
		c.bad = true
		return nil
	}
	n := &codecNode{typ: t}
	c.seen[t] = n
	switch t.Kind() {
	case reflect.String:
		n.kind = ckString
	case reflect.Bool:
		n.kind = ckBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind, n.bits = ckInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n.kind, n.bits = ckUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		n.kind, n.bits = ckFloat, t.Bits()
	case reflect.Pointer:
		n.kind, n.elem = ckPtr, c.node(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			c.bad = true // []byte is base64 in encoding/json
			return nil
		}
		n.kind, n.elem = ckSlice, c.node(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String || hasJSONMethods(t.Key()) {
			c.bad = true
			return nil
		}
		n.kind, n.elem = ckMap, c.node(t.Elem())
	case reflect.Struct:
		n.kind = ckStruct
		c.structFields(n)
	default:
		c.bad = true
		return nil
	}
	return n
}

// extraStruct is the plan of a struct with additional properties
// (ocpimpl.WithExtra): its fields as a plain struct's (the catch-all map is
// tagged "-"), and the map. Only a map[string]V field AdditionalProperties
// tagged "-" and, beside it, no method but the JSON ones and the marker,
// make one; else the type is left to encoding/json.
func (c *codecCompiler) extraStruct(t reflect.Type) *codecNode {
	sf, ok := t.FieldByName("AdditionalProperties")
	if !ok || len(sf.Index) != 1 || sf.Tag.Get("json") != "-" || sf.Type.Kind() != reflect.Map || sf.Type.Key() != reflect.TypeFor[string]() {
		c.bad = true
		return nil
	}
	if !methodsAmong(t, "MarshalJSON", "UnmarshalJSON", "OCPWithExtra") {
		c.bad = true // a method the generator does not write
		return nil
	}
	n := &codecNode{typ: t, kind: ckStruct, extraIndex: sf.Index[0]}
	c.seen[t] = n
	c.structFields(n)
	if n.extra = c.node(sf.Type); n.extra == nil {
		c.bad = true
		return nil
	}
	return n
}

// methodsAmong reports whether every exported method of t and of *t (the
// only ones reflect lists) is one of names: a generated type has only the
// methods the generator writes.
func methodsAmong(t reflect.Type, names ...string) bool {
	for _, m := range []reflect.Type{t, reflect.PointerTo(t)} {
		for i := range m.NumMethod() {
			if !slices.Contains(names, m.Method(i).Name) {
				return false
			}
		}
	}
	return true
}

// nullable is the plan of an ocpimpl.Nullable[T] (a struct whose pointer
// has the methods of nullable): T's plan, as its element. Only a type with
// no method but Nullable's, whose Get returns T and whose OCPSetValue
// gives a *T, makes one; else the type is left to encoding/json.
func (c *codecCompiler) nullable(t reflect.Type) *codecNode {
	pt := reflect.PointerTo(t)
	if !methodsAmong(t, "Get", "IsNull", "MarshalJSON", "UnmarshalJSON", "OCPSetNull", "OCPSetValue", "OCPValue") {
		c.bad = true // not ocpimpl.Nullable
		return nil
	}
	get, ok := pt.MethodByName("Get")
	if !ok || get.Type.NumIn() != 1 || get.Type.NumOut() != 2 || get.Type.Out(1).Kind() != reflect.Bool {
		c.bad = true
		return nil
	}
	vt := get.Type.Out(0)
	probe := reflect.New(t).Interface().(nullable)
	if reflect.TypeOf(probe.OCPSetValue()) != reflect.PointerTo(vt) {
		c.bad = true
		return nil
	}
	n := &codecNode{typ: t, kind: ckNullable}
	c.seen[t] = n
	if n.elem = c.node(vt); n.elem == nil {
		c.bad = true
		return nil
	}
	return n
}

// union is the plan of a generated union: the branches its OCPBranches
// lists for a new value, each matched to its field by the field's
// address, with its T's plan and its schema compiled through
// branchSchema (the cache ocpimpl.UnmarshalUnion's checks go through:
// one place compiles a branch schema). Only a struct whose every field is
// one branch's *T, with no method but MarshalJSON (of the value, as the
// generator writes it), UnmarshalJSON and OCPBranches, makes one; else the
// type is left to encoding/json.
func (c *codecCompiler) union(t reflect.Type) *codecNode {
	pt := reflect.PointerTo(t)
	if !methodsAmong(t, "MarshalJSON", "UnmarshalJSON", "OCPBranches") {
		c.bad = true // a method the generator does not write
		return nil
	}
	m, _ := pt.MethodByName("OCPBranches")
	if !t.Implements(jsonMarshalerType) || !pt.Implements(jsonUnmarshalerType) || m.Type.NumIn() != 1 || m.Type.NumOut() != 1 || m.Type.Out(0).Kind() != reflect.Slice || !m.Type.Out(0).Elem().Implements(unionBranchType) {
		c.bad = true
		return nil
	}
	probe := reflect.New(t)
	list := probe.Method(m.Index).Call(nil)[0]
	n := &codecNode{typ: t, kind: ckUnion}
	c.seen[t] = n
	used := make([]bool, t.NumField())
	for k := range list.Len() {
		kinds, schema, required, field := list.Index(k).Interface().(unionBranch).OCPBranch()
		fp := reflect.ValueOf(field)
		index := -1
		for i := range t.NumField() {
			f := probe.Elem().Field(i)
			if fp.IsValid() && fp.Kind() == reflect.Pointer && fp.Type().Elem() == f.Type() && t.Field(i).IsExported() &&
				f.Kind() == reflect.Pointer && fp.Pointer() == f.Addr().Pointer() {
				index = i
			}
		}
		if index < 0 || used[index] {
			c.bad = true // not a field of the union, or one twice
			return nil
		}
		used[index] = true
		b := codecBranch{kinds: kinds, required: required, index: index}
		if schema != "" {
			b.schema = branchSchema(schema)
		}
		if b.node = c.node(t.Field(index).Type.Elem()); b.node == nil {
			c.bad = true
			return nil
		}
		n.branches = append(n.branches, b)
	}
	if slices.Contains(used, false) {
		c.bad = true // a field no branch lists
		return nil
	}
	return n
}

// structFields lays out a struct's fields as encoding/json's typeFields does
// for a struct without embedded fields.
func (c *codecCompiler) structFields(n *codecNode) {
	t := n.typ
	names := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		if sf.Anonymous {
			c.bad = true // promoted fields: left to encoding/json
			return
		}
		if !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !jsonscan.IsValidTagName(name) {
			name = ""
		}
		if name == "" {
			name = sf.Name
		}
		f := codecField{name: name, index: i}
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			case "string":
				c.bad = true
				return
			}
		}
		if f.omitZero && (sf.Type.Implements(isZeroerType) || reflect.PointerTo(sf.Type).Implements(isZeroerType)) {
			c.bad = true
			return
		}
		if names[name] {
			c.bad = true // encoding/json drops both
			return
		}
		names[name] = true
		f.prefix = `"` + string(htmlEscapeName(nil, name)) + `":`
		f.plainPrefix = `"` + name + `":`
		if f.node = c.node(sf.Type); f.node == nil {
			c.bad = true
			return
		}
		n.fields = append(n.fields, f)
	}
}

const hexDigits = "0123456789abcdef"

// htmlEscapeName is encoding/json's appendHTMLEscape, which it applies to
// field names.
func htmlEscapeName(dst []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '<' || c == '>' || c == '&' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			start = i + 1
		}
		if c == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[s[i+2]&0xF])
			start = i + len("\u2029")
		}
	}
	return append(dst, s[start:]...)
}

var errCodecMember = errors.New("json: a member name that is not exactly one of the fields'")

var tapeKindNames = [...]string{tNull: "null", tFalse: "bool", tTrue: "bool", tNumber: "number", tString: "string", tArray: "array", tObject: "object"}

// decode stores value i of t into v (settable, and zero: a new value). Its
// error is an *Refusal at the value v cannot hold. With v the zero
// reflect.Value it stores nothing and allocates nothing but its error: it
// finds the refusal decode gives, at the same value, without making the
// typed value.
func (n *codecNode) decode(t *tape, i int, v reflect.Value) error {
	return n.decodeIn(t, i, v, decodeMode{})
}

// decodeMode is where a value is decoded.
type decodeMode struct {
	// remarshalled is true inside a declared property of a struct with
	// additional properties, which ocpimpl.UnmarshalWithExtra decodes
	// from json.Marshal of a map of json.RawMessage: there every
	// json.RawMessage holds its text compacted and HTML-escaped.
	remarshalled bool
	// folded is not nil inside a union's branch, which
	// ocpimpl.UnmarshalUnion decodes with encoding/json (strictly): there
	// a member name that is no field's exactly is matched as encoding/json
	// matches it, to the first field whose name equals it under Unicode
	// case folding (strings.EqualFold, which is encoding/json's foldName),
	// because whether the branch decodes decides which branch is set.
	// *folded is the node of the first member so matched in the branches
	// decoded so far, or -1. The outermost union refuses a value whose
	// branch decoded with such a member: its re-encoding names the field
	// as it is, so it cannot equal the arguments, and the round trip
	// refuses it on encoding/json's path.
	folded *int
}

// decodeIn is decode, in mode dm.
func (n *codecNode) decodeIn(t *tape, i int, v reflect.Value, dm decodeMode) error {
	xk := t.kind(i)
	if n.kind == ckRaw {
		// encoding/json gives json.RawMessage's UnmarshalJSON every value,
		// null included, as the bytes of decodeInput's text.
		if v.IsValid() {
			b := t.rawInput(i)
			if dm.remarshalled {
				b = appendCompact(nil, b, true)
			}
			v.SetBytes(b)
		}
		return nil
	}
	if n.kind == ckNullable {
		// ocpimpl.Nullable's UnmarshalJSON: a null is a null, any other
		// value is T's, decoded strictly (as the codec decodes, from the
		// same text: the integer-rewritten one, or in a struct with
		// additional properties the remarshalled one).
		if !v.IsValid() {
			if xk == tNull {
				return nil
			}
			return n.elem.decodeIn(t, i, v, dm)
		}
		nv := v.Addr().Interface().(nullable)
		if xk == tNull {
			nv.OCPSetNull()
			return nil
		}
		return n.elem.decodeIn(t, i, reflect.ValueOf(nv.OCPSetValue()).Elem(), dm)
	}
	if n.kind == ckUnion {
		return n.decodeUnion(t, i, v, dm)
	}
	if xk == tNull {
		if n.extra != nil {
			// encoding/json gives a struct with additional properties (not
			// a pointer to one) its UnmarshalJSON's null, which
			// ocpimpl.UnmarshalWithExtra refuses.
			return codecRefusal(t, i, "null", n.typ)
		}
		return nil // encoding/json leaves the zero value (a nil pointer, slice, map)
	}
	switch n.kind {
	case ckString:
		if xk == tString {
			if v.IsValid() {
				v.SetString(t.str(i))
			}
			return nil
		}
	case ckBool:
		if xk == tTrue || xk == tFalse {
			if v.IsValid() {
				v.SetBool(xk == tTrue)
			}
			return nil
		}
	case ckInt:
		if xk == tNumber {
			k, ok := n.intOf(t.str(i))
			if !ok {
				return codecRefusal(t, i, "number "+t.str(i), n.typ)
			}
			if v.IsValid() {
				v.SetInt(k)
			}
			return nil
		}
	case ckUint:
		if xk == tNumber {
			k, ok := n.uintOf(t.str(i))
			if !ok {
				return codecRefusal(t, i, "number "+t.str(i), n.typ)
			}
			if v.IsValid() {
				v.SetUint(k)
			}
			return nil
		}
	case ckFloat:
		if xk == tNumber {
			f, ok := n.floatOf(t, i)
			if !ok {
				return codecRefusal(t, i, "number "+t.str(i), n.typ)
			}
			if v.IsValid() {
				v.SetFloat(f)
			}
			return nil
		}
	case ckPtr:
		if !v.IsValid() {
			return n.elem.decodeIn(t, i, v, dm)
		}
		p := reflect.New(n.elem.typ)
		if err := n.elem.decodeIn(t, i, p.Elem(), dm); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case ckSlice:
		if xk == tArray {
			return n.decodeSlice(t, i, v, dm, -1)
		}
	case ckMap:
		if xk == tObject && !v.IsValid() {
			for p := t.first(i); p < t.end(i); p = t.end(p) {
				if err := n.elem.decodeIn(t, p, v, dm); err != nil {
					return err
				}
			}
			return nil
		}
		if xk == tObject {
			m := reflect.MakeMapWithSize(n.typ, t.count(i))
			kt := n.typ.Key()
			for p := t.first(i); p < t.end(i); p = t.end(p) {
				e := reflect.New(n.elem.typ).Elem()
				if err := n.elem.decodeIn(t, p, e, dm); err != nil {
					return err
				}
				k := reflect.New(kt).Elem()
				k.SetString(t.key(p))
				m.SetMapIndex(k, e)
			}
			v.Set(m)
			return nil
		}
	case ckStruct:
		if xk == tObject {
			for p := t.first(i); p < t.end(i); p = t.end(p) {
				if err := n.decodeMember(t, p, v, dm, nil); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return codecRefusal(t, i, tapeKindNames[xk], n.typ)
}

// decodeMember decodes member p of an object into v, a struct of n (a
// ckStruct), as decodeIn does the struct's members; with read, only a
// member of a field in read.Fields, a slice (or a Nullable's) to
// read.Elems elements (the
// members no field declares, of a struct with additional properties, when
// read.Fields holds their map's index).
func (n *codecNode) decodeMember(t *tape, p int, v reflect.Value, dm decodeMode, read *Typed) error {
	f := n.field(t.key(p))
	if f == nil && n.extra == nil && dm.folded != nil {
		// Inside a union's branch: encoding/json's match (see decodeMode).
		if f = n.foldField(t.key(p)); f != nil && *dm.folded < 0 {
			*dm.folded = p
		}
	}
	if f == nil && n.extra != nil {
		if read != nil && !slices.Contains(read.Fields, n.extraIndex) {
			return nil
		}
		// ocpimpl.UnmarshalWithExtra: a member no field declares goes to
		// the map, decoded strictly as its value type.
		if !v.IsValid() {
			return n.extra.elem.decodeIn(t, p, v, dm)
		}
		m := v.Field(n.extraIndex)
		if m.IsNil() {
			m.Set(reflect.MakeMap(n.extra.typ))
		}
		e := reflect.New(n.extra.elem.typ).Elem()
		if err := n.extra.elem.decodeIn(t, p, e, dm); err != nil {
			return err
		}
		k := reflect.New(n.extra.typ.Key()).Elem()
		k.SetString(t.key(p))
		m.SetMapIndex(k, e)
		return nil
	}
	if f == nil {
		return refusal(t.pointer(p), RuleGoType, errCodecMember)
	}
	dm.remarshalled = dm.remarshalled || n.extra != nil // a declared property's
	if !v.IsValid() {
		return f.node.decodeIn(t, p, v, dm)
	}
	if read == nil {
		return f.node.decodeIn(t, p, v.Field(f.index), dm)
	}
	switch {
	case !slices.Contains(read.Fields, f.index):
		return nil
	case read.Elems > 0 && f.node.kind == ckSlice && t.kind(p) == tArray:
		return f.node.decodeSlice(t, p, v.Field(f.index), dm, read.Elems)
	case read.Elems > 0 && f.node.kind == ckNullable && f.node.elem.kind == ckSlice && t.kind(p) == tArray:
		s := reflect.ValueOf(v.Field(f.index).Addr().Interface().(nullable).OCPSetValue()).Elem()
		return f.node.elem.decodeSlice(t, p, s, dm, read.Elems)
	}
	return f.node.decodeIn(t, p, v.Field(f.index), dm)
}

// decodeSlice is decodeIn of array i of t into v for n, a ckSlice: of its
// first limit elements when limit >= 0 and it has more, else of all.
func (n *codecNode) decodeSlice(t *tape, i int, v reflect.Value, dm decodeMode, limit int) error {
	if !v.IsValid() {
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			if err := n.elem.decodeIn(t, p, v, dm); err != nil {
				return err
			}
		}
		return nil
	}
	var k int
	if limit >= 0 && t.moreThan(i, limit) {
		k = limit
	} else {
		k = t.count(i)
	}
	s := reflect.MakeSlice(n.typ, k, k)
	for j, p := 0, t.first(i); j < k; j, p = j+1, t.end(p) {
		if err := n.elem.decodeIn(t, p, s.Index(j), dm); err != nil {
			return err
		}
	}
	v.Set(s)
	return nil
}

// intOf returns the integer that decode makes of the number literal lit
// for n, a ckInt, and whether it makes one: encoding/json parses
// integerParts' rewriting of the literal, and refuses what overflows the
// type. It allocates nothing for a literal it takes.
func (n *codecNode) intOf(lit string) (int64, bool) {
	k, ok := parseIntLiteral(lit)
	switch {
	case ok:
	case notInt(lit):
		d, ok := parseDecimal(lit)
		m, mok := d.magnitude()
		switch {
		case !ok || !mok:
			return 0, false
		case !d.neg && m <= math.MaxInt64:
			k = int64(m)
		case d.neg && m <= 1<<63:
			k = -int64(m) // math.MinInt64 for 1<<63
		default:
			return 0, false
		}
	default:
		var err error
		if k, err = strconv.ParseInt(lit, 10, 64); err != nil {
			return 0, false
		}
	}
	return k, n.bits == 64 || k >= -1<<(n.bits-1) && k < 1<<(n.bits-1)
}

// uintOf is intOf for n, a ckUint.
func (n *codecNode) uintOf(lit string) (uint64, bool) {
	var k uint64
	if j, ok := parseIntLiteral(lit); ok && lit[0] != '-' {
		k = uint64(j)
	} else if notInt(lit) {
		d, ok := parseDecimal(lit)
		m, mok := d.magnitude()
		if !ok || !mok || d.neg && m != 0 {
			return 0, false
		}
		k = m
	} else {
		var err error
		if k, err = strconv.ParseUint(lit, 10, 64); err != nil {
			return 0, false
		}
	}
	return k, n.bits == 64 || k < 1<<n.bits
}

// floatOf is intOf for n, a ckFloat, of number i of t. encoding/json
// parses integerParts' rewriting of the literal in the type's size: the
// same number as the literal, which t.num holds correctly rounded to a
// float64, except that a zero loses its sign (-0.0 is 0).
func (n *codecNode) floatOf(t *tape, i int) (float64, bool) {
	lit := t.str(i)
	f := t.num(i)
	if n.bits == 32 {
		var err error
		if f, err = strconv.ParseFloat(lit, 32); err != nil {
			return 0, false
		}
		if a := math.Abs(f); math.MaxFloat32 < a && a <= math.MaxFloat64 {
			return 0, false // reflect.Value.OverflowFloat
		}
	}
	if f == 0 && notInt(lit) {
		if d, ok := parseDecimal(lit); ok {
			if it, ok := d.integerText(); ok && it == "0" {
				f = 0
			}
		}
	}
	return f, true
}

func (n *codecNode) field(name string) *codecField {
	if k := n.fieldIndex(name); k >= 0 {
		return &n.fields[k]
	}
	return nil
}

// fieldIndex is the index in n.fields of the field named name, or -1.
func (n *codecNode) fieldIndex(name string) int {
	for k := range n.fields {
		if n.fields[k].name == name {
			return k
		}
	}
	return -1
}

// foldField is the field encoding/json matches the member name to when
// no field's name is name: the first, in field order, whose name equals it
// under case folding.
func (n *codecNode) foldField(name string) *codecField {
	for k := range n.fields {
		if strings.EqualFold(n.fields[k].name, name) {
			return &n.fields[k]
		}
	}
	return nil
}

// jsonKindBits are the ocpimpl.JSONKind of each tape kind.
var jsonKindBits = [...]uint8{tString: 1, tNumber: 2, tFalse: 4, tTrue: 4, tArray: 8, tObject: 16, tNull: 32}

var errUnionRequired = errors.New("the value is not an object, and a branch without a schema that compiles requires properties")

// decodeUnion is decodeIn of value i of t into v, a union (ckUnion): it
// clears every field and sets the branch pickBranch picks, decoded into a
// new T. With v the zero reflect.Value it stores nothing (decode).
func (n *codecNode) decodeUnion(t *tape, i int, v reflect.Value, dm decodeMode) error {
	b, dm, err := n.pickBranch(t, i, dm)
	if err != nil || !v.IsValid() {
		return err
	}
	v.SetZero()
	p := reflect.New(b.node.typ)
	if err := b.node.decodeIn(t, i, p.Elem(), dm); err != nil {
		return err // not reached: the decode that picked it took the value
	}
	v.Field(b.index).Set(p)
	return nil
}

// pickBranch returns the branch of the union n (ckUnion) that
// ocpimpl.UnmarshalUnion sets for value i of t, and the mode it decoded
// it in: the first, in schema order, whose JSON kinds include the value's;
// whose schema, if it has one that compiles, the value is valid against
// (else which has the properties it requires: an object that has them, for
// a null none, any other value is an error, as decoding it into a map is);
// and into whose T the value decodes as encoding/json decodes it strictly,
// from the same text (in mode dm, folded set). Each branch tried is
// decoded storing nothing. Its error is the refusal, at the value, when no
// branch takes it.
func (n *codecNode) pickBranch(t *tape, i int, dm decodeMode) (*codecBranch, decodeMode, error) {
	xk := t.kind(i)
	kind := jsonKindBits[xk]
	outer := dm.folded == nil
	if outer {
		none := -1
		dm.folded = &none
	}
	var last error
	for k := range n.branches {
		b := &n.branches[k]
		if !b.selects(t, i, kind) {
			continue
		}
		if b.schema == nil && len(b.required) > 0 && xk != tObject && xk != tNull {
			return nil, dm, refusal(t.pointer(i), RuleGoType, fmt.Errorf("%s: %w", n.typ.Name(), errUnionRequired))
		}
		before := *dm.folded
		if err := b.node.decodeIn(t, i, reflect.Value{}, dm); err != nil {
			*dm.folded = before // this branch is not set
			last = err
			continue
		}
		if outer && *dm.folded >= 0 {
			return nil, dm, refusal(t.pointer(*dm.folded), RuleGoType, errCodecMember)
		}
		return b, dm, nil
	}
	err := fmt.Errorf("%s: the value matches no alternative", n.typ.Name())
	if last != nil {
		err = fmt.Errorf("%s: the value matches no alternative (the last tried: %w)", n.typ.Name(), last)
	}
	return nil, dm, refusal(t.pointer(i), RuleGoType, err)
}

// selects reports whether the branch b is tried for value i of t, of
// ocpimpl.JSONKind kind, before its T's decode: its kinds include kind,
// and the value is valid against its schema, or (without one that
// compiles) has the properties it requires, as far as value i has
// properties (an object; the caller refuses any other value but null).
//
// The schema is checked on the tape, where ocpimpl.UnmarshalUnion checks
// the value's text with ValidateJSON (branchCheck): a new tape of that
// text. The verdict is the same: the text is value i's, or it with
// integer-valued literals written as integers, or compacted and
// HTML-escaped (in a struct with additional properties), which parse to
// the same JSON value; the validator reads only the value (numbers as
// exact decimals, strings decoded, members by name), never its text or
// its place in the tape (TestArgCodecUnion*, differential against
// encoding/json's path).
func (b *codecBranch) selects(t *tape, i int, kind uint8) bool {
	if b.kinds&kind == 0 {
		return false
	}
	if b.schema != nil {
		return b.schema.validTape(t, i)
	}
	if t.kind(i) != tObject {
		return t.kind(i) != tNull || len(b.required) == 0
	}
	for _, r := range b.required {
		if t.member(i, r) < 0 {
			return false
		}
	}
	return true
}

// integerParts is, in parts (decimal.integerParts), the literal
// encoding/json is given for an integer field (tape.decodeInput) when it
// differs from lit (then ok): an integer-valued literal with a fraction or
// an exponent written as an integer. It allocates nothing.
func integerParts(lit string) (ps [4]string, ok bool) {
	if notInt(lit) {
		if d, ok := parseDecimal(lit); ok {
			return d.integerParts()
		}
	}
	return ps, false
}

// encode appends v as encoding/json encodes it: with HTML escaping when
// html (json.Marshal), without it otherwise (Encoder.SetEscapeHTML(false)).
// A struct with additional properties is always encoded with it, as
// ocpimpl.MarshalWithExtra calls json.Marshal, and so is a union's branch,
// as ocpimpl.MarshalUnion does. Its error is MarshalUnion's, for a union
// with no field set or more than one (which decode never makes).
func (n *codecNode) encode(dst []byte, v reflect.Value, html bool) ([]byte, error) {
	switch n.kind {
	case ckString:
		return jsonscan.AppendString(dst, v.String(), html), nil
	case ckBool:
		return strconv.AppendBool(dst, v.Bool()), nil
	case ckInt:
		return appendInt64(dst, v.Int()), nil
	case ckUint:
		return appendUint64(dst, v.Uint()), nil
	case ckFloat:
		return appendJSONFloat(dst, v.Float(), n.bits), nil
	case ckPtr:
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		return n.elem.encode(dst, v.Elem(), html)
	case ckSlice:
		if v.IsNil() {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for k := range v.Len() {
			if k > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = n.elem.encode(dst, v.Index(k), html); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case ckMap:
		return n.encodeMap(dst, v, html)
	case ckRaw:
		if v.Len() == 0 {
			return append(dst, "null"...), nil
		}
		return appendCompact(dst, v.Bytes(), html), nil
	case ckNullable:
		// ocpimpl.Nullable's MarshalJSON: null when absent or null, else
		// json.Marshal of the value, HTML-escaped whatever html says.
		if !v.CanAddr() {
			c := reflect.New(n.typ).Elem()
			c.Set(v)
			v = c
		}
		p := v.Addr().Interface().(nullable).OCPValue()
		if p == nil {
			return append(dst, "null"...), nil
		}
		return n.elem.encode(dst, reflect.ValueOf(p).Elem(), true)
	case ckUnion:
		// ocpimpl.MarshalUnion: json.Marshal of the one field set.
		var set *codecBranch
		for k := range n.branches {
			if b := &n.branches[k]; !v.Field(b.index).IsNil() {
				if set != nil {
					return nil, fmt.Errorf("%s: more than one alternative is set", n.typ.Name())
				}
				set = b
			}
		}
		if set == nil {
			return nil, fmt.Errorf("%s: no alternative is set", n.typ.Name())
		}
		return set.node.encode(dst, v.Field(set.index).Elem(), true)
	}
	// ckStruct
	html = html || n.extra != nil
	dst = append(dst, '{')
	first := true
	for k := range n.fields {
		f := &n.fields[k]
		fv := v.Field(f.index)
		if f.omitEmpty && jsonEmpty(fv) || f.omitZero && fv.IsZero() {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if html {
			dst = append(dst, f.prefix...)
		} else {
			dst = append(dst, f.plainPrefix...)
		}
		var err error
		if dst, err = f.node.encode(dst, fv, html); err != nil {
			return nil, err
		}
	}
	if n.extra != nil {
		// ocpimpl.MarshalWithExtra: the additional properties after the
		// declared ones, in key order. (Its error for a key that is also a
		// declared property cannot happen to a decoded value: decode puts
		// only the members no field declares in the map.)
		m := v.Field(n.extraIndex)
		if m.Len() > 0 {
			if !first {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = n.extra.encodeMembers(dst, m, true); err != nil {
				return nil, err
			}
		}
	}
	return append(dst, '}'), nil
}

// encodeMap appends the map v (ckMap) as encode does: its members in key
// order.
func (n *codecNode) encodeMap(dst []byte, v reflect.Value, html bool) ([]byte, error) {
	if v.IsNil() {
		return append(dst, "null"...), nil
	}
	dst, err := n.encodeMembers(append(dst, '{'), v, html)
	if err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// encodeMembers appends the members of the map v (ckMap), in key order,
// separated by commas. It sorts the keys alone (16 bytes a member), and
// reads each value by its key.
func (n *codecNode) encodeMembers(dst []byte, v reflect.Value, html bool) ([]byte, error) {
	keys := make([]string, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		keys = append(keys, it.Key().String())
	}
	slices.Sort(keys)
	kv := reflect.New(v.Type().Key()).Elem()
	// A map's values are not addressable: a Nullable is encoded from a
	// copy (its methods are the pointer's), the same one for each.
	var ev reflect.Value
	if n.elem.kind == ckNullable {
		ev = reflect.New(n.elem.typ).Elem()
	}
	for k, key := range keys {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = jsonscan.AppendString(dst, key, html)
		dst = append(dst, ':')
		kv.SetString(key)
		e := v.MapIndex(kv)
		if ev.IsValid() {
			ev.Set(e)
			e = ev
		}
		var err error
		if dst, err = n.elem.encode(dst, e, html); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

// encodeTapeMembers writes members of the object i as encodeMembers writes
// a map's (n is a ckMap, the map's plan): in name order, the first after a
// comma when comma, leaving out those of declared (node index + 1 each: the
// members of a struct's fields, for its additional properties). The
// object the parse indexed (tape.indexed) is put in name order in its index
// (keyIndex.byName), which the round trip then reads too; another is
// sorted in a list of its own (4 bytes a member).
func (n *codecNode) encodeTapeMembers(w *fwdBuf, t *tape, i int, declared []uint32, comma, html bool) bool {
	var order []uint32 // node index + 1 of each member, in name order
	if t.indexed == i+1 {
		order = t.index.byName(t)
	} else {
		var small [smallObject]uint32
		order = small[:0]
		if n := t.count(i); n > len(small) {
			order = make([]uint32, 0, n)
		}
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			order = append(order, uint32(p+1))
		}
		slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(t.key(int(a)-1), t.key(int(b)-1)) })
	}
	for _, v := range order {
		if slices.Contains(declared, v) {
			continue
		}
		if comma {
			w.b = append(w.b, ',')
		}
		comma = true
		p := int(v) - 1
		w.b = jsonscan.AppendString(w.b, t.key(p), html)
		w.b = append(w.b, ':')
		if !n.elem.encodeTape(w, t, p, html) {
			return false
		}
		w.check()
	}
	return true
}

// leftOut reports whether encode leaves out field f when its member is
// value p of t (the value decode makes of it is empty under omitempty, or
// zero under omitzero), and whether it can tell without decoding it (else
// the general path decides). A Nullable from any value (null included) is
// neither; a pointer, slice or map from null is nil, from anything else
// not nil, so not zero, and a slice or map empty only without elements; a
// json.RawMessage is the value's text, never empty; a string or a boolean
// is empty and zero as "" and false; a struct is never empty; a union that
// decodes has one field set, so is neither (one that does not is refused
// whether it is left out or not).
func (f *codecField) leftOut(t *tape, p int) (out, known bool) {
	if !f.omitEmpty && !f.omitZero {
		return false, true
	}
	xk := t.kind(p)
	switch f.node.kind {
	case ckNullable, ckRaw, ckUnion:
		return false, true
	case ckPtr:
		return xk == tNull, true
	case ckSlice, ckMap:
		if xk == tNull || xk == tArray && f.node.kind == ckSlice || xk == tObject && f.node.kind == ckMap {
			return xk == tNull || f.omitEmpty && !t.moreThan(p, 0), true
		}
	case ckString:
		if xk == tString {
			return t.str(p) == "", true
		}
	case ckBool:
		if xk == tTrue || xk == tFalse {
			return xk == tFalse, true
		}
	case ckStruct:
		if !f.omitZero {
			return false, true
		}
	}
	return false, false
}

// encodeTapeStruct is encodeTape of the object i into a struct (ckStruct):
// its fields' members in the fields' order, as encode writes them, and
// with additional properties (n.extra) the other members after them, as
// encodeTapeMembers writes them, all HTML-escaped. Each member is matched
// to its field once (one comparison when they come in the fields' order,
// else a scan of the fields, as decode does).
func (n *codecNode) encodeTapeStruct(w *fwdBuf, t *tape, i int, html bool) bool {
	html = html || n.extra != nil
	// at[k] is the node index + 1 of field k's member, 0 when absent.
	var small [smallObject]uint32
	at := small[:0]
	if len(n.fields) > len(small) {
		at = make([]uint32, len(n.fields))
	} else {
		at = small[:len(n.fields)]
	}
	extras, next := 0, 0 // next: the field whose member would come next
	for p := t.first(i); p < t.end(i); p = t.end(p) {
		k := next
		if k >= len(n.fields) || !keyIs(t, p, n.fields[k].name) {
			k = n.fieldIndex(t.key(p))
		}
		if k < 0 {
			if n.extra == nil {
				return false // a member that is no field's
			}
			extras++
			continue
		}
		at[k], next = uint32(p+1), k+1
	}
	w.b = append(w.b, '{')
	first := true
	for k := range n.fields {
		f := &n.fields[k]
		p := int(at[k]) - 1
		if p < 0 {
			// Absent: the zero value, which the encoding leaves out under
			// omitzero, and under omitempty unless a struct (a Nullable and
			// a union are).
			if f.omitZero || f.omitEmpty && f.node.kind != ckStruct && f.node.kind != ckNullable && f.node.kind != ckUnion {
				continue
			}
			return false
		}
		switch out, known := f.leftOut(t, p); {
		case !known:
			return false
		case out:
			continue
		}
		if !first {
			w.b = append(w.b, ',')
		}
		first = false
		if html {
			w.b = append(w.b, f.prefix...)
		} else {
			w.b = append(w.b, f.plainPrefix...)
		}
		if !f.node.encodeTape(w, t, p, html) {
			return false
		}
		w.check()
	}
	if extras > 0 && !n.extra.encodeTapeMembers(w, t, i, at, !first, true) {
		return false
	}
	w.b = append(w.b, '}')
	return true
}

// appendCompact appends the JSON text b as encoding/json writes a
// json.RawMessage holding it: compacted (json.Compact), and with html
// (json.Marshal) HTML-escaped too (json.HTMLEscape: <, >, & and U+2028,
// U+2029 escaped in its strings), in one pass with no intermediate copy
// (TestAppendCompact, FuzzAppendCompact). b is valid JSON (the tape parsed
// it).
func appendCompact[S text](dst []byte, b S, html bool) []byte {
	var st compacting
	return appendCompactPart(dst, b, html, &st)
}

// compacting is where appendCompactPart has come to in a text it is given
// in parts: in a string, after a backslash.
type compacting struct{ inString, escape bool }

// appendCompactPart appends what appendCompact writes for the next part b
// of a text, split from the rest between two characters, where st says
// the text's parts before it left off (the zero value: b begins the
// text).
func appendCompactPart[S text](dst []byte, b S, html bool, st *compacting) []byte {
	inString := st.inString
	p := 0
	if st.escape && len(b) > 0 {
		dst = append(dst, b[0])
		p, st.escape = 1, false
	}
	for ; p < len(b); p++ {
		c := b[p]
		switch {
		case !inString:
			switch c {
			case ' ', '\t', '\n', '\r':
				continue
			case '"':
				inString = true
			}
		case c == '\\':
			if p+1 == len(b) {
				st.escape = true // the escaped character begins the next part
				dst = append(dst, c)
				continue
			}
			dst = append(dst, c, b[p+1])
			p++
			continue
		case c == '"':
			inString = false
		case !html:
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			continue
		case c == 0xE2 && p+2 < len(b) && b[p+1] == 0x80 && b[p+2]&^1 == 0xA8:
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[b[p+2]&0xF])
			p += 2
			continue
		}
		dst = append(dst, c)
	}
	st.inString = inString
	return dst
}

// jsonEmpty is encoding/json's isEmptyValue.
func jsonEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}

// appendJSONFloat is encoding/json's floatEncoder. The codec never holds a
// NaN or an infinity (decoding refuses numbers out of range).
func appendJSONFloat(dst []byte, f float64, bits int) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// encodeTape writes to w what n.encode (with html) writes for the value
// n.decode makes of value i of t, without making it: strings, booleans,
// numbers, nulls into pointers, slices and maps, arrays, maps,
// json.RawMessage (its integer-valued literals written as integers, as
// decode does), a Nullable's null and value (written HTML-escaped, as its
// MarshalJSON does), a union's value (its branch's, HTML-escaped, as its
// MarshalJSON writes it), and objects into structs whose members the
// encoding writes exactly when they are present, with additional
// properties or not (HTML-escaped and in name order after the fields, as
// ocpimpl.MarshalWithExtra writes them). For anything else (another null,
// a member the encoding would leave out or write although it is absent,
// an unknown member, a type mismatch or a number the type does not hold)
// it returns false, with w's bytes
// undefined, and the caller takes the general path, decode and encode,
// which gives that input's verdict. When it returns true, n.decode of the
// value succeeds and n.encode of it appends exactly what was written
// (checkCodecAgreesFast, FuzzArgCodec, FuzzArgCodecExtra); the round trip
// then compares it with the arguments as on the general path.
func (n *codecNode) encodeTape(w *fwdBuf, t *tape, i int, html bool) bool {
	xk := t.kind(i)
	switch n.kind {
	case ckString:
		if xk == tString {
			w.writeString(t.str(i), html)
			return true
		}
	case ckBool:
		switch xk {
		case tTrue:
			w.b = append(w.b, "true"...)
			return true
		case tFalse:
			w.b = append(w.b, "false"...)
			return true
		}
	case ckInt:
		if xk == tNumber {
			if k, ok := n.intOf(t.str(i)); ok {
				w.b = appendInt64(w.b, k)
				return true
			}
		}
	case ckUint:
		if xk == tNumber {
			if k, ok := n.uintOf(t.str(i)); ok {
				w.b = appendUint64(w.b, k)
				return true
			}
		}
	case ckFloat:
		if xk == tNumber {
			// A canonical float64 literal is written back as it is.
			if lit := t.str(i); n.bits == 64 && canonicalFloatLiteral(lit) && (!notInt(lit) || fractionOnly(lit)) {
				w.b = append(w.b, lit...)
				return true
			}
			if f, ok := n.floatOf(t, i); ok {
				w.b = appendJSONFloat(w.b, f, n.bits)
				return true
			}
		}
	case ckPtr:
		if xk == tNull {
			w.b = append(w.b, "null"...) // decode leaves it nil
			return true
		}
		return n.elem.encodeTape(w, t, i, html)
	case ckSlice:
		if xk == tNull {
			w.b = append(w.b, "null"...)
			return true
		}
		if xk == tArray {
			w.b = append(w.b, '[')
			for p := t.first(i); p < t.end(i); p = t.end(p) {
				if p > t.first(i) {
					w.b = append(w.b, ',')
				}
				if !n.elem.encodeTape(w, t, p, html) {
					return false
				}
				w.check()
			}
			w.b = append(w.b, ']')
			return true
		}
	case ckMap:
		if xk == tNull {
			w.b = append(w.b, "null"...)
			return true
		}
		if xk == tObject {
			w.b = append(w.b, '{')
			if !n.encodeTapeMembers(w, t, i, nil, false, html) {
				return false
			}
			w.b = append(w.b, '}')
			return true
		}
	case ckRaw:
		// decode gives the text with its integer-valued literals written
		// as integers (rawInput), encode writes it compacted, and escaped
		// with html: in parts split between characters, each checked by w.
		var st compacting
		t.rawInputParts(i, func(part string) {
			for len(part) > fwdChunk {
				k := fwdChunk
				for !utf8.RuneStart(part[k]) {
					k--
				}
				w.b = appendCompactPart(w.b, part[:k], html, &st)
				w.check()
				part = part[k:]
			}
			w.b = appendCompactPart(w.b, part, html, &st)
			w.check()
		})
		return true
	case ckNullable:
		// Null, or the value as json.Marshal writes it: HTML-escaped.
		if xk == tNull {
			w.b = append(w.b, "null"...) // decode makes it a null
			return true
		}
		return n.elem.encodeTape(w, t, i, true)
	case ckUnion:
		return n.encodeTapeUnion(w, t, i)
	case ckStruct:
		if xk == tObject {
			return n.encodeTapeStruct(w, t, i, html)
		}
	}
	return false
}

// encodeTapeUnion is encodeTape of value i into a union (ckUnion): of the
// branch pickBranch picks, as decode does, what its T's encodeTape writes
// with html, as the union's encode writes T (ocpimpl.MarshalUnion calls
// json.Marshal). A value no branch takes is left to the general path.
func (n *codecNode) encodeTapeUnion(w *fwdBuf, t *tape, i int) bool {
	b, _, err := n.pickBranch(t, i, decodeMode{})
	return err == nil && b.node.encodeTape(w, t, i, true)
}

// writeString writes the string s quoted, HTML-escaped when html, in parts
// split between characters, each checked by w.
func (w *fwdBuf) writeString(s string, html bool) {
	w.b = append(w.b, '"')
	for len(s) > fwdChunk {
		k := fwdChunk
		for !utf8.RuneStart(s[k]) {
			k--
		}
		w.b = jsonscan.AppendStringText(w.b, s[:k], html)
		w.check()
		s = s[k:]
	}
	w.b = append(jsonscan.AppendStringText(w.b, s, html), '"')
}

// fwdChunk is about the most bytes a fwdBuf holds before it checks them.
const fwdChunk = 4096

// fwdBuf is what encodeTape writes a re-encoding to. While the
// re-encoding is the arguments' text byte for byte, it holds only what was
// written since its last check (about fwdChunk bytes, a number or a member
// name more): check compares those bytes with the same ones of the
// private copy of the arguments (src), and drops them. At the first check
// that finds a difference, it copies the identical prefix, and from then
// on holds the whole re-encoding. A fwdBuf with whole set from the start
// only appends.
type fwdBuf struct {
	// b is what was written since the last check, or with whole the
	// re-encoding so far.
	b     []byte
	whole bool
	// src is the private copy of the arguments, and src[:same] the
	// re-encoding up to b.
	src  []byte
	same int
}

// newFwdBuf returns a fwdBuf for a re-encoding of src.
func newFwdBuf(src []byte) *fwdBuf {
	return &fwdBuf{b: make([]byte, 0, min(len(src), fwdChunk)+16), src: src}
}

// check compares b with src once b holds about fwdChunk bytes.
func (w *fwdBuf) check() {
	if !w.whole && len(w.b) >= fwdChunk {
		w.compare()
	}
}

// compare compares b with the bytes of src from same: it drops them if
// they are the same, else the re-encoding is whole from here on.
func (w *fwdBuf) compare() {
	if len(w.b) <= len(w.src)-w.same && string(w.b) == string(w.src[w.same:w.same+len(w.b)]) {
		w.same += len(w.b)
		w.b = w.b[:0]
		return
	}
	if w.same == 0 && cap(w.b) >= len(w.src)+16 {
		w.whole = true // b holds it from its start, with room for the arguments' size
		return
	}
	whole := make([]byte, 0, max(len(w.src), w.same+len(w.b))+16)
	whole = append(append(whole, w.src[:w.same]...), w.b...)
	w.b, w.whole = whole, true
}

// bytes ends the re-encoding and returns it, and whether it is src's
// bytes; then it is src itself.
func (w *fwdBuf) bytes() (out []byte, same bool) {
	if !w.whole {
		w.compare()
		if !w.whole && w.same == len(w.src) {
			return w.src, true
		}
		if !w.whole {
			w.b, w.whole = append([]byte(nil), w.src[:w.same]...), true // a prefix of src
		}
	}
	return w.b, false
}
