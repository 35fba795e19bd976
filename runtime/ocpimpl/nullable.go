package ocpimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Nullable is a JSON value with three states: absent, explicitly null, or a
// value. Generated code uses it, with the json option omitzero, for optional
// properties whose schema allows null, so that an explicit null set by the
// caller reaches the server as null and an unset field is not sent at all
// (omitzero leaves out an absent Nullable because it is the zero value, the
// only zero Nullable).
type Nullable[T any] struct {
	value T
	state nullState
}

type nullState uint8

const (
	nullAbsent nullState = iota
	nullNull
	nullValue
)

// Value returns a Nullable holding v.
func Value[T any](v T) Nullable[T] { return Nullable[T]{value: v, state: nullValue} }

// Null returns a Nullable holding an explicit null.
func Null[T any]() Nullable[T] { return Nullable[T]{state: nullNull} }

// Get returns the value and true, or the zero value and false when the
// Nullable is absent or null.
func (n *Nullable[T]) Get() (T, bool) { return n.value, n.state == nullValue }

// IsNull reports whether the Nullable holds an explicit null. It is false
// for an absent Nullable, which is the zero value.
func (n *Nullable[T]) IsNull() bool { return n.state == nullNull }

// OCPSetNull, OCPSetValue and OCPValue are the gate's: its argument codec
// (runtime/internal/argengine) decodes and encodes a Nullable through them
// as UnmarshalJSON and MarshalJSON would, without importing this package.
// Generated code does not call them.

// OCPSetNull makes n an explicit null (with the zero value).
func (n *Nullable[T]) OCPSetNull() {
	var zero T
	n.value, n.state = zero, nullNull
}

// OCPSetValue makes n hold a value and returns a *T to it (as an any), for
// the caller to store the value in.
func (n *Nullable[T]) OCPSetValue() any {
	n.state = nullValue
	return &n.value
}

// OCPValue returns a *T to n's value (as an any) when n holds one, and nil
// when n is absent or null.
func (n *Nullable[T]) OCPValue() any {
	if n.state != nullValue {
		return nil
	}
	return &n.value
}

// MarshalJSON encodes null or the value. An absent Nullable also encodes as
// null; fields that may be absent carry omitzero so it is never encoded.
// It has a value receiver: encoding/json calls a pointer method only on an
// addressable value, and a Nullable in an argument struct passed by value
// is not addressable.
func (n Nullable[T]) MarshalJSON() ([]byte, error) {
	if n.state != nullValue {
		return []byte("null"), nil
	}
	return json.Marshal(n.value)
}

// UnmarshalJSON decodes null or a value. The value is decoded as strictly
// as the arguments around it (decodeStrictInto: unknown fields refused),
// which encoding/json does not do by itself for a type with its own
// UnmarshalJSON.
func (n *Nullable[T]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		var zero T
		n.value, n.state = zero, nullNull
		return nil
	}
	var v T
	if err := decodeStrictInto(b, &v); err != nil {
		return err
	}
	n.value, n.state = v, nullValue
	return nil
}

// decodeStrict decodes one JSON value into a T, refusing unknown fields and
// trailing data, as strictly as the gate decodes the arguments around it.
func decodeStrict[T any](raw []byte) (T, error) {
	var v T
	err := decodeStrictInto(raw, &v)
	return v, err
}

// decodeStrictInto is decodeStrict's body, for any pointer v.
//
//go:noinline
func decodeStrictInto(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the value")
	}
	return nil
}
