package load

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
)

// tooDeepRef is tooDeep as it was (892dc9f), with its own path stack;
// tooDeep now walks with walkPath, which badText shares.
func tooDeepRef(data []byte, limit int) (tool int, member, name string, found bool) {
	type frame struct {
		obj     bool
		wantKey bool
		key     string // the current member's key (decoded above depth 3 only)
		index   int
	}
	var stack []frame
	tool = -1
	names := map[int]string{}
	// inTool reports whether the stack is /tools/N (an object) and beyond.
	inTool := func() bool {
		return len(stack) >= 3 && stack[0].obj && stack[0].key == "tools" && !stack[1].obj && stack[2].obj
	}
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			start := i
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if len(stack) == 0 || len(stack) > 3 {
				continue
			}
			top := &stack[len(stack)-1]
			var str string
			if i < len(data) {
				_ = json.Unmarshal(data[start:i+1], &str)
			}
			if top.obj && top.wantKey {
				top.key, top.wantKey = str, false
			} else if len(stack) == 3 && inTool() && top.key == "name" {
				names[stack[1].index] = str
			}
		case '{', '[':
			stack = append(stack, frame{obj: c == '{', wantKey: c == '{'})
			if found {
				continue
			}
			switch {
			case inTool() && len(stack)-3 > limit:
				tool, member, found = stack[1].index, stack[2].key, true
			case !inTool() && len(stack) > limit+3:
				var toks []string
				for _, f := range stack[:min(len(stack)-1, 3)] {
					if f.obj {
						toks = append(toks, f.key)
					} else {
						toks = append(toks, strconv.Itoa(f.index))
					}
				}
				member, found = pointer(toks...), true
			}
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				if top.obj {
					top.wantKey = true
				} else {
					top.index++
				}
			}
		}
	}
	if found && tool >= 0 {
		name = names[tool]
	}
	return tool, member, name, found
}

var tooDeepCases = []string{
	`{"tools":[{"name":"a","inputSchema":{"a":[[[1]]]}}]}`, `{"tools":[{"inputSchema":[[[[]]]],"name":"b"}]}`,
	`{"x":{"y":[[[[[]]]]]}}`, `[[[[[[]]]]]]`, `{"tools":[{"name":"\u0061","k\u00e9y":{"a":{"b":{"c":{}}}}}]}`,
	`{"tools":[{"inputSchema":1},{[[[[[[`, `{"tools":[{"a":{"b":{"c":{"d":`, `{"tools":[1,{"name":"x"},{"name":"y","s":[[[[[`,
	`{"tools":[{"name":"a\"","s":[[[[[`, `{"tools":{"a":[[[[[[]]]]]]}}`, `]]}},,{"tools":[{"name":"q","z":[[[[[[`,
	`{"tools":[{"name":"x","name":"y","s":{"t":{"u":{"v":{}}}}}]}`, `{"tools":[{"s":{"t":{"u":{"v":{}}}},"name":"late"}]}`,
}

func checkTooDeep(t *testing.T, data []byte, limit int) {
	t.Helper()
	gt, gm, gn, gf := tooDeep(data, limit)
	wt, wm, wn, wf := tooDeepRef(data, limit)
	if gt != wt || gm != wm || gn != wn || gf != wf {
		t.Fatalf("%q, %d: tooDeep = %d, %q, %q, %v; want %d, %q, %q, %v", data, limit, gt, gm, gn, gf, wt, wm, wn, wf)
	}
}

func TestTooDeep(t *testing.T) {
	for _, c := range tooDeepCases {
		for limit := 0; limit < 4; limit++ {
			checkTooDeep(t, []byte(c), limit)
		}
	}
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{1, 2, 3, 5, MaxSchemaDepth} {
			checkTooDeep(t, data, limit)
		}
	}
	checkTooDeep(t, []byte(`{"tools":[{"name":"d","inputSchema":`+strings.Repeat("[", 300)+`]}]}`), MaxSchemaDepth)
}

func FuzzTooDeep(f *testing.F) {
	for _, c := range tooDeepCases {
		f.Add([]byte(c), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		checkTooDeep(t, data, int(limit%6))
	})
}
