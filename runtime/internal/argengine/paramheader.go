package argengine

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The header-value rule. From MCP revision 2026-07-28 (SEP-2243) a tool's
// input schema may annotate a property with "x-mcp-header": NAME, and a
// client on Streamable HTTP then sends that argument's value a second time,
// in the HTTP header Mcp-Param-NAME, where proxies and load balancers read
// it. The revision allows only some values there: a string (sent as is when
// it is printable ASCII without surrounding white space, else as
// "=?base64?…?="), an integer within ±(2^53−1), a boolean; an absent or
// null argument sends no header. The go-sdk leaves out the header of any
// other value, and a server that checks the headers against the body then
// refuses the call: after the confirm, for a write. So the engine refuses
// such a value first, naming its pointer (RuleParamHeader), and also a
// value whose header would be longer than MaxParamHeaderBytes, which
// proxies commonly refuse.
//
// The rule holds on every transport and revision, though only Streamable
// HTTP under 2026-07-28 sends the headers: the schema says the argument is
// a header value, and a call's verdict does not depend on how the Hub
// reaches the server.

// MaxParamHeaderBytes bounds the header form of a mirrored argument: 8 KiB,
// the common limit of one header field in HTTP servers and proxies.
const MaxParamHeaderBytes = 8192

// maxSafeInteger is 2^53−1, the largest integer a header value may carry
// (the integers a JavaScript number holds exactly).
var maxSafeInteger, _ = parseDecimal("9007199254740991")

// The markers of a base64 header value.
const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// paramHeader is one x-mcp-header annotation of an input schema.
type paramHeader struct {
	path   []string // the property names from the arguments' root
	header string   // the annotation's value: the header is Mcp-Param-<header>
}

// paramHeaders returns the x-mcp-header annotations of an input schema: of
// each property reached from the root through "properties" alone (the
// chain SEP-2243 reads), whose annotation is a non-empty string, in
// property-name order.
func paramHeaders(inputSchema []byte) ([]paramHeader, error) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(inputSchema, &root); err != nil {
		return nil, err
	}
	var out []paramHeader
	var walk func(schema map[string]json.RawMessage, path []string)
	walk = func(schema map[string]json.RawMessage, path []string) {
		var props map[string]json.RawMessage
		if json.Unmarshal(schema["properties"], &props) != nil {
			return
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			var prop map[string]json.RawMessage
			if json.Unmarshal(props[name], &prop) != nil {
				continue // true or false: no annotation
			}
			p := append(slices.Clip(path), name)
			var header string
			if json.Unmarshal(prop["x-mcp-header"], &header) == nil && header != "" {
				out = append(out, paramHeader{path: p, header: header})
			}
			walk(prop, p)
		}
	}
	walk(root, nil)
	return out, nil
}

// checkParamHeaders applies RuleParamHeader to the parsed arguments t: the
// value of each annotated argument that is present must be a header value.
// It costs a walk of the annotated paths, each member looked up among its
// siblings.
func checkParamHeaders(t *tape, headers []paramHeader) error {
	for _, h := range headers {
		i := 0
		for _, name := range h.path {
			if t.kind(i) != tObject {
				i = -1
				break
			}
			if i = t.member(i, name); i < 0 {
				break
			}
		}
		if i < 0 {
			continue // absent: no header
		}
		if err := headerValue(t, i); err != nil {
			return refusal(t.pointer(i), RuleParamHeader, fmt.Errorf("the tool's schema mirrors this argument into an HTTP header (x-mcp-header %s), and %w", truncQuote(h.header), err))
		}
	}
	return nil
}

// headerValue reports why value i of t, an argument's value, cannot be a
// mirrored header's value (nil if it can).
func headerValue(t *tape, i int) error {
	switch t.kind(i) {
	case tNull, tTrue, tFalse:
		return nil
	case tNumber:
		d, ok := parseDecimal(t.str(i))
		if !ok || !d.isInteger() {
			return errors.New("a header carries an integer, not a number with a fraction")
		}
		if !d.zero() && cmpMagnitude(&d, &maxSafeInteger) > 0 {
			return errors.New("a header carries only integers within ±(2^53−1)")
		}
		return nil
	case tString:
		if n := headerLen(t.str(i)); n > MaxParamHeaderBytes {
			return fmt.Errorf("its header would be %d bytes, over the limit of %d", n, MaxParamHeaderBytes)
		}
		return nil
	}
	return errors.New("a header carries a string, an integer or a boolean, not an array or object")
}

// headerLen is the length of the header form of the string s: s itself
// when it is printable ASCII, does not start or end with white space and
// is not itself of the base64 form; else its base64 form.
func headerLen(s string) int {
	plain := s == "" || (s[0] != ' ' && s[0] != '\t' && s[len(s)-1] != ' ' && s[len(s)-1] != '\t')
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain && !(strings.HasPrefix(s, base64Prefix) && strings.HasSuffix(s, base64Suffix)) {
		return len(s)
	}
	return len(base64Prefix) + base64.StdEncoding.EncodedLen(len(s)) + len(base64Suffix)
}
