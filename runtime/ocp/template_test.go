package ocp

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

// tmplArgs has one field per kind of placeholder binding.
type tmplArgs struct {
	Write    `json:"-"`
	Name     string             `json:"name"`
	Count    int64              `json:"count"`
	Big      uint64             `json:"big"`
	Score    float64            `json:"score"`
	On       bool               `json:"on"`
	Level    tmplLevel          `json:"level"`
	Owner    *string            `json:"owner,omitzero"`
	Team     Nullable[string]   `json:"team,omitzero"`
	Tags     []string           `json:"tags,omitzero"`
	IDs      Nullable[[]int64]  `json:"ids,omitzero"`
	Meta     map[string]string  `json:"meta,omitzero"`
	Nested   *struct{ A int64 } `json:"nested,omitzero"`
	Untagged string
	Dash     string `json:"-,"`
	Skipped  string `json:"-"`
}

type tmplLevel string

func TestResourceTemplates(t *testing.T) {
	owner := "o/../x"
	full := tmplArgs{
		Name: "a b", Count: -3, Big: 18446744073709551615, Score: 1e8, On: true, Level: "high",
		Owner: &owner, Team: Value("red"), Tags: []string{"t1", "t2"}, IDs: Value([]int64{7, 8}),
	}
	tests := []struct {
		tpl     string
		args    tmplArgs
		want    []string
		wantErr string
	}{
		{"graph", full, []string{"graph"}, ""},
		{"{{literal}}", full, []string{"{literal}"}, ""},
		{"n/{name}/{count}/{big}/{score}/{on}/{level}", full, []string{"n/a%20b/-3/18446744073709551615/1e+08/true/high"}, ""},
		{"o/{owner}", full, []string{"o/o%2F..%2Fx"}, ""},
		{"o/{owner}", tmplArgs{}, nil, "{owner}"},
		{"t/{team}", full, []string{"t/red"}, ""},
		{"t/{team}", tmplArgs{Team: Null[string]()}, nil, "{team}"},
		{"t/{team}", tmplArgs{}, nil, "{team}"},
		{"{tags}:{ids}", full, []string{"t1:7", "t1:8", "t2:7", "t2:8"}, ""},
		{"x/{tags}", tmplArgs{Tags: []string{}}, nil, "{tags}"},
		{"x/{ids}", tmplArgs{IDs: Null[[]int64]()}, nil, "{ids}"},
		{"x/{Untagged}", tmplArgs{Untagged: "u"}, []string{"x/u"}, ""},
		{"x/{-}", tmplArgs{Dash: "d"}, []string{"x/d"}, ""},
	}
	typ := reflect.TypeFor[tmplArgs]()
	for _, tt := range tests {
		bt, err := autoBind(typ, tt.tpl, true)
		if err != nil {
			t.Errorf("%q: bind: %v", tt.tpl, err)
			continue
		}
		got, err := bt.resources(reflect.ValueOf(&tt.args).Elem(), defaultMaxResources)
		if tt.wantErr != "" {
			if !errors.Is(err, errMissingResourceArg) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want errMissingResourceArg naming %s", tt.tpl, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%q: got %q, %v; want %q", tt.tpl, got, err, tt.want)
		}
	}
	for tpl, want := range map[string]string{
		"{meta}":    "cannot render",
		"{nested}":  "cannot render",
		"{nope}":    "names no field",
		"{}":        "empty placeholder",
		"{Write}":   "names no field",
		"{Skipped}": "names no field",
	} {
		if _, err := autoBind(typ, tpl, true); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bind(%q) = %v, want an error with %q", tpl, err, want)
		}
	}
}

func TestPromptTemplates(t *testing.T) {
	owner := "<o>"
	full := tmplArgs{Name: "Bob \"the\" builder", Count: 2, Owner: &owner, Tags: []string{}, Team: Null[string]()}
	typ := reflect.TypeFor[tmplArgs]()
	tests := []struct {
		tpl  string
		args tmplArgs
		want string
	}{
		{"Rename {name} ({count})?", full, `Rename "Bob \"the\" builder" (2)?`},
		{"{owner} {tags} {team} {ids} {meta} {nested}", full, `"<o>" [] null (not set) (not set) (not set)`},
		{"{owner}", tmplArgs{}, "(not set)"},
		{"{{x}} {level}", tmplArgs{Level: "low"}, `{x} "low"`},
	}
	for _, tt := range tests {
		bt, err := autoBind(typ, tt.tpl, false)
		if err != nil {
			t.Errorf("%q: %v", tt.tpl, err)
			continue
		}
		// A prompt renders from the forwarded bytes: the arguments'
		// encoding.
		fwd, err := argengine.MarshalPlain(&tt.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := bt.prompt(escapeInvisible(fwd)); got != tt.want {
			t.Errorf("%q: got %s, want %s", tt.tpl, got, tt.want)
		}
	}
	// The generator's default prompt names the tool and shows every
	// argument: the forwarded bytes, whatever the typed arguments say.
	bt, err := bindTemplate(typ, ocpimpl.Template{{Text: `Run write tool "rename" with arguments `}, {Mode: ocpimpl.BindAll}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if bt.reads(defaultMaxResources) != nil {
		t.Error("the default prompt reads the typed arguments")
	}
	fwd := `{"name":"x","level":"low"}`
	want := `Run write tool "rename" with arguments ` + fwd
	if got := bt.prompt([]byte(fwd)); got != want {
		t.Errorf("default prompt:\n got %s\nwant %s", got, want)
	}
	// A placeholder shows its member of the forwarded bytes, as it is
	// written there, whatever a typed value of it would encode to.
	bp, err := autoBind(typ, "Rename {name}, count {count}?", false)
	if err != nil {
		t.Fatal(err)
	}
	if got := bp.prompt([]byte(`{"count":1.50,"name":"\u0078"}`)); got != `Rename "\u0078", count 1.50?` {
		t.Errorf("placeholders: %s", got)
	}
}

// Gate.Resources and Gate.ConfirmPrompt render what the gate's steps 3 and
// 4 would, for a value or a pointer, and refuse other arguments.
func TestGateRendersTemplates(t *testing.T) {
	h := newHarness(t, true, nil)
	for _, a := range []any{DeleteEntitiesArgs{EntityNames: []string{"a/b", "c"}}, &DeleteEntitiesArgs{EntityNames: []string{"a/b", "c"}}} {
		rs, err := h.g.Resources(a)
		if want := []string{"graph/a%2Fb", "graph/c"}; err != nil || !slices.Equal(rs, want) {
			t.Errorf("Resources(%T) = %q, %v; want %q", a, rs, err, want)
		}
		p, err := h.g.ConfirmPrompt(a)
		if want := `Delete ["a/b","c"]?`; err != nil || p != want {
			t.Errorf("ConfirmPrompt(%T) = %q, %v; want %q", a, p, err, want)
		}
	}
	if _, err := h.g.Resources(DeleteEntitiesArgs{}); !errors.Is(err, errMissingResourceArg) {
		t.Errorf("empty array: %v", err)
	}
	type stray struct{ Read }
	for _, a := range []any{stray{}, nil, (*DeleteEntitiesArgs)(nil)} {
		if _, err := h.g.Resources(a); err == nil {
			t.Errorf("Resources(%#v): no error", a)
		}
		if _, err := h.g.ConfirmPrompt(a); err == nil {
			t.Errorf("ConfirmPrompt(%#v): no error", a)
		}
	}
}

// inputText is the concatenation of a generated template's texts: what a
// template without placeholders must render as. It reads the template
// given to bindTemplate, not the bound one, so that a bound template that
// lost a text when bindTemplate joined adjacent texts does not agree with
// itself.
func inputText(t ocpimpl.Template) string {
	var b strings.Builder
	for _, sg := range t {
		if sg.Mode == ocpimpl.BindText {
			b.WriteString(sg.Text)
		}
	}
	return b.String()
}

// TestTemplateTextIsItsRendering: a resource template without
// placeholders renders as its text, adjacent texts joined.
func TestTemplateTextIsItsRendering(t *testing.T) {
	typ := reflect.TypeFor[SearchNodesArgs]()
	for _, tc := range []struct {
		tp   ocpimpl.Template
		want string
	}{
		{ocpimpl.Template{{Text: "graph"}}, "graph"},
		{ocpimpl.Template{{Text: "a/"}, {Text: "b"}}, "a/b"},
		{ocpimpl.Template{{Text: "a/"}, {Text: "b%2F"}, {Text: ""}}, "a/b%2F"},
		{ocpimpl.Template{{Text: ""}, {Text: "x"}}, "x"},
		{ocpimpl.Template{{Text: ""}}, ""},
	} {
		if got := inputText(tc.tp); got != tc.want {
			t.Fatalf("%v: its texts are %q, not %q", tc.tp, got, tc.want)
		}
		bt, err := bindTemplate(typ, tc.tp, true)
		if err != nil {
			t.Fatal(err)
		}
		if bt.reads(defaultMaxResources) != nil {
			t.Fatalf("%v reads arguments", tc.tp)
		}
		if len(bt) != 1 {
			t.Errorf("%v binds to %d segments, not one text", tc.tp, len(bt))
		}
		got, err := bt.resources(reflect.Value{}, defaultMaxResources)
		if err != nil || len(got) != 1 || got[0] != tc.want {
			t.Fatalf("%v renders %q (%v), want %q", tc.tp, got, err, tc.want)
		}
	}
	bt, err := bindTemplate(reflect.TypeFor[GetNoteArgs](), ocpimpl.Template{{Text: "notes/"}, {Arg: "id", Mode: ocpimpl.BindOptional}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if bt.reads(defaultMaxResources) == nil {
		t.Fatal("a placeholder reads no argument")
	}
}

// TestTemplateJoinsTextsAroundPlaceholders: adjacent texts on either side
// of a placeholder are joined and all rendered, in resources and prompts.
func TestTemplateJoinsTextsAroundPlaceholders(t *testing.T) {
	typ := reflect.TypeFor[SearchNodesArgs]()
	args := reflect.ValueOf(&SearchNodesArgs{Query: "q/1"}).Elem()
	rt := ocpimpl.Template{{Text: "graph/"}, {Text: "nodes/"}, {Arg: "query", Mode: ocpimpl.BindValue}, {Text: "/"}, {Text: "edges"}}
	bt, err := bindTemplate(typ, rt, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(bt) != 3 {
		t.Errorf("text,text,placeholder,text,text binds to %d segments, not 3", len(bt))
	}
	got, err := bt.resources(args, defaultMaxResources)
	if want := "graph/nodes/q%2F1/edges"; err != nil || len(got) != 1 || got[0] != want {
		t.Errorf("renders %q (%v), want %q", got, err, want)
	}

	pt := ocpimpl.Template{{Text: "Search "}, {Text: "for "}, {Arg: "query", Mode: ocpimpl.BindJSON}, {Text: ", limit "}, {Text: "is "}, {Arg: "limit", Mode: ocpimpl.BindJSON}, {Text: "."}, {Text: " Args: "}, {Mode: ocpimpl.BindAll}}
	bp, err := bindTemplate(typ, pt, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(bp) != 6 {
		t.Errorf("the prompt binds to %d segments, not 6", len(bp))
	}
	want := `Search for "q/1", limit is (not set). Args: {"query":"q/1"}`
	if got := bp.prompt([]byte(`{"query":"q/1"}`)); got != want {
		t.Fatalf("the prompt renders %q, want %q", got, want)
	}
}

// TestTemplateWithoutArgumentsFailsClosed: the gate renders a template
// without typed arguments (the zero Value) unguarded, for a read whose
// template reads none; a placeholder there fails closed instead of
// panicking.
func TestTemplateWithoutArgumentsFailsClosed(t *testing.T) {
	bt, err := bindTemplate(reflect.TypeFor[GetNoteArgs](), ocpimpl.Template{{Text: "notes/"}, {Arg: "id", Mode: ocpimpl.BindOptional}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bt.resources(reflect.Value{}, defaultMaxResources); !errors.Is(err, errMissingResourceArg) {
		t.Fatalf("a placeholder without arguments renders %q, %v", got, err)
	}
}
