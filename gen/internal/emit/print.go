package emit

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The printer writes gofmt's canonical form directly: go/format is not run
// on the output. It knows only the shapes the emitter writes (declarations
// one a line, composite literals of one key a line, struct fields, const
// groups, comments) and lays them out as go/printer does:
//
//   - alignment: rows, which is text/tabwriter's column blocks with
//     go/format's settings (padding 1, spaces, minimal width 0, empty
//     columns discarded), for cells that never hold a tab;
//   - which key: value pairs of a composite literal share those columns:
//     fitsOneLine, go/printer's exprList rule;
//   - doc comments: canonicalDoc for top-level ones, gofmt's go/doc/comment
//     rewrite to its fixed point; fieldDoc for those inside a struct or a
//     const group (emit.go);
//   - every comment line: trimComment, go/printer's trimming.
//
// gen's TestEmitMatchesGofmt holds the result to go/format on every output
// of the corpus, goldens, adversarial cases, synthetic catalogues and fuzz
// seeds.

// printer accumulates the body of one file and what it imports.
type printer struct {
	buf []byte
	// json and time record whether the body refers to encoding/json and
	// time (ocpimpl is imported by every file that has code).
	json, time bool
	// err is the first name that is not an identifier (or other model the
	// printer cannot write): an ocpgen bug, reported rather than written.
	err error
	// widths is rows' scratch space.
	widths []int
}

// id returns name, an identifier of the output, and records an error if it
// is not a Go identifier (so that no text can become code through a name).
func (p *printer) id(name string) string {
	if !token.IsIdentifier(name) && p.err == nil {
		p.err = fmt.Errorf("invalid identifier %q in generated code (ocpgen bug)", name)
	}
	return name
}

func (p *printer) str(s string) { p.buf = append(p.buf, s...) }

func (p *printer) tabs(n int) {
	for range n {
		p.buf = append(p.buf, '\t')
	}
}

// line writes one line at the given indentation.
func (p *printer) line(indent int, s string) {
	p.tabs(indent)
	p.str(s)
	p.buf = append(p.buf, '\n')
}

// trimComment is a "//" comment line as go/printer writes it: without
// trailing white space.
func trimComment(c string) string { return strings.TrimRightFunc(c, unicode.IsSpace) }

// topDoc writes the doc comment of a top-level declaration, given as "//"
// lines, in gofmt's canonical form (canonicalDoc).
func (p *printer) topDoc(lines []string) {
	for _, c := range canonicalDoc(lines) {
		p.line(0, trimComment(c))
	}
}

// constDoc writes a top-level doc comment that is canonical as written (a
// test checks every one).
func (p *printer) constDoc(lines ...string) {
	for _, c := range lines {
		p.line(0, c)
	}
}

// row is one line of a section whose cells line up in columns: each cell
// is padded to its column's width, last follows the final cell. A row
// without cells is a line of its own (a comment, or a blank line when last
// is empty) and ends every column, as a line with fewer cells ends the
// columns it lacks.
type row struct {
	cells []string
	last  string
}

// rows writes rows at the given indentation with text/tabwriter's column
// blocks as go/format configures them: a column block is a run of
// consecutive rows that have a cell in that column; its width is its
// widest cell (in runes) plus one, or zero if every cell is empty. A row's
// first cell is never empty (tabwriter would take it for indentation).
func (p *printer) rows(indent int, rs []row) {
	most := 0
	for _, r := range rs {
		most = max(most, len(r.cells))
	}
	if cap(p.widths) < len(rs)*most {
		p.widths = make([]int, len(rs)*most)
	}
	w := p.widths[:len(rs)*most]
	for c := range most {
		for i := 0; i < len(rs); {
			if len(rs[i].cells) <= c {
				i++
				continue
			}
			start, width := i, 0
			for ; i < len(rs) && len(rs[i].cells) > c; i++ {
				width = max(width, utf8.RuneCountInString(rs[i].cells[c]))
			}
			if width > 0 {
				width++
			}
			for k := start; k < i; k++ {
				w[k*most+c] = width
			}
		}
	}
	for i, r := range rs {
		if len(r.cells) == 0 && r.last == "" {
			p.buf = append(p.buf, '\n')
			continue
		}
		p.tabs(indent)
		for c, cell := range r.cells {
			p.str(cell)
			for n := w[i*most+c] - utf8.RuneCountInString(cell); n > 0; n-- {
				p.buf = append(p.buf, ' ')
			}
		}
		p.str(r.last)
		p.buf = append(p.buf, '\n')
	}
}

// kv is one key of a composite literal written one key a line: either a
// value that fits on the line, or block, which writes a multi-line value
// from the current position, at the key's indentation.
type kv struct {
	key   string
	val   string
	block func(indent int)
}

// fitsOneLine is go/printer's exprList rule for a key: value pair on a
// line of its own: it lines up with its neighbours if the pair, printed on
// one line, is at most 1e6 bytes; otherwise (and when the value spans
// lines) it is written as "key: value" and ends the alignment.
func fitsOneLine(key, val string) bool { return len(key)+2+len(val) <= 1e6 }

// values writes "{", the pairs one a line at indent+1, and "}" at indent.
// Consecutive pairs that fit on one line share a column for their values.
func (p *printer) values(indent int, kvs []kv) {
	p.str("{\n")
	var pending []row
	flush := func() {
		p.rows(indent+1, pending)
		pending = pending[:0]
	}
	for _, x := range kvs {
		switch {
		case x.block == nil && fitsOneLine(x.key, x.val):
			pending = append(pending, row{cells: []string{x.key + ":"}, last: x.val + ","})
		case x.block == nil:
			flush()
			p.line(indent+1, x.key+": "+x.val+",")
		default:
			flush()
			p.tabs(indent + 1)
			p.str(x.key + ": ")
			x.block(indent + 1)
			p.str(",\n")
		}
	}
	flush()
	p.tabs(indent)
	p.str("}")
}

// quote is a Go interpreted string literal (strconv.Quote).
func quote(s string) string { return strconv.Quote(s) }

// tag is a struct tag `json:"name"`: a raw string
// when it can be one, an interpreted literal otherwise.
func tag(name string) string {
	s := "json:" + strconv.Quote(name)
	if strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}
