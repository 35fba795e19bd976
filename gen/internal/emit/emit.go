// Package emit renders the generator's output: a model.Package as Go source
// files, written in gofmt's canonical form by a printer of its own
// (print.go), and the classification skeleton that "ocpgen init" writes
// from a text template (skeleton.go). It makes no decisions: names, types,
// tags, docs and policies all come from the model.
package emit

import (
	"fmt"
	doccomment "go/doc/comment"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/ocpgen/ocpgen/gen/internal/model"
	"github.com/ocpgen/ocpgen/internal/ocpfile"
	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

const (
	// rtPath is the import path of the package generated code is made of.
	rtPath = "github.com/ocpgen/ocpgen/runtime/ocpimpl"
	// rt is the qualifier of rtPath's names (rtPath is imported under it).
	rt = "ocpimpl."
	// hintTrue and hintFalse are the package's two addressable server-hint
	// values: a hint is &hintTrue or &hintFalse, so every tool is data the
	// compiler lays out statically, with no code run at init.
	hintTrue  = "ocpTrue"
	hintFalse = "ocpFalse"
	// toolsVar is the unexported array of the package's tools.
	toolsVar = "ocpTools"
	// unionBranches is the unexported method of a union type that lists
	// its branches. Field names are exported, so it cannot clash with one.
	unionBranches = "ocpBranches"
)

// Files renders the package: doc.go, catalogue.go and one file per tool. It
// fails, naming the file, if the model holds a name that is not a Go
// identifier (an ocpgen bug: the model makes every name one).
func Files(p *model.Package) (map[string][]byte, error) {
	type job struct {
		name   string
		render func(*printer)
		src    []byte
		err    error
	}
	jobs := make([]job, 0, len(p.Tools)+2)
	jobs = append(jobs,
		job{name: "doc.go", render: func(w *printer) { docFile(w, p) }},
		job{name: "catalogue.go", render: func(w *printer) { catalogueFile(w, p) }})
	for _, t := range p.Tools {
		jobs = append(jobs, job{name: t.File, render: func(w *printer) { toolFile(w, p, t) }})
	}
	// Files are independent: spread them over the CPUs. The output does not
	// depend on the order, and the error returned is the first in file
	// order.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range jobs {
		g.Go(func() error {
			j := &jobs[i]
			var w printer
			j.render(&w)
			if w.err != nil {
				j.err = fmt.Errorf("%s: %w", j.name, w.err)
			} else {
				j.src = w.buf
			}
			return nil
		})
	}
	g.Wait()
	out := make(map[string][]byte, len(jobs))
	for _, j := range jobs {
		if j.err != nil {
			return nil, j.err
		}
		out[j.name] = j.src
	}
	return out, nil
}

// oneLine makes input text safe for a single comment line.
func oneLine(s string) string { return strings.Join(model.DocLines(s), " ") }

// header writes the generated-code header and a source line, then the
// package's doc comment if any (doc.go's), then the package clause.
func header(w *printer, p *model.Package, source string, doc []string) {
	w.line(0, ocpfile.Header)
	w.str("\n")
	w.line(0, trimComment("// source: "+oneLine(source)))
	w.str("\n")
	w.topDoc(doc)
	w.line(0, "package "+w.id(p.Name))
}

// withImports appends to w (the header) the imports of body, then body,
// and takes over body's error. Every file with code imports the runtime.
func withImports(w *printer, body *printer) {
	if body.err != nil && w.err == nil {
		w.err = body.err
	}
	w.str("\n")
	if !body.json && !body.time {
		w.line(0, `import ocpimpl "`+rtPath+`"`)
	} else {
		w.line(0, "import (")
		if body.json {
			w.line(1, `"encoding/json"`)
		}
		w.line(1, `ocpimpl "`+rtPath+`"`)
		if body.time {
			w.line(1, `"time"`)
		}
		w.line(0, ")")
	}
	w.str("\n")
	w.buf = append(w.buf, body.buf...)
}

// inputsWithDigests is "a.tools.json sha256:… b.ocp.yaml sha256:…".
func inputsWithDigests(p *model.Package) string {
	parts := make([]string, 0, len(p.Inputs))
	for _, in := range p.Inputs {
		parts = append(parts, in.File+" "+in.Digest)
	}
	return strings.Join(parts, " ")
}

// fieldDoc appends doc lines as "//" comment rows inside a struct or a
// const group, rewritten once by go/doc/comment (formatDoc): the output of
// the jennifer-based emitter this printer replaced, which gofmt formatted
// as top-level doc comments because they started in column 1. Indented,
// gofmt leaves them as they are.
func fieldDoc(rows []row, lines []string) []row {
	if len(lines) == 0 {
		return rows
	}
	for _, c := range formatDoc(docComments(lines), 1) {
		rows = append(rows, row{last: trimComment(c)})
	}
	return rows
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
// fixed point, so it is applied here until it is, which makes the output
// gofmt's fixed point. Every line still starts with "//", so text stays
// inside the comment.
func canonicalDoc(lines []string) []string { return formatDoc(lines, 4) }

// formatDoc applies go/printer's doc comment rewrite (go/doc/comment's
// parser and printer) to "//" lines up to passes times, stopping at its
// fixed point.
func formatDoc(lines []string, passes int) []string {
	if len(lines) == 0 {
		return nil
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "//"), " "))
		b.WriteByte('\n')
	}
	text := b.String()
	for i := 0; i < passes && !plainDoc(text); i++ {
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

// plainDoc reports whether text (a doc comment without its "//" markers,
// each line ending in a line break) is, to go/doc/comment, only paragraphs
// of plain text it prints as they are, so that formatDoc need not run it:
// no indented line (code blocks, lists), no line starting with "#" (a
// heading) or "[" (a link definition), no two backquotes or two single
// quotes in a row (printed as curly quotes), no blank line at either end
// or next to another, no paragraph of one line after the first (an
// old-style heading), no control character and no line ending in white
// space. It may say false for text the parser would also leave alone;
// TestPlainDocAgrees and FuzzPlainDoc hold it to go/doc/comment.
func plainDoc(text string) bool {
	if strings.Contains(text, "``") || strings.Contains(text, "''") {
		return false
	}
	// lines in the current paragraph; -1 before the first line.
	para, first := -1, true
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if line == "" {
			if para <= 0 || (para == 1 && !first) {
				return false // a blank line first or after another, or a one-line paragraph
			}
			para, first = 0, false
			continue
		}
		switch line[0] {
		case ' ', '\t', '#', '[':
			return false
		}
		for i := 0; i < len(line); i++ {
			if line[i] < ' ' || line[i] == 0x7f {
				return false // control characters: white space to the parser
			}
		}
		if last, _ := utf8.DecodeLastRuneInString(line); unicode.IsSpace(last) {
			return false
		}
		para = max(para, 0) + 1
	}
	// The text ends with a line break: the last line was not blank unless
	// text had no line at all.
	return para > 1 || (para == 1 && first)
}

func docFile(w *printer, p *model.Package) {
	server := "an MCP server"
	if p.Server != "" {
		server = fmt.Sprintf("the MCP server %s", oneLine(p.Server))
	}
	files := make([]string, len(p.Inputs))
	for i, in := range p.Inputs {
		files[i] = oneLine(in.File)
	}
	header(w, p, inputsWithDigests(p), []string{
		fmt.Sprintf("// Package %s offers the tools of %s", p.Name, server),
		"// to an OCP Hub, behind the Hub's authorization and confirm gate",
		"// (github.com/ocpgen/ocpgen/runtime/ocp). [Catalogue] lists every tool.",
		"//",
		fmt.Sprintf("// It was generated by ocpgen from %s.", strings.Join(files, " and ")),
	})
}

// The constant doc comments of catalogue.go and of the methods; each is
// canonical as written (TestConstDocsAreCanonical).
var (
	docTools   = []string{"// " + toolsVar + " are the tools of Catalogue, in name order."}
	docMarkers = []string{
		"// Each tool's arguments carry the marker of its classification: a pointer",
		"// to a read's satisfies ReadArgs, to a write's WriteArgs. A compile error",
		"// here means this package was edited or is out of date with the runtime:",
		"// re-run go generate.",
	}
	docHints          = []string{"// " + hintTrue + " and " + hintFalse + " are the values the server hints point to."}
	docMarshalExtra   = []string{"// MarshalJSON encodes the declared properties, then the additional ones."}
	docUnmarshalExtra = []string{
		"// UnmarshalJSON decodes the declared properties strictly and keeps every",
		"// other one in " + model.ExtraField + ".",
	}
	docWithExtra = []string{
		"// OCPWithExtra says that the JSON methods above are ocpimpl's, which the",
		"// gate does without (ocpimpl.WithExtra).",
	}
	docBranches = []string{
		"// " + unionBranches + " returns the fields of u, in schema order, with the JSON kinds,",
		"// schema and required properties that select each.",
	}
	docMarshalUnion   = []string{"// MarshalJSON encodes the field that is set; it fails unless exactly one is."}
	docUnmarshalUnion = []string{
		"// UnmarshalJSON sets the field the schema picks: the first, in schema order,",
		"// whose JSON kind matches, whose schema the value validates against and",
		"// into which it decodes strictly.",
	}
)

func catalogueFile(w *printer, p *model.Package) {
	header(w, p, inputsWithDigests(p), nil)
	var b printer
	tiers := "nil"
	if p.Tiers != nil {
		q := make([]string, len(p.Tiers))
		for i, t := range p.Tiers {
			q[i] = quote(t)
		}
		tiers = "[]string{" + strings.Join(q, ", ") + "}"
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
	b.topDoc(doc)
	b.line(0, "var Catalogue = "+rt+"NewCatalogue("+quote(p.Digest)+", "+tiers+", "+toolsVar+"[:]...)")
	b.str("\n")
	b.constDoc(docTools...)
	b.str("var " + toolsVar + " = [...]*" + rt + "Tool{")
	if len(p.Tools) > 0 {
		b.str("\n")
		for _, t := range p.Tools {
			b.line(1, b.id(t.GoName)+",")
		}
	}
	b.str("}\n")
	if len(p.Tools) > 0 {
		b.str("\n")
		b.constDoc(docMarkers...)
		rows := make([]row, len(p.Tools))
		for i, t := range p.Tools {
			iface := "WriteArgs"
			if t.Kind == model.Read {
				iface = "ReadArgs"
			}
			rows[i] = row{cells: []string{"_", rt + iface}, last: "= (*" + b.id(t.Args.Name) + ")(nil)"}
		}
		b.line(0, "var (")
		b.rows(1, rows)
		b.line(0, ")")
	}
	if hasHints(p) {
		b.str("\n")
		b.constDoc(docHints...)
		b.line(0, "var "+hintTrue+", "+hintFalse+" = true, false")
	}
	withImports(w, &b)
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

func toolFile(w *printer, p *model.Package, t *model.Tool) {
	source := fmt.Sprintf("%s tool %q (input schema %s)", p.Inputs[0].File, t.Name, t.Fingerprint)
	for _, in := range p.Inputs[1:] {
		source += ", " + in.File
	}
	header(w, p, source, nil)
	var b printer
	toolVar(&b, t)
	for _, d := range t.Decls {
		b.str("\n")
		switch x := d.(type) {
		case *model.Struct:
			structDecl(&b, t, x)
		case *model.Enum:
			enumDecl(&b, x)
		case *model.Union:
			unionDecl(&b, x)
		}
	}
	withImports(w, &b)
}

func toolVar(w *printer, t *model.Tool) {
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
		{key: "Kind", val: rt + kind},
		{key: "Classified", val: strconv.FormatBool(pol.Classified)},
		{key: "Tier", val: quote(pol.Tier)},
	}
	if len(pol.Scopes) > 0 {
		q := make([]string, len(pol.Scopes))
		for i, sc := range pol.Scopes {
			q[i] = quote(sc)
		}
		policy = append(policy, kv{key: "Scopes", val: "[]string{" + strings.Join(q, ", ") + "}"})
	}
	policy = append(policy, templateKV(w, "Resource", pol.Resource))
	if pol.ConfirmPrompt != nil {
		policy = append(policy, templateKV(w, "ConfirmPrompt", pol.ConfirmPrompt))
	}
	if pol.ConfirmTTL != 0 {
		policy = append(policy, kv{key: "ConfirmTTL", val: duration(w, pol.ConfirmTTL)})
	}
	policy = append(policy, kv{key: "Failure", val: quote(pol.Failure)})

	desc := []kv{{key: "Name", val: quote(d.Name)}}
	if d.Title != "" {
		desc = append(desc, kv{key: "Title", val: quote(d.Title)})
	}
	if d.Description != "" {
		desc = append(desc, kv{key: "Description", val: quote(d.Description)})
	}
	desc = append(desc,
		kv{key: "InputSchema", val: schemaLiteral([]byte(d.InputSchema))},
		kv{key: "Fingerprint", val: quote(d.Fingerprint)},
	)
	if d.OutputSchema != "" {
		desc = append(desc, kv{key: "OutputSchema", val: schemaLiteral([]byte(d.OutputSchema))})
	}
	desc = append(desc, kv{key: "Policy", block: func(indent int) {
		w.str(rt + "Policy")
		w.values(indent, policy)
	}})
	var hints []kv
	for _, h := range []struct {
		name string
		v    *bool
	}{{"ReadOnly", d.Hints.ReadOnly}, {"Destructive", d.Hints.Destructive}, {"Idempotent", d.Hints.Idempotent}, {"OpenWorld", d.Hints.OpenWorld}} {
		if h.v != nil {
			v := hintFalse
			if *h.v {
				v = hintTrue
			}
			hints = append(hints, kv{key: h.name, val: "&" + v})
		}
	}
	if len(hints) > 0 {
		desc = append(desc, kv{key: "Hints", block: func(indent int) {
			w.str(rt + "ServerHints")
			w.values(indent, hints)
		}})
	}
	w.topDoc(docComments(doc))
	w.str("var " + w.id(t.GoName) + " = &" + rt + "Tool")
	w.values(0, []kv{
		{key: "Args", val: "(*" + w.id(t.Args.Name) + ")(nil)"},
		{key: "Desc", block: func(indent int) {
			w.str(rt + "Descriptor")
			w.values(indent, desc)
		}},
	})
	w.str("\n")
}

// templateKV is a bound template's key: one segment a line when it has more
// than one.
func templateKV(w *printer, key string, t ocpimpl.Template) kv {
	segs := make([]string, len(t))
	for i, sg := range t {
		var keys []string
		if sg.Text != "" {
			keys = append(keys, "Text: "+quote(sg.Text))
		}
		if sg.Arg != "" {
			keys = append(keys, "Arg: "+quote(sg.Arg))
		}
		if sg.Mode != ocpimpl.BindText {
			keys = append(keys, "Mode: "+rt+w.id(sg.Mode.String()))
		}
		segs[i] = "{" + strings.Join(keys, ", ") + "}"
	}
	if len(t) <= 1 {
		return kv{key: key, val: rt + "Template{" + strings.Join(segs, "") + "}"}
	}
	return kv{key: key, block: func(indent int) {
		w.str(rt + "Template{\n")
		for _, s := range segs {
			w.line(indent+1, s+",")
		}
		w.tabs(indent)
		w.str("}")
	}}
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

// duration prints a time.Duration in the largest exact unit.
func duration(w *printer, d time.Duration) string {
	w.time = true
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "Hour"}, {time.Minute, "Minute"}, {time.Second, "Second"}, {time.Millisecond, "Millisecond"}} {
		if d%u.d == 0 {
			return strconv.Itoa(int(d/u.d)) + " * time." + u.name
		}
	}
	return "time.Duration(int64(" + strconv.FormatInt(int64(d), 10) + "))"
}

// typ prints a model type.
func typ(w *printer, t model.Type) string {
	switch x := t.(type) {
	case *model.Struct:
		return w.id(x.Name)
	case *model.Enum:
		return w.id(x.Name)
	case *model.Union:
		return w.id(x.Name)
	case model.Scalar:
		switch x.Kind {
		case model.String:
			return "string"
		case model.Int64:
			return "int64"
		case model.Uint64:
			return "uint64"
		case model.Float64:
			return "float64"
		case model.Bool:
			return "bool"
		}
	case model.Raw:
		w.json = true
		return "json.RawMessage"
	case model.Slice:
		return "[]" + typ(w, x.Elem)
	case model.Map:
		return "map[string]" + typ(w, x.Elem)
	case model.Pointer:
		return "*" + typ(w, x.Elem)
	case model.Nullable:
		return rt + "Nullable[" + typ(w, x.Elem) + "]"
	}
	// Unreachable for a model built by model.Build.
	if w.err == nil {
		w.err = fmt.Errorf("type %T in generated code (ocpgen bug)", t)
	}
	return "invalidModelType"
}

// structBody writes "struct{}" or "struct {", the rows, and "}".
func structBody(w *printer, rows []row) {
	if len(rows) == 0 {
		w.str("struct{}\n")
		return
	}
	w.str("struct {\n")
	w.rows(1, rows)
	w.str("}\n")
}

func structDecl(w *printer, t *model.Tool, s *model.Struct) {
	var rows []row
	if s == t.Args {
		marker := "Write"
		if t.Kind == model.Read {
			marker = "Read"
		}
		rows = append(rows, row{cells: []string{rt + marker}, last: tag("-")})
		if len(s.Fields) > 0 {
			rows = append(rows, row{})
		}
	}
	for i, fd := range s.Fields {
		if len(fd.Doc) > 0 && i > 0 {
			rows = append(rows, row{})
		}
		rows = fieldDoc(rows, fd.Doc)
		rows = append(rows, row{cells: []string{w.id(fd.GoName), typ(w, fd.Type)}, last: tag(fd.Tag)})
	}
	if s.Extra != nil {
		rows = append(rows, row{})
		rows = fieldDoc(rows, s.ExtraDoc)
		rows = append(rows, row{cells: []string{model.ExtraField, "map[string]" + typ(w, s.Extra)}, last: tag("-")})
	}
	w.topDoc(docComments(s.Doc))
	w.str("type " + w.id(s.Name) + " ")
	structBody(w, rows)
	if s.Extra != nil {
		extraMethods(w, s)
	}
}

// extraMethods are the MarshalJSON and UnmarshalJSON of a struct with
// additional properties: the declared fields through a method-less copy of
// the type, the others through the catch-all map.
func extraMethods(w *printer, s *model.Struct) {
	names := make([]string, 0, len(s.Fields)+3)
	names = append(names, "b", "(*plain)(v)", "&v."+model.ExtraField)
	for _, f := range s.Fields {
		names = append(names, quote(f.JSONName))
	}
	w.str("\n")
	w.constDoc(docMarshalExtra...)
	w.line(0, "func (v "+s.Name+") MarshalJSON() ([]byte, error) {")
	w.line(1, "type plain "+s.Name)
	w.line(1, "return "+rt+"MarshalWithExtra(plain(v), v."+model.ExtraField+")")
	w.line(0, "}")
	w.str("\n")
	w.constDoc(docUnmarshalExtra...)
	w.line(0, "func (v *"+s.Name+") UnmarshalJSON(b []byte) error {")
	w.line(1, "type plain "+s.Name)
	w.line(1, "return "+rt+"UnmarshalWithExtra("+strings.Join(names, ", ")+")")
	w.line(0, "}")
	w.str("\n")
	w.constDoc(docWithExtra...)
	// Two lines, which gofmt keeps whatever the name's length (it joins a
	// short one-line body only when the source has it on one line).
	w.line(0, "func (*"+s.Name+") OCPWithExtra() {")
	w.line(0, "}")
}

// kindCode is the ocpimpl.JSONKind set of a model type, as an argument
// among others of a call (where gofmt writes "|" without blanks).
func kindCode(w *printer, t model.Type) string {
	kinds := model.JSONKinds(t)
	if len(kinds) >= 6 {
		return rt + "JSONAny"
	}
	names := map[string]string{"string": "JSONString", "number": "JSONNumber", "boolean": "JSONBool",
		"array": "JSONArray", "object": "JSONObject", "null": "JSONNull"}
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, rt+w.id(names[k]))
	}
	if len(parts) == 0 && w.err == nil {
		w.err = fmt.Errorf("a union branch with no JSON kind (ocpgen bug)")
	}
	return strings.Join(parts, "|")
}

func unionDecl(w *printer, u *model.Union) {
	var rows []row
	for i, br := range u.Branches {
		if len(br.Doc) > 0 && i > 0 {
			rows = append(rows, row{})
		}
		rows = fieldDoc(rows, br.Doc)
		rows = append(rows, row{cells: []string{w.id(br.GoName)}, last: "*" + typ(w, br.Type)})
	}
	doc := docComments(u.Doc)
	if len(doc) > 0 {
		doc = append(doc, "//")
	}
	doc = append(doc, fmt.Sprintf("// %s is a union: set exactly one field.", u.Name))
	w.topDoc(doc)
	w.str("type " + w.id(u.Name) + " ")
	structBody(w, rows)
	// The branch list is written once, in ocpBranches, for both methods.
	w.str("\n")
	w.constDoc(docBranches...)
	w.line(0, "func (u *"+u.Name+") "+unionBranches+"() []"+rt+"UnionBranch {")
	w.tabs(1)
	w.str("return []" + rt + "UnionBranch{")
	if len(u.Branches) > 0 {
		w.str("\n")
		for _, br := range u.Branches {
			args := []string{"&u." + br.GoName, kindCode(w, br.Type), schemaLiteral(br.Schema)}
			for _, r := range br.Required {
				args = append(args, quote(r))
			}
			w.line(2, rt+"Branch("+strings.Join(args, ", ")+"),")
		}
		w.tabs(1)
	}
	w.str("}\n")
	w.line(0, "}")
	branches := "u." + unionBranches + "()..."
	w.str("\n")
	w.constDoc(docMarshalUnion...)
	w.line(0, "func (u "+u.Name+") MarshalJSON() ([]byte, error) {")
	w.line(1, "return "+rt+"MarshalUnion("+quote(u.Name)+", "+branches+")")
	w.line(0, "}")
	w.str("\n")
	w.constDoc(docUnmarshalUnion...)
	w.line(0, "func (u *"+u.Name+") UnmarshalJSON(b []byte) error {")
	w.line(1, "return "+rt+"UnmarshalUnion("+quote(u.Name)+", b, "+branches+")")
	w.line(0, "}")
}

func enumDecl(w *printer, e *model.Enum) {
	base := "string"
	if e.Kind == model.Int64 {
		base = "int64"
	}
	w.topDoc(docComments(e.Doc))
	w.line(0, "type "+w.id(e.Name)+" "+base)
	w.str("\n")
	w.constDoc("// The values of " + e.Name + ".")
	if len(e.Values) == 0 {
		w.line(0, "const ()")
		return
	}
	var rows []row
	for i, v := range e.Values {
		if len(v.Doc) > 0 && i > 0 {
			rows = append(rows, row{})
		}
		rows = fieldDoc(rows, v.Doc)
		val := quote(v.Value)
		if e.Kind == model.Int64 {
			val = strconv.FormatInt(int64(int(v.Int)), 10)
		}
		rows = append(rows, row{cells: []string{w.id(v.GoName), e.Name}, last: "= " + val})
	}
	w.line(0, "const (")
	w.rows(1, rows)
	w.line(0, ")")
}

// schemaLiteral prints a canonical JSON schema as a Go string literal: a raw
// string, which reads as the JSON it is, whenever the schema holds no
// backquote and only printable characters (strconv.IsPrint: no carriage
// return, which a raw string would drop, no byte order mark, no
// bidirectional control that could make the source read differently from
// what it holds); an interpreted literal otherwise.
func schemaLiteral(schema []byte) string {
	s := string(schema)
	raw := s != "" && utf8.ValidString(s) && !strings.Contains(s, "`")
	for _, r := range s {
		if !raw {
			break
		}
		raw = strconv.IsPrint(r)
	}
	if !raw {
		return quote(s)
	}
	return "`" + s + "`"
}
