// Package emit renders the generator's output: a model.Package as Go source
// files, built with jennifer and formatted by go/format, and the
// classification skeleton that "ocpgen init" writes from a text template
// (skeleton.go). It makes no decisions: names, types, tags, docs and
// policies all come from the model.
package emit

import (
	"bytes"
	"errors"
	"fmt"
	doccomment "go/doc/comment"
	"go/format"
	"go/scanner"
	"go/token"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/ocpgen/ocpgen/gen/internal/model"
	"github.com/ocpgen/ocpgen/internal/ocpfile"
	"github.com/ocpgen/ocpgen/internal/par"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

const (
	// rtPath is the import path of the package generated code is made of,
	// imported under the name rtName.
	rtPath = "github.com/ocpgen/ocpgen/runtime/ocpimpl"
	rtName = "ocpimpl"
	// hintTrue and hintFalse are the package's two addressable server-hint
	// values: a hint is &hintTrue or &hintFalse, so every tool is data the
	// compiler lays out statically, with no code run at init.
	hintTrue  = "ocpTrue"
	hintFalse = "ocpFalse"
	// toolsVar is the unexported array of the package's tools.
	toolsVar = "ocpTools"
	// unionBranches is the method of a union type that lists its
	// branches, exported for the gate's argument codec (a branch field is
	// never given its name: model reserves it).
	unionBranches = "OCPBranches"
)

// Files renders the package: doc.go, catalogue.go and one file per tool.
// Each file is built with jennifer and formatted by go/format. It fails,
// naming the file (and the tool a tool's file is made from), if the model
// holds a name that is not a Go identifier or go/format cannot format the
// source: an ocpgen bug, as the model makes every name an identifier. On
// failure no file is returned.
func Files(p *model.Package) (map[string][]byte, error) {
	type job struct {
		name, tool string
		build      func(*emitter) *jen.File
		src        []byte
		err        error
	}
	jobs := make([]job, 0, len(p.Tools)+2)
	jobs = append(jobs,
		job{name: "doc.go", build: func(e *emitter) *jen.File { return e.docFile(p) }},
		job{name: "catalogue.go", build: func(e *emitter) *jen.File { return e.catalogueFile(p) }})
	for _, t := range p.Tools {
		jobs = append(jobs, job{name: t.File, tool: t.Name, build: func(e *emitter) *jen.File { return e.toolFile(p, t) }})
	}
	// Files are independent: render them on all CPUs. The output does not
	// depend on the order, and the error returned is the first in file
	// order.
	par.Each(len(jobs), func(i int) {
		j := &jobs[i]
		j.src, j.err = render(j.build)
		if j.err != nil {
			where := j.name
			if j.tool != "" {
				where = fmt.Sprintf("%s (tool %q)", j.name, j.tool)
			}
			j.err = fmt.Errorf("%s: %w", where, j.err)
		}
	})
	out := make(map[string][]byte, len(jobs))
	for _, j := range jobs {
		if j.err != nil {
			return nil, j.err
		}
		out[j.name] = j.src
	}
	return out, nil
}

// render builds one file, renders jennifer's source unformatted and formats
// it with go/format, once. One pass is gofmt's fixed point because the only
// part of the output that gofmt rewrites differently on a second pass,
// top-level doc comments, is emitted in canonical form already
// (canonicalDoc).
func render(build func(*emitter) *jen.File) ([]byte, error) {
	var e emitter
	f := build(&e)
	if e.err != nil {
		return nil, e.err
	}
	buf := renderBufs.Get().(*bytes.Buffer)
	defer renderBufs.Put(buf)
	buf.Reset()
	if err := f.Render(buf); err != nil {
		return nil, fmt.Errorf("jennifer: %w", err)
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("go/format: %w%s", err, badLine(buf.Bytes(), err))
	}
	return src, nil
}

// renderBufs holds the buffers render has jennifer write into; go/format
// returns a copy.
var renderBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// badLine quotes the source line of a go/format syntax error, to find the
// emitter bug that wrote it.
func badLine(src []byte, err error) string {
	var list scanner.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if n := list[0].Pos.Line; n >= 1 && n <= len(lines) {
		return fmt.Sprintf(" (line %d: %q)", n, lines[n-1])
	}
	return ""
}

// emitter records the first error of the file it builds: a name that is
// not a Go identifier (so that no text can become code through a name) or
// a model the emitter cannot write, both ocpgen bugs, reported rather than
// written.
type emitter struct{ err error }

func (e *emitter) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// id is jen.Id(name), with name checked to be a Go identifier.
func (e *emitter) id(name string) *jen.Statement {
	if !token.IsIdentifier(name) {
		e.fail(fmt.Errorf("invalid identifier %q in generated code (ocpgen bug)", name))
	}
	return jen.Id(name)
}

// qual is a name of the runtime package.
func (e *emitter) qual(name string) *jen.Statement {
	if !token.IsIdentifier(name) {
		e.fail(fmt.Errorf("invalid identifier %q in generated code (ocpgen bug)", name))
	}
	return jen.Qual(rtPath, name)
}

// oneLine makes input text safe for a single comment line.
func oneLine(s string) string { return strings.Join(model.DocLines(s), " ") }

// newFile starts a file with the generated-code header and a source line.
func (e *emitter) newFile(p *model.Package, source string) *jen.File {
	e.id(p.Name)
	f := jen.NewFile(p.Name)
	// render formats jennifer's raw source with go/format itself.
	f.NoFormat = true
	f.ImportAlias(rtPath, rtName)
	f.HeaderComment(ocpfile.Header + "\n\n// source: " + oneLine(source))
	return f
}

// inputsWithDigests is "a.tools.json sha256:… b.ocp.yaml sha256:…".
func inputsWithDigests(p *model.Package) string {
	parts := make([]string, 0, len(p.Inputs))
	for _, in := range p.Inputs {
		parts = append(parts, in.File+" "+in.Digest)
	}
	return strings.Join(parts, " ")
}

// comment emits doc lines inside a struct or a const group as one "//"
// comment per line. Jennifer writes them in column 1, so go/format gives
// them one go/doc/comment pass, as a top-level doc comment; indented in its
// output, they are left as they are on the next pass.
func comment(g *jen.Group, lines []string) {
	for _, c := range docComments(lines) {
		g.Comment(c)
	}
}

// docStatement is the doc comment of a top-level declaration: doc lines as
// comments, each followed by a line break, in gofmt's canonical form.
func docStatement(lines []string) *jen.Statement { return docFrom(docComments(lines)) }

// docFrom is docStatement for "//" lines.
func docFrom(comments []string) *jen.Statement {
	st := jen.Null()
	for _, c := range canonicalDoc(comments) {
		st.Comment(c).Line()
	}
	return st
}

// docComments turns doc lines into "//" comment lines. Each line goes
// through model.SafeLines again, whatever part of the model it came from, so
// a line break, a control character or invalid UTF-8 in any text taken from
// an input file cannot end the comment: such text is only ever inside a
// "//" comment (or a quoted string literal), never in code, and no comment
// the generator writes is a block comment that text could close.
func docComments(lines []string) []string {
	var out []string
	for _, l := range lines {
		parts := model.SafeLines(l)
		if len(parts) == 0 {
			out = append(out, "//")
		}
		for _, p := range parts {
			if p == "" {
				out = append(out, "//")
			} else {
				out = append(out, "// "+p)
			}
		}
	}
	return out
}

// canonicalDoc rewrites the "//" lines of a top-level doc comment as gofmt
// does: gofmt reformats such comments with go/doc/comment (a one-line
// paragraph without final punctuation becomes a "# heading", list and code
// block indentation is normalised). That rewrite is not always its own
// fixed point, so it is applied here until it is: go/format's one pass
// (render) then leaves the comment as it is. Every line still starts with
// "//", so text stays inside the comment.
func canonicalDoc(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "//"), " "))
		b.WriteByte('\n')
	}
	text := b.String()
	for range 4 {
		var p doccomment.Parser
		var pr doccomment.Printer
		next := string(pr.Comment(p.Parse(text)))
		if next == text {
			break
		}
		text = next
	}
	var out []string
	for text != "" {
		var line string
		line, text, _ = strings.Cut(text, "\n")
		switch {
		case line == "":
			out = append(out, "//")
		case strings.HasPrefix(line, "\t"):
			out = append(out, "//"+line)
		default:
			out = append(out, "// "+line)
		}
	}
	return out
}

func (e *emitter) docFile(p *model.Package) *jen.File {
	f := e.newFile(p, inputsWithDigests(p))
	server := "an MCP server"
	if p.Server != "" {
		server = fmt.Sprintf("the MCP server %s", oneLine(p.Server))
	}
	files := make([]string, len(p.Inputs))
	for i, in := range p.Inputs {
		files[i] = oneLine(in.File)
	}
	for _, c := range canonicalDoc([]string{
		fmt.Sprintf("// Package %s offers the tools of %s", p.Name, server),
		"// to an OCP Hub, behind the Hub's authorization and confirm gate",
		"// (github.com/ocpgen/ocpgen/runtime/ocp). [Catalogue] lists every tool.",
		"//",
		fmt.Sprintf("// It was generated by ocpgen from %s.", strings.Join(files, " and ")),
	}) {
		f.PackageComment(c)
	}
	return f
}

func (e *emitter) catalogueFile(p *model.Package) *jen.File {
	f := e.newFile(p, inputsWithDigests(p))
	tiers := jen.Nil()
	if p.Tiers != nil {
		tiers = jen.Index().String().ValuesFunc(func(g *jen.Group) {
			for _, t := range p.Tiers {
				g.Lit(t)
			}
		})
	}
	doc := []string{
		"// Catalogue lists every generated tool, in name order, with the",
		"// classification's tiers (lowest first) and the digest of their policy,",
		"// which the gate checks.",
	}
	if len(p.TaskRequired) > 0 {
		doc = append(doc,
			"//",
			"// Left out: tools the server lets be called only as MCP tasks",
			"// (execution.taskSupport \"required\"), which the runtime cannot do, so",
			"// they are never advertised or confirmed:")
		for _, name := range p.TaskRequired {
			doc = append(doc, "//   - "+strconv.Quote(oneLine(name)))
		}
	}
	f.Add(docFrom(doc).Var().Id("Catalogue").Op("=").Add(e.qual("NewCatalogue")).Call(jen.Lit(p.Digest), tiers, jen.Id(toolsVar).Index(jen.Op(":")).Op("...")))
	f.Line()
	f.Comment("// " + toolsVar + " are the tools of Catalogue, in name order.")
	f.Var().Id(toolsVar).Op("=").Index(jen.Op("...")).Op("*").Add(e.qual("Tool")).ValuesFunc(func(g *jen.Group) {
		for _, t := range p.Tools {
			g.Line().Add(e.id(t.GoName))
		}
		if len(p.Tools) > 0 {
			g.Line()
		}
	})
	if len(p.Tools) > 0 {
		f.Line()
		f.Comment("// Each tool's arguments carry the marker of its classification: a pointer")
		f.Comment("// to a read's satisfies ReadArgs, to a write's WriteArgs. A compile error")
		f.Comment("// here means this package was edited or is out of date with the runtime:")
		f.Comment("// re-run go generate.")
		f.Var().DefsFunc(func(g *jen.Group) {
			for _, t := range p.Tools {
				iface := "WriteArgs"
				if t.Kind == model.Read {
					iface = "ReadArgs"
				}
				g.Id("_").Add(e.qual(iface)).Op("=").Parens(jen.Op("*").Add(e.id(t.Args.Name))).Call(jen.Nil())
			}
		})
	}
	if hasHints(p) {
		f.Line()
		f.Comment("// " + hintTrue + " and " + hintFalse + " are the values the server hints point to.")
		f.Var().List(jen.Id(hintTrue), jen.Id(hintFalse)).Op("=").List(jen.True(), jen.False())
	}
	return f
}

func hasHints(p *model.Package) bool {
	for _, t := range p.Tools {
		h := t.Hints
		if h.ReadOnly != nil || h.Destructive != nil || h.Idempotent != nil || h.OpenWorld != nil {
			return true
		}
	}
	return false
}

func (e *emitter) toolFile(p *model.Package, t *model.Tool) *jen.File {
	source := fmt.Sprintf("%s tool %q (input schema %s)", p.Inputs[0].File, t.Name, t.Fingerprint)
	for _, in := range p.Inputs[1:] {
		source += ", " + in.File
	}
	f := e.newFile(p, source)
	f.Add(e.toolVar(t))
	for _, d := range t.Decls {
		f.Line()
		switch x := d.(type) {
		case *model.Struct:
			f.Add(e.structDecl(t, x))
		case *model.Enum:
			f.Add(e.enumDecl(x))
		case *model.Union:
			f.Add(e.unionDecl(x))
		}
	}
	return f
}

func (e *emitter) toolVar(t *model.Tool) *jen.Statement {
	doc := []string{fmt.Sprintf("%s is the MCP tool %q, classified as a %s.", t.GoName, t.Name, t.Kind)}
	if !t.Classified {
		doc = []string{
			fmt.Sprintf("%s is the MCP tool %q, a write at the default tier:", t.GoName, t.Name),
			"the classification does not list it.",
		}
	}
	if d := model.DocLines(t.Description); len(d) > 0 {
		doc = append(append(doc, ""), d...)
	}
	if h := hintText(t.Hints); h != "" {
		doc = append(doc, "", "Server hints (not trusted): "+h+".")
	}
	d := t.Descriptor()
	pol := d.Policy
	kind := "KindWrite"
	if pol.Kind == ocpimpl.KindRead {
		kind = "KindRead"
	}
	policy := []kv{
		{"Kind", e.qual(kind)},
		{"Classified", jen.Lit(pol.Classified)},
		{"Tier", jen.Lit(pol.Tier)},
	}
	if len(pol.Scopes) > 0 {
		policy = append(policy, kv{"Scopes", jen.Index().String().ValuesFunc(func(g *jen.Group) {
			for _, sc := range pol.Scopes {
				g.Lit(sc)
			}
		})})
	}
	policy = append(policy, kv{"Resource", e.templateLit(pol.Resource)})
	if pol.ConfirmPrompt != nil {
		policy = append(policy, kv{"ConfirmPrompt", e.templateLit(pol.ConfirmPrompt)})
	}
	if pol.ConfirmTTL != 0 {
		policy = append(policy, kv{"ConfirmTTL", duration(pol.ConfirmTTL)})
	}
	policy = append(policy, kv{"Failure", jen.Lit(pol.Failure)})

	desc := []kv{{"Name", jen.Lit(d.Name)}}
	if d.Title != "" {
		desc = append(desc, kv{"Title", jen.Lit(d.Title)})
	}
	if d.Description != "" {
		desc = append(desc, kv{"Description", jen.Lit(d.Description)})
	}
	desc = append(desc,
		kv{"InputSchema", jen.Op(schemaLiteral(d.InputSchema))},
		kv{"Fingerprint", jen.Lit(d.Fingerprint)},
	)
	if d.OutputSchema != "" {
		desc = append(desc, kv{"OutputSchema", jen.Op(schemaLiteral(d.OutputSchema))})
	}
	desc = append(desc, kv{"Policy", e.qual("Policy").Add(values(policy))})
	var hints []kv
	if d.Hints.Title != "" {
		hints = append(hints, kv{"Title", jen.Lit(d.Hints.Title)})
	}
	for _, h := range []struct {
		name string
		v    *bool
	}{{"ReadOnly", d.Hints.ReadOnly}, {"Destructive", d.Hints.Destructive}, {"Idempotent", d.Hints.Idempotent}, {"OpenWorld", d.Hints.OpenWorld}} {
		if h.v != nil {
			v := hintFalse
			if *h.v {
				v = hintTrue
			}
			hints = append(hints, kv{h.name, jen.Op("&").Id(v)})
		}
	}
	if len(hints) > 0 {
		desc = append(desc, kv{"Hints", e.qual("ServerHints").Add(values(hints))})
	}
	for _, f := range []struct{ name, v string }{{"TaskSupport", d.TaskSupport}, {"IconsFingerprint", d.IconsFingerprint}, {"MetaFingerprint", d.MetaFingerprint}} {
		if f.v != "" {
			desc = append(desc, kv{f.name, jen.Lit(f.v)})
		}
	}
	return docStatement(doc).Var().Add(e.id(t.GoName)).Op("=").Op("&").Add(e.qual("Tool")).Add(values([]kv{
		{"Args", jen.Parens(jen.Op("*").Add(e.id(t.Args.Name))).Call(jen.Nil())},
		{"Desc", e.qual("Descriptor").Add(values(desc))},
	}))
}

// templateLit is a bound template: one segment a line when it has more
// than one.
func (e *emitter) templateLit(t ocpimpl.Template) jen.Code {
	items := make([]jen.Code, 0, len(t)+1)
	for _, sg := range t {
		var keys []jen.Code
		if sg.Text != "" {
			keys = append(keys, jen.Id("Text").Op(":").Lit(sg.Text))
		}
		if sg.Arg != "" {
			keys = append(keys, jen.Id("Arg").Op(":").Lit(sg.Arg))
		}
		if sg.Mode != ocpimpl.BindText {
			keys = append(keys, jen.Id("Mode").Op(":").Add(e.qual(sg.Mode.String())))
		}
		item := jen.Values(keys...)
		if len(t) > 1 {
			item = jen.Line().Add(item)
		}
		items = append(items, item)
	}
	if len(t) > 1 {
		items = append(items, jen.Line())
	}
	return e.qual("Template").Values(items...)
}

// kv is one key of a composite literal.
type kv struct {
	key string
	val jen.Code
}

// values is a composite literal's keys in the given order, one a line.
func values(kvs []kv) *jen.Statement {
	items := make([]jen.Code, 0, len(kvs)+1)
	for _, x := range kvs {
		items = append(items, jen.Line().Id(x.key).Op(":").Add(x.val))
	}
	items = append(items, jen.Line())
	return jen.Values(items...)
}

func hintText(h model.Hints) string {
	var parts []string
	for _, x := range []struct {
		name string
		v    *bool
	}{{"readOnly", h.ReadOnly}, {"destructive", h.Destructive}, {"idempotent", h.Idempotent}, {"openWorld", h.OpenWorld}} {
		if x.v != nil {
			parts = append(parts, fmt.Sprintf("%s=%t", x.name, *x.v))
		}
	}
	return strings.Join(parts, ", ")
}

// duration is a time.Duration in the largest exact unit.
func duration(d time.Duration) jen.Code {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}} {
		if d%u.d == 0 {
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int64(d)))
}

// typ is a model type.
func (e *emitter) typ(t model.Type) jen.Code {
	switch x := t.(type) {
	case *model.Struct:
		return e.id(x.Name)
	case *model.Enum:
		return e.id(x.Name)
	case *model.Union:
		return e.id(x.Name)
	case model.Scalar:
		switch x.Kind {
		case model.String:
			return jen.String()
		case model.Int64:
			return jen.Int64()
		case model.Uint64:
			return jen.Uint64()
		case model.Float64:
			return jen.Float64()
		case model.Bool:
			return jen.Bool()
		}
	case model.Raw:
		return jen.Qual("encoding/json", "RawMessage")
	case model.Slice:
		return jen.Index().Add(e.typ(x.Elem))
	case model.Map:
		return jen.Map(jen.String()).Add(e.typ(x.Elem))
	case model.Pointer:
		return jen.Op("*").Add(e.typ(x.Elem))
	case model.Nullable:
		return e.qual("Nullable").Types(e.typ(x.Elem))
	}
	// Unreachable for a model built by model.Build.
	e.fail(fmt.Errorf("type %T in generated code (ocpgen bug)", t))
	return jen.Null()
}

func (e *emitter) structDecl(t *model.Tool, s *model.Struct) *jen.Statement {
	st := docStatement(s.Doc)
	st.Type().Add(e.id(s.Name)).StructFunc(func(g *jen.Group) {
		if s == t.Args {
			marker := "Write"
			if t.Kind == model.Read {
				marker = "Read"
			}
			g.Add(e.qual(marker)).Tag(map[string]string{"json": "-"})
			if len(s.Fields) > 0 {
				g.Line()
			}
		}
		for i, fd := range s.Fields {
			if len(fd.Doc) > 0 && i > 0 {
				g.Line()
			}
			comment(g, fd.Doc)
			g.Add(e.id(fd.GoName)).Add(e.typ(fd.Type)).Tag(map[string]string{"json": fd.Tag})
		}
		if s.Extra != nil {
			g.Line()
			comment(g, s.ExtraDoc)
			g.Id(model.ExtraField).Map(jen.String()).Add(e.typ(s.Extra)).Tag(map[string]string{"json": "-"})
		}
	})
	if s.Extra != nil {
		st.Line().Line().Add(e.extraMethods(s))
	}
	return st
}

// extraMethods are the MarshalJSON and UnmarshalJSON of a struct with
// additional properties (the declared fields through a method-less copy of
// the type, the others through the catch-all map) and the OCPWithExtra
// marker that says they are ocpimpl's.
func (e *emitter) extraMethods(s *model.Struct) *jen.Statement {
	names := make([]jen.Code, 0, len(s.Fields)+3)
	names = append(names, jen.Id("b"), jen.Parens(jen.Op("*").Id("plain")).Call(jen.Id("v")), jen.Op("&").Id("v").Dot(model.ExtraField))
	for _, f := range s.Fields {
		names = append(names, jen.Lit(f.JSONName))
	}
	return jen.Comment("// MarshalJSON encodes the declared properties, then the additional ones.").Line().
		Func().Params(jen.Id("v").Add(e.id(s.Name))).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Type().Id("plain").Add(e.id(s.Name)),
		jen.Return(e.qual("MarshalWithExtra").Call(jen.Id("plain").Call(jen.Id("v")), jen.Id("v").Dot(model.ExtraField))),
	).Line().Line().
		Comment("// UnmarshalJSON decodes the declared properties strictly and keeps every").Line().
		Comment("// other one in "+model.ExtraField+".").Line().
		Func().Params(jen.Id("v").Op("*").Add(e.id(s.Name))).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Type().Id("plain").Add(e.id(s.Name)),
		jen.Return(e.qual("UnmarshalWithExtra").Call(names...)),
	).Line().Line().
		Comment("// OCPWithExtra says that the JSON methods above are ocpimpl's, which the").Line().
		Comment("// gate does without (ocpimpl.WithExtra).").Line().
		// An empty body on two lines, which gofmt keeps whatever the
		// name's length (jennifer's empty Block is one line).
		Func().Params(jen.Op("*").Add(e.id(s.Name))).Id("OCPWithExtra").Params().Op("{\n}")
}

// kindCode is the ocpimpl.JSONKind set of a model type.
func (e *emitter) kindCode(t model.Type) jen.Code {
	kinds := model.JSONKinds(t)
	if len(kinds) >= 6 {
		return e.qual("JSONAny")
	}
	names := map[string]string{"string": "JSONString", "number": "JSONNumber", "boolean": "JSONBool",
		"array": "JSONArray", "object": "JSONObject", "null": "JSONNull"}
	if len(kinds) == 0 {
		e.fail(fmt.Errorf("a union branch with no JSON kind (ocpgen bug)"))
	}
	c := jen.Null()
	for i, k := range kinds {
		if i > 0 {
			c.Op("|")
		}
		c.Add(e.qual(names[k]))
	}
	return c
}

func (e *emitter) unionDecl(u *model.Union) *jen.Statement {
	doc := docComments(u.Doc)
	if len(doc) > 0 {
		doc = append(doc, "//")
	}
	st := docFrom(append(doc, fmt.Sprintf("// %s is a union: set exactly one field.", u.Name)))
	st.Type().Add(e.id(u.Name)).StructFunc(func(g *jen.Group) {
		for i, br := range u.Branches {
			if len(br.Doc) > 0 && i > 0 {
				g.Line()
			}
			comment(g, br.Doc)
			g.Add(e.id(br.GoName)).Op("*").Add(e.typ(br.Type))
		}
	})
	// The branch list is written once, in OCPBranches, for both methods.
	var list []jen.Code
	for _, br := range u.Branches {
		args := []jen.Code{jen.Op("&").Id("u").Dot(br.GoName), e.kindCode(br.Type), jen.Op(schemaLiteral(string(br.Schema)))}
		for _, r := range br.Required {
			args = append(args, jen.Lit(r))
		}
		list = append(list, jen.Line().Add(e.qual("Branch")).Call(args...))
	}
	if len(list) > 0 {
		list = append(list, jen.Line())
	}
	branches := func() *jen.Statement { return jen.Id("u").Dot(unionBranches).Call().Op("...") }
	st.Line().Line().
		Comment(fmt.Sprintf("// %s returns the fields of u, in schema order, with the JSON kinds,", unionBranches)).Line().
		Comment("// schema and required properties that select each. It is for the gate's").Line().
		Comment("// argument codec, which decodes and encodes u as its methods do.").Line().
		Func().Params(jen.Id("u").Op("*").Add(e.id(u.Name))).Id(unionBranches).Params().Index().Add(e.qual("UnionBranch")).Block(
		jen.Return(jen.Index().Add(e.qual("UnionBranch")).Values(list...)),
	).Line().Line().
		Comment("// MarshalJSON encodes the field that is set; it fails unless exactly one is.").Line().
		Func().Params(jen.Id("u").Add(e.id(u.Name))).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(e.qual("MarshalUnion").Call(jen.Lit(u.Name), branches())),
	).Line().Line().
		Comment("// UnmarshalJSON sets the field the schema picks: the first, in schema order,").Line().
		Comment("// whose JSON kind matches, whose schema the value validates against and").Line().
		Comment("// into which it decodes strictly.").Line().
		Func().Params(jen.Id("u").Op("*").Add(e.id(u.Name))).Id("UnmarshalJSON").Params(jen.Id("b").Index().Byte()).Error().Block(
		jen.Return(e.qual("UnmarshalUnion").Call(jen.Lit(u.Name), jen.Id("b"), branches())),
	)
	return st
}

func (e *emitter) enumDecl(en *model.Enum) *jen.Statement {
	st := docStatement(en.Doc)
	base := jen.String()
	if en.Kind == model.Int64 {
		base = jen.Int64()
	}
	st.Type().Add(e.id(en.Name)).Add(base).Line().Line()
	st.Comment(fmt.Sprintf("// The values of %s.", en.Name)).Line()
	st.Const().DefsFunc(func(g *jen.Group) {
		for i, v := range en.Values {
			if len(v.Doc) > 0 && i > 0 {
				g.Line()
			}
			comment(g, v.Doc)
			if en.Kind == model.Int64 {
				g.Add(e.id(v.GoName)).Id(en.Name).Op("=").Lit(int(v.Int))
			} else {
				g.Add(e.id(v.GoName)).Id(en.Name).Op("=").Lit(v.Value)
			}
		}
	})
	return st
}

// schemaLiteral is a canonical JSON schema as a Go string literal: a raw
// string, which reads as the JSON it is, whenever the schema holds no
// backquote and only printable characters (strconv.IsPrint: no carriage
// return, which a raw string would drop, no byte order mark, no
// bidirectional control that could make the source read differently from
// what it holds); an interpreted literal otherwise.
func schemaLiteral(s string) string {
	raw := s != "" && utf8.ValidString(s) && !strings.Contains(s, "`")
	for _, r := range s {
		if !raw {
			break
		}
		raw = strconv.IsPrint(r)
	}
	if !raw {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}
