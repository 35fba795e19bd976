package argengine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/ocpgen/ocpgen/runtime/internal/argengine/argref"
)

// BenchmarkArgs measures Check (the gate's step 2) alone and its parts, on
// the read's arguments: what the gate does (checkArgs) against validating with
// jsonschema-go alone (schema resolved once, reused; instance decoded by
// encoding/json, as any caller of jsonschema-go must).
func BenchmarkArgs(b *testing.B) {
	e, err := Compile([]byte(searchNodesSchema), reflect.TypeFor[SearchNodesArgs](), testLimits)
	if err != nil {
		b.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(searchNodesSchema), &s); err != nil {
		b.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	raw := []byte(searchNodesArgs)
	b.Run("gate-checkArgs-before", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := checkArgsBefore(e, rs, raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gate-checkArgs", func(b *testing.B) {
		all := allFields(e)
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := e.Check(raw, all); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonschema-go-unmarshal+validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				b.Fatal(err)
			}
			if err := rs.Validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	var inst any
	_ = json.Unmarshal(raw, &inst)
	b.Run("jsonschema-go-validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := rs.Validate(inst); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("tape-parse+compiled-validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t := getTape()
			if err := t.parse(string(raw)); err != nil {
				b.Fatal(err)
			}
			if err := e.check.validate(t, 0); err != nil {
				b.Fatal(err)
			}
			putTape(t)
		}
	})
	b.Run("decode-typed+remarshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a, err := decodeArgs(reflect.TypeFor[SearchNodesArgs](), raw)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(a); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// checkArgsBefore is step 2 as it was before the tape and the compiled
// validator (kept here only to measure what they bought, in the same run):
// a token-by-token strict parse, an encoding/json decode into an any for
// jsonschema-go, the typed decode with a json.Decoder, the re-encoding, a
// second strict parse and a tree comparison.
func checkArgsBefore(e *Engine, rs *jsonschema.Resolved, raw []byte) (any, []byte, error) {
	tree, err := argref.ParseStrict(raw, MaxArgsDepth)
	if err != nil {
		return nil, nil, err
	}
	obj, ok := tree.(map[string]any)
	if !ok {
		return nil, nil, errors.New("arguments are not a JSON object")
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !e.props[k] {
			return nil, nil, fmt.Errorf("argument %s is not a property of the tool's schema", truncQuote(k))
		}
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return nil, nil, err
	}
	if err := rs.Validate(inst); err != nil {
		return nil, nil, fmt.Errorf("schema: %w", err)
	}
	args := reflect.New(e.typ).Interface()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(args); err != nil {
		return nil, nil, fmt.Errorf("decode: %w", err)
	}
	fwd, err := json.Marshal(args)
	if err != nil {
		return nil, nil, err
	}
	back, err := argref.ParseStrict(fwd, MaxArgsDepth)
	if err != nil {
		return nil, nil, err
	}
	if !argref.Equal(tree, back) {
		return nil, nil, errors.New("round trip")
	}
	return args, fwd, nil
}
