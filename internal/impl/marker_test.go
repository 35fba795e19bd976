package impl

import (
	"strings"
	"testing"
)

// TestArgsTypeMarkers: ArgsType accepts a nil pointer to a struct whose
// marker agrees with the policy, and refuses one without a marker, with
// both, or with the other kind's.
func TestArgsTypeMarkers(t *testing.T) {
	type readArgs struct{ Read }
	type writeArgs struct{ Write }
	type both struct {
		Read
		Write
	}
	type none struct{ X string }
	for _, tc := range []struct {
		args any
		kind Kind
		want string // "" when accepted
	}{
		{(*readArgs)(nil), KindRead, ""},
		{(*writeArgs)(nil), KindWrite, ""},
		{(*readArgs)(nil), KindWrite, "marker is read but policy says write"},
		{(*writeArgs)(nil), KindRead, "marker is write but policy says read"},
		{(*both)(nil), KindRead, "embeds neither"},
		{(*both)(nil), KindWrite, "embeds neither"},
		{(*none)(nil), KindWrite, "embeds neither"},
		{readArgs{}, KindRead, "not a pointer"},
		{nil, KindRead, "Args is nil"},
	} {
		tool := &Tool{Args: tc.args, Desc: Descriptor{Name: "t", Policy: Policy{Kind: tc.kind}}}
		_, err := ArgsType(tool)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%T as %v: %v", tc.args, tc.kind, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%T as %v: error %v, want %q", tc.args, tc.kind, err, tc.want)
		}
	}
	// Only pointers carry a marker's method.
	if _, ok := any(readArgs{}).(ReadArgs); ok {
		t.Error("a read's argument value satisfies ReadArgs")
	}
	if _, ok := any(&both{}).(ReadArgs); ok {
		t.Error("a struct embedding both markers satisfies ReadArgs")
	}
	if _, ok := any(&both{}).(WriteArgs); ok {
		t.Error("a struct embedding both markers satisfies WriteArgs")
	}
}
