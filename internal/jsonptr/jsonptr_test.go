package jsonptr

import "testing"

func TestPointer(t *testing.T) {
	if got := Pointer("tools", "a/b~c", ""); got != "/tools/a~1b~0c/" {
		t.Errorf("Pointer = %q", got)
	}
	if Pointer() != "" {
		t.Error("Pointer() is not empty")
	}
	for _, s := range []string{"", "a", "~1", "/~", "~01"} {
		if got := UnescapeToken(EscapeToken(s)); got != s {
			t.Errorf("round trip of %q gives %q", s, got)
		}
	}
}
