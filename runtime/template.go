package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/ocpgen/ocpgen/internal/tmpl"
)

// ErrMissingResourceArg is the error of a resource rendering in which a
// placeholder names an optional argument that the call did not set, or an
// array argument that is empty. The gate refuses such a call (forbidden): a
// resource that cannot be named cannot be authorized.
var ErrMissingResourceArg = errors.New("a resource placeholder's argument is absent or empty")

// A template is a resource or confirm-prompt template bound, once per tool,
// to the fields of the tool's argument struct. The generator has checked the
// same template with the same parser (internal/tmpl) against the same
// schema, so binding fails only for a package edited by hand.
type template []segment

// segment is literal text (field < 0, not all), one top-level field of the
// arguments (field ≥ 0), or the whole argument struct (all).
type segment struct {
	text  string
	name  string // the placeholder, for errors
	field int
	bind  bindMode
	all   bool
}

// bindMode is how a resource placeholder's field turns into values. It
// follows from the field's Go type, which the generator chose from the
// schema: a required scalar, an optional one (pointer), a nullable one, an
// array of scalars (one resource per element) or a nullable array.
type bindMode uint8

const (
	bindValue bindMode = iota
	bindOptional
	bindNullable
	bindEach
	bindNullableEach
)

// parseBound parses s and binds each placeholder to the field of typ whose
// JSON name it is.
func parseBound(typ reflect.Type, s string) (template, error) {
	segs, err := tmpl.Parse(s)
	if err != nil {
		return nil, err
	}
	t := make(template, 0, len(segs))
	for _, sg := range segs {
		if sg.Placeholder == "" {
			t = append(t, segment{text: sg.Text, field: -1})
			continue
		}
		i := fieldByJSONName(typ, sg.Placeholder)
		if i < 0 {
			return nil, fmt.Errorf("placeholder {%s} names no field of %v", sg.Placeholder, typ)
		}
		t = append(t, segment{name: sg.Placeholder, field: i})
	}
	return t, nil
}

// bindResource binds a resource template: every placeholder must name a
// scalar, or an array of scalars, possibly optional or nullable.
func bindResource(typ reflect.Type, s string) (template, error) {
	t, err := parseBound(typ, s)
	if err != nil {
		return nil, fmt.Errorf("resource template: %w", err)
	}
	for i := range t {
		if t[i].field < 0 {
			continue
		}
		ft := typ.Field(t[i].field).Type
		switch {
		case isScalar(ft):
			t[i].bind = bindValue
		case ft.Kind() == reflect.Pointer && isScalar(ft.Elem()):
			t[i].bind = bindOptional
		case ft.Kind() == reflect.Slice && isScalar(ft.Elem()):
			t[i].bind = bindEach
		case isNullable(ft) && isScalar(nullableElem(ft)):
			t[i].bind = bindNullable
		case isNullable(ft) && nullableElem(ft).Kind() == reflect.Slice && isScalar(nullableElem(ft).Elem()):
			t[i].bind = bindNullableEach
		default:
			return nil, fmt.Errorf("resource template: placeholder {%s} names a %v, not a scalar or an array of scalars", t[i].name, ft)
		}
	}
	return t, nil
}

// bindPrompt binds a confirm prompt template; "" is the default prompt,
// which shows every argument.
func bindPrompt(typ reflect.Type, s string, kind Kind, tool string) (template, error) {
	if s == "" {
		return template{
			{text: fmt.Sprintf("Run %s tool %q with arguments ", kind, tool), field: -1},
			{all: true, field: -1},
		}, nil
	}
	t, err := parseBound(typ, s)
	if err != nil {
		return nil, fmt.Errorf("confirm prompt: %w", err)
	}
	return t, nil
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

var nullablePkg = reflect.TypeFor[nullState]().PkgPath()

func isNullable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == nullablePkg && strings.HasPrefix(t.Name(), "Nullable[")
}

// nullableElem returns T of a Nullable[T] type.
func nullableElem(t reflect.Type) reflect.Type {
	f, _ := t.FieldByName("value")
	return f.Type
}

// resources renders a bound resource template with a call's arguments (the
// argument struct, addressable): the cartesian product of the
// placeholders' values, each path-escaped so that a value cannot add a path
// segment ("../x", "a/b").
func (t template) resources(args reflect.Value) ([]string, error) {
	parts := []string{""}
	var vals []string
	for _, sg := range t {
		if sg.field < 0 {
			for i := range parts {
				parts[i] += sg.text
			}
			continue
		}
		vals = vals[:0]
		f := args.Field(sg.field)
		switch sg.bind {
		case bindValue:
			vals = append(vals, scalarString(f))
		case bindOptional:
			if !f.IsNil() {
				vals = append(vals, scalarString(f.Elem()))
			}
		case bindNullable, bindNullableEach:
			if nullState(f.FieldByName("state").Uint()) != nullValue {
				break
			}
			v := f.FieldByName("value")
			if sg.bind == bindNullable {
				vals = append(vals, scalarString(v))
				break
			}
			for i := range v.Len() {
				vals = append(vals, scalarString(v.Index(i)))
			}
		case bindEach:
			for i := range f.Len() {
				vals = append(vals, scalarString(f.Index(i)))
			}
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("%w: {%s}", ErrMissingResourceArg, sg.name)
		}
		next := make([]string, 0, len(parts)*len(vals))
		for _, p := range parts {
			for _, v := range vals {
				next = append(next, p+url.PathEscape(v))
			}
		}
		parts = next
	}
	return parts, nil
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
	return "" // unreachable: bindResource admits scalars only
}

// prompt renders a bound confirm prompt with a call's arguments (the
// argument struct, addressable). An argument is shown as its JSON encoding, so a
// person reading the prompt can tell the caller's text (always quoted) from
// the Hub's. An unset argument (a nil pointer, slice or map, an absent
// Nullable) is shown as "(not set)".
func (t template) prompt(args reflect.Value) string {
	var b strings.Builder
	for _, sg := range t {
		switch {
		case sg.all:
			writeArg(&b, args.Addr().Interface())
		case sg.field >= 0:
			writeArg(&b, args.Field(sg.field).Interface())
		default:
			b.WriteString(sg.text)
		}
	}
	return b.String()
}

func writeArg(b *strings.Builder, v any) {
	if z, ok := v.(interface{ IsZero() bool }); ok && z.IsZero() {
		b.WriteString("(not set)")
		return
	}
	out, err := json.Marshal(v)
	switch {
	case err != nil:
		b.WriteString("(unprintable)")
	case string(out) == "null":
		b.WriteString("(not set)")
	default:
		b.Write(out)
	}
}

// Resources renders the resources that a call with args would touch, as the
// gate's authorization step does: the resource template of the tool whose
// argument struct args is (or points to), with these arguments. It fails
// for arguments of no tool of g, and with [ErrMissingResourceArg].
func (g *Gate) Resources(args Args) ([]string, error) {
	gt, v, err := g.typedArgs(args)
	if err != nil {
		return nil, err
	}
	return gt.resource.resources(v)
}

// ConfirmPrompt renders the confirm prompt that a call with args would show
// to the peers, as the gate's confirm step does (writes only ask).
func (g *Gate) ConfirmPrompt(args Args) (string, error) {
	gt, v, err := g.typedArgs(args)
	if err != nil {
		return "", err
	}
	return gt.prompt.prompt(v), nil
}

// typedArgs finds args' tool and returns the argument struct, addressable.
func (g *Gate) typedArgs(args Args) (*gateTool, reflect.Value, error) {
	var gt *gateTool
	if g != nil {
		gt = g.byType[argsStructType(args)]
	}
	if gt == nil || isNilPointer(args) {
		return nil, reflect.Value{}, fmt.Errorf("ocp gate: %T is not the arguments of a tool of this gate", args)
	}
	v := reflect.ValueOf(args)
	if v.Kind() == reflect.Pointer {
		return gt, v.Elem(), nil
	}
	c := reflect.New(gt.typ).Elem()
	c.Set(v)
	return gt, c, nil
}
