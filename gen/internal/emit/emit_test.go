package emit

import (
	"fmt"
	"strings"
	"testing"

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

// TestFilesFormatError: output that does not format is an error naming the
// file, never written as is.
func TestFilesFormatError(t *testing.T) {
	_, err := Files(pkg("Get Args"))
	if err == nil || !strings.Contains(err.Error(), "while formatting source") ||
		!(strings.HasPrefix(err.Error(), "get.go: ") || strings.HasPrefix(err.Error(), "catalogue.go: ")) {
		t.Fatalf("err = %v, want a format error naming the file", err)
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
		if got := fmt.Sprintf("%#v", schemaLiteral([]byte(tc.in))); got != tc.want {
			t.Errorf("schemaLiteral(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
