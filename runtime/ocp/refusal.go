package ocp

import (
	"fmt"
	"strconv"

	"github.com/ocpgen/ocpgen/runtime/internal/argengine"
)

// What the model is told of a call that did not succeed: the texts are
// fixed, so nothing a server or hook says reaches a model, and a denial
// reads as what it is, never as a tool's success. (A failed call is told
// its tool's failure text, which the classification gives.)
const (
	textUnknown   = "Not performed: this tool is not available."
	textInvalid   = "Not performed: the arguments do not match the tool's input schema."
	textForbidden = "Not performed: the caller is not allowed to use this tool on these resources."
	textDenied    = "Not performed: the write was denied by the person asked to confirm it. Nothing was changed."
	textExpired   = "Not performed: nobody confirmed the write in time, so it was denied. Nothing was changed."
	textCancelled = "Not performed: the write was cancelled before it was confirmed. Nothing was changed."
	textCatalogue = "Not performed: the tool catalogue changed while the write awaited its confirm, so it was denied. Nothing was changed."
	textBroker    = "Not performed: the confirm could not be obtained, so the write was denied. Nothing was changed."
	// textOutcomeUnknown is followed by the reference.
	textOutcomeUnknown = "Outcome unknown: the call was sent to the server but no answer came back, so it may have run. Check its effect before retrying."
	// textInputRequired is followed by the reference.
	textInputRequired = "Outcome unknown: the server asked for input that the Hub does not give, so the call did not complete; it may have partly run. Check its effect before retrying."
)

// An argument refusal is an *argengine.Refusal: the rule and the pointer.
// It is either of two kinds, and the model is told which
// (docs/security-model.md, "Argument refusals: the pointer and the rule"):
//
//   - the arguments fail the tool's input schema (or are not a JSON object
//     at all): the rules schema and json-syntax (Rule.SchemaRule), told
//     with textInvalid;
//   - a documented rule refuses arguments that may well be schema-valid:
//     every other rule, the engine's or the gate's own below, told with
//     ruleText, which names the rule and the pointer, never a value of the
//     arguments nor a text of the server's.
//
// Both are [ReasonInvalid] on the wire (the reason set is fixed). The
// refusal's text reaches only the audit log.

// The gate's own rules, applied after the argument engine's.
const (
	// ruleResources: the argument renders more resources, or longer ones,
	// than the gate bounds a call to (Config.MaxResources, maxResourceBytes).
	ruleResources argengine.Rule = "resource-limit"
	// ruleEncode: the typed arguments of [Gate.Call] have no JSON
	// encoding (a NaN, an infinity).
	ruleEncode argengine.Rule = "encode"
	// ruleForwardSize: the bytes the gate would forward, with the escapes
	// of escapeInvisible (and encoding/json's of U+2028, U+2029), are
	// longer than Config.MaxArgsBytes.
	ruleForwardSize argengine.Rule = "forwarded-size"
)

// ruleWords says, for the model, what each rule but the schema's refused.
// Every rule of the engine and of the gate but schema and json-syntax has
// one (TestRuleTexts). The words of the rules of a Config bound hold the
// gate's bound (%d): see Gate.ruleWords.
var ruleWords = map[argengine.Rule]string{
	argengine.RuleLoneSurrogate:         "a string holds a \\u escape of a lone UTF-16 surrogate, which is no character",
	argengine.RuleDuplicateKey:          "an object holds the same key twice",
	argengine.RuleNumberRange:           "a number is beyond the range of a 64-bit float",
	argengine.RuleNumberLength:          "a number literal is longer than " + strconv.Itoa(argengine.MaxNumberLen) + " bytes",
	argengine.RuleNumberExponent:        "a number's exponent exceeds ±" + strconv.Itoa(argengine.MaxNumberExp),
	argengine.RuleDepth:                 "the arguments nest deeper than " + strconv.Itoa(argengine.MaxArgsDepth) + " levels",
	argengine.RuleSize:                  "the arguments are longer than the Hub takes in one call (%d bytes)",
	argengine.RuleValues:                "the arguments hold more JSON values than the Hub takes in one call (%d)",
	argengine.RuleUndeclared:            "the argument is not a property of the tool's schema, and the Hub forwards only declared properties",
	argengine.RuleGoType:                "the Hub's typed form of the tool's arguments cannot hold this value (for example an integer beyond 64 bits)",
	argengine.RuleRoundTrip:             "the Hub cannot forward this value exactly (for example a number a 64-bit float does not hold exactly)",
	argengine.RulePatternUntranslatable: "the tool's schema has a pattern the Hub cannot evaluate as ECMA-262, so the Hub refuses every call of this tool",
	argengine.RuleParamHeader:           "the tool's schema sends this argument in an HTTP header too (x-mcp-header), and a header cannot carry this value (only a string of at most " + strconv.Itoa(argengine.MaxParamHeaderBytes) + " bytes in its header form, an integer within ±(2^53−1) or a boolean)",
	ruleResources:                       "the argument names more resources than the Hub allows in one call",
	ruleEncode:                          "the typed arguments have no JSON encoding",
	ruleForwardSize:                     "the arguments as the Hub forwards them, with the characters it escapes, are longer than it takes in one call (%d bytes)",
}

// refusal is an argument refusal by rule at pointer.
func refusal(pointer string, rule argengine.Rule, err error) *argengine.Refusal {
	return &argengine.Refusal{Pointer: pointer, Rule: rule, Err: err}
}

// ruleWords returns ruleWords[r], with the gate's own bound for the rules
// of a Config bound.
func (g *serverGate) ruleWords(r argengine.Rule) string {
	switch r {
	case argengine.RuleSize, ruleForwardSize:
		return fmt.Sprintf(ruleWords[r], g.cfg.MaxArgsBytes)
	case argengine.RuleValues:
		return fmt.Sprintf(ruleWords[r], g.cfg.MaxArgsValues)
	}
	return ruleWords[r]
}

// argText is what the model is told of the argument refusal r.
func (g *serverGate) argText(r *argengine.Refusal) string {
	if r.Rule.SchemaRule() {
		return textInvalid
	}
	return g.ruleText(r.Rule, r.Pointer)
}

// ruleText is what the model is told of a refusal by the rule r at
// pointer: the rule, the pointer (bounded) and the rule's words, nothing
// of the arguments' values or of the server's texts.
func (g *serverGate) ruleText(r argengine.Rule, pointer string) string {
	where := "at the root of the arguments"
	if pointer != "" {
		where = "at " + boundText(pointer)
	}
	return fmt.Sprintf("Not performed: the Hub's rule %q refused the arguments %s: %s. They were refused by the Hub's rules, not by the tool's input schema; the server was not called.", string(r), where, g.ruleWords(r))
}
