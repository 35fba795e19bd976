package ocpimpl

import (
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"
)

// generatedCode is every file of generated code the repository holds: the
// golden outputs and the committed generated packages.
var generatedCode = []string{
	"../../testdata/golden/*.txtar",
	"../../examples/tickets/ticketsocp/*.go",
	"../../e2e/*ocp/*.go",
	"../../e2e/suite/suiteocp/*.go",
}

// TestExportsOnlyWhatGeneratedCodeUses: every name this package exports is
// one that generated code names, or a type that such a name reaches
// (through a field, a parameter, a result or an alias: the type of a
// Descriptor's Policy, of a Template's segments), a constant of such a
// type, or a constructor of one (Null and Value make the Nullable that
// generated fields hold). The gate's and the generator's helpers live in
// module-internal packages.
func TestExportsOnlyWhatGeneratedCodeUses(t *testing.T) {
	named := map[string]bool{}
	sel := regexp.MustCompile(`\bocpimpl\.([A-Z][A-Za-z0-9_]*)`)
	files := 0
	for _, glob := range generatedCode {
		paths, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range sel.FindAllSubmatch(b, -1) {
				named[string(m[1])] = true
			}
			files++
		}
	}
	if files < 100 || len(named) == 0 {
		t.Fatalf("found %d generated files naming %d names of ocpimpl: wrong working directory?", files, len(named))
	}

	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 || pkgs[0].Types == nil {
		t.Fatalf("loading this package: %v", pkgs)
	}
	scope := pkgs[0].Types.Scope()

	// reached holds the type names that the named objects reach.
	reached := map[*types.TypeName]bool{}
	var walk func(types.Type)
	walk = func(typ types.Type) {
		switch x := typ.(type) {
		case *types.Alias:
			walk(types.Unalias(x))
		case *types.Named:
			if reached[x.Obj()] {
				return
			}
			reached[x.Obj()] = true
			walk(x.Underlying())
		case *types.Pointer:
			walk(x.Elem())
		case *types.Slice:
			walk(x.Elem())
		case *types.Array:
			walk(x.Elem())
		case *types.Map:
			walk(x.Key())
			walk(x.Elem())
		case *types.Struct:
			for f := range x.Fields() {
				if f.Exported() {
					walk(f.Type())
				}
			}
		case *types.Signature:
			for v := range x.Params().Variables() {
				walk(v.Type())
			}
			for v := range x.Results().Variables() {
				walk(v.Type())
			}
		}
	}
	for name := range named {
		obj := scope.Lookup(name)
		if obj == nil {
			t.Errorf("generated code names ocpimpl.%s, which this package does not declare", name)
			continue
		}
		walk(obj.Type())
	}
	isReached := func(typ types.Type) bool {
		n, ok := types.Unalias(typ).(*types.Named)
		return ok && reached[n.Obj()]
	}

	var extra []string
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() || named[name] {
			continue
		}
		ok := false
		switch o := obj.(type) {
		case *types.TypeName, *types.Const:
			ok = isReached(o.Type())
		case *types.Func:
			res := o.Type().(*types.Signature).Results()
			ok = res.Len() == 1 && isReached(res.At(0).Type())
		}
		if !ok {
			extra = append(extra, name)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		t.Errorf("ocpimpl exports %q, which generated code never names (nor reaches through a name it uses): move them to a module-internal package", extra)
	}
}
