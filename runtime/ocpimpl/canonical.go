package ocpimpl

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// CanonicalJSON returns the canonical encoding of a JSON value: object keys
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
func CanonicalJSON(v any) ([]byte, error) {
	raw, err := jsonBytes(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("canonical JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("canonical JSON: more than one value")
	}
	return encodeCanonical(canonicalNumbers(tree))
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
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return "", fmt.Errorf("schema fingerprint: %w", err)
	}
	b, err := encodeCanonical(tree)
	if err != nil {
		return "", err
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

func encodeCanonical(tree any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// canonicalNumbers replaces, in place, every json.Number of a tree decoded
// with UseNumber by its canonical form.
func canonicalNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonicalNumbers(e)
		}
	case json.Number:
		return json.Number(CanonicalNumber(string(x)))
	}
	return v
}

// CanonicalNumber returns the canonical form of a JSON number literal (see
// [CanonicalJSON]). A string that is not a JSON number comes back as is.
func CanonicalNumber(lit string) string {
	neg, digits, exp, ok := decimal(lit)
	if !ok {
		return lit
	}
	if f, err := strconv.ParseFloat(lit, 64); err == nil {
		short := strconv.FormatFloat(f, 'g', -1, 64)
		if sneg, sd, se, ok := decimal(short); ok && sd == digits && (se == exp || digits == "") && (sneg == neg || digits == "") {
			b, err := json.Marshal(f)
			if err == nil {
				return string(b)
			}
		}
	}
	// Not held by a float64: the exact decimal value 0.DIGITS × 10^exp.
	if digits == "" {
		return "0"
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch n := len(digits); {
	case exp >= n && exp <= 64: // an integer
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp-n))
	case exp > 0 && exp < n && n <= 64: // a fraction with an integer part
		b.WriteString(digits[:exp])
		b.WriteByte('.')
		b.WriteString(digits[exp:])
	case exp <= 0 && n-exp <= 64: // 0.000DIGITS
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -exp))
		b.WriteString(digits)
	default:
		b.WriteString(digits[:1])
		if n > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		e := exp - 1
		if e >= 0 {
			b.WriteString("e+")
		} else {
			b.WriteString("e-")
			e = -e
		}
		b.WriteString(strconv.Itoa(e))
	}
	return b.String()
}

// decimal splits a JSON number literal into its sign and its value
// 0.DIGITS × 10^exp, DIGITS without leading or trailing zeros ("" for
// zero). ok is false for a string that is not a JSON number, or whose
// exponent does not fit an int32.
func decimal(lit string) (neg bool, digits string, exp int, ok bool) {
	s := lit
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	mant, e, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) || (len(intPart) > 1 && intPart[0] == '0') {
		return false, "", 0, false
	}
	if hasExp {
		n, err := strconv.ParseInt(e, 10, 32)
		if err != nil {
			return false, "", 0, false
		}
		exp = int(n)
	}
	all := intPart + frac
	exp += len(intPart)
	trimmed := strings.TrimLeft(all, "0")
	exp -= len(all) - len(trimmed)
	digits = strings.TrimRight(trimmed, "0")
	if digits == "" {
		exp = 0
	}
	return neg, digits, exp, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Fingerprint returns "sha256:" and the hex SHA-256 of canonical bytes.
func Fingerprint(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}
