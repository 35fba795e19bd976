package model

import (
	"encoding/json"
	"testing"

	"github.com/ocpgen/ocpgen/runtime/ocpimpl"
)

var fingerprintCases = []string{
	`{}`, `{"a":[1,1.5,-0,0,1e21,1e-7,100,9007199254740993,123456789012345,1234567890123456,0.1,2.5e-7]}`,
	`{"a":1e400}`, `{"a":-1e400}`, `{"a":"\ufffd"}`, "{\"a\":\"\xff\"}", `{"a":"\u2028\n\u0001 ` + "\ufffd" + `"}`,
	`{"a":1e-400}`, `{"a":[true,false,null,{"b":"1,2]}"}]}`, `[0.30000000000000004, 5e-324, 1.7976931348623157e308]`,
	`{"a":"\\ufffd"}`,
}

// checkFingerprint compares schemaFingerprint with
// ocpimpl.SchemaFingerprint on the canonical JSON of raw.
func checkFingerprint(t *testing.T, raw []byte) {
	t.Helper()
	canon, err := ocpimpl.CanonicalJSON(raw)
	if err != nil {
		return
	}
	want, werr := ocpimpl.SchemaFingerprint(canon)
	got, gerr := schemaFingerprint(canon)
	if got != want || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("%s: schemaFingerprint = %q, %v; want %q, %v", canon, got, gerr, want, werr)
	}
}

func TestSchemaFingerprint(t *testing.T) {
	for _, c := range fingerprintCases {
		checkFingerprint(t, []byte(c))
	}
	fast, all := 0, 0
	for _, c := range corpusSchemas(t) {
		for _, raw := range []json.RawMessage{c.input, c.output} {
			if raw == nil {
				continue
			}
			all++
			checkFingerprint(t, raw)
			if canon, _ := ocpimpl.CanonicalJSON(raw); floatsAsWritten(canon) {
				fast++
			}
		}
	}
	if fast != all || all < 500 {
		t.Fatalf("%d of %d corpus schemas take the fast path, want every one of at least 500", fast, all)
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
