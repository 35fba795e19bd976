package tmpl

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in      string
		want    []Segment
		wantErr string
	}{
		{"", nil, ""},
		{"graph", []Segment{{Text: "graph"}}, ""},
		{"{id}", []Segment{{Placeholder: "id"}}, ""},
		{"graph/{entityNames}", []Segment{{Text: "graph/"}, {Placeholder: "entityNames"}}, ""},
		{"Delete {a} from {b}?", []Segment{
			{Text: "Delete "}, {Placeholder: "a"}, {Text: " from "}, {Placeholder: "b"}, {Text: "?"},
		}, ""},
		{"{a}{b}", []Segment{{Placeholder: "a"}, {Placeholder: "b"}}, ""},
		{"{{literal}}", []Segment{{Text: "{literal}"}}, ""},
		{"x{{{id}}}y", []Segment{{Text: "x{"}, {Placeholder: "id"}, {Text: "}y"}}, ""},
		{"é/{naïve}", []Segment{{Text: "é/"}, {Placeholder: "naïve"}}, ""},
		{"{a-b.c}", []Segment{{Placeholder: "a-b.c"}}, ""},
		{"graph/{id", nil, `"{" at character 7 is not closed`},
		{"é{", nil, `"{" at character 2 is not closed`},
		{"a{}", nil, `empty placeholder "{}" at character 2`},
		{"a}b", nil, `"}" at character 2 has no "{" (write "}}" for a literal brace)`},
		{"{a}}", nil, `"}" at character 4 has no "{" (write "}}" for a literal brace)`},
		{"{\xa0}", nil, `template is not valid UTF-8`},
		{"{a{b}", nil, `"{" at character 3 is inside the placeholder opened at character 1`},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("Parse(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}
