package canon

import (
	"encoding/json"
	"testing"
)

func TestCanonicalNumber(t *testing.T) {
	for lit, want := range map[string]string{
		// Held by a float64 as written: encoding/json's form, as before.
		"1": "1", "1.0": "1", "1e2": "100", "1E+2": "100", "0.1": "0.1", "-0": "-0", "0.0": "0",
		"2.5e-7": "2.5e-7", "1e21": "1e+21", "9007199254740992": "9007199254740992", "-1.50": "-1.5",
		// Not held by a float64: exact.
		"9007199254740993":         "9007199254740993",
		"-9223372036854775808":     "-9223372036854775808",
		"9223372036854775807":      "9223372036854775807",
		"18446744073709551615":     "18446744073709551615",
		"9007199254740993.0":       "9007199254740993",
		"90071992547409930e-1":     "9007199254740993",
		"0.1000000000000000000001": "0.1000000000000000000001",
		"1e400":                    "1e+400",
		"-12.5e-400":               "-1.25e-399",
		"1e99999999999":            "1e99999999999", // exponent beyond int32: kept as written
	} {
		if got := Number(lit); got != want {
			t.Errorf("Number(%s) = %s, want %s", lit, got, want)
		}
	}
}

// TestCanonicalJSONKeepsNumbers: a schema's numbers survive canonical JSON
// exactly (issue 15 item 7), and the canonical form is still valid JSON.
func TestCanonicalJSONKeepsNumbers(t *testing.T) {
	in := `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993,"minimum":-9223372036854775808,"multipleOf":1.0}}}`
	got, err := JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"properties":{"n":{"maximum":9007199254740993,"minimum":-9223372036854775808,"multipleOf":1,"type":"integer"}},"type":"object"}`
	if string(got) != want {
		t.Fatalf("JSON =\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Fatal("not valid JSON")
	}
}

// TestSchemaFingerprintLiveAndGenerated: the fingerprint of a schema read
// exactly (the generator's side) is the one of the same schema decoded by a
// go-sdk client into float64s (the live side).
func TestSchemaFingerprintLiveAndGenerated(t *testing.T) {
	in := `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740993}}}`
	canon, err := JSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := SchemaFingerprint(canon)
	if err != nil {
		t.Fatal(err)
	}
	var live any
	if err := json.Unmarshal([]byte(in), &live); err != nil {
		t.Fatal(err)
	}
	got, err := SchemaFingerprint(live)
	if err != nil {
		t.Fatal(err)
	}
	if got != gen {
		t.Fatalf("live %s, generated %s", got, gen)
	}
	if _, err := SchemaFingerprint([]byte(`{"maximum":1e400}`)); err == nil {
		t.Fatal("1e400: no error")
	}
}
