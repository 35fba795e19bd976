package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

// canonicalJSONRef is JSON by encoding/json alone: v, which must
// be exactly one JSON value, decoded into maps (numbers kept as json.Number, each made canonical by
// Number) and encoded again. It is the oracle of the one-pass
// writer ([Append]) that JSON uses.
func canonicalJSONRef(v any) ([]byte, error) {
	raw, err := jsonBytes(v)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, new(json.RawMessage)); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	return encodeRef(canonicalNumbersRef(tree))
}

// schemaFingerprintRef is SchemaFingerprint as it was: v decoded into
// float64s and encoded again.
func schemaFingerprintRef(v any) (string, error) {
	raw, err := jsonBytes(v)
	if err != nil {
		return "", err
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return "", fmt.Errorf("schema fingerprint: %w", err)
	}
	b, err := encodeRef(tree)
	if err != nil {
		return "", err
	}
	return Fingerprint(b), nil
}

func encodeRef(tree any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func canonicalNumbersRef(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalNumbersRef(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonicalNumbersRef(e)
		}
	case json.Number:
		return json.Number(Number(string(x)))
	}
	return v
}

// canonicalCases are inputs for the comparison with the oracles: valid
// JSON of every kind, and what json.Decoder and json.Unmarshal refuse or
// read in part.
var canonicalCases = []string{
	`{}`, `[]`, ` {"b":1, "a":[true,false,null,"x"]} `, `{"a":1,"a":2,"b":{"a":3,"a":{"z":1,"y":2}}}`,
	`[1, 1.0, 1e2, 0.1, 2.5e-7, -0, 0, -0.0, 9007199254740993, -9223372036854775808, 1e400, -1e400, 1e-400, 0.1000000000000000000001, 123456789012345, 1234567890123456, 1E21, 1e-7, 100000000000000000000000, 1e99999999999]`,
	`"plain"`, `"esc \" \\ \/ \b \f \n \r \t \u0001 \u001f \u007f \u00e9 \ud83d\ude00"`, `"\u2028\u2029 ` + "\u2028" + `"`,
	"\"bad \xff utf8\"", `"\ud800 lone"`, `"\udc00\ud800\u0041"`, `"<>&"`, `{"\u00e9":1,"é":2,"e":3,"E":4,"":5}`, `{"\ud800":1,"\ufffd":2}`,
	`[{"a":[{"b":[]}]}]`, `-12`, `012`, `true`, `{"a":"\\ufffd"}`, `{"m":{"x":1e400,"x":1}}`, `{"b":1e400,"a":1e401}`, `{"b":[1e400],"a":{"c":1e401},"b":2}`,
	// Not one valid value.
	``, ` `, `{`, `[1,]`, `1 2`, `{} }`, `[1]]`, `1]`, `{}x`, `nul`, `"abc`, `{"a" 1}`, `1.5.3`, "\x00",
}

// TestCanonicalJSONRefusesTrailingData: bytes after the one value are an
// error, whatever they are (json.Decoder alone would read `{} }` as {}).
func TestCanonicalJSONRefusesTrailingData(t *testing.T) {
	for _, c := range []string{`{} }`, `1]`, `[1]]`, `1 2`, `{}x`, `{} {}`, `"a""b"`} {
		if got, err := JSON([]byte(c)); err == nil || !strings.Contains(err.Error(), "after top-level value") {
			t.Errorf("JSON(%#q) = %#q, %v; want the syntax error of data after the value", c, got, err)
		}
	}
}

// TestCanonicalJSONMatchesRef compares JSON and SchemaFingerprint
// with the map-based oracles on canonicalCases and the corpus.
func TestCanonicalJSONMatchesRef(t *testing.T) {
	for _, c := range canonicalCases {
		checkCanonicalRef(t, []byte(c))
	}
	for _, raw := range corpusSchemas(t) {
		checkCanonicalRef(t, raw)
	}
	for _, f := range testcorpus.Files(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkCanonicalRef(t, data)
	}
	// Values that are not JSON bytes.
	for _, v := range []any{map[string]any{"b": 1.5, "a": []any{"<x>", nil}}, struct{ N float64 }{1e21}, nil, "[1, 2]", json.RawMessage(`{"z":1,"a":2}`)} {
		checkCanonicalRef(t, v)
	}
}

func FuzzCanonicalJSON(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkCanonicalRef(t, raw)
	})
}

// checkCanonicalRef compares JSON(v) with canonicalJSONRef(v),
// and SchemaFingerprint with schemaFingerprintRef on v and on its
// canonical form: the same bytes, the same error text.
func checkCanonicalRef(t *testing.T, v any) {
	t.Helper()
	got, gerr := JSON(v)
	want, werr := canonicalJSONRef(v)
	if !bytes.Equal(got, want) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Fatalf("JSON(%q) = %q, %v; want %q, %v", v, got, gerr, want, werr)
	}
	fps := []any{v}
	if werr == nil {
		fps = append(fps, want)
		// The writer's report that lets the generator skip
		// SchemaFingerprint: every number already as its float64.
		if canon, float64s := Append(nil, want); float64s {
			if fp, err := schemaFingerprintRef(canon); err != nil || fp != Fingerprint(canon) {
				t.Fatalf("%q: Append reports every number as its float64, but its fingerprint is %q, %v, not %q", want, fp, err, Fingerprint(canon))
			}
		}
	}
	for _, x := range fps {
		got, gerr := SchemaFingerprint(x)
		want, werr := schemaFingerprintRef(x)
		if got != want || fmt.Sprint(gerr) != fmt.Sprint(werr) {
			t.Fatalf("SchemaFingerprint(%q) = %q, %v; want %q, %v", x, got, gerr, want, werr)
		}
		var ge, we *json.UnmarshalTypeError
		if errors.As(gerr, &ge) != errors.As(werr, &we) || ge != nil && ge.Offset != we.Offset {
			t.Fatalf("SchemaFingerprint(%q): error %#v, want %#v", x, ge, we)
		}
	}
}
