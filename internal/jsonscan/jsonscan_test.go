package jsonscan

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// decodesInto reports whether encoding/json decodes the object key key
// into a struct field tagged json:"name" (name a valid tag name): the
// reference for AppendFoldedName.
func decodesInto(t testing.TB, name, key string) bool {
	t.Helper()
	typ := reflect.StructOf([]reflect.StructField{{
		Name: "F", Type: reflect.TypeFor[*int](), Tag: reflect.StructTag(`json:"` + name + `"`),
	}})
	v := reflect.New(typ)
	data, err := json.Marshal(map[string]int{key: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v.Interface()); err != nil {
		t.Fatal(err)
	}
	return !v.Elem().Field(0).IsNil()
}

func checkFold(t *testing.T, name, key string) {
	if !IsValidTagName(name) || !json.Valid([]byte(strconv.Quote(key))) || strings.ToValidUTF8(key, "") != key {
		return
	}
	got := bytes.Equal(AppendFoldedName(nil, []byte(name)), AppendFoldedName(nil, []byte(key)))
	if want := decodesInto(t, name, key); got != want {
		t.Fatalf("key %q, field %q: folded names equal = %v, encoding/json decodes it = %v", key, name, got, want)
	}
}

func TestAppendFoldedName(t *testing.T) {
	names := []string{"a", "A", "z", "Z", "@", "[", "{", "ß", "ẞ", "K", "k", "\u212a", "ſ", "s", "S",
		"µ", "μ", "Μ", "ǅ", "ǆ", "Ǆ", "σ", "ς", "Σ", "ﬀ", "straße", "STRASSE", "İ", "ı", "i", "I", "name", "NAME", "nAmE"}
	for _, a := range names {
		for _, b := range names {
			checkFold(t, a, b)
		}
	}
}

func FuzzAppendFoldedName(f *testing.F) {
	for _, s := range []string{"Name", "nAME", "K", "\u212a", "ſ", "straße"} {
		f.Add(s, "name")
	}
	f.Fuzz(checkFold)
}

// checkString holds AppendString to encoding/json, with and without HTML
// escaping, AppendStringText to AppendString split between characters,
// and Plain to what AppendString copies.
func checkString(t *testing.T, s string) {
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString([]byte("x"), s, true); string(got) != "x"+string(want) {
		t.Fatalf("AppendString(%q, html) = %s, want %s", s, got[1:], want)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	if got := AppendString(nil, s, false); string(got) != strings.TrimSuffix(b.String(), "\n") {
		t.Fatalf("AppendString(%q) = %s, want %s", s, got, b.String())
	}
	// Split between two characters, the parts' texts are the text.
	for k := 0; k <= len(s); k++ {
		if k < len(s) && !utf8.RuneStart(s[k]) {
			continue
		}
		for _, html := range []bool{false, true} {
			whole := AppendString(nil, s, html)
			if got := AppendStringText(AppendStringText(nil, s[:k], html), s[k:], html); string(got) != string(whole[1:len(whole)-1]) {
				t.Fatalf("AppendStringText of %q and %q = %s, AppendString of both %s", s[:k], s[k:], got, whole)
			}
		}
	}
	for i := 0; i < len(s); i++ {
		for _, html := range []bool{false, true} {
			c := s[i : i+1]
			if got := string(AppendString(nil, c, html)); Plain(c[0], html) != (got == `"`+c+`"`) {
				t.Fatalf("Plain(%q, %v) = %v, but AppendString writes %s", c, html, Plain(c[0], html), got)
			}
		}
	}
}

func TestAppendString(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "plain", `"quoted" \ back`, "<a href='x'>&amp;</a>", "\b\f\n\r\t\x00\x1f\x7f",
		"\u2028\u2029", "é ü 日本", "\xff", "a\xc3", "\xe2\x80", "\xe2\x80\xa8x", "\xed\xa0\x80", string(all)} {
		checkString(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"plain", "<&>", "\u2028", "\xff", "\"\\\n"} {
		f.Add(s)
	}
	f.Fuzz(checkString)
}

// checkTagName holds IsValidTagName to encoding/json: a field tagged with
// a valid name is written under it, else under the Go field's name.
func checkTagName(t *testing.T, name string) {
	if name == "" || name == "F" || name == "-" || strings.ContainsAny(name, "`\"\\,") || strings.ToValidUTF8(name, "") != name {
		// Not a name a tag can spell as it is: a comma starts the
		// options, Tag.Get unquotes what is between the quotes, and a
		// bare "-" drops the field (the generator writes "-," for it).
		if name == "" && IsValidTagName(name) {
			t.Fatal(`IsValidTagName("") = true`)
		}
		return
	}
	typ := reflect.StructOf([]reflect.StructField{{
		Name: "F", Type: reflect.TypeFor[int](), Tag: reflect.StructTag(`json:"` + name + `"`),
	}})
	b, err := json.Marshal(reflect.New(typ).Interface())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	_, used := m[name]
	if got := IsValidTagName(name); got != used {
		t.Fatalf("IsValidTagName(%q) = %v, but encoding/json writes %s", name, got, b)
	}
}

func TestIsValidTagName(t *testing.T) {
	for _, s := range []string{"", "a", "F", "name", "a-b", "a b", "a.b", "ü", "日本", "a,b", "a'b", "a\\b", "!#$%&()*+-./:;<=>?@[]^_{|}~ ",
		"\x00", "\t", "a\u2028", "😀", "١٢", "a\u00a0"} {
		checkTagName(t, s)
	}
}

func FuzzIsValidTagName(f *testing.F) {
	for _, s := range []string{"name", "a b", "ü", "😀", "a\u00a0"} {
		f.Add(s)
	}
	f.Fuzz(checkTagName)
}
