package ocp

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ocpgen/ocpgen/internal/jsonptr"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// errMissingResourceArg is the error of a resource rendering in which a
// placeholder names an optional argument that the call did not set, or an
// array argument that is empty. The gate refuses such a call (forbidden): a
// resource that cannot be named cannot be authorized.
var errMissingResourceArg = errors.New("a resource placeholder's argument is absent or empty")

// A template is a generated resource or confirm-prompt template
// ([ocpimpl.Template]) with each argument segment located in the tool's
// argument struct. The generator chose every segment's mode from the
// schema; binding only verifies that the named field exists and has a type
// the mode renders, so it fails only for a package edited by hand.
type template []segment

// segment is one generated segment and, for an argument, its field index
// and whether encoding/json leaves the field out when it is zero (omitzero,
// omitempty): then a zero value is an absent argument, not a null.
type segment struct {
	ocpimpl.Segment
	field int
	omit  bool
}

// bindTemplate binds a generated template to the argument struct typ.
// resource selects the modes of resource templates, else of prompts.
// Adjacent text segments are joined into one, so that a template without
// placeholders is one text segment.
func bindTemplate(typ reflect.Type, t ocpimpl.Template, resource bool) (template, error) {
	what := "confirm prompt"
	if resource {
		what = "resource template"
	}
	if len(t) == 0 {
		return nil, fmt.Errorf("%s is empty", what)
	}
	out := make(template, 0, len(t))
	for i, sg := range t {
		if resource && !sg.Mode.Resource() || !resource && !sg.Mode.Prompt() {
			return nil, fmt.Errorf("%s: segment %d has mode %v, which is not one of a %s", what, i, sg.Mode, what)
		}
		if sg.Mode == ocpimpl.BindText {
			if n := len(out); n > 0 && out[n-1].Mode == ocpimpl.BindText {
				out[n-1].Text += sg.Text
				continue
			}
		}
		b := segment{Segment: sg, field: -1}
		if sg.Mode != ocpimpl.BindText && sg.Mode != ocpimpl.BindAll {
			f := fieldByJSONName(typ, sg.Arg)
			if f < 0 {
				return nil, fmt.Errorf("%s: {%s} names no field of %v", what, sg.Arg, typ)
			}
			if !rendersAs(typ.Field(f).Type, sg.Mode) {
				return nil, fmt.Errorf("%s: {%s} is a %v, which mode %v cannot render", what, sg.Arg, typ.Field(f).Type, sg.Mode)
			}
			b.field = f
			_, opts, _ := strings.Cut(typ.Field(f).Tag.Get("json"), ",")
			for o := range strings.SplitSeq(opts, ",") {
				b.omit = b.omit || o == "omitzero" || o == "omitempty"
			}
		}
		out = append(out, b)
	}
	return out, nil
}

// reads returns what t, a resource template, reads of the typed
// arguments when it renders at most max resources: the fields of its
// placeholders, and of an array no more than max+1 elements, since
// resources refuses an array of more than max values whatever its other
// values are (errTooManyResources, at the array's placeholder). Nil when
// it reads none. (A prompt's BindAll shows the forwarded bytes: see
// template.prompt.)
func (t template) reads(max int) *argengine.Typed {
	var fields []int
	for _, sg := range t {
		if sg.field >= 0 && !slices.Contains(fields, sg.field) {
			fields = append(fields, sg.field)
		}
	}
	if fields == nil {
		return nil
	}
	r := &argengine.Typed{Fields: fields}
	if max < math.MaxInt {
		r.Elems = max + 1
	}
	return r
}

// rendersAs reports whether a field of type ft can be rendered by mode m.
func rendersAs(ft reflect.Type, m ocpimpl.BindMode) bool {
	switch m {
	case ocpimpl.BindValue:
		return isScalar(ft)
	case ocpimpl.BindOptional:
		return ft.Kind() == reflect.Pointer && isScalar(ft.Elem())
	case ocpimpl.BindEach:
		return ft.Kind() == reflect.Slice && isScalar(ft.Elem())
	case ocpimpl.BindNullable:
		return isNullable(ft) && isScalar(nullableElem(ft))
	case ocpimpl.BindNullableEach:
		return isNullable(ft) && nullableElem(ft).Kind() == reflect.Slice && isScalar(nullableElem(ft).Elem())
	case ocpimpl.BindJSON:
		return true
	}
	return false
}

// fieldByJSONName returns the index of the exported field of the struct typ
// whose JSON name is name, or -1.
func fieldByJSONName(typ reflect.Type, name string) int {
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		full := f.Tag.Get("json")
		if full == "-" {
			continue // encoding/json skips the field; "-," names it "-"
		}
		tag, _, _ := strings.Cut(full, ",")
		if tag == "" {
			tag = f.Name
		}
		if tag == name {
			return i
		}
	}
	return -1
}

func isScalar(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Int64, reflect.Uint64, reflect.Float64, reflect.Bool:
		return true
	}
	return false
}

var nullablePkg = reflect.TypeFor[ocpimpl.Nullable[bool]]().PkgPath()

func isNullable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == nullablePkg && strings.HasPrefix(t.Name(), "Nullable[")
}

// nullable is the part of *[Nullable]'s method set that rendering reads
// (an absent Nullable is the zero value).
type nullable interface {
	IsNull() bool
}

// nullableElem returns T of a Nullable[T] type.
func nullableElem(t reflect.Type) reflect.Type {
	f, _ := t.FieldByName("value")
	return f.Type
}

// errTooManyResources is the error of a rendering beyond the gate's bounds.
var errTooManyResources = errors.New("too many resources")

// resources renders a bound resource template with a call's arguments (the
// argument struct, addressable, or the zero Value when there are none: a
// placeholder then fails with errMissingResourceArg): the cartesian product
// of the placeholders' values, each path-escaped so that a value cannot add
// a path segment ("../x", "a/b", and "." or ".." as a whole value). A
// template without placeholders is one text segment (bindTemplate joins
// them), its one resource. A product of more than max
// resources, or of more than maxResourceBytes, fails with an *argengine.Refusal
// (ruleResources) wrapping errTooManyResources before it is built.
func (t template) resources(args reflect.Value, max int) ([]string, error) {
	if len(t) == 1 && t[0].field < 0 {
		return []string{t[0].Text}, nil
	}
	parts := []string{""}
	var vals []string
	for _, sg := range t {
		if sg.field < 0 {
			for i := range parts {
				parts[i] += sg.Text
			}
			continue
		}
		if !args.IsValid() {
			return nil, fmt.Errorf("%w: {%s} (no arguments)", errMissingResourceArg, sg.Arg)
		}
		vals = vals[:0]
		f := args.Field(sg.field)
		switch sg.Mode {
		case ocpimpl.BindValue:
			vals = append(vals, scalarString(f))
		case ocpimpl.BindOptional:
			if !f.IsNil() {
				vals = append(vals, scalarString(f.Elem()))
			}
		case ocpimpl.BindNullable, ocpimpl.BindNullableEach:
			if f.IsZero() || f.Addr().Interface().(nullable).IsNull() {
				break
			}
			v := f.FieldByName("value")
			if sg.Mode == ocpimpl.BindNullable {
				vals = append(vals, scalarString(v))
				break
			}
			for i := range v.Len() {
				vals = append(vals, scalarString(v.Index(i)))
			}
		case ocpimpl.BindEach:
			for i := range f.Len() {
				vals = append(vals, scalarString(f.Index(i)))
			}
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("%w: {%s}", errMissingResourceArg, sg.Arg)
		}
		if len(vals) > max || len(parts) > max/len(vals) {
			return nil, refusal("/"+jsonptr.EscapeToken(sg.Arg), ruleResources, fmt.Errorf("%w: {%s} makes more than %d", errTooManyResources, sg.Arg, max))
		}
		size := 0
		for i, v := range vals {
			vals[i] = escapeSegment(v)
			size += len(vals[i])
		}
		if total := sizeOf(parts)*len(vals) + size*len(parts); total > maxResourceBytes {
			return nil, refusal("/"+jsonptr.EscapeToken(sg.Arg), ruleResources, fmt.Errorf("%w: {%s} makes more than %d bytes", errTooManyResources, sg.Arg, maxResourceBytes))
		}
		next := make([]string, 0, len(parts)*len(vals))
		for _, p := range parts {
			for _, v := range vals {
				next = append(next, p+v)
			}
		}
		parts = next
	}
	return parts, nil
}

// escapeSegment path-escapes a placeholder's value, dot segments included:
// "." and ".." would otherwise climb out of the placeholder in an ACL that
// normalises paths.
func escapeSegment(v string) string {
	switch v {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(v)
}

func sizeOf(parts []string) int {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	return n
}

// scalarString is a scalar's text in a resource: strings as they are,
// numbers in Go's shortest form, booleans as true or false.
func scalarString(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	}
	return "" // unreachable: bindTemplate admits scalars only
}

// prompt renders a bound confirm prompt with a call's arguments (the
// argument struct, addressable). An argument is shown as its JSON encoding,
// as the server will receive it, so a person reading the prompt can tell
// the caller's text (always quoted) from the Hub's, and an explicit null
// ("null") from an argument the call leaves out ("(not set)"). Characters
// that are invisible or change the text's direction are escaped
// (\u202e), so caller text cannot restyle the prompt.
//
// It renders from fwd, the arguments exactly as the server receives them
// (the forwarded bytes, escaped so): BindAll shows all of them, and the
// placeholder of one argument its member there, or "(not set)" when fwd
// has none. Nothing else can be shown than what runs.
func (t template) prompt(fwd []byte) string {
	var b strings.Builder
	size := 0
	for _, sg := range t {
		switch {
		case sg.Mode == ocpimpl.BindAll:
			size += len(fwd)
		case sg.field < 0:
			size += len(sg.Text)
		}
	}
	b.Grow(size)
	for _, sg := range t {
		switch {
		case sg.Mode == ocpimpl.BindAll:
			b.Write(fwd)
		case sg.field >= 0:
			if v, ok := argengine.Member(fwd, sg.Arg); ok {
				b.Write(v)
			} else {
				b.WriteString("(not set)")
			}
		default:
			b.WriteString(sg.Text)
		}
	}
	return b.String()
}
