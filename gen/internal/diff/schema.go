package diff

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/ocpgen/ocpgen/internal/jsonptr"
)

// SchemaKind describes one kind of schema change: whether it can break an
// input schema's callers (arguments the Hub or a model sent before may now be
// refused, or Hub code no longer compiles), and an output schema's readers
// (results may now hold values the Hub's code did not expect).
type SchemaKind struct {
	Name         string
	BreaksInput  bool
	BreaksOutput bool
	// Security marks a change a security review must see.
	Security bool
	// Doc says what the kind means, for the report's documentation.
	Doc string
}

// SchemaKinds lists every schema change kind, in documentation order.
var SchemaKinds = []SchemaKind{
	{"property-added", false, false, false, "an optional property was added"},
	{"property-added-required", true, false, false, "a required property was added"},
	{"property-removed", true, true, false, "a property was removed (its generated field is gone)"},
	{"property-required", true, false, false, "an existing property became required"},
	{"property-optional", false, true, false, "a required property became optional"},
	{"type-changed", true, true, false, "the type changed to an unrelated one"},
	{"type-narrowed", true, false, false, "fewer types are accepted (or a type was imposed)"},
	{"type-widened", false, true, false, "more types are accepted (or the type constraint was dropped)"},
	{"enum-value-added", false, true, false, "an enum value was added"},
	{"enum-value-removed", true, false, false, "an enum value was removed"},
	{"enum-added", true, false, false, "an enum now restricts the values"},
	{"enum-removed", false, true, false, "the enum restriction was dropped"},
	{"const-added", true, false, false, "a const now fixes the value"},
	{"const-changed", true, true, false, "the const value changed"},
	{"const-removed", false, true, false, "the const restriction was dropped"},
	{"constraint-tightened", true, false, false, "a bound, length, pattern, format, multipleOf or uniqueItems was added or made stricter"},
	{"constraint-loosened", false, true, false, "such a constraint was removed or relaxed"},
	{"constraint-changed", true, true, false, "such a constraint changed in a way that is neither stricter nor looser"},
	{"additional-properties-disallowed", true, false, false, "additionalProperties went from allowed to false"},
	{"additional-properties-allowed", false, true, false, "additionalProperties went from false to allowed"},
	{"schema-tightened", true, false, false, "a sub-schema now accepts nothing (false)"},
	{"schema-loosened", false, true, false, "a sub-schema that accepted nothing now accepts something"},
	{"ref-changed", true, true, false, "a $ref points elsewhere"},
	{"alternative-added", false, true, false, "an anyOf/oneOf alternative was added"},
	{"alternative-removed", true, false, false, "an anyOf/oneOf alternative was removed"},
	{"keyword-changed", true, true, false, "another validation keyword changed; its effect is not analysed, so it counts as breaking"},
	{"definition-added", false, false, false, "a $defs/definitions entry was added"},
	{"definition-removed", false, false, false, "a $defs/definitions entry was removed (references to it changed too, and are reported)"},
	{"annotation-changed", false, false, false, "a non-validating keyword changed (default, examples, $comment, deprecated, readOnly, writeOnly, x-*; an input schema's x-mcp-header is one of HeaderKinds)"},
	{"output-schema-added", false, false, false, "the tool now declares an output schema"},
	{"output-schema-removed", false, true, false, "the tool no longer declares an output schema (its result type is gone)"},
}

// HeaderKinds are the changes of an input schema's x-mcp-header
// annotations (MCP 2026-07-28, SEP-2243: an argument value that a client on
// Streamable HTTP sends in an HTTP header too, Mcp-Param-NAME). Each is
// security-relevant: an argument that starts travelling in a header is
// read, and often logged, by every proxy and load balancer on the way. In
// an output schema the annotation means nothing (annotation-changed).
var HeaderKinds = []SchemaKind{
	{"mcp-header-added", true, false, true, "an x-mcp-header annotation was added: the argument's value now travels in an HTTP header too, where proxies and their logs read it (and the gate refuses a value no header can carry)"},
	{"mcp-header-removed", false, false, true, "an x-mcp-header annotation was removed: the argument's value no longer travels in an HTTP header"},
	{"mcp-header-changed", false, false, true, "an x-mcp-header annotation changed: the argument's value travels in another HTTP header"},
}

var schemaKinds = func() map[string]SchemaKind {
	m := make(map[string]SchemaKind, len(SchemaKinds)+len(HeaderKinds))
	for _, k := range append(slices.Clone(SchemaKinds), HeaderKinds...) {
		m[k.Name] = k
	}
	return m
}()

// Schema compares two versions of a tool's input schema (output false) or
// output schema (output true), given as raw JSON. base is the pointer of the
// schema in the tool object ("/inputSchema"). A schema that is not valid
// JSON is compared as an opaque value.
func Schema(base string, oldRaw, newRaw []byte, output bool) []Change {
	w := &walker{output: output}
	old, oerr := Decode(oldRaw)
	nw, nerr := Decode(newRaw)
	if oerr != nil || nerr != nil {
		if string(oldRaw) != string(newRaw) {
			w.add("keyword-changed", base, "the schema changed (not valid JSON on one side)", nil, nil)
		}
		return w.changes
	}
	w.schema(base, old, nw)
	return w.changes
}

type walker struct {
	output  bool
	changes []Change
}

func (w *walker) add(kind, ptr, msg string, old, nw any) {
	k, ok := schemaKinds[kind]
	if !ok {
		// Every kind used below is in the table; an unknown one is counted
		// as breaking rather than lost.
		k = SchemaKind{Name: kind, BreaksInput: true, BreaksOutput: true}
	}
	area := AreaInput
	brk := k.BreaksInput
	if w.output {
		area, brk = AreaOutput, k.BreaksOutput
	}
	w.changes = append(w.changes, Change{
		Kind: kind, Area: area, Pointer: ptr, Breaking: brk, Security: k.Security, Message: msg,
		Old: rawJSON(old), New: rawJSON(nw),
	})
}

func (w *walker) text(kind, ptr, what string, old, nw any) {
	w.changes = append(w.changes, Change{
		Kind: kind, Area: AreaText, Pointer: ptr, Security: true,
		Message: what + " changed (models read it)", Old: rawJSON(old), New: rawJSON(nw),
	})
}

// schemaObject returns a schema as an object: true and absent are {}; false
// is reported by the caller. ok is false for false and for non-schemas.
func schemaObject(v any) (map[string]any, bool) {
	switch x := v.(type) {
	case nil:
		return map[string]any{}, true
	case bool:
		if x {
			return map[string]any{}, true
		}
		return nil, false
	case map[string]any:
		return x, true
	}
	return nil, false
}

func isFalse(v any) bool {
	b, ok := v.(bool)
	return ok && !b
}

// schema compares two sub-schemas at ptr. nil means absent (accepts
// anything, as true does).
func (w *walker) schema(ptr string, old, nw any) {
	if canonical(old) == canonical(nw) {
		return
	}
	switch {
	case isFalse(nw):
		w.add("schema-tightened", ptr, "the schema now accepts nothing (false)", old, nw)
		return
	case isFalse(old):
		w.add("schema-loosened", ptr, "the schema accepted nothing (false) and now accepts values", old, nw)
		return
	}
	o, ok1 := schemaObject(old)
	n, ok2 := schemaObject(nw)
	if !ok1 || !ok2 {
		w.add("keyword-changed", ptr, "the schema changed (not a JSON Schema object)", old, nw)
		return
	}
	keys := unionKeys(o, n)
	for _, k := range keys {
		w.keyword(ptr, k, o, n)
	}
}

// The keywords compared as numeric lower and upper bounds.
var (
	lowerBounds = []string{"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
	upperBounds = []string{"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
	// stringConstraints are added (tightened), removed (loosened) or changed.
	stringConstraints = []string{"pattern", "format", "contentEncoding", "contentMediaType"}
	annotations       = []string{"default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$schema", "$id", "$anchor", "$dynamicAnchor", "$vocabulary"}
)

func (w *walker) keyword(ptr, k string, o, n map[string]any) {
	ov, oin := o[k]
	nv, nin := n[k]
	if oin && nin && canonical(ov) == canonical(nv) {
		return
	}
	at := ptr + jsonptr.Pointer(k)
	switch {
	case k == "properties":
		w.properties(ptr, o, n)
	case k == "required":
		w.required(ptr, o, n)
	case k == "type":
		w.types(at, ov, nv)
	case k == "enum":
		w.enum(at, ov, oin, nv, nin)
	case k == "const":
		switch {
		case !oin:
			w.add("const-added", at, fmt.Sprintf("const %s added", canonical(nv)), nil, nv)
		case !nin:
			w.add("const-removed", at, fmt.Sprintf("const %s removed", canonical(ov)), ov, nil)
		default:
			w.add("const-changed", at, fmt.Sprintf("const changed from %s to %s", canonical(ov), canonical(nv)), ov, nv)
		}
	case k == "additionalProperties":
		w.additional(at, ov, nv)
	case k == "items":
		w.items(at, ov, nv)
	case k == "prefixItems":
		w.tuple(at, ov, nv)
	case k == "anyOf" || k == "oneOf":
		w.alternatives(at, k, ov, oin, nv, nin)
	case k == "allOf":
		oa, ok1 := ov.([]any)
		na, ok2 := nv.([]any)
		if ok1 && ok2 && len(oa) == len(na) {
			for i := range oa {
				w.schema(at+jsonptr.Pointer(strconv.Itoa(i)), oa[i], na[i])
			}
			return
		}
		w.generic(at, k, ov, oin, nv, nin)
	case k == "$defs" || k == "definitions":
		w.definitions(at, ov, nv)
	case k == "$ref" || k == "$dynamicRef":
		w.add("ref-changed", at, fmt.Sprintf("%s changed from %s to %s", k, show(ov, oin), show(nv, nin)), ov, nv)
	case k == "description" || k == "title":
		w.text(k+"-changed", at, k, ov, nv)
	case k == "uniqueItems":
		ob, _ := ov.(bool)
		nb, _ := nv.(bool)
		switch {
		case !ob && nb:
			w.add("constraint-tightened", at, "uniqueItems now required", ov, nv)
		case ob && !nb:
			w.add("constraint-loosened", at, "uniqueItems no longer required", ov, nv)
		default:
			w.generic(at, k, ov, oin, nv, nin)
		}
	case k == "multipleOf":
		w.multipleOf(at, ov, oin, nv, nin)
	case slices.Contains(lowerBounds, k):
		w.bound(at, k, ov, oin, nv, nin, true)
	case slices.Contains(upperBounds, k):
		w.bound(at, k, ov, oin, nv, nin, false)
	case slices.Contains(stringConstraints, k):
		switch {
		case !oin:
			w.add("constraint-tightened", at, fmt.Sprintf("%s %s added", k, canonical(nv)), nil, nv)
		case !nin:
			w.add("constraint-loosened", at, fmt.Sprintf("%s %s removed", k, canonical(ov)), ov, nil)
		default:
			w.add("constraint-changed", at, fmt.Sprintf("%s changed from %s to %s", k, canonical(ov), canonical(nv)), ov, nv)
		}
	case k == "x-mcp-header" && !w.output:
		switch {
		case !oin:
			w.add("mcp-header-added", at, fmt.Sprintf("x-mcp-header %s added: the argument now travels in an HTTP header too", canonical(nv)), nil, nv)
		case !nin:
			w.add("mcp-header-removed", at, fmt.Sprintf("x-mcp-header %s removed: the argument no longer travels in an HTTP header", canonical(ov)), ov, nil)
		default:
			w.add("mcp-header-changed", at, fmt.Sprintf("x-mcp-header changed from %s to %s: the argument travels in another HTTP header", canonical(ov), canonical(nv)), ov, nv)
		}
	case slices.Contains(annotations, k) || strings.HasPrefix(k, "x-"):
		w.add("annotation-changed", at, fmt.Sprintf("%s changed from %s to %s", k, show(ov, oin), show(nv, nin)), ov, nv)
	default:
		w.generic(at, k, ov, oin, nv, nin)
	}
}

// show renders a value for a message: its JSON, or "(none)" when absent.
func show(v any, present bool) string {
	if !present {
		return "(none)"
	}
	return canonical(v)
}

func (w *walker) generic(at, k string, ov any, oin bool, nv any, nin bool) {
	var msg string
	switch {
	case !oin:
		msg = fmt.Sprintf("%s added (effect not analysed)", k)
	case !nin:
		msg = fmt.Sprintf("%s removed (effect not analysed)", k)
	default:
		msg = fmt.Sprintf("%s changed (effect not analysed)", k)
	}
	w.add("keyword-changed", at, msg, ov, nv)
}

func objectOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// stringSet returns the strings of a JSON array (others are ignored).
func stringSet(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, x := range a {
		if s, ok := x.(string); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func (w *walker) properties(ptr string, o, n map[string]any) {
	op, np := objectOf(o["properties"]), objectOf(n["properties"])
	nreq := stringSet(n["required"])
	for _, name := range unionKeys(op, np) {
		ov, oin := op[name]
		nv, nin := np[name]
		at := ptr + jsonptr.Pointer("properties", name)
		switch {
		case !oin && slices.Contains(nreq, name):
			w.add("property-added-required", at, fmt.Sprintf("required property %q added", name), nil, nv)
		case !oin:
			w.add("property-added", at, fmt.Sprintf("optional property %q added", name), nil, nv)
		case !nin:
			w.add("property-removed", at, fmt.Sprintf("property %q removed", name), ov, nil)
		default:
			w.schema(at, ov, nv)
		}
	}
}

func (w *walker) required(ptr string, o, n map[string]any) {
	op, np := objectOf(o["properties"]), objectOf(n["properties"])
	oreq, nreq := stringSet(o["required"]), stringSet(n["required"])
	for _, name := range nreq {
		if slices.Contains(oreq, name) {
			continue
		}
		_, had := op[name]
		_, has := np[name]
		if !had && has {
			continue // property-added-required
		}
		w.add("property-required", ptr+jsonptr.Pointer("properties", name), fmt.Sprintf("property %q is now required", name), false, true)
	}
	for _, name := range oreq {
		if slices.Contains(nreq, name) {
			continue
		}
		_, had := op[name]
		_, has := np[name]
		if had && !has {
			continue // property-removed
		}
		w.add("property-optional", ptr+jsonptr.Pointer("properties", name), fmt.Sprintf("property %q is now optional", name), true, false)
	}
}

// typeSet returns the types a "type" keyword allows; nil when absent or not
// a string or array of strings.
func typeSet(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		return stringSet(x)
	}
	return nil
}

// covers reports whether every type of a is allowed by b ("number" allows
// "integer").
func covers(b, a []string) bool {
	for _, t := range a {
		if !slices.Contains(b, t) && !(t == "integer" && slices.Contains(b, "number")) {
			return false
		}
	}
	return true
}

func typeString(v any, present bool) string {
	if !present {
		return "(any)"
	}
	ts := typeSet(v)
	if len(ts) == 0 {
		return canonical(v)
	}
	return strings.Join(ts, "|")
}

func (w *walker) types(at string, ov, nv any) {
	ot, nt := typeSet(ov), typeSet(nv)
	msg := fmt.Sprintf("type changed from %s to %s", typeString(ov, ov != nil), typeString(nv, nv != nil))
	switch {
	case ov == nil:
		w.add("type-narrowed", at, msg, nil, nv)
	case nv == nil:
		w.add("type-widened", at, msg, ov, nil)
	case ot == nil || nt == nil:
		w.add("type-changed", at, msg, ov, nv)
	case covers(nt, ot) && covers(ot, nt):
		// The same types, spelled differently.
	case covers(nt, ot):
		w.add("type-widened", at, msg, ov, nv)
	case covers(ot, nt):
		w.add("type-narrowed", at, msg, ov, nv)
	default:
		w.add("type-changed", at, msg, ov, nv)
	}
}

func (w *walker) enum(at string, ov any, oin bool, nv any, nin bool) {
	oa, ok1 := ov.([]any)
	na, ok2 := nv.([]any)
	switch {
	case !oin && ok2:
		w.add("enum-added", at, fmt.Sprintf("values restricted to %s", canonical(nv)), nil, nv)
		return
	case !nin && ok1:
		w.add("enum-removed", at, fmt.Sprintf("enum %s removed: any value of the type is accepted", canonical(ov)), ov, nil)
		return
	case !ok1 || !ok2:
		w.generic(at, "enum", ov, oin, nv, nin)
		return
	}
	oset := map[string]bool{}
	for _, v := range oa {
		oset[canonical(v)] = true
	}
	nset := map[string]bool{}
	for _, v := range na {
		nset[canonical(v)] = true
	}
	for _, v := range oa {
		if c := canonical(v); !nset[c] {
			w.add("enum-value-removed", at, fmt.Sprintf("enum value %s removed", c), v, nil)
			nset[c] = true // report a duplicate once
		}
	}
	for _, v := range na {
		if c := canonical(v); !oset[c] {
			w.add("enum-value-added", at, fmt.Sprintf("enum value %s added", c), nil, v)
			oset[c] = true
		}
	}
}

// additional compares additionalProperties; absent and true both allow any
// property.
func (w *walker) additional(at string, ov, nv any) {
	allowsAny := func(v any) bool {
		if v == nil {
			return true
		}
		if b, ok := v.(bool); ok {
			return b
		}
		m, ok := v.(map[string]any)
		return ok && len(m) == 0
	}
	switch {
	case allowsAny(ov) && isFalse(nv):
		w.add("additional-properties-disallowed", at, "additionalProperties is now false: undeclared properties are refused", ov, nv)
	case isFalse(ov) && allowsAny(nv):
		w.add("additional-properties-allowed", at, "additionalProperties is no longer false: undeclared properties are accepted", ov, nv)
	case allowsAny(ov) && allowsAny(nv):
		// true, {} and absent mean the same.
	default:
		w.schema(at, ov, nv)
	}
}

func (w *walker) items(at string, ov, nv any) {
	_, oarr := ov.([]any)
	_, narr := nv.([]any)
	switch {
	case oarr && narr:
		w.tuple(at, ov, nv)
	case oarr || narr:
		w.add("keyword-changed", at, "items changed between a schema and a tuple (effect not analysed)", ov, nv)
	default:
		w.schema(at, ov, nv)
	}
}

// tuple compares prefixItems (or draft-07 items arrays) position by
// position; a missing position accepts anything.
func (w *walker) tuple(at string, ov, nv any) {
	oa, ok1 := ov.([]any)
	na, ok2 := nv.([]any)
	if (ov != nil && !ok1) || (nv != nil && !ok2) {
		w.add("keyword-changed", at, "tuple changed (effect not analysed)", ov, nv)
		return
	}
	for i := 0; i < max(len(oa), len(na)); i++ {
		var o, n any
		if i < len(oa) {
			o = oa[i]
		}
		if i < len(na) {
			n = na[i]
		}
		w.schema(at+jsonptr.Pointer(strconv.Itoa(i)), o, n)
	}
}

func (w *walker) alternatives(at, k string, ov any, oin bool, nv any, nin bool) {
	oa, ok1 := ov.([]any)
	na, ok2 := nv.([]any)
	if !oin || !nin || !ok1 || !ok2 {
		w.generic(at, k, ov, oin, nv, nin)
		return
	}
	if len(oa) == len(na) {
		for i := range oa {
			w.schema(at+jsonptr.Pointer(strconv.Itoa(i)), oa[i], na[i])
		}
		return
	}
	// Alternatives are matched by value, each copy once: a repeated one
	// counts (in a oneOf, a second copy refuses what the first matched).
	unmatched := func(from, against []any, report func(i int, v any)) {
		left := map[string]int{}
		for _, v := range against {
			left[canonical(v)]++
		}
		for i, v := range from {
			if c := canonical(v); left[c] > 0 {
				left[c]--
			} else {
				report(i, v)
			}
		}
	}
	unmatched(oa, na, func(i int, v any) {
		w.add("alternative-removed", at+jsonptr.Pointer(strconv.Itoa(i)), fmt.Sprintf("%s alternative %d removed", k, i), v, nil)
	})
	unmatched(na, oa, func(i int, v any) {
		w.add("alternative-added", at+jsonptr.Pointer(strconv.Itoa(i)), fmt.Sprintf("%s alternative %d added", k, i), nil, v)
	})
}

func (w *walker) definitions(at string, ov, nv any) {
	od, nd := objectOf(ov), objectOf(nv)
	for _, name := range unionKeys(od, nd) {
		o, oin := od[name]
		n, nin := nd[name]
		p := at + jsonptr.Pointer(name)
		switch {
		case !oin:
			w.add("definition-added", p, fmt.Sprintf("definition %q added", name), nil, nil)
		case !nin:
			w.add("definition-removed", p, fmt.Sprintf("definition %q removed", name), nil, nil)
		default:
			w.schema(p, o, n)
		}
	}
}

// maxExponent bounds the exponent of a number parsed exactly, so a hostile
// "1e999999999" cannot allocate a huge integer.
const maxExponent = 400

// rat parses a JSON number exactly; ok is false for anything else.
func rat(v any) (*big.Rat, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return nil, false
	}
	if len(s) > 100 {
		return nil, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// bound compares a lower (lower true) or upper bound keyword.
func (w *walker) bound(at, k string, ov any, oin bool, nv any, nin bool, lower bool) {
	or, ook := rat(ov)
	nr, nok := rat(nv)
	switch {
	case !oin && nok:
		w.add("constraint-tightened", at, fmt.Sprintf("%s %s added", k, canonical(nv)), nil, nv)
	case !nin && ook:
		w.add("constraint-loosened", at, fmt.Sprintf("%s %s removed", k, canonical(ov)), ov, nil)
	case ook && nok:
		c := nr.Cmp(or)
		msg := fmt.Sprintf("%s changed from %s to %s", k, canonical(ov), canonical(nv))
		switch {
		case c == 0:
			// The same number, spelled differently (1 and 1.0).
		case (c > 0) == lower:
			w.add("constraint-tightened", at, msg, ov, nv)
		default:
			w.add("constraint-loosened", at, msg, ov, nv)
		}
	default:
		w.generic(at, k, ov, oin, nv, nin)
	}
}

func (w *walker) multipleOf(at string, ov any, oin bool, nv any, nin bool) {
	or, ook := rat(ov)
	nr, nok := rat(nv)
	switch {
	case !oin && nok:
		w.add("constraint-tightened", at, fmt.Sprintf("multipleOf %s added", canonical(nv)), nil, nv)
	case !nin && ook:
		w.add("constraint-loosened", at, fmt.Sprintf("multipleOf %s removed", canonical(ov)), ov, nil)
	case ook && nok && or.Sign() > 0 && nr.Sign() > 0:
		msg := fmt.Sprintf("multipleOf changed from %s to %s", canonical(ov), canonical(nv))
		switch {
		case nr.Cmp(or) == 0:
		case new(big.Rat).Quo(nr, or).IsInt():
			w.add("constraint-tightened", at, msg, ov, nv)
		case new(big.Rat).Quo(or, nr).IsInt():
			w.add("constraint-loosened", at, msg, ov, nv)
		default:
			w.add("constraint-changed", at, msg, ov, nv)
		}
	default:
		w.generic(at, "multipleOf", ov, oin, nv, nin)
	}
}

// unionKeys returns the keys of both maps, sorted.
func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
