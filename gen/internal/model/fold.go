package model

import (
	"bytes"
	"unicode/utf8"

	"github.com/ocpgen/ocpgen/internal/jsonscan"
)

// foldDistinct reports whether every JSON object in raw (valid JSON) has
// keys that encoding/json tells apart when it decodes the object into a
// struct: no two equal under its case folding (foldName in encoding/json),
// so no two of them, in whichever order, fill the same field. Then parsing
// raw and parsing its canonical form (keys sorted, duplicates dropped) give
// the same values. It walks the bytes once, without recursion.
func foldDistinct(raw []byte) bool {
	type frame struct {
		obj     bool
		wantKey bool
		start   int                 // the object's first key in keys
		set     map[string]struct{} // folded keys, once the object has many
	}
	var stack []frame
	var keys [][]byte // decoded keys of the open objects
	var buf []byte
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"':
			start := i
			end, plain, ok := jsonscan.ScanString(raw, i)
			if !ok {
				return false
			}
			i = end - 1
			if len(stack) == 0 {
				continue
			}
			top := &stack[len(stack)-1]
			if !top.obj || !top.wantKey {
				continue
			}
			top.wantKey = false
			key := raw[start+1 : end-1]
			if !plain {
				var s string
				s, buf = jsonscan.Unquote(buf, raw[start:end])
				key = []byte(s)
			}
			if top.set == nil && len(keys)-top.start < 32 {
				for _, k := range keys[top.start:] {
					if foldEqual(k, key) {
						return false
					}
				}
				keys = append(keys, key)
				continue
			}
			if top.set == nil {
				top.set = make(map[string]struct{}, 2*(len(keys)-top.start))
				for _, k := range keys[top.start:] {
					top.set[string(jsonscan.AppendFoldedName(buf[:0], k))] = struct{}{}
				}
			}
			buf = jsonscan.AppendFoldedName(buf[:0], key)
			if _, dup := top.set[string(buf)]; dup {
				return false
			}
			top.set[string(buf)] = struct{}{}
		case '{':
			stack = append(stack, frame{obj: true, wantKey: true, start: len(keys)})
		case '[':
			stack = append(stack, frame{start: len(keys)})
		case '}', ']':
			if len(stack) > 0 {
				keys = keys[:stack[len(stack)-1].start]
				stack = stack[:len(stack)-1]
			}
		case ',':
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].wantKey = true
			}
		}
	}
	return true
}

// foldEqual reports whether encoding/json's foldName gives a and b the same
// folded form.
func foldEqual(a, b []byte) bool {
	if isASCII(a) && isASCII(b) {
		return bytes.EqualFold(a, b)
	}
	var x, y [64]byte
	return bytes.Equal(jsonscan.AppendFoldedName(x[:0], a), jsonscan.AppendFoldedName(y[:0], b))
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
