package canon

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// checkPlainInteger: isPlainInteger holds exactly for the integer
// literals of at most 15 digits, other than -0, that encoding/json writes
// back unchanged from their float64, and Number keeps
// every one of them as it is.
func checkPlainInteger(t *testing.T, lit string) {
	got := isPlainInteger([]byte(lit))
	want := false
	if json.Valid([]byte(lit)) && !strings.ContainsAny(lit, ".eE") && len(strings.TrimPrefix(lit, "-")) <= 15 && lit != "-0" {
		f, err := strconv.ParseFloat(lit, 64)
		b, err2 := json.Marshal(f)
		want = err == nil && err2 == nil && string(b) == lit
	}
	if got != want {
		t.Fatalf("isPlainInteger(%q) = %v, want %v", lit, got, want)
	}
	if got && Number(lit) != lit {
		t.Fatalf("isPlainInteger(%q), but Number writes %q", lit, Number(lit))
	}
}

func TestIsPlainInteger(t *testing.T) {
	for _, lit := range []string{"", "-", "0", "-0", "00", "01", "1", "-1", "10", "123456789012345", "1234567890123456",
		"-123456789012345", "1.0", "1e3", "+1", " 1", "1 ", "9007199254740993", "999999999999999", "x"} {
		checkPlainInteger(t, lit)
	}
}

func FuzzIsPlainInteger(f *testing.F) {
	for _, s := range []string{"0", "-0", "01", "123456789012345", "1e3"} {
		f.Add(s)
	}
	f.Fuzz(checkPlainInteger)
}
