package argengine

import (
	"bytes"
	"cmp"
	"encoding/binary"

	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/ecmare"
	"github.com/ocpgen/ocpgen/internal/jsonptr"
	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// A schemaCheck is a JSON Schema compiled, once (by Compile or
// CompileSchema), from the schema's own JSON text into a validator that
// runs on the argument tape (argtape.go). It is the gate's only validator:
// every tool's input schema and output schema is checked by it, whatever
// keywords it uses.
//
// It implements draft 2020-12 (the default, and "$schema" naming it) and
// draft-07 ("$schema" naming it): every assertion and applicator of both,
// references by JSON pointer (with ~0/~1 and percent-encoding), $anchor,
// $id (nested $id changes the base URI; a subschema can be referred to by
// its $id), $dynamicRef/$dynamicAnchor with the dynamic scope, and
// unevaluatedProperties/unevaluatedItems with the annotations of allOf,
// anyOf, oneOf, if/then/else, $ref, $dynamicRef, dependentSchemas,
// prefixItems, items, contains, properties, patternProperties and
// additionalProperties, as the specification says. format, content* and
// unknown keywords are annotations: they assert nothing.
//
// Numbers are exact: every bound, multipleOf, enum and const is compared
// with the schema's literal as a decimal (decimal.go) against the
// instance's literal, also inside enum and const arrays and objects; an
// integer is a number with no fractional part (1.0 is one). Patterns have
// their ECMA-262 meaning (internal/ecmare). A schema with a pattern that has
// no ECMA-262 translation still compiles, and then every value is refused
// with a *patternRefusal naming the pattern's pointer: the tool fails
// closed, because no verdict that depends on the pattern could be trusted
// (not even under not or anyOf).
//
// compileSchemaJSON refuses, naming the pointer: text that is not JSON, a
// keyword value of the wrong form, a "$schema" other than the two drafts, a
// reference that does not resolve inside the document (the gate loads no
// remote schema), and a cycle of references that consumes no instance
// ({"$ref":"#"}), which no instance could finish validating.
//
// A validation costs at most a constant times the instance's size times the
// schema's: each subschema is evaluated at most once per instance location
// on every path through the schema tree, and a subschema reached by more
// than one path (a $ref target used twice, a recursive definition) has its
// verdict remembered per location for the one call (never across calls).
type schemaCheck struct {
	root *snode
	// refusal is set when a pattern has no ECMA-262 translation: every
	// value is refused with it.
	refusal *patternRefusal
	// dynamic: some $dynamicRef is resolved in the dynamic scope, which
	// validation then tracks.
	dynamic bool
	// memos is the number of memo nodes (snode.memo).
	memos int
}

// patternRefusal is the refusal of every value by a schema that has a
// pattern with no ECMA-262 translation the gate can run (lookaround, a
// back-reference). At is the pattern's JSON pointer in the schema.
type patternRefusal struct {
	At      string
	Pattern string
	Err     error
}

func (e *patternRefusal) Error() string {
	at := e.At
	if at == "" {
		at = "/"
	}
	return fmt.Sprintf("the schema's pattern at %s cannot be checked (%v), so every value is refused", at, e.Err)
}

func (e *patternRefusal) Unwrap() error { return e.Err }

// snode is one compiled subschema.
type snode struct {
	ptr    string    // JSON pointer in the document
	res    *resource // the schema resource it belongs to
	never  bool      // the false schema
	draft7 bool

	hasType bool
	types   uint8 // bit per JSON type; with hasType, "type": [] allows none

	values   bool // enum or const
	enum     []any
	enumSet  map[string]struct{} // a large enum of strings only
	hasConst bool
	cnst     any

	num *numBounds

	minLength, maxLength int // -1: absent
	pattern              *regexp.Regexp
	patternFast          *runeSeq
	patternSrc           string

	ref     *snode
	dynRef  *snode // the $dynamicRef's lexical target
	dynName string // its dynamic anchor, when it is resolved dynamically

	logic               bool
	allOf, anyOf, oneOf []*snode
	not, ifS, thenS     *snode
	elseS               *snode

	arr                      bool // any array keyword
	prefix                   []*snode
	items, contains          *snode
	minContains, maxContains int // -1: absent
	minItems, maxItems       int
	unique                   bool
	unevalItems              *snode

	obj                bool // any object keyword
	props              map[string]*snode
	patProps           []patProp
	additional         *snode
	propNames          *snode
	required           []string
	depRequired        []depReq
	depSchemas         []depSchema
	minProps, maxProps int
	unevalProps        *snode

	// memo: reached by more than one edge, so its verdicts are remembered
	// per instance location during a call.
	memo bool
	// id numbers the node in its schema, from 1; memoID numbers its memo
	// nodes, from 0 (memoSet's keys).
	id, memoID int32
	// edges are the subschemas this one applies, in place (same instance)
	// or not, for the compile-time checks.
	inPlace []*snode
}

type patProp struct {
	re   *regexp.Regexp
	fast *runeSeq
	s    *snode
}

func (p *patProp) match(k string) bool {
	if p.fast != nil {
		return p.fast.match(k)
	}
	return p.re.MatchString(k)
}

type depReq struct {
	key  string
	reqs []string
}

type depSchema struct {
	key string
	s   *snode
}

// numBounds are the numeric keywords, as the schema's literals.
type numBounds struct {
	mult, min, max, xmin, xmax        *decimal
	multLit, minLit, maxLit, xLo, xHi string
	// The keywords as integers, when every one present is an integer of at
	// most 2^53 in magnitude (multipleOf a positive one), so that an
	// integer literal is checked without a decimal.
	intBounds                bool
	iMin, iMax, iXMin, iXMax int64
	iMult                    int64 // 0: no multipleOf
}

// resource is a schema resource (the root, or a subschema with $id): the
// unit of the dynamic scope.
type resource struct {
	uri    string
	ptr    string
	anchor map[string]anchorDef
	// dyn are its dynamic anchors, compiled (only when some $dynamicRef is
	// dynamic).
	dyn map[string]*snode
	idx int
}

type anchorDef struct {
	ptr     string
	dynamic bool
}

const (
	jtNull uint8 = 1 << iota
	jtBoolean
	jtInteger
	jtNumber
	jtString
	jtArray
	jtObject
)

var jsonTypeBits = map[string]uint8{
	"null": jtNull, "boolean": jtBoolean, "integer": jtInteger, "number": jtNumber,
	"string": jtString, "array": jtArray, "object": jtObject,
}

// defaultBase is the base URI of a document without $id.
const defaultBase = "https://ocpgen.invalid/schema.json"

const (
	draft2020URI = "https://json-schema.org/draft/2020-12/schema"
)

// schemaCompiler holds one compilation.
type schemaCompiler struct {
	doc     any
	draft7  bool
	byPtr   map[string]*resource // schema location → its resource
	byURI   map[string]*resource
	dynPtrs map[string][]string // dynamic anchor name → its locations
	res     []*resource
	nodes   map[string]*snode
	refusal *patternRefusal
	dynamic bool
	memos   int // memo nodes, numbered by finish
	err     error
}

func (c *schemaCompiler) fail(ptr, format string, args ...any) {
	if c.err == nil {
		at := ptr
		if at == "" {
			at = "/"
		}
		c.err = fmt.Errorf("schema at %s: %s", at, fmt.Sprintf(format, args...))
	}
}

// compileSchemaJSON compiles a schema from its JSON text (see schemaCheck).
func compileSchemaJSON(raw []byte) (*schemaCheck, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("schema: trailing data after the JSON value")
	}
	c := &schemaCompiler{
		doc: doc, byPtr: map[string]*resource{}, byURI: map[string]*resource{},
		dynPtrs: map[string][]string{}, nodes: map[string]*snode{},
	}
	if m, ok := doc.(map[string]any); ok {
		if v, ok := m["$schema"]; ok {
			switch v {
			case draft2020URI:
			case "http://json-schema.org/draft-07/schema#", "https://json-schema.org/draft-07/schema#":
				c.draft7 = true
			default:
				return nil, fmt.Errorf("schema: $schema %v is neither draft 2020-12 nor draft-07", v)
			}
		}
	}
	root := c.newResource(defaultBase, "")
	c.walk(doc, "", root)
	if c.err != nil {
		return nil, c.err
	}
	n := c.compile("")
	if c.err != nil {
		return nil, c.err
	}
	if c.dynamic {
		// Every dynamic anchor a $dynamicRef could reach is compiled.
		for _, r := range c.res {
			for name, a := range r.anchor {
				if a.dynamic {
					if r.dyn == nil {
						r.dyn = map[string]*snode{}
					}
					r.dyn[name] = c.compile(a.ptr)
				}
			}
		}
		if c.err != nil {
			return nil, c.err
		}
	}
	if err := c.finish(n); err != nil {
		return nil, err
	}
	return &schemaCheck{root: n, refusal: c.refusal, dynamic: c.dynamic, memos: c.memos}, nil
}

func (c *schemaCompiler) newResource(uri, ptr string) *resource {
	r := &resource{uri: uri, ptr: ptr, idx: len(c.res)}
	c.res = append(c.res, r)
	if _, dup := c.byURI[uri]; !dup {
		c.byURI[uri] = r
	}
	return r
}

// walk records the resources and anchors of the schema at ptr.
func (c *schemaCompiler) walk(v any, ptr string, res *resource) {
	if c.err != nil {
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		if _, ok := v.(bool); ok {
			c.byPtr[ptr] = res
		}
		return
	}
	_, hasRef := m["$ref"]
	if id, ok := m["$id"].(string); ok && !(c.draft7 && hasRef) {
		u, err := url.Parse(id)
		if err != nil {
			c.fail(ptr, "$id %q is not a URI reference: %v", id, err)
			return
		}
		if c.draft7 && strings.HasPrefix(id, "#") {
			c.addAnchor(res, id[1:], ptr, false)
		} else {
			if u.Fragment != "" {
				c.fail(ptr, "$id %q has a fragment", id)
				return
			}
			abs := resolveURI(res.uri, u)
			if ptr == "" {
				// The root: its $id names it, and so does the default base.
				res.uri = abs
				c.byURI[abs] = res
			} else {
				res = c.newResource(abs, ptr)
			}
		}
	}
	c.byPtr[ptr] = res
	if !c.draft7 {
		for _, kw := range []string{"$anchor", "$dynamicAnchor"} {
			if a, ok := m[kw]; ok {
				name, ok := a.(string)
				if !ok || name == "" {
					c.fail(ptr, "%s is not a name", kw)
					return
				}
				c.addAnchor(res, name, ptr, kw == "$dynamicAnchor")
			}
		}
	}
	child := func(kw string, x any) { c.walk(x, ptr+"/"+jsonptr.EscapeToken(kw), res) }
	for kw, x := range m {
		switch kw {
		case "$defs", "definitions", "properties", "patternProperties", "dependentSchemas", "dependencies":
			if mm, ok := x.(map[string]any); ok {
				for k, y := range mm {
					c.walk(y, ptr+"/"+jsonptr.EscapeToken(kw)+"/"+jsonptr.EscapeToken(k), res)
				}
			}
		case "prefixItems", "allOf", "anyOf", "oneOf", "items":
			if a, ok := x.([]any); ok {
				for k, y := range a {
					c.walk(y, ptr+"/"+kw+"/"+strconv.Itoa(k), res)
				}
			} else if kw == "items" {
				child(kw, x)
			}
		case "additionalItems", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else",
			"unevaluatedItems", "unevaluatedProperties", "contentSchema":
			child(kw, x)
		}
	}
}

func (c *schemaCompiler) addAnchor(res *resource, name, ptr string, dynamic bool) {
	if res.anchor == nil {
		res.anchor = map[string]anchorDef{}
	}
	if _, dup := res.anchor[name]; dup {
		c.fail(ptr, "anchor %q is defined twice in %s", name, res.uri)
		return
	}
	res.anchor[name] = anchorDef{ptr, dynamic}
	if dynamic {
		c.dynPtrs[name] = append(c.dynPtrs[name], ptr)
	}
}

func resolveURI(base string, ref *url.URL) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref.String()
	}
	u := b.ResolveReference(ref)
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// lookup returns the value at ptr in the document.
func (c *schemaCompiler) lookup(ptr string) (any, bool) {
	v := c.doc
	if ptr == "" {
		return v, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = jsonptr.UnescapeToken(tok)
		switch x := v.(type) {
		case map[string]any:
			y, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = y
		case []any:
			k, err := strconv.Atoi(tok)
			if err != nil || k < 0 || k >= len(x) || strconv.Itoa(k) != tok {
				return nil, false
			}
			v = x[k]
		default:
			return nil, false
		}
	}
	return v, true
}

// resourceOf is the resource of the location ptr: its own, or its nearest
// enclosing schema's.
func (c *schemaCompiler) resourceOf(ptr string) *resource {
	for {
		if r, ok := c.byPtr[ptr]; ok {
			return r
		}
		k := strings.LastIndexByte(ptr, '/')
		if k < 0 {
			return c.res[0]
		}
		ptr = ptr[:k]
	}
}

// resolveRef resolves a $ref or $dynamicRef of the schema at ptr to the
// location it names, and says whether its fragment is a dynamic anchor.
func (c *schemaCompiler) resolveRef(ptr, ref string) (string, string, bool) {
	u, err := url.Parse(ref)
	if err != nil {
		c.fail(ptr, "reference %q is not a URI reference: %v", ref, err)
		return "", "", false
	}
	abs := resolveURI(c.resourceOf(ptr).uri, u)
	r, ok := c.byURI[abs]
	if !ok {
		c.fail(ptr, "reference %q (%s) is not in this schema, and the gate loads no remote schema", ref, abs)
		return "", "", false
	}
	frag := u.Fragment
	if frag == "" || strings.HasPrefix(frag, "/") {
		target := r.ptr + frag
		// The pointer as a document pointer: re-escape each token as
		// the nodes are keyed (the fragment was percent-decoded).
		if _, ok := c.lookup(target); !ok {
			c.fail(ptr, "reference %q: %s does not exist", ref, frag)
			return "", "", false
		}
		return target, "", true
	}
	a, ok := r.anchor[frag]
	if !ok {
		c.fail(ptr, "reference %q: no anchor %q in %s", ref, frag, r.uri)
		return "", "", false
	}
	if a.dynamic {
		return a.ptr, frag, true
	}
	return a.ptr, "", true
}

// compile compiles the schema at ptr, once.
func (c *schemaCompiler) compile(ptr string) *snode {
	if n, ok := c.nodes[ptr]; ok {
		return n
	}
	n := &snode{ptr: ptr, res: c.resourceOf(ptr), draft7: c.draft7, minLength: -1, maxLength: -1,
		minContains: -1, maxContains: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1,
		id: int32(len(c.nodes) + 1)}
	c.nodes[ptr] = n
	v, _ := c.lookup(ptr)
	switch v := v.(type) {
	case bool:
		n.never = !v
	case map[string]any:
		c.fill(n, v)
	default:
		c.fail(ptr, "a schema must be an object or a boolean")
	}
	return n
}

func (c *schemaCompiler) sub(n *snode, rel string, inPlace bool) *snode {
	s := c.compile(n.ptr + rel)
	if inPlace {
		n.inPlace = append(n.inPlace, s)
	}
	return s
}

// count reads a non-negative integer keyword (-1: absent).
func (c *schemaCompiler) count(ptr, kw string, m map[string]any) int {
	v, ok := m[kw]
	if !ok {
		return -1
	}
	num, ok := v.(json.Number)
	d, ok2 := parseSchemaDecimal(string(num))
	if !ok || !ok2 || d.neg || !d.isInteger() {
		c.fail(ptr, "%s is not a non-negative integer", kw)
		return -1
	}
	if d.exp > 18 {
		return math.MaxInt
	}
	s, _ := d.integerText()
	k, _ := strconv.Atoi(s)
	return k
}

func (c *schemaCompiler) number(ptr, kw string, m map[string]any) (*decimal, string) {
	v, ok := m[kw]
	if !ok {
		return nil, ""
	}
	num, ok := v.(json.Number)
	d, ok2 := parseSchemaDecimal(string(num))
	if !ok || !ok2 {
		c.fail(ptr, "%s is not a number", kw)
		return nil, ""
	}
	return &d, string(num)
}

func (c *schemaCompiler) pattern(at, src string) (*regexp.Regexp, *runeSeq) {
	re, err := ecmare.Compile(src)
	if err != nil {
		if c.refusal == nil {
			c.refusal = &patternRefusal{At: at, Pattern: src, Err: err}
		}
		return nil, nil
	}
	return re, compileRuneSeq(re)
}

func (c *schemaCompiler) fill(n *snode, m map[string]any) {
	p := n.ptr
	esc := func(kw string) string { return "/" + jsonptr.EscapeToken(kw) }
	if ref, ok := m["$ref"]; ok {
		s, ok := ref.(string)
		if !ok {
			c.fail(p, "$ref is not a string")
			return
		}
		if target, _, ok := c.resolveRef(p, s); ok {
			n.ref = c.compile(target)
			n.inPlace = append(n.inPlace, n.ref)
		}
		if c.draft7 {
			return // draft-07: the other keywords beside $ref are ignored
		}
	}
	if t, ok := m["type"]; ok {
		n.hasType = true
		var names []any
		switch t := t.(type) {
		case string:
			names = []any{t}
		case []any:
			names = t
		default:
			c.fail(p, "type is neither a string nor an array")
		}
		for _, x := range names {
			s, _ := x.(string)
			b, ok := jsonTypeBits[s]
			if !ok {
				c.fail(p, "type %v is not a JSON Schema type", x)
			}
			n.types |= b
		}
	}
	if e, ok := m["enum"]; ok {
		a, ok := e.([]any)
		if !ok {
			c.fail(p, "enum is not an array")
		}
		if a == nil {
			a = []any{}
		}
		for k := range a {
			v, ok := schemaValue(a[k])
			if !ok {
				c.fail(p, "enum holds a number with an exponent beyond ±%d", maxSchemaExp)
			}
			a[k] = v
		}
		n.enum, n.values = a, true
		if len(a) > 16 {
			set := make(map[string]struct{}, len(a))
			for _, x := range a {
				s, ok := x.(string)
				if !ok {
					set = nil
					break
				}
				set[s] = struct{}{}
			}
			n.enumSet = set
		}
	}
	if v, ok := m["const"]; ok {
		cv, ok := schemaValue(v)
		if !ok {
			c.fail(p, "const holds a number with an exponent beyond ±%d", maxSchemaExp)
		}
		n.hasConst, n.cnst, n.values = true, cv, true
	}
	var nb numBounds
	nb.mult, nb.multLit = c.number(p, "multipleOf", m)
	nb.min, nb.minLit = c.number(p, "minimum", m)
	nb.max, nb.maxLit = c.number(p, "maximum", m)
	nb.xmin, nb.xLo = c.number(p, "exclusiveMinimum", m)
	nb.xmax, nb.xHi = c.number(p, "exclusiveMaximum", m)
	if nb.mult != nil && (nb.mult.zero() || nb.mult.neg) {
		c.fail(p, "multipleOf is not positive")
	}
	if nb.mult != nil || nb.min != nil || nb.max != nil || nb.xmin != nil || nb.xmax != nil {
		nb.compileIntBounds()
		n.num = &nb
	}
	n.minLength, n.maxLength = c.count(p, "minLength", m), c.count(p, "maxLength", m)
	if v, ok := m["pattern"]; ok {
		s, ok := v.(string)
		if !ok {
			c.fail(p, "pattern is not a string")
		}
		n.patternSrc = s
		n.pattern, n.patternFast = c.pattern(p+"/pattern", s)
	}
	if !c.draft7 {
		if v, ok := m["$dynamicRef"]; ok {
			s, ok := v.(string)
			if !ok {
				c.fail(p, "$dynamicRef is not a string")
				return
			}
			if target, name, ok := c.resolveRef(p, s); ok {
				n.dynRef, n.dynName = c.compile(target), name
				n.inPlace = append(n.inPlace, n.dynRef)
				if name != "" {
					c.dynamic = true
					for _, q := range c.dynPtrs[name] {
						n.inPlace = append(n.inPlace, c.compile(q))
					}
				}
			}
		}
	}
	// Applicators in place.
	list := func(kw string) []*snode {
		v, ok := m[kw]
		if !ok {
			return nil
		}
		a, ok := v.([]any)
		if !ok {
			c.fail(p, "%s is not an array", kw)
			return nil
		}
		out := make([]*snode, len(a))
		for k := range a {
			out[k] = c.sub(n, "/"+kw+"/"+strconv.Itoa(k), true)
		}
		return out
	}
	one := func(kw string, inPlace bool) *snode {
		if _, ok := m[kw]; !ok {
			return nil
		}
		return c.sub(n, esc(kw), inPlace)
	}
	n.allOf, n.anyOf, n.oneOf = list("allOf"), list("anyOf"), list("oneOf")
	n.not = one("not", true)
	if _, ok := m["if"]; ok {
		n.ifS, n.thenS, n.elseS = one("if", true), one("then", true), one("else", true)
	}
	n.logic = n.allOf != nil || n.anyOf != nil || n.oneOf != nil || n.not != nil || n.ifS != nil

	// Arrays.
	if v, ok := m["items"]; ok {
		if _, isArray := v.([]any); isArray {
			if !c.draft7 {
				c.fail(p, "items is an array, draft-07's form (2020-12 has prefixItems)")
			} else {
				n.prefix = list("items")
				n.items = one("additionalItems", false)
			}
		} else {
			n.items = one("items", false)
		}
	}
	if !c.draft7 {
		n.prefix = list("prefixItems")
		n.unevalItems = one("unevaluatedItems", false)
		if _, ok := m["contains"]; ok {
			n.minContains, n.maxContains = c.count(p, "minContains", m), c.count(p, "maxContains", m)
		}
	}
	n.contains = one("contains", false)
	n.minItems, n.maxItems = c.count(p, "minItems", m), c.count(p, "maxItems", m)
	if v, ok := m["uniqueItems"]; ok {
		b, ok := v.(bool)
		if !ok {
			c.fail(p, "uniqueItems is not a boolean")
		}
		n.unique = b
	}
	// The prefix's schemas are not applied in place.
	for _, s := range n.prefix {
		n.inPlace = slices.DeleteFunc(n.inPlace, func(x *snode) bool { return x == s })
	}
	n.arr = n.prefix != nil || n.items != nil || n.contains != nil || n.minItems >= 0 || n.maxItems >= 0 || n.unique || n.unevalItems != nil

	// Objects.
	members := func(kw string) (map[string]any, []string) {
		v, ok := m[kw]
		if !ok {
			return nil, nil
		}
		mm, ok := v.(map[string]any)
		if !ok {
			c.fail(p, "%s is not an object", kw)
			return nil, nil
		}
		keys := make([]string, 0, len(mm))
		for k := range mm {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return mm, keys
	}
	if mm, keys := members("properties"); mm != nil {
		n.props = make(map[string]*snode, len(mm))
		for _, k := range keys {
			n.props[k] = c.sub(n, "/properties/"+jsonptr.EscapeToken(k), false)
		}
	}
	if mm, keys := members("patternProperties"); mm != nil {
		for _, k := range keys {
			rel := "/patternProperties/" + jsonptr.EscapeToken(k)
			re, fast := c.pattern(p+rel, k)
			s := c.sub(n, rel, false)
			if re != nil {
				n.patProps = append(n.patProps, patProp{re, fast, s})
			}
		}
	}
	n.additional = one("additionalProperties", false)
	n.propNames = one("propertyNames", false)
	if v, ok := m["required"]; ok {
		a, ok := v.([]any)
		if !ok {
			c.fail(p, "required is not an array")
		}
		n.required = make([]string, 0, len(a))
		for _, x := range a {
			s, ok := x.(string)
			if !ok {
				c.fail(p, "required holds a non-string")
			}
			n.required = append(n.required, s)
		}
	}
	strs := func(k string, v any) []string {
		a, ok := v.([]any)
		if !ok {
			c.fail(p, "the dependency of %q is not an array of names", k)
			return nil
		}
		out := make([]string, 0, len(a))
		for _, x := range a {
			s, ok := x.(string)
			if !ok {
				c.fail(p, "the dependency of %q holds a non-string", k)
			}
			out = append(out, s)
		}
		return out
	}
	if c.draft7 {
		if mm, keys := members("dependencies"); mm != nil {
			for _, k := range keys {
				switch mm[k].(type) {
				case []any:
					n.depRequired = append(n.depRequired, depReq{k, strs(k, mm[k])})
				default:
					n.depSchemas = append(n.depSchemas, depSchema{k, c.sub(n, "/dependencies/"+jsonptr.EscapeToken(k), true)})
				}
			}
		}
	} else {
		if mm, keys := members("dependentRequired"); mm != nil {
			for _, k := range keys {
				n.depRequired = append(n.depRequired, depReq{k, strs(k, mm[k])})
			}
		}
		if mm, keys := members("dependentSchemas"); mm != nil {
			for _, k := range keys {
				n.depSchemas = append(n.depSchemas, depSchema{k, c.sub(n, "/dependentSchemas/"+jsonptr.EscapeToken(k), true)})
			}
		}
		n.unevalProps = one("unevaluatedProperties", false)
	}
	n.minProps, n.maxProps = c.count(p, "minProperties", m), c.count(p, "maxProperties", m)
	n.obj = n.props != nil || n.patProps != nil || n.additional != nil || n.propNames != nil || n.required != nil ||
		n.depRequired != nil || n.depSchemas != nil || n.minProps >= 0 || n.maxProps >= 0 || n.unevalProps != nil
}

// finish refuses a cycle of subschemas applied in place (it would never
// end) and marks the subschemas reached by more than one edge.
func (c *schemaCompiler) finish(root *snode) error {
	indeg := map[*snode]int{root: 1}
	const (
		white = iota
		grey
		black
	)
	color := map[*snode]int{}
	var visit func(n *snode) error
	visit = func(n *snode) error {
		color[n] = grey
		for _, s := range n.inPlace {
			switch color[s] {
			case grey:
				return fmt.Errorf("schema at %s: a cycle of references that consumes no instance (through %s), which no validation could finish", orRoot(s.ptr), orRoot(n.ptr))
			case white:
				if err := visit(s); err != nil {
					return err
				}
			}
		}
		color[n] = black
		return nil
	}
	for _, n := range c.nodes {
		if color[n] == white {
			if err := visit(n); err != nil {
				return err
			}
		}
	}
	for _, n := range c.nodes {
		for _, s := range n.edges() {
			indeg[s]++
		}
	}
	for _, r := range c.res {
		for _, s := range r.dyn {
			indeg[s] += 2 // reached from any dynamic scope
		}
	}
	var memos []*snode
	for n, k := range indeg {
		if n.memo = k > 1; n.memo {
			memos = append(memos, n)
		}
	}
	slices.SortFunc(memos, func(a, b *snode) int { return cmp.Compare(a.id, b.id) })
	for k, n := range memos {
		n.memoID = int32(k)
	}
	c.memos = len(memos)
	return nil
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// edges are every subschema n applies.
func (n *snode) edges() []*snode {
	out := slices.Clone(n.inPlace)
	add := func(s *snode) {
		if s != nil {
			out = append(out, s)
		}
	}
	out = append(out, n.prefix...)
	add(n.items)
	add(n.contains)
	add(n.unevalItems)
	for _, s := range n.props {
		add(s)
	}
	for _, pp := range n.patProps {
		add(pp.s)
	}
	add(n.additional)
	add(n.propNames)
	add(n.unevalProps)
	return out
}

// compileIntBounds sets intBounds and the integer bounds, if every
// numeric keyword present is an integer that a float64 holds exactly (and,
// for multipleOf, positive).
func (b *numBounds) compileIntBounds() {
	asInt := func(d *decimal, dflt int64) (int64, bool) {
		if d == nil {
			return dflt, true
		}
		if !d.isInteger() || d.exp > 16 {
			return 0, false
		}
		s, ok := d.integerText()
		if !ok {
			return 0, false
		}
		k, err := strconv.ParseInt(s, 10, 64)
		if err != nil || k > 1<<53 || k < -1<<53 {
			return 0, false
		}
		return k, true
	}
	var ok [5]bool
	b.iMin, ok[0] = asInt(b.min, math.MinInt64)
	b.iMax, ok[1] = asInt(b.max, math.MaxInt64)
	b.iXMin, ok[2] = asInt(b.xmin, math.MinInt64)
	b.iXMax, ok[3] = asInt(b.xmax, math.MaxInt64)
	b.iMult, ok[4] = asInt(b.mult, 0)
	// iMult is 0 without multipleOf: with one, it must be positive.
	b.intBounds = ok == [5]bool{true, true, true, true, true} && (b.mult == nil || b.iMult > 0)
}

// intValid reports whether the integer k meets every numeric keyword
// (intBounds is set). The literal of k is an integer of at most 18 digits
// and every bound an integer of at most 2^53, so the comparison is exact.
func (b *numBounds) intValid(k int64) bool {
	return k >= b.iMin && k <= b.iMax && (b.xmin == nil || k > b.iXMin) && (b.xmax == nil || k < b.iXMax) &&
		(b.iMult == 0 || k%b.iMult == 0)
}

// floatValid reports whether f, the float64 of a canonical literal (at
// most 15 significant digits, no exponent), meets the bounds (intBounds is
// set, without multipleOf). It is exact: such a literal that differs from
// an integer bound differs from it by more than half the bound's float64
// spacing, so its float64 lies on the same side.
func (b *numBounds) floatValid(f float64) bool {
	return f >= float64(b.iMin) && f <= float64(b.iMax) && (b.xmin == nil || f > float64(b.iXMin)) && (b.xmax == nil || f < float64(b.iXMax))
}

// check applies the numeric keywords to a literal exactly. It returns the
// failure, a format of the literal and the schema's bound (%s each), and
// that bound; or "". It allocates nothing: the failure of a value under
// anyOf, oneOf, not or if is not the value's, and is never written.
func (b *numBounds) check(lit string) (format, bound string) {
	if b.intBounds {
		// A literal that passes needs no decimal; one that fails takes the
		// path below, which says why.
		if k, ok := parseIntLiteral(lit); ok {
			if b.intValid(k) {
				return "", ""
			}
		} else if b.iMult == 0 && canonicalFloatLiteral(lit) {
			if f, _ := parseFloatLiteral(lit); b.floatValid(f) {
				return "", ""
			}
		}
	}
	d, _ := parseDecimal(lit) // the tape bounded its exponent
	switch {
	case b.mult != nil && !multipleOf(&d, b.mult):
		return "multipleOf: %s is not a multiple of %s", b.multLit
	case b.min != nil && cmpDecimal(&d, b.min) < 0:
		return "minimum: %s is less than %s", b.minLit
	case b.max != nil && cmpDecimal(&d, b.max) > 0:
		return "maximum: %s is greater than %s", b.maxLit
	case b.xmin != nil && cmpDecimal(&d, b.xmin) <= 0:
		return "exclusiveMinimum: %s is not greater than %s", b.xLo
	case b.xmax != nil && cmpDecimal(&d, b.xmax) >= 0:
		return "exclusiveMaximum: %s is not less than %s", b.xHi
	}
	return "", ""
}

// typeBit is the JSON Schema type of node x: a number is an integer when
// its literal has no fractional part (1.0 and 1e2 are integers,
// 1.0000000000000001 is not).
func typeBit(t *tape, i int) uint8 {
	switch t.kind(i) {
	case tNull:
		return jtNull
	case tFalse, tTrue:
		return jtBoolean
	case tNumber:
		lit := t.str(i)
		switch {
		case !notInt(lit):
			return jtInteger
		case fractionOnly(lit):
			return jtNumber
		}
		if d, _ := parseDecimal(lit); d.isInteger() {
			return jtInteger
		}
		return jtNumber
	case tString:
		return jtString
	case tArray:
		return jtArray
	}
	return jtObject
}

var typeNames = [...]string{"null", "boolean", "integer", "number", "string", "array", "object"}

func typeName(b uint8) string {
	for i, n := range typeNames {
		if b == 1<<i {
			return n
		}
	}
	return "?"
}

// schemaError is a validation failure: at is the JSON pointer of the
// failing value in the instance ("" for the whole of it). Its text reaches
// only the audit log.
type schemaError struct {
	at   string
	msg  string
	what string // "arguments" (the default) or "result"
}

func (e *schemaError) Error() string {
	what := e.what
	if what == "" {
		what = "arguments"
	}
	if e.at == "" {
		return "validating " + what + ": " + e.msg
	}
	return "validating " + what + " at " + e.at + ": " + e.msg
}

// validateJSON validates a JSON text (a server's structured result) with sc.
func validateJSON(sc *schemaCheck, b []byte) error {
	t := getTape()
	defer putTape(t)
	if err := t.parse(string(b)); err != nil {
		return err
	}
	err := sc.validate(t, 0)
	var se *schemaError
	if errors.As(err, &se) {
		se.what = "result"
	}
	return err
}

// validate checks value i of t. Its error is a *Refusal: the rule
// pattern-untranslatable (pointer "": every value is refused) or schema,
// with the pointer of the failing value (from the root of t).
func (sc *schemaCheck) validate(t *tape, i int) error {
	if sc.refusal != nil {
		return refusal("", RulePatternUntranslatable, sc.refusal)
	}
	if ok, _ := sc.run(t, i); ok {
		return nil
	}
	// The cold path: again, to say why and where.
	why := ""
	c := evalCtx{t: t, track: sc.dynamic, memos: sc.memos, why: &why, whyAt: -1}
	sc.root.eval(&c, i, nil)
	if why == "" {
		why = "invalid"
	}
	at := ""
	if c.whyAt > i {
		at = t.pointer(c.whyAt)
	}
	return refusal(at, RuleSchema, &schemaError{msg: why})
}

// run is the verdict on value i, and the number of subschema evaluations
// it took.
func (sc *schemaCheck) run(t *tape, i int) (bool, int) {
	c := evalCtx{t: t, track: sc.dynamic, memos: sc.memos}
	ok := sc.root.eval(&c, i, nil)
	return ok, c.evals
}

// evalCtx is one validation.
type evalCtx struct {
	t     *tape
	why   *string
	whyAt int
	track bool // keep the dynamic scope
	scope []*resource
	// binding maps each dynamic anchor name to the outermost resource's
	// anchor in the scope; bound are the names in the order bound.
	binding map[string]*snode
	bound   []string
	// sig identifies the part of the dynamic scope a $dynamicRef can see,
	// for memo keys.
	sig  int32
	sigs map[[2]int32]int32
	// memo holds the verdicts of memo nodes; memoBits those of the common
	// case, without a dynamic scope's signature or annotations, about 3
	// bits a tape node a memo node at most. memos is the schema's number of
	// memo nodes.
	memo     map[memoKey]memoVal
	memoBits memoSet
	memos    int
	evals    int
	// entered is the node whose scope and memo evalScoped has just
	// handled, so that eval runs its body.
	entered *snode
}

type memoKey struct {
	n   *snode
	i   int32
	sig int32
	ann bool
}

type memoVal struct {
	ok bool
	a  anns
}

func (c *evalCtx) fail(i int, why string) bool {
	if c.why != nil && *c.why == "" {
		*c.why = why
		c.whyAt = i
	}
	return false
}

// failf is fail of a reason formatted with a. It formats it only when the
// reason is recorded: a failure under anyOf, oneOf, not, if or contains is
// not the value's, and a value made for each such failure (a string boxed
// into an interface) would make the validation's memory grow with the
// items that fail there.
func failf[A any](c *evalCtx, i int, format string, a A) bool {
	if c.why != nil && *c.why == "" {
		return c.fail(i, fmt.Sprintf(format, a))
	}
	return false
}

// failf2 is failf of a reason formatted with a and b.
func failf2[A, B any](c *evalCtx, i int, format string, a A, b B) bool {
	if c.why != nil && *c.why == "" {
		return c.fail(i, fmt.Sprintf(format, a, b))
	}
	return false
}

// anns are the annotations unevaluated* reads: the members of an object
// (by position) or the items of an array (by index) already evaluated.
type anns struct {
	small uint64
	big   []uint64
	n     int32
}

func (a *anns) init(n int32) {
	a.n = n
	if n > 64 {
		a.big = make([]uint64, (n+63)/64)
	}
}

func (a *anns) set(k int) {
	if a.big != nil {
		a.big[k/64] |= 1 << (k % 64)
		return
	}
	a.small |= 1 << k
}

func (a *anns) has(k int) bool {
	if a.big != nil {
		return a.big[k/64]&(1<<(k%64)) != 0
	}
	return a.small&(1<<k) != 0
}

func (a *anns) setAll() {
	for k := range int(a.n) {
		a.set(k)
	}
}

func (a *anns) merge(b *anns) {
	if a.big != nil {
		for k := range a.big {
			if b.big != nil {
				a.big[k] |= b.big[k]
			}
		}
		return
	}
	a.small |= b.small
}

// evalScoped is eval with the dynamic scope or the memo.
func (n *snode) evalScoped(c *evalCtx, i int, ann *anns) bool {
	pushed := false
	var oldSig int32
	var oldBound int
	if c.track && (len(c.scope) == 0 || c.scope[len(c.scope)-1] != n.res) {
		c.scope = append(c.scope, n.res)
		pushed, oldSig, oldBound = true, c.sig, len(c.bound)
		// The outermost resource that defines a dynamic anchor binds it.
		for name, s := range n.res.dyn {
			if _, ok := c.binding[name]; !ok {
				if c.binding == nil {
					c.binding = map[string]*snode{}
				}
				c.binding[name] = s
				c.bound = append(c.bound, name)
			}
		}
		if len(c.bound) > oldBound {
			if c.sigs == nil {
				c.sigs = map[[2]int32]int32{}
			}
			k := [2]int32{c.sig, int32(n.res.idx)}
			s, ok := c.sigs[k]
			if !ok {
				s = int32(len(c.sigs) + 1)
				c.sigs[k] = s
			}
			c.sig = s
		}
	}
	var ok bool
	if n.memo && c.sig == 0 && ann == nil {
		var hit bool
		if ok, hit = c.memoBits.get(n.memoID, i); !hit {
			c.entered = n
			ok = n.eval(c, i, nil)
			c.memoBits.put(n.memoID, i, ok, c.memos, len(c.t.nodes))
		}
	} else if n.memo {
		key := memoKey{n, int32(i), c.sig, ann != nil}
		if v, hit := c.memo[key]; hit {
			ok = v.ok
			if ok && ann != nil {
				ann.merge(&v.a)
			}
		} else {
			var v memoVal
			if ann != nil {
				v.a.init(ann.n)
				c.entered = n
				v.ok = n.eval(c, i, &v.a)
				if v.ok {
					ann.merge(&v.a)
				}
			} else {
				c.entered = n
				v.ok = n.eval(c, i, nil)
			}
			if c.memo == nil {
				c.memo = map[memoKey]memoVal{}
			}
			c.memo[key] = v
			ok = v.ok
		}
	} else {
		c.entered = n
		ok = n.eval(c, i, ann)
	}
	if pushed {
		for _, name := range c.bound[oldBound:] {
			delete(c.binding, name)
		}
		c.scope, c.bound = c.scope[:len(c.scope)-1], c.bound[:oldBound]
		c.sig = oldSig
	}
	return ok
}

// eval validates value i with n; when ann is non-nil it receives the
// members or items n evaluated (value i is then an object or an array).
func (n *snode) eval(c *evalCtx, i int, ann *anns) bool {
	if (c.track || n.memo) && c.entered != n {
		return n.evalScoped(c, i, ann)
	}
	c.entered = nil
	c.evals++
	if n.never {
		return c.fail(i, "the schema allows no value here")
	}
	xk := c.t.kind(i)
	var local anns
	var la *anns
	if (ann != nil || n.unevalProps != nil || n.unevalItems != nil) && (xk == tObject || xk == tArray) {
		local.init(int32(c.t.count(i)))
		la = &local
	}
	if n.ref != nil {
		if !n.ref.eval(c, i, la) {
			return failf(c, i, "$ref %s", orRoot(n.ref.ptr))
		}
	}
	if n.hasType {
		got := typeBit(c.t, i)
		if n.types&got == 0 && !(got == jtInteger && n.types&jtNumber != 0) {
			return failf(c, i, "type: has type %q", typeName(got))
		}
	}
	if n.values && !n.checkValues(c, i) {
		return false
	}
	switch xk {
	case tNumber:
		if n.num != nil {
			lit := c.t.str(i)
			if format, bound := n.num.check(lit); format != "" {
				return failf2(c, i, format, lit, bound)
			}
		}
	case tString:
		str := c.t.str(i)
		if n.minLength >= 0 || n.maxLength >= 0 {
			k := utf8.RuneCountInString(str)
			if n.minLength >= 0 && k < n.minLength {
				return failf2(c, i, "minLength: %d code points, fewer than %d", k, n.minLength)
			}
			if n.maxLength >= 0 && k > n.maxLength {
				return failf2(c, i, "maxLength: %d code points, more than %d", k, n.maxLength)
			}
		}
		if n.patternFast != nil {
			if !n.patternFast.match(str) {
				return failf(c, i, "pattern: does not match %q", n.patternSrc)
			}
		} else if n.pattern != nil && !n.pattern.MatchString(str) {
			return failf(c, i, "pattern: does not match %q", n.patternSrc)
		}
	}
	if n.dynRef != nil {
		target := n.dynRef
		if n.dynName != "" {
			if s := c.binding[n.dynName]; s != nil {
				target = s
			}
		}
		if !target.eval(c, i, la) {
			return failf(c, i, "$dynamicRef %s", orRoot(target.ptr))
		}
	}
	if n.logic && !n.evalLogic(c, i, la) {
		return false
	}
	switch xk {
	case tArray:
		if n.arr && !n.evalArray(c, i, la) {
			return false
		}
	case tObject:
		if n.obj && !n.evalObject(c, i, la) {
			return false
		}
	}
	if ann != nil && la != nil {
		ann.merge(la)
	}
	return true
}

// quiet runs f without recording a failure's reason: its failures are not
// the value's.
func (c *evalCtx) quiet(f func() bool) bool {
	why := c.why
	c.why = nil
	ok := f()
	c.why = why
	return ok
}

func (n *snode) checkValues(c *evalCtx, i int) bool {
	t := c.t
	if n.enum != nil {
		ok := false
		if n.enumSet != nil {
			ok = t.kind(i) == tString
			if ok {
				_, ok = n.enumSet[t.str(i)]
			}
		} else {
			for _, e := range n.enum {
				if tapeEqualsJSON(t, i, e) {
					ok = true
					break
				}
			}
		}
		if !ok {
			// The schema's values are the server's text: name them only
			// when they are few, so that a refusal costs no more than the
			// check.
			if len(n.enum) > 16 {
				return failf(c, i, "enum: value is not one of the schema's %d values", len(n.enum))
			}
			return failf(c, i, "enum: value is not one of %v", n.enum)
		}
	}
	if n.hasConst && !tapeEqualsJSON(t, i, n.cnst) {
		return failf(c, i, "const: value is not %v", n.cnst)
	}
	return true
}

func (n *snode) evalLogic(c *evalCtx, i int, la *anns) bool {
	for _, s := range n.allOf {
		if !s.eval(c, i, la) {
			return c.fail(i, "allOf")
		}
	}
	branch := func(s *snode) bool {
		if la == nil {
			return s.eval(c, i, nil)
		}
		var tmp anns
		tmp.init(la.n)
		if !s.eval(c, i, &tmp) {
			return false
		}
		la.merge(&tmp)
		return true
	}
	if n.anyOf != nil {
		ok := c.quiet(func() bool {
			ok := false
			for _, s := range n.anyOf {
				if branch(s) {
					ok = true
					if la == nil {
						break // no annotation to collect from the others
					}
				}
			}
			return ok
		})
		if !ok {
			return failf(c, i, "anyOf: matches none of %d schemas", len(n.anyOf))
		}
	}
	if n.oneOf != nil {
		k := 0
		c.quiet(func() bool {
			for _, s := range n.oneOf {
				if branch(s) {
					if k++; k > 1 {
						break
					}
				}
			}
			return true
		})
		if k != 1 {
			return failf2(c, i, "oneOf: matches %d of %d schemas, not exactly one", k, len(n.oneOf))
		}
	}
	if n.not != nil && c.quiet(func() bool { return n.not.eval(c, i, nil) }) {
		return c.fail(i, "not: matches a schema it must not")
	}
	if n.ifS != nil {
		next := n.elseS
		if c.quiet(func() bool { return branch(n.ifS) }) {
			next = n.thenS
		}
		if next != nil && !next.eval(c, i, la) {
			return c.fail(i, "if/then/else")
		}
	}
	return true
}

func (n *snode) evalArray(c *evalCtx, i int, la *anns) bool {
	t := c.t
	if n.prefix != nil || n.items != nil {
		k := 0
		for p := t.first(i); p < t.end(i); p, k = t.end(p), k+1 {
			s := n.items
			if k < len(n.prefix) {
				s = n.prefix[k]
			}
			if s == nil {
				break
			}
			if !s.eval(c, p, nil) {
				return c.fail(i, "items")
			}
			if la != nil {
				la.set(k)
			}
		}
	}
	if n.contains != nil {
		matched, k := 0, 0
		c.quiet(func() bool {
			for p := t.first(i); p < t.end(i); p, k = t.end(p), k+1 {
				if n.contains.eval(c, p, nil) {
					matched++
					if la != nil {
						la.set(k)
					}
				}
			}
			return true
		})
		lo := 1
		if n.minContains >= 0 {
			lo = n.minContains
		}
		if matched < lo {
			return failf2(c, i, "contains: %d items match, fewer than %d", matched, lo)
		}
		if n.maxContains >= 0 && matched > n.maxContains {
			return failf2(c, i, "maxContains: %d items match, more than %d", matched, n.maxContains)
		}
	}
	if n.minItems >= 0 || n.maxItems >= 0 {
		k := t.count(i)
		if n.minItems >= 0 && k < n.minItems {
			return failf2(c, i, "minItems: %d items, fewer than %d", k, n.minItems)
		}
		if n.maxItems >= 0 && k > n.maxItems {
			return failf2(c, i, "maxItems: %d items, more than %d", k, n.maxItems)
		}
	}
	if n.unique && t.moreThan(i, 1) && !uniqueItems(t, i) {
		return c.fail(i, "uniqueItems: two items are equal")
	}
	if n.unevalItems != nil {
		k := 0
		for p := t.first(i); p < t.end(i); p, k = t.end(p), k+1 {
			if !la.has(k) && !n.unevalItems.eval(c, p, nil) {
				return failf(c, i, "unevaluatedItems: item %d", k)
			}
		}
		la.setAll()
	}
	return true
}

func (n *snode) evalObject(c *evalCtx, i int, la *anns) bool {
	t := c.t
	if n.props != nil || n.patProps != nil || n.additional != nil || n.propNames != nil {
		k := 0
		for p := t.first(i); p < t.end(i); p, k = t.end(p), k+1 {
			key := t.key(p)
			matched := false
			if s, ok := n.props[key]; ok {
				matched = true
				if !s.eval(c, p, nil) {
					return failf(c, i, "property %q", key)
				}
			}
			for q := range n.patProps {
				if pp := &n.patProps[q]; pp.match(key) {
					matched = true
					if !pp.s.eval(c, p, nil) {
						return failf2(c, i, "property %q (patternProperties %q)", key, pp.re.String())
					}
				}
			}
			if !matched && n.additional != nil {
				matched = true
				if !n.additional.eval(c, p, nil) {
					return failf(c, i, "additional property %q", key)
				}
			}
			if matched && la != nil {
				la.set(k)
			}
			if n.propNames != nil && !n.nameValid(c, key) {
				return failf(c, i, "propertyNames: %q", key)
			}
		}
	}
	if n.minProps >= 0 || n.maxProps >= 0 {
		k := t.count(i)
		if n.minProps >= 0 && k < n.minProps {
			return failf2(c, i, "minProperties: %d properties, fewer than %d", k, n.minProps)
		}
		if n.maxProps >= 0 && k > n.maxProps {
			return failf2(c, i, "maxProperties: %d properties, more than %d", k, n.maxProps)
		}
	}
	for _, r := range n.required {
		if t.member(i, r) < 0 {
			return failf(c, i, "required: missing property %q", r)
		}
	}
	for _, d := range n.depRequired {
		if t.member(i, d.key) < 0 {
			continue
		}
		for _, r := range d.reqs {
			if t.member(i, r) < 0 {
				return failf2(c, i, "dependentRequired[%q]: missing property %q", d.key, r)
			}
		}
	}
	for _, d := range n.depSchemas {
		if t.member(i, d.key) >= 0 && !d.s.eval(c, i, la) {
			return failf(c, i, "dependentSchemas[%q]", d.key)
		}
	}
	if n.unevalProps != nil {
		k := 0
		for p := t.first(i); p < t.end(i); p, k = t.end(p), k+1 {
			if !la.has(k) && !n.unevalProps.eval(c, p, nil) {
				return failf(c, i, "unevaluatedProperties: %q", t.key(p))
			}
		}
		la.setAll()
	}
	return true
}

// nameValid applies propertyNames to a member name, as a string value of
// its own one-node tape: the name's JSON encoding, parsed.
func (n *snode) nameValid(c *evalCtx, key string) bool {
	kt := getTape()
	defer putTape(kt)
	if err := kt.parse(string(jsonscan.AppendString(nil, key, false))); err != nil {
		return false // unreachable: the name was decoded from valid JSON
	}
	sub := evalCtx{t: kt, track: c.track, memos: c.memos, scope: c.scope, sig: c.sig, sigs: c.sigs, binding: c.binding, bound: c.bound}
	return n.propNames.eval(&sub, 0, nil)
}

// uniqueItems reports whether the items of the array at i are pairwise
// unequal (numbers compared by value, exactly). Beyond 32 items it finds
// equal ones through a table of their hashes (valueSet, hashTape, with a
// seed chosen at random for the process).
func uniqueItems(t *tape, i int) bool {
	if !t.moreThan(i, 32) {
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			for q := t.end(p); q < t.end(i); q = t.end(q) {
				if tapeDiff(t, p, t, q) < 0 {
					return false
				}
			}
		}
		return true
	}
	var set valueSet
	for p := t.first(i); p < t.end(i); p = t.end(p) {
		if !set.add(t, p) {
			return false
		}
	}
	return true
}

// hashTape hashes value i so that equal values (tapeDiff) hash alike:
// exactly equal numbers have equal float64s, and an object's members are
// combined in any order. It allocates nothing (a maphash.Hash for each
// member, which the recursion moved to the heap, took 16 bytes of peak a
// byte of an array of small objects).
func hashTape(t *tape, i int) uint64 {
	kind := t.kind(i)
	var h uint64
	switch kind {
	case tNumber:
		f := t.num(i)
		if f == 0 {
			f = 0 // -0 and 0 are equal
		}
		h = math.Float64bits(f)
	case tString:
		h = maphash.String(keySeed, t.str(i))
	case tArray:
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			h = hashPair(h, hashTape(t, p))
		}
	case tObject:
		// Order-independent: member hashes added.
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			h += hashPair(maphash.String(keySeed, t.key(p)), hashTape(t, p))
		}
	}
	return hashPair(uint64(kind), h)
}

// hashPair hashes the pair (a, b).
func hashPair(a, b uint64) uint64 {
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], a)
	binary.LittleEndian.PutUint64(buf[8:], b)
	return maphash.Bytes(keySeed, buf[:])
}

// schemaNumber is a number of an enum or const value: its literal, as a
// decimal and as the float64 nearest to it.
type schemaNumber struct {
	lit string
	d   decimal
	f   float64
}

// schemaValue is v (decoded with json.Number) with every number a
// *schemaNumber, for tapeEqualsJSON.
func schemaValue(v any) (any, bool) {
	switch w := v.(type) {
	case json.Number:
		d, ok := parseSchemaDecimal(string(w))
		if !ok {
			return nil, false
		}
		f, _ := strconv.ParseFloat(string(w), 64) // ±Inf or 0 beyond float64: no tape number is exactly it
		return &schemaNumber{lit: string(w), d: d, f: f}, true
	case []any:
		out := make([]any, len(w))
		for k, x := range w {
			y, ok := schemaValue(x)
			if !ok {
				return nil, false
			}
			out[k] = y
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(w))
		for k, x := range w {
			y, ok := schemaValue(x)
			if !ok {
				return nil, false
			}
			out[k] = y
		}
		return out, true
	}
	return v, true
}

func (s *schemaNumber) String() string { return s.lit }

// tapeEqualsJSON compares value i of t with a value of the schema (enum,
// const; see schemaValue): numbers by value, exactly, against the schema's
// literal.
func tapeEqualsJSON(t *tape, i int, v any) bool {
	xk := t.kind(i)
	switch w := v.(type) {
	case nil:
		return xk == tNull
	case bool:
		return w && xk == tTrue || !w && xk == tFalse
	case *schemaNumber:
		// Exactly equal numbers have the same float64: a different one
		// settles it without decimals.
		if xk != tNumber || t.num(i) != w.f {
			return false
		}
		lit := t.str(i)
		if lit == w.lit {
			return true
		}
		a, _ := parseDecimal(lit)
		return cmpDecimal(&a, &w.d) == 0
	case string:
		return xk == tString && t.str(i) == w
	case []any:
		if xk != tArray || t.count(i) != len(w) {
			return false
		}
		k := 0
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			if !tapeEqualsJSON(t, p, w[k]) {
				return false
			}
			k++
		}
		return true
	case map[string]any:
		if xk != tObject || t.count(i) != len(w) {
			return false
		}
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			e, ok := w[t.key(p)]
			if !ok || !tapeEqualsJSON(t, p, e) {
				return false
			}
		}
		return true
	}
	return false
}
