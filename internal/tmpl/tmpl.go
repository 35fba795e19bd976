// Package tmpl parses the resource and confirm-prompt templates of a
// classification. The generator checks them with it, and the runtime renders
// them with it, so both read a template the same way.
package tmpl

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Segment is one piece of a resource or confirm-prompt template: exactly one
// of Text (literal text) and Placeholder (an argument name) is set.
type Segment struct {
	Text        string
	Placeholder string
}

// Parse splits a template into literal text and {name} placeholders.
// "{{" and "}}" stand for literal braces. An unclosed "{", an empty "{}", a
// "{" inside a placeholder, a lone "}" and invalid UTF-8 are errors; positions in the error
// are 1-based characters of s. Adjacent literal text is merged into one
// segment; an empty template has no segments. Whether a name is an argument
// of the tool is the caller's check.
func Parse(s string) ([]Segment, error) {
	if !utf8.ValidString(s) {
		return nil, errors.New("template is not valid UTF-8")
	}
	var segs []Segment
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			segs = append(segs, Segment{Text: text.String()})
			text.Reset()
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '{':
			if i+1 < len(rs) && rs[i+1] == '{' {
				text.WriteRune('{')
				i++
				continue
			}
			open := i
			j := i + 1
			for j < len(rs) && rs[j] != '}' {
				if rs[j] == '{' {
					return nil, fmt.Errorf("\"{\" at character %d is inside the placeholder opened at character %d", j+1, open+1)
				}
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("\"{\" at character %d is not closed", open+1)
			}
			if j == open+1 {
				return nil, fmt.Errorf("empty placeholder \"{}\" at character %d", open+1)
			}
			flush()
			segs = append(segs, Segment{Placeholder: string(rs[open+1 : j])})
			i = j
		case '}':
			if i+1 < len(rs) && rs[i+1] == '}' {
				text.WriteRune('}')
				i++
				continue
			}
			return nil, fmt.Errorf("\"}\" at character %d has no \"{\" (write \"}}\" for a literal brace)", i+1)
		default:
			text.WriteRune(rs[i])
		}
	}
	flush()
	return segs, nil
}
