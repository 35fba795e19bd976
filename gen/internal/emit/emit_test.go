package emit

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/ocpgen/ocpgen/gen/internal/model"
	"github.com/ocpgen/ocpgen/internal/ocpfile"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

var readOnly = true

func pkg(argsName string) *model.Package {
	args := &model.Struct{Name: argsName, Fields: []*model.Field{
		{GoName: "ID", JSONName: "id", Type: model.Scalar{Kind: model.String}, Required: true, Tag: "id"},
	}}
	return &model.Package{
		Name:   "p",
		Inputs: []model.Input{{File: "s.tools.json", Digest: "sha256:00"}},
		Tools: []*model.Tool{{
			Name: "get", GoName: "Get", File: "get.go", Kind: model.Read, Args: args, Decls: []model.Decl{args},
			CanonicalSchema: []byte(`{"type":"object"}`), Fingerprint: "sha256:01",
			Hints: model.Hints{ReadOnly: &readOnly},
			Policy: model.Policy{
				Resource:         "x/{id}",
				ResourceSegments: []model.Segment{{Mode: ocpimpl.BindText, Text: "x/"}, {Mode: ocpimpl.BindValue, Field: args.Fields[0]}},
				PromptSegments:   []model.Segment{{Mode: ocpimpl.BindText, Text: "Get "}, {Mode: ocpimpl.BindJSON, Field: args.Fields[0]}},
			},
		}},
	}
}

func TestFilesHeader(t *testing.T) {
	files, err := Files(pkg("GetArgs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"doc.go", "catalogue.go", "get.go"} {
		src, ok := files[name]
		if !ok {
			t.Fatalf("no %s", name)
		}
		if !strings.HasPrefix(string(src), ocpfile.Header+"\n\n// source: ") {
			t.Errorf("%s does not start with the header:\n%s", name, src)
		}
	}
	get := string(files["get.go"])
	for _, want := range []string{
		"ocpimpl.Read `json:\"-\"`",
		"var Get = &ocpimpl.Tool{",
		"Args: (*GetArgs)(nil),",
		"Resource: ocpimpl.Template{\n\t\t\t\t{Text: \"x/\"},\n\t\t\t\t{Arg: \"id\", Mode: ocpimpl.BindValue},\n\t\t\t},",
		"ReadOnly: &ocpTrue,",
		"var ocpTrue, ocpFalse = true, false",
		"_ ocpimpl.ReadArgs = (*GetArgs)(nil)",
	} {
		if !strings.Contains(get+string(files["catalogue.go"]), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// TestFilesInvalidIdentifier: a name that is not a Go identifier (which the
// model never makes) is an error naming the file, and the tool of a tool's
// file, and no file is returned.
func TestFilesInvalidIdentifier(t *testing.T) {
	files, err := Files(pkg("Get Args"))
	if err == nil || files != nil || !strings.HasPrefix(err.Error(), `catalogue.go: invalid identifier "Get Args"`) {
		t.Fatalf("err = %v (%d files), want an invalid identifier error naming catalogue.go", err, len(files))
	}
	p := pkg("GetArgs")
	p.Tools[0].Args.Fields[0].GoName = "I D"
	files, err = Files(p)
	if err == nil || files != nil || !strings.HasPrefix(err.Error(), `get.go (tool "get"): invalid identifier "I D"`) {
		t.Fatalf("err = %v (%d files), want an invalid identifier error naming get.go and the tool", err, len(files))
	}
}

// TestRenderFormatError: source go/format cannot format is an error naming
// go/format and quoting the line, never output.
func TestRenderFormatError(t *testing.T) {
	src, err := render(func(e *emitter) *jen.File {
		f := e.newFile(pkg("GetArgs"), "s.tools.json")
		f.Var().Id("x").Op("=").Op("}")
		return f
	})
	if err == nil || src != nil || !strings.HasPrefix(err.Error(), "go/format: ") || !strings.Contains(err.Error(), `: "var x = }")`) {
		t.Fatalf("render = %q, %v; want a go/format error quoting the line", src, err)
	}
	src, err = render(func(e *emitter) *jen.File {
		f := e.newFile(pkg("GetArgs"), "s.tools.json")
		f.Var().Id("x").Op("=").Lit(1)
		return f
	})
	if err != nil || !strings.Contains(string(src), "\nvar x = 1\n") {
		t.Fatalf("render = %q, %v; want the formatted file", src, err)
	}
}

func TestSchemaLiteral(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"type":"object"}`, "`{\"type\":\"object\"}`"},
		{`{"description":"a ` + "`" + `b"}`, `"{\"description\":\"a ` + "`" + `b\"}"`},
		{"{\"d\":\"x\u202ey\"}", `"{\"d\":\"x\u202ey\"}"`},
		{"{\"d\":\"\ufeff\"}", `"{\"d\":\"\ufeff\"}"`},
		{`{"d":"é ü"}`, "`{\"d\":\"é ü\"}`"},
	} {
		if got := schemaLiteral(tc.in); got != tc.want {
			t.Errorf("schemaLiteral(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// The model settles a text's headings for the text as a whole; the
// emitter only makes each line safe, so a line of a paragraph that would
// be a heading on its own is printed as the model wrote it.
func TestDocCommentsKeepTheModelsLines(t *testing.T) {
	lines := model.DocLines("Computes things and\nReturns the sum\nof two numbers.")
	want := []string{"// Computes things and", "// Returns the sum", "// of two numbers."}
	if got := docComments(lines); !slices.Equal(got, want) {
		t.Fatalf("docComments(%q) = %q, want %q", lines, got, want)
	}
	// A line the model did not make safe still is.
	if got := docComments([]string{"a\n*/ b\x00"}); !slices.Equal(got, []string{"// a", "// */ b"}) {
		t.Fatalf("docComments kept an unsafe line: %q", got)
	}
}

// TestFilesWorkersPerCPU: Files renders on a goroutine per CPU, not per
// file (each worker's stack, grown once by go/printer, serves every file it
// formats): rendering 40 tools starts at most GOMAXPROCS-1 goroutines.
func TestFilesWorkersPerCPU(t *testing.T) {
	p := pkg("GetArgs")
	for i := range 40 {
		tool := *p.Tools[0]
		tool.Name, tool.GoName, tool.File = fmt.Sprintf("get%d", i), fmt.Sprintf("Get%d", i), fmt.Sprintf("get%d.go", i)
		p.Tools = append(p.Tools, &tool)
	}
	p.Tools = p.Tools[1:]
	runtime.GC() // the collector starts its workers at its first cycle
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	files, err := Files(p)
	if err != nil {
		t.Fatal(err)
	}
	metrics.Read(s)
	if started, most := s[0].Value.Uint64()-before, uint64(runtime.GOMAXPROCS(0)-1); started > most {
		t.Fatalf("rendering %d files started %d goroutines, want at most %d (GOMAXPROCS-1)", len(files), started, most)
	}
}
