package model

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
)

var mayHoldPatternCases = []string{
	`{"type":"object"}`, `{"pattern":"a"}`, `{"Pattern":"a"}`, `{"PATTERN":"a"}`, `{"p\u0061ttern":"a"}`,
	`{"patternProperties":{"^a":{}}}`, `{"properties":{"pattern":{"type":"string"}}}`, `{"x-pattern":{"pattern":"(?=a)"}}`,
	`{"description":"\u0022pattern"}`, `{"enum":["pattern"]}`, `{"type":"string","patterN":"(?<=a)"}`,
}

// checkPatternSkip checks mayHoldPattern's claim on raw: when it is false,
// the encoding patternWarnings walks holds no "pattern".
func checkPatternSkip(t *testing.T, raw []byte) {
	t.Helper()
	var s jsonschema.Schema
	if json.Unmarshal(raw, &s) != nil {
		return
	}
	enc, err := json.Marshal(&s)
	if err != nil {
		return
	}
	if !mayHoldPattern(raw) && bytes.Contains(enc, []byte("pattern")) {
		t.Fatalf("%s: mayHoldPattern false, but its encoding %s holds pattern", raw, enc)
	}
}

func TestMayHoldPattern(t *testing.T) {
	// Only ASCII runes fold to the letters of "pattern": a key can spell
	// it only in ASCII (encoding/json matches keys to fields by folding).
	for _, c := range "pattern" {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= 0x80 {
				t.Fatalf("%q folds to %q", c, r)
			}
		}
	}
	for _, c := range mayHoldPatternCases {
		checkPatternSkip(t, []byte(c))
	}
	skipped := 0
	for _, c := range corpusSchemas(t) {
		for _, raw := range []json.RawMessage{c.input, c.output} {
			if raw != nil {
				checkPatternSkip(t, raw)
				if !mayHoldPattern(raw) {
					skipped++
				}
			}
		}
	}
	if skipped < 400 {
		t.Fatalf("only %d corpus schemas skip the pattern walk", skipped)
	}
}

func FuzzMayHoldPattern(f *testing.F) {
	for _, c := range mayHoldPatternCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkPatternSkip(t, raw)
	})
}
