package suitecases

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

func loadGroups(t *testing.T) []Group {
	t.Helper()
	groups, err := Load(os.DirFS(filepath.Join("..", "..", "..", "..", Dir)))
	if err != nil {
		t.Fatal(err)
	}
	return groups
}

// resolve returns the resolved schema of raw, or the error of its
// resolution.
func resolve(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

func validates(r *jsonschema.Resolved, data json.RawMessage) (bool, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return false, err
	}
	return r.Validate(v) == nil, nil
}

// TestWrapKeepsVerdicts checks, with jsonschema-go as the reference
// validator, that wrapping changes no verdict: every test's data has
// under its group's schema S the verdict that {"v": data} has under the
// tool's input schema, and S resolves exactly when the input schema does.
// A group that needs a remote is left out: what it means depends on a
// document that is not kept.
func TestWrapKeepsVerdicts(t *testing.T) {
	groups := loadGroups(t)
	var checked, agree, remote, unresolved int
	for _, g := range groups {
		root, errRoot := resolve(g.Schema)
		wrapped, errWrapped := resolve(g.Input)
		if (errRoot == nil) != (errWrapped == nil) {
			t.Errorf("%s group %d (%s): the schema resolves with error %v, wrapped with error %v", g.File, g.Index, g.Description, errRoot, errWrapped)
			continue
		}
		if g.Remote != "" {
			// Its meaning depends on a document nobody has: jsonschema-go
			// refuses every instance under an unknown $schema at the root,
			// and ignores one below it.
			remote += len(g.Tests)
			continue
		}
		if errRoot != nil {
			// The reference cannot run it (a pattern RE2 lacks); its
			// bytes are S's own, with an $id.
			unresolved += len(g.Tests)
			continue
		}
		for _, tc := range g.Tests {
			a, err := validates(root, tc.Data)
			if err != nil {
				t.Fatal(err)
			}
			b, err := validates(wrapped, tc.Args())
			if err != nil {
				t.Fatal(err)
			}
			checked++
			if a != b {
				t.Errorf("%s group %d (%s), test %d (%s): valid %v at the root, %v wrapped", g.File, g.Index, g.Description, tc.Index, tc.Description, a, b)
			}
			if a == tc.Valid {
				agree++
			}
		}
	}
	t.Logf("%d cases checked with jsonschema-go, the same verdict wrapped and at the root (%d of them the suite's); not checked: %d cases of groups that need a remote, %d of groups jsonschema-go cannot resolve", checked, agree, remote, unresolved)
	if checked == 0 {
		t.Fatal("no case checked")
	}
}

// TestWrapWithoutID shows that the $id is needed: wrapped without it, at
// least one group's references point into the wrapper, and the reference
// validator then resolves it differently from the root or gives another
// verdict.
func TestWrapWithoutID(t *testing.T) {
	changed := 0
	for _, g := range loadGroups(t) {
		s := strings.TrimSpace(string(g.Schema))
		if !strings.HasPrefix(s, "{") || strings.Contains(s, `"$id"`) {
			continue
		}
		bare := json.RawMessage(`{"type":"object","properties":{"v":` + s + `},"required":["v"]}`)
		root, errRoot := resolve(g.Schema)
		wrapped, errWrapped := resolve(bare)
		if errRoot != nil {
			continue
		}
		if errWrapped != nil {
			changed++
			continue
		}
		for _, tc := range g.Tests {
			a, _ := validates(root, tc.Data)
			b, _ := validates(wrapped, tc.Args())
			if a != b {
				changed++
				break
			}
		}
	}
	if changed == 0 {
		t.Fatal("no group changes meaning when wrapped without an $id: the rule would be needless")
	}
	t.Logf("%d groups change meaning when wrapped without an $id", changed)
}

// TestCommit checks that Commit is the commit the suite's README names.
func TestCommit(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "..", Dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), Commit) {
		t.Errorf("%s/README.md does not name the commit %s", Dir, Commit)
	}
}

func TestToolNames(t *testing.T) {
	for file, want := range map[string]string{"ref.json": "ref_3", "optional/bignum.json": "optional_bignum_3", "if-then-else.json": "if_then_else_3"} {
		if got := toolName(file, 3); got != want {
			t.Errorf("toolName(%q, 3) = %q, want %q", file, got, want)
		}
	}
}
