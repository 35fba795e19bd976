package ocpimpl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// CanonicalJSON returns the canonical encoding of a JSON value: object keys
// sorted, no insignificant white space, no HTML escaping, and numbers in the
// form encoding/json gives a float64. v may be JSON bytes ([]byte or
// json.RawMessage) or any value encoding/json can marshal (such as the
// map[string]any a go-sdk client decodes a tool's inputSchema into), so a
// snapshot file and a live tools/list give the same bytes for the same schema.
func CanonicalJSON(v any) ([]byte, error) {
	var raw []byte
	switch x := v.(type) {
	case []byte:
		raw = x
	case json.RawMessage:
		raw = x
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Fingerprint returns "sha256:" and the hex SHA-256 of canonical bytes.
func Fingerprint(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}
