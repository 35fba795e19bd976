// Package argref is the reference the argument engine's tests hold it to:
// a strict parse of one JSON value (encoding/json's tokens, numbers kept as
// json.Number) and a JSON equality with exact numbers. It is the argument
// check as it was before the engine's one-pass tape, kept for the
// differential tests and fuzz targets of runtime/internal/argengine and
// runtime/ocp and for the before/after benchmark. Only tests import it.
package argref

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
)

// ParseStrict parses one JSON value with numbers kept as json.Number,
// refusing duplicate object keys (encoding/json keeps the last silently),
// nesting deeper than depth, and trailing data.
func ParseStrict(raw []byte, depth int) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec, 0, depth)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the arguments")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth, limit int) (any, error) {
	if depth > limit {
		return nil, errors.New("arguments nest too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		m := make(map[string]any)
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k, ok := kt.(string)
			if !ok {
				return nil, errors.New("malformed object")
			}
			if _, dup := m[k]; dup {
				return nil, fmt.Errorf("duplicate key %q", k)
			}
			v, err := parseValue(dec, depth+1, limit)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return m, nil
	case '[':
		a := []any{}
		for dec.More() {
			v, err := parseValue(dec, depth+1, limit)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		return a, nil
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// Equal compares trees from ParseStrict; numbers compare numerically
// (exactly, as rationals).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		// Exact rational comparison; math/big refuses absurd exponents.
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		return okx && oky && rx.Cmp(ry) == 0
	case string, bool, nil:
		return a == b
	}
	return false
}
