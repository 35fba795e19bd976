package model

import (
	"slices"
	"testing"
)

// safeLinesRef is SafeLines without its fast path for plain text: every
// input through safeText.
func safeLinesRef(s string) []string { return safeLines(safeText(s)) }

var safeLinesSeeds = []string{
	"", " ", "\n", "a", "a \n\n\n b  ", "Returns the sum.\n\nArgs:\n  x: int", "~\x7f", "\x1fx", "a\tb", "a\r\nb\rc",
	"caf\u00e9", "\xff", "a\u2028b", "\u202ex", "\ufeffa", " \n \n", "#", "x\x00y", "A\x85B",
}

// TestSafeLinesPlain compares SafeLines with safeLinesRef, and checks that
// plainText holds only for text safeText leaves as it is.
func TestSafeLinesPlain(t *testing.T) {
	for _, s := range safeLinesSeeds {
		checkSafeLines(t, s)
	}
	for c := range 256 {
		checkSafeLines(t, "a"+string(rune(c))+"b")
		checkSafeLines(t, "a"+string([]byte{byte(c)})+"b")
	}
}

func checkSafeLines(t *testing.T, s string) {
	t.Helper()
	if got, want := SafeLines(s), safeLinesRef(s); !slices.Equal(got, want) {
		t.Fatalf("SafeLines(%q) = %q, want %q", s, got, want)
	}
	if plainText(s) && safeText(s) != s {
		t.Fatalf("plainText(%q), but safeText gives %q", s, safeText(s))
	}
}

func FuzzSafeLines(f *testing.F) {
	for _, s := range safeLinesSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkSafeLines(t, s) })
}
