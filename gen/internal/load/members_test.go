package load

import (
	"bytes"
	"encoding/json"
	"testing"
)

var membersCases = []string{
	`{}`, ` { } `, `[]`, ` [ ] `, `{"a":1}`, `{"a":1,"b":[1,2,{"c":"}"}],"a":"x"}`,
	"{\n  \"a\" : {\"b\": [ ] } ,\n  \"c\": \"\\\"{[\" , \"d\":null,\"e\":true , \"f\":-1.5e3 }",
	`{"\u0061":1,"a\\b":2,"é":3,"\ud800":4}`, "{\"\xff\":1,\"\xfe\":2}", `[1, "a", {"b": [2]}, [3], null, false, -0.5E-2 ]`,
	`{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"server":{"name":"s"}}`, `"s"`, `1`,
	`{"type":"object","TYPE":"string"}`, `{"Type":"x","type":null}`, `{"type":{"a":[1]} }`, `{"tyPe" : [ "a" ,"b"] ,"x":1}`,
	`{"\u0074ype":"object"}`, `{"typ":1,"types":2,"type ":3}`, `{"tyſe":1}`,
}

// checkMembers compares members and elements with json.Unmarshal.
func checkMembers(t *testing.T, raw []byte) {
	t.Helper()
	switch firstByte(raw) {
	case '{':
		keys, vals := members(raw)
		var want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]json.RawMessage{}
		for i, k := range keys {
			got[k] = vals[i]
		}
		if len(got) != len(want) {
			t.Fatalf("%s: members %q, want %q", raw, got, want)
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("%s: member %q = %s, want %s", raw, k, got[k], v)
			}
		}
		var probe struct {
			Type json.RawMessage `json:"type"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			t.Fatal(err)
		}
		if got := typeMember(raw); !bytes.Equal(got, probe.Type) || (got == nil) != (probe.Type == nil) {
			t.Fatalf("%s: typeMember = %q, want %q", raw, got, probe.Type)
		}
		// Order and repeats, as a json.Decoder sees them.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.Token()
		var order []string
		for dec.More() {
			tok, _ := dec.Token()
			order = append(order, tok.(string))
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		if len(order) != len(keys) {
			t.Fatalf("%s: keys %q, want %q", raw, keys, order)
		}
		for i := range order {
			if order[i] != keys[i] {
				t.Fatalf("%s: keys %q, want %q", raw, keys, order)
			}
		}
	case '[':
		var want []json.RawMessage
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		got := elements(raw)
		if len(got) != len(want) {
			t.Fatalf("%s: elements %q, want %q", raw, got, want)
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%s: element %d = %s, want %s", raw, i, got[i], want[i])
			}
		}
	}
}

func TestMembers(t *testing.T) {
	for _, c := range membersCases {
		if !json.Valid([]byte(c)) {
			t.Fatalf("invalid case %s", c)
		}
		checkMembers(t, []byte(c))
	}
	many := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "c", "a"}
	for _, c := range []struct {
		keys []string
		want string
		ok   bool
	}{
		{[]string{"a", "b", "c", "b", "a"}, "b", true},
		{many, "c", true},
		{[]string{"a", "", "b", ""}, "", true},
		{append([]string{""}, append(many[:10:10], "")...), "", true},
		{[]string{"", "a"}, "", false},
		{many[:10], "", false},
	} {
		if k, ok := firstRepeated(c.keys); k != c.want || ok != c.ok {
			t.Errorf("firstRepeated(%q) = %q, %v, want %q, %v", c.keys, k, ok, c.want, c.ok)
		}
	}
}

func FuzzMembers(f *testing.F) {
	for _, c := range membersCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if json.Valid(raw) {
			checkMembers(t, raw)
		}
	})
}
