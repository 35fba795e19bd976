// Package canon writes the canonical JSON of tool schemas and the
// fingerprints computed over it: the one encoding that the generator
// writes into a generated descriptor and the gate recomputes from a live
// tools/list, so that both sides compare the same bytes.
package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
)

// JSON returns the canonical encoding of a JSON value: object keys
// sorted, no insignificant white space, no HTML escaping, and every number
// kept exactly. v may be JSON bytes ([]byte or json.RawMessage) or any value
// encoding/json can marshal (such as the map[string]any a go-sdk client
// decodes a tool's inputSchema into).
//
// A number that a float64 holds as written (1, 1.0, 1e2, 0.1, 2.5e-7) is
// written as encoding/json writes that float64 (1, 1, 100, 0.1, 2.5e-7), as
// it always was. Any other number (9007199254740993, -9223372036854775808,
// 1e400, 0.1000000000000000000001) is written exactly: its decimal value
// with no leading or trailing zeros, as an integer or decimal fraction when
// that takes at most 64 digits, else as D.DDDe±N. Two literals with the same
// decimal value give the same bytes; none is rounded.
func JSON(v any) ([]byte, error) {
	raw, err := jsonBytes(v)
	if err != nil {
		return nil, err
	}
	if !json.Valid(raw) {
		// raw must be exactly one JSON value: json.Unmarshal's syntax
		// error, trailing data after the value included.
		return nil, fmt.Errorf("canonical JSON: %w", json.Unmarshal(raw, new(json.RawMessage)))
	}
	out, _ := Append(make([]byte, 0, len(raw)), raw)
	return out, nil
}

// SchemaFingerprint returns the fingerprint by which a generated descriptor
// and a live tools/list are compared: [Fingerprint] of v's canonical JSON
// with every number as the float64 encoding/json decodes it to. Both sides
// call it. A go-sdk client decodes a live inputSchema into float64s (v1.8.0
// has no other way to read a tools/list), so a fingerprint over exact
// numbers would never match a schema holding 9007199254740993; this one
// matches it, and it still tells every change a go-sdk client can observe.
// A number beyond float64's range is an error, as it is for the go-sdk.
func SchemaFingerprint(v any) (string, error) {
	raw, err := jsonBytes(v)
	if err != nil {
		return "", err
	}
	if !json.Valid(raw) {
		// json.Unmarshal's syntax error, whatever it decodes into.
		return "", fmt.Errorf("schema fingerprint: %w", json.Unmarshal(raw, new(json.RawMessage)))
	}
	b, bad, end := AppendFloat64(make([]byte, 0, len(raw)), raw)
	if bad != nil {
		// The error json.Unmarshal into an any returns.
		return "", fmt.Errorf("schema fingerprint: %w", &json.UnmarshalTypeError{Value: "number " + string(bad), Type: reflect.TypeFor[float64](), Offset: int64(end) + 1})
	}
	return Fingerprint(b), nil
}

func jsonBytes(v any) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		return x, nil
	case json.RawMessage:
		return x, nil
	case string:
		return []byte(x), nil
	}
	return json.Marshal(v)
}

// Fingerprint returns "sha256:" and the hex SHA-256 of canonical bytes.
func Fingerprint(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}
