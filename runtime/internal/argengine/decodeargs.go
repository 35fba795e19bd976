package argengine

import (
	"encoding/json"
	"reflect"
)

// decodeArgs decodes a call's arguments into a new value of the tool's
// argument struct (typ) and returns a pointer to it.
//
// It decodes with json.Unmarshal, not with a strict Decoder, because what a
// Decoder's DisallowUnknownFields and trailing-data checks refuse is refused
// anyway, earlier or later, by the engine. Trailing data and duplicate keys are
// refused by the gate's parser; an unknown key at the top level by the
// schema-properties check; an unknown key at any depth, a key in another
// case, or any value the typed decode does not keep, by the equality of the
// re-encoded arguments with the arguments received.
func decodeArgs(typ reflect.Type, raw []byte) (any, error) {
	p := reflect.New(typ).Interface()
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, err
	}
	return p, nil
}
