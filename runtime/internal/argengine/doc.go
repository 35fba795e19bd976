// Package argengine is the argument engine of runtime/ocp's Gate: what a
// tool call's arguments are allowed to be, and what is forwarded for them.
// [Compile] builds one [Engine] per tool, once, from the tool's input
// schema and its generated argument type; [Engine.Check] takes a call's raw
// arguments and returns the typed value and the bytes to forward, or a
// [*Refusal] naming the [Rule] that refused and the JSON pointer of the
// value refused.
//
// Its contract:
//
//   - One validator. Every schema, input or output ([CompileSchema]), is
//     validated by the same compiled validator, whatever keywords it uses:
//     JSON Schema draft 2020-12, and draft-07 when "$schema" names it,
//     with every assertion and applicator, references inside the document,
//     anchors, dynamic references and the unevaluated keywords. No schema
//     falls back to another validator, so what a schema means never
//     depends on a keyword beside it. A schema refused at compile time (not
//     JSON, a keyword of the wrong form, a reference to a remote schema, a
//     cycle of references that consumes no instance) is an error of
//     Compile, naming the pointer.
//   - Exact numbers. A number is its literal, compared as a decimal: every
//     bound, multipleOf, enum and const against the schema's own literal,
//     never through float64; an integer is a number with no fractional
//     part (1.0 is one).
//   - ECMA-262 patterns. A pattern means what ECMA-262 says it means
//     (internal/ecmare), \p{…} and \c included. A pattern with no
//     translation the engine can run does not fail Compile: every call of
//     that tool is then refused, at the root ([RulePatternUntranslatable]),
//     because no verdict that depends on the pattern could be trusted.
//   - Bounded cost. The arguments are bounded ([Limits]: their bytes and
//     their values; [MaxArgsDepth], [MaxNumberLen], [MaxNumberExp]), and so
//     is the work on them: a validation costs at most a constant times the
//     instance's size times the schema's, whatever the schema's
//     references, and no number costs more than its literal's length. So
//     is the memory: a check holds a copy of the arguments, 4 bytes a
//     value and 4 more a non-empty object or a member's non-empty array,
//     the decoded text
//     of the strings with escapes, the re-encoding when it is not the
//     arguments' bytes (when it is, and no typed value is asked for, the
//     copy is what is forwarded) and, only when asked for, the typed
//     value; the indexes of large objects and arrays, and the validator's
//     memo of shared subschemas, hold a few bits or bytes a member, item
//     or value.
//   - The forwarded bytes are the validated value. The arguments must be
//     one JSON object (RFC 8259, UTF-8, no duplicate key, no trailing
//     data), valid against the schema, with only the schema's top-level
//     properties ([RuleUndeclared]), held by the tool's Go type
//     ([RuleGoType]); the bytes forwarded are the typed value's encoding
//     (encoding/json's without HTML escaping, [MarshalPlain]), and they
//     must equal the arguments as a JSON value, at every depth
//     ([RuleRoundTrip]), which is checked without parsing them again. What was validated, what the typed value holds
//     and what is forwarded are one value.
//
// A refusal by [RuleSchema] or [RuleSyntax] says the arguments fail the
// tool's schema ([Rule.SchemaRule]); every other rule refuses arguments
// that may be schema-valid, for the documented reason the rule names. The
// engine says nothing to a model: the words for each rule are the gate's.
package argengine
