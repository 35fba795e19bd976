package argengine

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/e2e/filesystemocp"
	"github.com/ocpgen/ocpgen/e2e/suite/suiteocp"
)

// unionTypes returns the generated unions typ holds, at any depth.
func unionTypes(typ reflect.Type, seen map[reflect.Type]bool, out *[]reflect.Type) {
	if seen[typ] {
		return
	}
	seen[typ] = true
	switch typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		unionTypes(typ.Elem(), seen, out)
	case reflect.Struct:
		if isUnion(typ) {
			*out = append(*out, typ)
		}
		if vt, ok := isNullableType(typ); ok {
			unionTypes(vt, seen, out)
			return
		}
		for i := range typ.NumField() {
			unionTypes(typ.Field(i).Type, seen, out)
		}
	}
}

// TestArgCodecUnionSuiteCovers: every union the generator made of the JSON
// Schema Test Suite (e2e/suite/suiteocp) and of the filesystem server's
// schemas has a codec, unless a branch holds a type the codec does not
// cover (any); and so does every tool type holding one but no such part.
func TestArgCodecUnionSuiteCovers(t *testing.T) {
	var unions []reflect.Type
	seen := map[reflect.Type]bool{}
	for _, tool := range suiteocp.Catalogue.Tools() {
		unionTypes(reflect.TypeOf(tool.Args).Elem(), seen, &unions)
	}
	unionTypes(reflect.TypeFor[filesystemocp.ReadMediaFileResult](), seen, &unions)
	covered := 0
	for _, u := range unions {
		wrap := reflect.StructOf([]reflect.StructField{{Name: "U", Type: u, Tag: `json:"u"`}})
		if compileCodec(wrap) != nil {
			covered++
			continue
		}
		// Only a branch of a type the codec leaves to encoding/json (any,
		// found by compiling the branch types alone) may leave it without.
		ok := false
		for i := range u.NumField() {
			bt := u.Field(i).Type.Elem()
			bw := reflect.StructOf([]reflect.StructField{{Name: "B", Type: bt, Tag: `json:"b"`}})
			if compileCodec(bw) == nil {
				ok = true
				t.Logf("%v: no codec, for its branch %s of %v", u, u.Field(i).Name, bt)
			}
		}
		if !ok {
			t.Errorf("%v: no codec, and every branch type has one", u)
		}
	}
	t.Logf("%d of %d unions have a codec", covered, len(unions))
	if covered == 0 || covered < len(unions)/2 {
		t.Errorf("only %d of %d unions have a codec", covered, len(unions))
	}
}

// TestArgCodecUnionSuite holds Check of every suite tool whose type holds
// a union (with its codec) to Check of the same tool through encoding/json
// alone (no codec), on every instance of the suite file the tool comes
// from: the verdict, the rule of a refusal, and the forwarded bytes.
func TestArgCodecUnionSuite(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "testdata", "jsonschema-suite", "tests", "draft2020-12")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the suite's files: %v", err)
	}
	data := map[string][]json.RawMessage{} // file → every instance
	instances := func(file string) []json.RawMessage {
		if d, ok := data[file]; ok {
			return d
		}
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		var groups []struct {
			Tests []struct {
				Data json.RawMessage `json:"data"`
			} `json:"tests"`
		}
		if err := json.Unmarshal(b, &groups); err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			for _, tc := range g.Tests {
				data[file] = append(data[file], tc.Data)
			}
		}
		return data[file]
	}
	tools, withCodec, calls, accepted, fast := 0, 0, 0, 0, 0
	for _, tool := range suiteocp.Catalogue.Tools() {
		typ := reflect.TypeOf(tool.Args).Elem()
		var unions []reflect.Type
		unionTypes(typ, map[reflect.Type]bool{}, &unions)
		if len(unions) == 0 {
			continue
		}
		tools++
		e, err := Compile([]byte(tool.Desc.InputSchema), typ, testLimits)
		if err != nil {
			t.Fatalf("%s: %v", tool.Desc.Name, err)
		}
		if e.codec == nil {
			continue
		}
		withCodec++
		ref := *e
		ref.codec = nil
		file, _, _ := strings.Cut(tool.Desc.Description, ": ")
		for _, d := range instances(file) {
			raw := []byte(`{"v":` + string(d) + `}`)
			calls++
			_, wantFwd, wantErr := ref.Check(raw, nil)
			_, fwd, err := e.Check(raw, nil)
			switch {
			case (err == nil) != (wantErr == nil):
				t.Errorf("%s %s: error %v, through encoding/json %v", tool.Desc.Name, raw, err, wantErr)
			case err != nil:
				if r, wr := err.(*Refusal), wantErr.(*Refusal); r.Rule != wr.Rule {
					t.Errorf("%s %s: refused by rule %s (%v), through encoding/json by %s (%v)", tool.Desc.Name, raw, r.Rule, err, wr.Rule, wantErr)
				}
			case !bytes.Equal(fwd, wantFwd):
				t.Errorf("%s %s: forwards %s, through encoding/json %s", tool.Desc.Name, raw, fwd, wantFwd)
			default:
				accepted++
				tp := getTape()
				if tp.parse(string(raw)) == nil && e.codec.encodeTape(&fwdBuf{whole: true}, tp, 0, false) {
					fast++
				}
				putTape(tp)
			}
		}
	}
	t.Logf("%d tools with unions, %d with a codec; %d calls, %d accepted, %d by encodeTape", tools, withCodec, calls, accepted, fast)
	if withCodec == 0 || accepted == 0 || fast == 0 {
		t.Errorf("%d tools with a codec, %d calls accepted, %d by encodeTape: too few to test", withCodec, accepted, fast)
	}
}
