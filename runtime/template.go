package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// ErrMissingResourceArg is returned by a generated OCPResources method when a
// placeholder of the resource template names an optional argument that the
// call did not set, or an array argument that is empty. The gate refuses such
// a call (forbidden): a resource that cannot be named cannot be authorized.
var ErrMissingResourceArg = errors.New("a resource placeholder's argument is absent or empty")

// Scalar is the set of argument types a resource placeholder may name.
type Scalar interface {
	~string | ~int64 | ~uint64 | ~float64 | ~bool
}

// Resources renders a resource template. For generated code: the generated
// OCPResources method calls Text and the placeholder functions in template
// order, then Build.
type Resources struct {
	parts []string // completed prefixes (the cartesian product so far)
	err   error
}

// Text appends literal template text.
func (r *Resources) Text(s string) {
	if r.parts == nil {
		r.parts = []string{""}
	}
	for i := range r.parts {
		r.parts[i] += s
	}
}

func (r *Resources) values(name string, vs []string) {
	if r.parts == nil {
		r.parts = []string{""}
	}
	if len(vs) == 0 {
		if r.err == nil {
			r.err = fmt.Errorf("%w: {%s}", ErrMissingResourceArg, name)
		}
		return
	}
	next := make([]string, 0, len(r.parts)*len(vs))
	for _, p := range r.parts {
		for _, v := range vs {
			// Escaped so that a value cannot add a path segment ("../x", "a/b").
			next = append(next, p+url.PathEscape(v))
		}
	}
	r.parts = next
}

// Build returns the rendered resources, or ErrMissingResourceArg.
func (r *Resources) Build() ([]string, error) {
	if r.err != nil {
		return nil, r.err
	}
	return r.parts, nil
}

// ResourceValue appends the value of a required placeholder.
func ResourceValue[T Scalar](r *Resources, name string, v T) {
	r.values(name, []string{scalarString(v)})
}

// ResourceOptional appends the value of an optional placeholder; nil fails
// the rendering with ErrMissingResourceArg.
func ResourceOptional[T Scalar](r *Resources, name string, v *T) {
	if v == nil {
		r.values(name, nil)
		return
	}
	r.values(name, []string{scalarString(*v)})
}

// ResourceNullable appends the value of a nullable placeholder; absent or
// null fails the rendering with ErrMissingResourceArg.
func ResourceNullable[T Scalar](r *Resources, name string, v Nullable[T]) {
	x, ok := v.Get()
	if !ok {
		r.values(name, nil)
		return
	}
	r.values(name, []string{scalarString(x)})
}

// ResourceEach appends one resource per element of an array placeholder; an
// empty array fails the rendering with ErrMissingResourceArg.
func ResourceEach[T Scalar](r *Resources, name string, vs []T) {
	ss := make([]string, len(vs))
	for i, v := range vs {
		ss[i] = scalarString(v)
	}
	r.values(name, ss)
}

func scalarString[T Scalar](v T) string {
	switch x := any(v).(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	// Named types (enums): go through the underlying kind.
	b, _ := json.Marshal(v)
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s
	}
	return string(b)
}

// Prompt renders a confirm prompt template. For generated code: the generated
// OCPConfirmPrompt method calls Text and Arg in template order, then String.
// An argument is shown as its JSON encoding, so a person reading the prompt
// can tell the caller's text (always quoted) from the Hub's.
type Prompt struct {
	b strings.Builder
}

// Text appends literal template text.
func (p *Prompt) Text(s string) { p.b.WriteString(s) }

// Arg appends an argument's value. A nil pointer, a nil slice or map, and
// an absent Nullable are shown as "(not set)".
func (p *Prompt) Arg(v any) {
	if isUnset(v) {
		p.b.WriteString("(not set)")
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		p.b.WriteString("(unprintable)")
		return
	}
	p.b.Write(b)
}

// String returns the rendered prompt.
func (p *Prompt) String() string { return p.b.String() }

type zeroer interface{ IsZero() bool }

func isUnset(v any) bool {
	if v == nil {
		return true
	}
	if z, ok := v.(zeroer); ok {
		return z.IsZero()
	}
	b, err := json.Marshal(v)
	return err == nil && string(b) == "null"
}
