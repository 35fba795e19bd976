package emit

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ocpgen/ocpgen/gen/internal/load"
)

// checkSkeleton renders the skeleton of s and checks that it loads back
// clean: every tool listed once, in order, as a write, and nothing else.
func checkSkeleton(t *testing.T, s *load.Snapshot) []byte {
	t.Helper()
	out, err := Skeleton(s)
	if err != nil {
		t.Fatal(err)
	}
	c, diags := load.LoadClassification("skeleton.yaml", out)
	if len(diags) > 0 {
		t.Fatalf("skeleton does not load:\n%v\n%s", diags, out)
	}
	if d := load.CheckStale(s, c); len(d) > 0 {
		t.Fatalf("skeleton is stale: %v", d)
	}
	if len(c.Tools) != len(s.Tools) {
		t.Fatalf("skeleton lists %d tools, snapshot has %d:\n%s", len(c.Tools), len(s.Tools), out)
	}
	for i, e := range c.Tools {
		if e.Name != s.Tools[i].Name || e.Access != load.AccessWrite || e.Tier != "" || e.Confirm != nil {
			t.Errorf("entry %d = %+v, want %q as a plain write", i, e, s.Tools[i].Name)
		}
	}
	if strings.Join(c.Tiers, " ") != "anonymous visitor member operator admin" || c.Default.Tier != "member" {
		t.Errorf("tiers %v, default %+v", c.Tiers, c.Default)
	}
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.HasSuffix(out, []byte("\n\n")) {
		t.Errorf("skeleton does not end in exactly one newline")
	}
	return out
}

func TestSkeletonMemory(t *testing.T) {
	s, diags := load.LoadSnapshot("memory.tools.json", []byte(`{"server": {"name": "memory-server", "version": "0.6.3"}, "tools": [
	  {"name": "delete_entities", "description": "Delete multiple entities\nand relations", "inputSchema": {},
	   "annotations": {"readOnlyHint": false, "destructiveHint": true}},
	  {"name": "read_graph", "inputSchema": {}}]}`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	out := string(checkSkeleton(t, s))
	for _, want := range []string{
		"# ocpgen classification for \"memory-server\" 0.6.3.\n",
		"# Snapshot: memory.tools.json\n",
		"version: 1\ntiers: [anonymous, visitor, member, operator, admin]",
		"default: {tier: member}\ntools:\n",
		"  # Delete multiple entities\n" +
			"  # server hint (not trusted): readOnlyHint: false, destructiveHint: true\n" +
			"  delete_entities:\n    access: write\n\n" +
			"  read_graph:\n    access: write\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("skeleton lacks %q:\n%s", want, out)
		}
	}
}

// TestSkeletonHostile feeds names and descriptions that try to break out of
// a comment or a key and add a tool entry of their own.
func TestSkeletonHostile(t *testing.T) {
	inject := "\n  evil:\n    access: read\n"
	names := []string{
		"true", "null", "1e3", "0x10", "yes", "~", "a: b", "#c", "- x", "[x]", "{x}", "*x", "&x", "!x",
		"x # y", "a\"b", `a\b`, "tab\there", "é", "a\u2028b", "a\u0085b", "a\rb", "a\nb: c",
		"a" + inject, "\u202egnp.exe", "\U0001F600", "\x00", " lead", "trail ", "'q'", "%x", "@x", "`x`",
	}
	descriptions := []string{
		inject, "ok" + inject, "ok\r  evil: {access: read}", "ok\u2028  evil: {access: read}",
		"ok\u0085  evil: {access: read}", "ok\u2029x", "ok\x0b\x0c\x1b[31m", "\n\n  \nsecond line first",
		"*/ // --- ...", strings.Repeat("long ", 100),
	}
	var tools []map[string]any
	for i, n := range names {
		tools = append(tools, map[string]any{
			"name": n, "description": descriptions[i%len(descriptions)], "inputSchema": map[string]any{},
		})
	}
	raw, err := json.Marshal(map[string]any{
		"server": map[string]any{"name": "srv\n  evil: {access: read}", "version": "1\r\nx"},
		"tools":  tools,
	})
	if err != nil {
		t.Fatal(err)
	}
	s, diags := load.LoadSnapshot("evil\n.json", raw)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	out := checkSkeleton(t, s) // every name comes back, as a write, and no "evil" entry
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") && strings.ContainsAny(line, "\r\u2028\u2029\u0085\x1b\u202e") {
			t.Errorf("comment line keeps a break or control character: %q", line)
		}
		if len([]rune(line)) > 200 {
			t.Errorf("line of %d characters: %q", len([]rune(line)), line)
		}
	}
}

// TestSkeletonInvisibleNames: two tools whose names differ only by an
// invisible character (U+3164 HANGUL FILLER, U+034F COMBINING GRAPHEME
// JOINER) have keys that look different, and no invisible character is
// written raw, in a key or in a comment.
func TestSkeletonInvisibleNames(t *testing.T) {
	names := []string{"purge_all", "purge_all\u3164", "purge\u034Fall", "purge_all\uFE0F", "purge_all\u2065"}
	var tools []map[string]any
	for _, n := range names {
		tools = append(tools, map[string]any{"name": n, "description": "Purge\u3164 all\u034F", "inputSchema": map[string]any{}})
	}
	raw, _ := json.Marshal(map[string]any{"tools": tools})
	s, diags := load.LoadSnapshot("purge.tools.json", raw)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	out := string(checkSkeleton(t, s))
	for _, r := range []rune{0x3164, 0x034F, 0xFE0F, 0x2065} {
		if strings.ContainsRune(out, r) {
			t.Errorf("U+%04X written raw:\n%s", r, out)
		}
	}
	for _, want := range []string{"  purge_all:\n", `  "purge_all\u3164":` + "\n", `  "purge\u034Fall":` + "\n", `  "purge_all\uFE0F":` + "\n", `  "purge_all\u2065":` + "\n", "  # Purge all\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("skeleton lacks %q:\n%s", want, out)
		}
	}
}

func TestYAMLKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"read_graph", "read_graph"},
		{"resolve-library-id", "resolve-library-id"},
		{"a.b", "a.b"},
		{"true", `"true"`},
		{"null", `"null"`},
		{"1e3", `"1e3"`},
		{"a b", `"a b"`},
		{`a"b`, `"a\"b"`},
		{"a\nb", `"a\u000Ab"`},
		{"a\u2028b", `"a\u2028b"`},
		{"\U000E0001", `"\U000E0001"`},
		{"é", `"é"`},
		// Invisible but printable to strconv: escaped, so that the key
		// does not read as purge_all (Default_Ignorable, unassigned).
		{"purge_all\u3164", `"purge_all\u3164"`},
		{"purge\u034Fall", `"purge\u034Fall"`},
		{"a\u115F\u1160\uFFA0\uFE0F", `"a\u115F\u1160\uFFA0\uFE0F"`},
		{"a\u2065\uFFF0", `"a\u2065\uFFF0"`},
		{"a\U000E0100", `"a\U000E0100"`},
		{"a\u00AD", `"a\u00AD"`},
	}
	for _, tt := range tests {
		if got := yamlKey(tt.in); got != tt.want {
			t.Errorf("yamlKey(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestSkeletonNil(t *testing.T) {
	if _, err := Skeleton(nil); err == nil {
		t.Error("no error for a nil snapshot")
	}
	out := checkSkeleton(t, &load.Snapshot{File: "empty.tools.json"})
	if !bytes.Contains(out, []byte("tools: {}\n")) {
		t.Errorf("empty snapshot:\n%s", out)
	}
}

// FuzzSkeleton checks that every snapshot that loads has a skeleton that
// loads back (Skeleton checks that itself, and errs when it does not).
func FuzzSkeleton(f *testing.F) {
	f.Add([]byte(`{"tools": [{"name": "a", "description": "x\ny", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}]}`))
	f.Add([]byte(`{"tools": [{"name": "true", "inputSchema": {"type": "object"}}, {"name": "a: b", "inputSchema": {"type": "object"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, diags := load.LoadSnapshot("s.json", data)
		if diags.Err() != nil {
			return
		}
		if _, err := Skeleton(s); err != nil {
			t.Fatal(err)
		}
	})
}
