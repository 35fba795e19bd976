package runtime

import "encoding/json"

// argsDecoder is implemented by every *Tool[A]: a typed decode without
// encoding/json's Decoder.
type argsDecoder interface {
	decodeArgs(raw []byte) (Args, error)
}

// decodeArgs returns the typed decode the gate uses for h.
//
// The gate decodes with json.Unmarshal, not with [DecodeStrict]: a Decoder
// costs a copy of the arguments and its own allocations, and what its
// DisallowUnknownFields and trailing-data checks refuse is refused anyway,
// earlier or later, by the gate. Trailing data and duplicate keys are
// refused by the gate's parser; an unknown key at the top level by the
// schema-properties check; an unknown key at any depth, a key in another
// case, or any value the typed decode does not keep, by the equality of the
// re-encoded arguments with the arguments received.
func decodeArgs(h Handle) func([]byte) (Args, error) {
	if d, ok := h.(argsDecoder); ok {
		return d.decodeArgs
	}
	return h.decode
}

// decodeArgs is compiled once per tool (see [Tool.Call]), so it is kept
// to the few lines that need the type.
func (t *Tool[A]) decodeArgs(raw []byte) (Args, error) {
	a := new(A)
	if err := json.Unmarshal(raw, a); err != nil {
		return nil, err
	}
	return *a, nil
}
