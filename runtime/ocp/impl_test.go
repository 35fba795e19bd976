package ocp

// The generated-code names that the gate's hand-written test fixtures
// (testargs_test.go and others) are made of, and newCatalogue, which
// finishes a fixture the way the generator finishes a tool before it emits
// it: templates bound, defaults applied, the digest computed.

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/impl"
	"github.com/ocpgen/ocpgen/internal/tmpl"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

type (
	Read   = ocpimpl.Read
	Write  = ocpimpl.Write
	Tool   = ocpimpl.Tool
	Policy = ocpimpl.Policy
)

type ServerHints = ocpimpl.ServerHints

var (
	CanonicalJSON     = canon.JSON
	Fingerprint       = canon.Fingerprint
	SchemaFingerprint = canon.SchemaFingerprint
)

// liveFP is the fingerprint of l's input schema.
func liveFP(t testing.TB, l LiveTool) string {
	t.Helper()
	fp, err := canon.SchemaFingerprint(l.Tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	return fp
}

// modeAuto marks a fixture's placeholder whose mode newCatalogue chooses
// from the field's type.
const modeAuto ocpimpl.BindMode = 255

// tpl parses a template as the generator does; its placeholders get their
// modes in newCatalogue.
func tpl(s string) ocpimpl.Template {
	segs, err := tmpl.Parse(s)
	if err != nil {
		panic(err)
	}
	out := ocpimpl.Template{}
	for _, sg := range segs {
		if sg.Placeholder == "" {
			out = append(out, ocpimpl.Segment{Text: sg.Text})
		} else {
			out = append(out, ocpimpl.Segment{Arg: sg.Placeholder, Mode: modeAuto})
		}
	}
	return out
}

// finish completes a fixture tool's policy in place: modes, the default
// resource, prompt, failure text and TTL.
func finish(t *Tool) {
	typ := reflect.TypeOf(t.Args).Elem()
	pol := &t.Desc.Policy
	if len(pol.Resource) == 0 {
		pol.Resource = ocpimpl.Template{{Text: t.Desc.Name}}
	}
	autoModes(typ, pol.Resource, true)
	if pol.Kind == ocpimpl.KindWrite {
		if len(pol.ConfirmPrompt) == 0 {
			pol.ConfirmPrompt = ocpimpl.Template{{Text: fmt.Sprintf("Run %s tool %q with arguments ", pol.Kind, t.Desc.Name)}, {Mode: ocpimpl.BindAll}}
		}
		autoModes(typ, pol.ConfirmPrompt, false)
		if pol.ConfirmTTL == 0 {
			pol.ConfirmTTL = 2 * time.Minute
		}
	}
	if pol.Failure == "" {
		pol.Failure = fmt.Sprintf("The tool %q failed.", t.Desc.Name)
	}
}

// autoModes gives t's modeAuto segments the mode the generator would give
// them for the fields of typ: the first resource mode that renders the
// field, or BindJSON in a prompt. A field no mode renders gets BindValue,
// which NewGate refuses.
func autoModes(typ reflect.Type, t ocpimpl.Template, resource bool) {
	for i, sg := range t {
		if sg.Mode != modeAuto {
			continue
		}
		t[i].Mode = ocpimpl.BindJSON
		if !resource {
			continue
		}
		t[i].Mode = ocpimpl.BindValue
		f := fieldByJSONName(typ, sg.Arg)
		if f < 0 {
			continue
		}
		for _, m := range []ocpimpl.BindMode{ocpimpl.BindValue, ocpimpl.BindOptional, ocpimpl.BindEach, ocpimpl.BindNullable, ocpimpl.BindNullableEach} {
			if rendersAs(typ.Field(f).Type, m) {
				t[i].Mode = m
				break
			}
		}
	}
}

// autoBind parses s, gives it the generator's modes and binds it to typ.
func autoBind(typ reflect.Type, s string, resource bool) (template, error) {
	if _, err := tmpl.Parse(s); err != nil {
		return nil, err
	}
	t := tpl(s)
	autoModes(typ, t, resource)
	return bindTemplate(typ, t, resource)
}

// rawCatalogue is ocpimpl.NewCatalogue with the digest of the tools as they
// are, not finished: for tests of what NewGate refuses.
func rawCatalogue(tiers []string, tools ...*Tool) *Catalogue {
	descs := make([]*Descriptor, len(tools))
	for i, t := range tools {
		descs[i] = &t.Desc
	}
	return ocpimpl.NewCatalogue(impl.Digest(tiers, descs...), tiers, tools...)
}

// NewCatalogue is ocpimpl.NewCatalogue for fixtures: it finishes each tool
// and computes the digest, as generated code carries it.
func NewCatalogue(tiers []string, tools ...*Tool) *Catalogue {
	descs := make([]*Descriptor, len(tools))
	for i, t := range tools {
		if t.Args != nil && reflect.TypeOf(t.Args).Kind() == reflect.Pointer {
			finish(t)
		}
		descs[i] = &t.Desc
	}
	return ocpimpl.NewCatalogue(impl.Digest(tiers, descs...), tiers, tools...)
}

// noWatch gives a test's Server the WatchTools method: it never lists
// tools, so the test syncs the gate itself (Gate.syncCatalogue).
type noWatch struct{}

func (noWatch) WatchTools(func([]LiveTool)) error { return nil }
