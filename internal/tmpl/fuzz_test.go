package tmpl

import (
	"strings"
	"testing"
)

// Run longer with: go test ./internal/tmpl -fuzz FuzzParse -fuzztime 30s
func FuzzParse(f *testing.F) {
	f.Add("graph/{entityNames}")
	f.Add("{{x}}{y}}")
	f.Fuzz(func(t *testing.T, s string) {
		segs, err := Parse(s)
		if err != nil {
			return
		}
		// Writing the segments back, escaped, gives the template again.
		var b strings.Builder
		for _, seg := range segs {
			if (seg.Text == "") == (seg.Placeholder == "") {
				t.Fatalf("segment %+v sets not exactly one field", seg)
			}
			if seg.Placeholder != "" {
				b.WriteString("{" + seg.Placeholder + "}")
			} else {
				b.WriteString(strings.NewReplacer("{", "{{", "}", "}}").Replace(seg.Text))
			}
		}
		if b.String() != s {
			t.Fatalf("round trip %q → %q", s, b.String())
		}
	})
}
