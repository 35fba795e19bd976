package jsonscan

import (
	"encoding/json"
	"testing"
)

var unquoteCases = []string{
	``, `a`, `\"\\\/\b\f\n\r\t`, `\u0000\u001f\u0041\u00e9\u2028\uffff`, `\ud83d\ude00`, `\ud800`, `\udc00`, `\ud800\u0041`,
	`\ud800\ud800\udc00`, `\ud83d\ude00\ude00`, "\xff", "a\xc3", "é\xe2\x82", `\u12AbX`, `\ud800\u12`, "a\x01", `\x`, `\u00`,
}

// checkUnquote compares Unquote and ScanString with encoding/json on the
// JSON string quoted.
func checkUnquote(t *testing.T, quoted []byte) {
	t.Helper()
	var want string
	err := json.Unmarshal(quoted, &want)
	end, plain, ok := ScanString(quoted, 0)
	if (ok && end == len(quoted)) != (err == nil) {
		t.Fatalf("%q: ScanString = %d, %v, %v; json.Unmarshal: %v", quoted, end, plain, ok, err)
	}
	if err != nil {
		return
	}
	if plain != (string(quoted[1:len(quoted)-1]) == want) && plain {
		t.Fatalf("%q: ScanString says plain, but it holds %q", quoted, want)
	}
	if got, _ := Unquote(nil, quoted); got != want {
		t.Fatalf("%q: Unquote = %q, want %q", quoted, got, want)
	}
	if SkipString(quoted, 0) != len(quoted) {
		t.Fatalf("%q: SkipString = %d", quoted, SkipString(quoted, 0))
	}
}

func TestUnquote(t *testing.T) {
	for _, c := range unquoteCases {
		checkUnquote(t, []byte(`"`+c+`"`))
	}
}

func FuzzUnquote(f *testing.F) {
	for _, c := range unquoteCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, inner []byte) {
		checkUnquote(t, append(append([]byte{'"'}, inner...), '"'))
	})
}
