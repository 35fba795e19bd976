package ocp

import (
	"go/types"
	"maps"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestHubNeedsNoImplPackage: every type that this package's own API shows
// a Hub or a Server implementer (exported fields of its structs, parameters
// and results of its functions, methods and interfaces, types of its
// variables and constants) is either declared here, outside the project, or
// named here by an alias: Hub code and Server implementations never import
// runtime/ocpimpl or an internal package to name what they fill in or
// receive.
func TestHubNeedsNoImplPackage(t *testing.T) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 || pkgs[0].Types == nil {
		t.Fatalf("loading this package: %v", pkgs)
	}
	pkg := pkgs[0].Types
	scope := pkg.Scope()

	// aliased are the type names that an alias of this package names.
	aliased := map[*types.TypeName]bool{}
	for _, name := range scope.Names() {
		if tn, ok := scope.Lookup(name).(*types.TypeName); ok && tn.Exported() && tn.IsAlias() {
			if n, ok := types.Unalias(tn.Type()).(*types.Named); ok {
				aliased[n.Obj()] = true
			}
		}
	}
	hidden := func(p *types.Package) bool {
		path := p.Path()
		return strings.HasPrefix(path, "github.com/ocpgen/ocpgen/") && (strings.HasSuffix(path, "/ocpimpl") || strings.Contains(path, "/internal/"))
	}

	leaks := map[string]bool{}
	var walk func(where string, typ types.Type)
	walk = func(where string, typ types.Type) {
		switch x := typ.(type) {
		case *types.Alias:
			walk(where, types.Unalias(x))
		case *types.Named:
			for a := range x.TypeArgs().Types() {
				walk(where, a)
			}
			if obj := x.Obj(); obj.Pkg() != nil && hidden(obj.Pkg()) && !aliased[obj] {
				leaks[where+": "+obj.Pkg().Path()+"."+obj.Name()] = true
			}
		case *types.Pointer:
			walk(where, x.Elem())
		case *types.Slice:
			walk(where, x.Elem())
		case *types.Array:
			walk(where, x.Elem())
		case *types.Chan:
			walk(where, x.Elem())
		case *types.Map:
			walk(where, x.Key())
			walk(where, x.Elem())
		case *types.Struct:
			for f := range x.Fields() {
				if f.Exported() {
					walk(where+"."+f.Name(), f.Type())
				}
			}
		case *types.Signature:
			for v := range x.Params().Variables() {
				walk(where, v.Type())
			}
			for v := range x.Results().Variables() {
				walk(where, v.Type())
			}
		case *types.Interface:
			for m := range x.ExplicitMethods() {
				if m.Exported() {
					walk(where+"."+m.Name(), m.Type())
				}
			}
		}
	}
	checked := 0
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		checked++
		tn, ok := obj.(*types.TypeName)
		if !ok {
			walk(name, obj.Type())
			continue
		}
		if tn.IsAlias() {
			continue
		}
		named := tn.Type().(*types.Named)
		walk(name, named.Underlying())
		for m := range named.Methods() {
			if m.Exported() {
				walk(name+"."+m.Name(), m.Type())
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d exported names: wrong package?", checked)
	}
	if len(leaks) > 0 {
		list := slices.Sorted(maps.Keys(leaks))
		t.Errorf("package ocp's API shows types that Hub code cannot name without importing them (give them a name here):\n%s", strings.Join(list, "\n"))
	}
}
