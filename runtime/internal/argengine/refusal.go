package argengine

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ocpgen/ocpgen/internal/jsonptr"
)

// Rule names the rule a [Refusal] applies. The names are stable: they are
// what the gate audits and tells the model. Two kinds of rule exist:
//
//   - the arguments fail the tool's input schema (or are not a JSON object
//     at all): [RuleSchema] and [RuleSyntax] ([Rule.SchemaRule]);
//   - a documented rule of the engine refuses arguments that may well be
//     schema-valid: every other rule below.
type Rule string

const (
	// RuleSchema: the value fails the tool's input schema (the schema's
	// keyword is in the detail), or the arguments are not a JSON object.
	RuleSchema Rule = "schema"
	// RuleSyntax: the arguments are not JSON (RFC 8259, UTF-8): missing,
	// malformed, or followed by trailing data.
	RuleSyntax Rule = "json-syntax"

	// RuleLoneSurrogate: a \u escape of a lone UTF-16 surrogate, in a
	// string or a member name; it is no character, and decoding would
	// rewrite it to U+FFFD.
	RuleLoneSurrogate Rule = "lone-surrogate"
	// RuleDuplicateKey: an object has the same member name twice.
	RuleDuplicateKey Rule = "duplicate-key"
	// RuleNumberRange: a number beyond float64's range (1e400).
	RuleNumberRange Rule = "number-range"
	// RuleNumberLength: a number literal longer than [MaxNumberLen] bytes.
	RuleNumberLength Rule = "number-length"
	// RuleNumberExponent: a number whose exponent exceeds ±[MaxNumberExp].
	RuleNumberExponent Rule = "number-exponent"
	// RuleDepth: nesting deeper than [MaxArgsDepth].
	RuleDepth Rule = "nesting-depth"
	// RuleSize: the arguments are longer than the limit of bytes
	// ([Limits]).
	RuleSize Rule = "size"
	// RuleValues: the arguments hold more JSON values (every string,
	// number, literal, array, object, member value and element counts
	// one) than the limit ([Limits]).
	RuleValues Rule = "value-count"
	// RuleUndeclared: a top-level argument the schema does not declare as
	// a property; only declared ones are forwarded, whatever the schema
	// says of additional properties.
	RuleUndeclared Rule = "undeclared-property"
	// RuleGoType: the tool's Go argument type cannot hold the value (an
	// integer beyond int64, a member its struct does not declare, a type
	// the Go field does not have).
	RuleGoType Rule = "go-type"
	// RuleRoundTrip: the typed arguments re-encode to another JSON value
	// (a number float64 cannot hold exactly), so what is forwarded would
	// not be what was validated.
	RuleRoundTrip Rule = "round-trip"
	// RulePatternUntranslatable: the tool's schema has a pattern with no
	// ECMA-262 translation the engine can run, so every call of the tool
	// is refused, at the root (fail closed).
	RulePatternUntranslatable Rule = "pattern-untranslatable"
	// RuleParamHeader: an argument the tool's schema mirrors into an HTTP
	// header (x-mcp-header, MCP 2026-07-28) holds a value no such header
	// can carry: not a string, an integer within ±(2^53−1) or a boolean,
	// or a string whose header form exceeds [MaxParamHeaderBytes]
	// (paramheader.go).
	RuleParamHeader Rule = "mcp-header-value"
)

// Rules returns the engine's rules, in the order above.
func Rules() []Rule {
	return []Rule{RuleSchema, RuleSyntax, RuleLoneSurrogate, RuleDuplicateKey, RuleNumberRange,
		RuleNumberLength, RuleNumberExponent, RuleDepth, RuleSize, RuleValues, RuleUndeclared, RuleGoType,
		RuleRoundTrip, RulePatternUntranslatable, RuleParamHeader}
}

// SchemaRule reports whether r is of the first kind: the arguments fail
// the tool's schema.
func (r Rule) SchemaRule() bool { return r == RuleSchema || r == RuleSyntax }

// Refusal is the one error of the engine: every way [Engine.Check] refuses
// a call's arguments (the parse, the schema, the top-level properties, the
// typed decode, the round trip, the size bound) returns one. Its text may
// quote the arguments and the schema.
type Refusal struct {
	// Pointer is the JSON pointer (RFC 6901) of the value the refusal is
	// about, in the call's arguments: "" (the root) when no single value
	// is (the arguments are missing, too large, not an object, followed by
	// trailing data, or the schema refuses every call).
	Pointer string
	Rule    Rule
	// Err is the message: what was refused, and why.
	Err error
	// segs are the pointer's tokens, innermost first, while a parse error
	// unwinds (at); parseError builds Pointer from them.
	segs []string
}

func (e *Refusal) Error() string {
	if e.Pointer == "" {
		return "arguments: " + e.Err.Error()
	}
	return "argument " + e.Pointer + ": " + e.Err.Error()
}

func (e *Refusal) Unwrap() error { return e.Err }

// refusal is a Refusal at pointer.
func refusal(pointer string, rule Rule, err error) *Refusal {
	return &Refusal{Pointer: pointer, Rule: rule, Err: err}
}

// parseRules are the rules of the parser's errors.
var parseRules = [...]struct {
	err  error
	rule Rule
}{
	{errTapeSyntax, RuleSyntax},
	{errTapeEOF, RuleSyntax},
	{errTapeTrailing, RuleSyntax},
	{errTapeUTF8, RuleSyntax},
	{errTapeDeep, RuleDepth},
	{errTapeRange, RuleNumberRange},
	{errNumberLong, RuleNumberLength},
	{errNumberExp, RuleNumberExponent},
	{errLoneSurrogate, RuleLoneSurrogate},
}

// asRefusal returns err as a *Refusal: err itself, or the parser's error
// err at the root.
func asRefusal(err error) *Refusal {
	if ae, ok := err.(*Refusal); ok {
		return ae
	}
	rule := RuleSyntax // no other error comes out of the parser
	for _, r := range parseRules {
		if err == r.err {
			rule = r.rule
		}
	}
	return &Refusal{Rule: rule, Err: err}
}

// at puts err, an error of the parser, under the member or element seg of
// the value whose parse failed.
func at(err error, seg string) error {
	ae := asRefusal(err)
	ae.segs = append(ae.segs, seg)
	return ae
}

// parseError is err, an error of the parser, with its pointer built.
func parseError(err error) *Refusal {
	ae := asRefusal(err)
	if len(ae.segs) > 0 {
		slices.Reverse(ae.segs)
		ae.Pointer = jsonptr.Pointer(ae.segs...)
		ae.segs = nil
	}
	return ae
}

// pointer returns the JSON pointer of node i of the parsed tape t.
func (t *tape) pointer(i int) string {
	var b strings.Builder
	for n := 0; n < i; {
		// The child of n that holds i: the one whose subtree ends past i.
		p, k := t.first(n), 0
		for t.end(p) <= i {
			p, k = t.end(p), k+1
		}
		b.WriteByte('/')
		if t.kind(n) == tObject {
			b.WriteString(jsonptr.EscapeToken(t.key(p)))
		} else {
			b.WriteString(strconv.Itoa(k))
		}
		n = p
	}
	return b.String()
}

// badUTF8 is the refusal of raw, which is not valid UTF-8, at the string
// or member name that holds the invalid bytes (outside strings they are a
// syntax error of the parse).
func badUTF8(raw []byte, maxValues int) error {
	t := getTape()
	defer putTape(t)
	t.strictUTF8, t.maxValues = true, maxValues
	if err := t.parse(string(raw)); err != nil {
		return err
	}
	return refusal("", RuleSyntax, errTapeUTF8) // not reached: parse found it
}

// decodeError is an error of json.Unmarshal into the tool's type (the
// decode of the types the codec does not cover), at the value it names:
// encoding/json names a value by its path of member names (Field), not by
// its array indices, so a refusal inside an array points at the array.
func decodeError(t *tape, err error) *Refusal {
	var ute *json.UnmarshalTypeError
	if !errors.As(err, &ute) || ute.Field == "" {
		return refusal("", RuleGoType, err)
	}
	i, rest := 0, ute.Field
	for rest != "" && t.kind(i) == tObject {
		next := -1
		for p := t.first(i); p < t.end(i); p = t.end(p) {
			k := t.key(p)
			if rest == k || strings.HasPrefix(rest, k+".") {
				next = p
				break
			}
		}
		if next < 0 {
			break
		}
		i, rest = next, strings.TrimPrefix(rest[len(t.key(next)):], ".")
	}
	return refusal(t.pointer(i), RuleGoType, err)
}

// codecRefusal is the typed decode's refusal of node i of t, a value (what,
// as encoding/json names it) that the Go type typ cannot hold.
func codecRefusal(t *tape, i int, what string, typ reflect.Type) *Refusal {
	return refusal(t.pointer(i), RuleGoType, fmt.Errorf("json: cannot unmarshal %s into Go value of type %v", what, typ))
}

// truncQuote quotes s, cut at 64 bytes.
func truncQuote(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return fmt.Sprintf("%q", s)
}
