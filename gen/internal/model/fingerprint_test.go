package model

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/load"
	"github.com/ocpgen/ocpgen/internal/canon"
	"github.com/ocpgen/ocpgen/internal/testcorpus"
)

var fingerprintCases = []string{
	`{}`, `{"a":[1,1.5,-0,0,1e21,1e-7,100,9007199254740993,123456789012345,1234567890123456,0.1,2.5e-7]}`,
	`{"a":1e400}`, `{"a":-1e400}`, `{"a":"\ufffd"}`, "{\"a\":\"\xff\"}", `{"a":"\u2028\n\u0001 ` + "\ufffd" + `"}`,
	`{"a":1e-400}`, `{"a":[true,false,null,{"b":"1,2]}"}]}`, `[0.30000000000000004, 5e-324, 1.7976931348623157e308]`,
	`{"a":"\\ufffd"}`,
}

// checkFingerprint compares schemaFingerprint with
// canon.SchemaFingerprint on the canonical JSON of raw, made and
// reported on as the loader makes it (canon.Append).
func checkFingerprint(t *testing.T, raw []byte) {
	t.Helper()
	if _, err := canon.JSON(raw); err != nil {
		return
	}
	canonical, float64s := canon.Append(nil, raw)
	want, werr := canon.SchemaFingerprint(canonical)
	got, gerr := schemaFingerprint(&load.Tool{InputSchemaCanonical: canonical, InputSchemaFloat64s: float64s})
	if got != want || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("%s: schemaFingerprint = %q, %v; want %q, %v", canonical, got, gerr, want, werr)
	}
}

func TestSchemaFingerprint(t *testing.T) {
	for _, c := range fingerprintCases {
		checkFingerprint(t, []byte(c))
	}
	for _, c := range corpusSchemas(t) {
		for _, raw := range []json.RawMessage{c.input, c.output} {
			if raw != nil {
				checkFingerprint(t, raw)
			}
		}
	}
	// The loader finds every input schema of the corpus on the fast path.
	fast, all := 0, 0
	for _, f := range testcorpus.Files(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, ds := load.LoadSnapshot(f, data)
		if s == nil {
			t.Fatalf("%s: %v", f, ds)
		}
		for _, tool := range s.Tools {
			all++
			if tool.InputSchemaFloat64s {
				fast++
			}
		}
	}
	if fast != all || all < 400 {
		t.Fatalf("%d of %d corpus input schemas take the fast path, want every one of at least 400", fast, all)
	}
}

func FuzzSchemaFingerprint(f *testing.F) {
	for _, c := range fingerprintCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) {
			checkFingerprint(t, raw)
		}
	})
}
