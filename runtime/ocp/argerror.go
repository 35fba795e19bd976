package ocp

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/ocpgen/ocpgen/internal/jsonptr"
)

// An argument refusal is either of two kinds, and the model is told which
// (docs/security-model.md, "Argument refusals: the pointer and the rule"):
//
//   - the arguments fail the tool's input schema (or are not a JSON object
//     at all): [ruleSchema] and [ruleSyntax], told with textInvalid;
//   - a documented rule of the gate refuses arguments that may well be
//     schema-valid: every other rule below, told with ruleText, which
//     names the rule and the pointer, never a value of the arguments nor
//     a text of the server's.
//
// Both are [ReasonInvalid] on the wire (the reason set is fixed).

// argRule names the rule an argument refusal applies. The names are stable:
// they are the "rule" attribute of the ocp.args event and appear in the
// model's text.
type argRule string

const (
	// ruleSchema: the value fails the tool's input schema (the schema's
	// keyword is in the detail), or the arguments are not a JSON object.
	ruleSchema argRule = "schema"
	// ruleSyntax: the arguments are not JSON (RFC 8259, UTF-8): missing,
	// malformed, or followed by trailing data.
	ruleSyntax argRule = "json-syntax"

	// ruleLoneSurrogate: a \u escape of a lone UTF-16 surrogate, in a
	// string or a member name; it is no character, and decoding would
	// rewrite it to U+FFFD.
	ruleLoneSurrogate argRule = "lone-surrogate"
	// ruleDuplicateKey: an object has the same member name twice.
	ruleDuplicateKey argRule = "duplicate-key"
	// ruleNumberRange: a number beyond float64's range (1e400).
	ruleNumberRange argRule = "number-range"
	// ruleNumberLength: a number literal longer than maxNumberLen bytes.
	ruleNumberLength argRule = "number-length"
	// ruleNumberExponent: a number whose exponent exceeds ±maxNumberExp.
	ruleNumberExponent argRule = "number-exponent"
	// ruleDepth: nesting deeper than maxArgsDepth.
	ruleDepth argRule = "nesting-depth"
	// ruleSize: the arguments exceed maxArgsBytes.
	ruleSize argRule = "size"
	// ruleUndeclared: a top-level argument the schema does not declare as
	// a property; the gate forwards only declared ones, whatever the
	// schema says of additional properties.
	ruleUndeclared argRule = "undeclared-property"
	// ruleGoType: the tool's Go argument type cannot hold the value (an
	// integer beyond int64, a member its struct does not declare, a type
	// the Go field does not have).
	ruleGoType argRule = "go-type"
	// ruleRoundTrip: the typed arguments re-encode to another JSON value
	// (a number float64 cannot hold exactly), so what is forwarded would
	// not be what was validated.
	ruleRoundTrip argRule = "round-trip"
	// rulePatternUntranslatable: the tool's schema has a pattern with no
	// ECMA-262 translation the gate can run, so every call of the tool is
	// refused, at the root (fail closed; generate warns about the tool).
	rulePatternUntranslatable argRule = "pattern-untranslatable"
	// ruleResources: the argument renders more resources, or longer ones,
	// than the gate bounds a call to (Config.MaxResources, maxResourceBytes).
	ruleResources argRule = "resource-limit"
	// ruleEncode: the typed arguments of [Gate.Call] have no JSON
	// encoding (a NaN, an infinity).
	ruleEncode argRule = "encode"
)

// ruleWords says, for the model, what each of the gate's own rules refused.
// Every rule but ruleSchema and ruleSyntax has one (TestRuleTexts).
var ruleWords = map[argRule]string{
	ruleLoneSurrogate:         "a string holds a \\u escape of a lone UTF-16 surrogate, which is no character",
	ruleDuplicateKey:          "an object holds the same key twice",
	ruleNumberRange:           "a number is beyond the range of a 64-bit float",
	ruleNumberLength:          "a number literal is longer than " + strconv.Itoa(maxNumberLen) + " bytes",
	ruleNumberExponent:        "a number's exponent exceeds ±" + strconv.Itoa(maxNumberExp),
	ruleDepth:                 "the arguments nest deeper than " + strconv.Itoa(maxArgsDepth) + " levels",
	ruleSize:                  "the arguments exceed " + strconv.Itoa(maxArgsBytes) + " bytes",
	ruleUndeclared:            "the argument is not a property of the tool's schema, and the Hub forwards only declared properties",
	ruleGoType:                "the Hub's typed form of the tool's arguments cannot hold this value (for example an integer beyond 64 bits)",
	ruleRoundTrip:             "the Hub cannot forward this value exactly (for example a number a 64-bit float does not hold exactly)",
	rulePatternUntranslatable: "the tool's schema has a pattern the Hub cannot evaluate as ECMA-262, so the Hub refuses every call of this tool",
	ruleResources:             "the argument names more resources than the Hub allows in one call",
	ruleEncode:                "the typed arguments have no JSON encoding",
}

// schemaRule reports whether r is of the first kind: the arguments fail
// the tool's schema.
func (r argRule) schemaRule() bool { return r == ruleSchema || r == ruleSyntax }

// argError is the one error of an argument refusal: every way step 2
// refuses a call's arguments (the parse, the top-level properties, the
// schema, the typed decode, the round trip, the size bound), and the
// resource bounds after it, return one. Its text reaches only the audit
// log.
type argError struct {
	// pointer is the JSON pointer (RFC 6901) of the value the refusal is
	// about, in the call's arguments: "" (the root) when no single value
	// is (the arguments are missing, too large, not an object, followed by
	// trailing data).
	pointer string
	rule    argRule
	// err is the message: what was refused, and why. It may quote the
	// arguments and the schema (the server's text), so it goes to the
	// audit detail only.
	err error
	// segs are the pointer's tokens, innermost first, while a parse error
	// unwinds (at); parse builds pointer from them.
	segs []string
}

func (e *argError) Error() string {
	if e.pointer == "" {
		return "arguments: " + e.err.Error()
	}
	return "argument " + e.pointer + ": " + e.err.Error()
}

func (e *argError) Unwrap() error { return e.err }

// refusal is an argError at pointer.
func refusal(pointer string, rule argRule, err error) *argError {
	return &argError{pointer: pointer, rule: rule, err: err}
}

// parseRules are the rules of the parser's errors.
var parseRules = [...]struct {
	err  error
	rule argRule
}{
	{errTapeSyntax, ruleSyntax},
	{errTapeEOF, ruleSyntax},
	{errTapeTrailing, ruleSyntax},
	{errTapeUTF8, ruleSyntax},
	{errTapeDeep, ruleDepth},
	{errTapeRange, ruleNumberRange},
	{errNumberLong, ruleNumberLength},
	{errNumberExp, ruleNumberExponent},
	{errLoneSurrogate, ruleLoneSurrogate},
}

// asArgError returns err as an *argError: err itself, or the parser's
// error err at the root.
func asArgError(err error) *argError {
	if ae, ok := err.(*argError); ok {
		return ae
	}
	rule := ruleSyntax // no other error comes out of the parser
	for _, r := range parseRules {
		if err == r.err {
			rule = r.rule
		}
	}
	return &argError{rule: rule, err: err}
}

// at puts err, an error of the parser, under the member or element seg of
// the value whose parse failed.
func at(err error, seg string) error {
	ae := asArgError(err)
	ae.segs = append(ae.segs, seg)
	return ae
}

// parseError is err, an error of the parser, with its pointer built.
func parseError(err error) *argError {
	ae := asArgError(err)
	if len(ae.segs) > 0 {
		slices.Reverse(ae.segs)
		ae.pointer = jsonptr.Pointer(ae.segs...)
		ae.segs = nil
	}
	return ae
}

// pointer returns the JSON pointer of node i of the parsed tape t.
func (t *tape) pointer(i int) string {
	var b strings.Builder
	for n := 0; n < i; {
		// The child of n that holds i: the one whose subtree ends past i.
		p, k := n+1, 0
		for int(t.nodes[p].end) <= i {
			p, k = int(t.nodes[p].end), k+1
		}
		b.WriteByte('/')
		if t.nodes[n].kind == tObject {
			b.WriteString(jsonptr.EscapeToken(t.nodes[p].key))
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
func badUTF8(raw []byte) error {
	t := getTape()
	defer putTape(t)
	t.strictUTF8 = true
	if err := t.parse(string(raw)); err != nil {
		return err
	}
	return refusal("", ruleSyntax, errTapeUTF8) // not reached: parse found it
}

// decodeError is an error of json.Unmarshal into the tool's type (the
// decode of the types the codec does not cover), at the value it names:
// encoding/json names a value by its path of member names (Field), not by
// its array indices, so a refusal inside an array points at the array.
func decodeError(t *tape, err error) *argError {
	var ute *json.UnmarshalTypeError
	if !errors.As(err, &ute) || ute.Field == "" {
		return refusal("", ruleGoType, err)
	}
	i, rest := 0, ute.Field
	for rest != "" && t.nodes[i].kind == tObject {
		next := -1
		for p := i + 1; p < int(t.nodes[i].end); p = int(t.nodes[p].end) {
			k := t.nodes[p].key
			if rest == k || strings.HasPrefix(rest, k+".") {
				next = p
				break
			}
		}
		if next < 0 {
			break
		}
		i, rest = next, strings.TrimPrefix(rest[len(t.nodes[next].key):], ".")
	}
	return refusal(t.pointer(i), ruleGoType, err)
}

// codecRefusal is the typed decode's refusal of node i of t, a value (what,
// as encoding/json names it) that the Go type typ cannot hold.
func codecRefusal(t *tape, i int, what string, typ reflect.Type) *argError {
	return refusal(t.pointer(i), ruleGoType, fmt.Errorf("json: cannot unmarshal %s into Go value of type %v", what, typ))
}

// ruleText is what the model is told of a refusal by the gate's rule r at
// pointer: the rule, the pointer (bounded) and ruleWords[r], nothing of the
// arguments' values or of the server's texts.
func ruleText(r argRule, pointer string) string {
	where := "at the root of the arguments"
	if pointer != "" {
		where = "at " + boundText(pointer)
	}
	return fmt.Sprintf("Not performed: the Hub's rule %q refused the arguments %s: %s. They were refused by the Hub's rules, not by the tool's input schema; the server was not called.", string(r), where, ruleWords[r])
}

// refuseArgs audits the argument refusal err (an *argError; any other
// error is one at the root by the schema) as event name, with its
// "pointer" and "rule", and returns the text the model is told.
func (c *call) refuseArgs(name string, err error) string {
	var ae *argError
	if !errors.As(err, &ae) {
		ae = refusal("", ruleSchema, err)
	}
	c.refuse(name, ReasonInvalid, err, slog.String("pointer", ae.pointer), slog.String("rule", string(ae.rule)))
	if ae.rule.schemaRule() {
		return textInvalid
	}
	return ruleText(ae.rule, ae.pointer)
}
