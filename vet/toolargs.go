package vet

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/passes/inspect"
	"golang.org/x/tools/go/ast/inspector"
)

// ToolArgs reports typed calls of a generated tool with the arguments of
// another tool: X.Call(ctx, gate, p, YArgs{...}). The runtime refuses such a
// call (invalid), so this catches at vet time what used to be a compile
// error. Gate.Call, which finds the tool from the arguments' type, cannot
// make this mistake.
var ToolArgs = &analysis.Analyzer{
	Name: "ocptoolargs",
	Doc: `report typed calls of a generated tool with another tool's arguments

ocptoolargs reports calls X.Call(ctx, gate, principal, args) of a tool
that ocpgen generated, where the static type of args is the argument
struct of another tool. The gate refuses such a call as invalid; call
gate.Call(ctx, principal, args), which finds the tool from the arguments.`,
	URL:       "https://github.com/ocpgen/ocpgen#reviewing-changes",
	Requires:  []*analysis.Analyzer{inspect.Analyzer},
	FactTypes: []analysis.Fact{new(toolArgsFact)},
	Run:       runToolArgs,
}

// toolArgsFact is exported for each tool variable of an ocpgen-generated
// file: the argument struct named by its Args field.
type toolArgsFact struct {
	Args  string // types.TypeString of the struct type, with package paths
	Short string // the same with package names, for messages
}

func (*toolArgsFact) AFact() {}

func (f *toolArgsFact) String() string { return "toolArgs(" + f.Args + ")" }

func runToolArgs(pass *analysis.Pass) (any, error) {
	// Facts first: var X = &runtime.Tool{Args: (*XArgs)(nil), ...} in
	// ocpgen's files.
	for _, f := range pass.Files {
		if !generatedByOCPGen(f) {
			continue
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
					continue
				}
				if args := toolLiteralArgs(pass, vs.Values[0]); args != nil {
					if obj := pass.TypesInfo.Defs[vs.Names[0]]; obj != nil {
						pass.ExportObjectFact(obj, &toolArgsFact{Args: types.TypeString(args, nil), Short: types.TypeString(args, byName)})
					}
				}
			}
		}
	}

	ins := pass.ResultOf[inspect.Analyzer].(*inspector.Inspector)
	for cur := range ins.Root().Preorder((*ast.CallExpr)(nil)) {
		call := cur.Node().(*ast.CallExpr)
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Call" || len(call.Args) != 4 {
			continue
		}
		s, ok := pass.TypesInfo.Selections[sel]
		if !ok || s.Kind() != types.MethodVal || !isMethodOf(s.Obj(), RuntimePath, "Tool", "Call") {
			continue
		}
		tool := toolVar(pass, sel.X)
		if tool == nil {
			continue
		}
		var fact toolArgsFact
		if !pass.ImportObjectFact(tool, &fact) {
			continue
		}
		got := pass.TypesInfo.TypeOf(call.Args[3])
		if got == nil {
			continue
		}
		if p, ok := got.Underlying().(*types.Pointer); ok {
			got = p.Elem()
		}
		if _, isIface := got.Underlying().(*types.Interface); isIface {
			continue // the dynamic type is not known here; the gate checks it
		}
		if have := types.TypeString(got, nil); have != fact.Args {
			pass.Reportf(call.Args[3].Pos(), "%s.Call with arguments of type %s, but the tool's arguments are %s: the gate refuses this call as invalid; use gate.Call(ctx, principal, args), which finds the tool from the arguments",
				tool.Name(), types.TypeString(got, byName), fact.Short)
		}
	}
	return nil, nil
}

// toolLiteralArgs returns T when e is &runtime.Tool{Args: (*T)(nil), ...}.
func toolLiteralArgs(pass *analysis.Pass, e ast.Expr) types.Type {
	u, ok := e.(*ast.UnaryExpr)
	if !ok {
		return nil
	}
	lit, ok := u.X.(*ast.CompositeLit)
	if !ok || !isRuntimeTool(pass.TypesInfo.TypeOf(lit)) {
		return nil
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		if k, ok := kv.Key.(*ast.Ident); !ok || k.Name != "Args" {
			continue
		}
		conv, ok := kv.Value.(*ast.CallExpr)
		if !ok || len(conv.Args) != 1 {
			return nil
		}
		if p, ok := pass.TypesInfo.TypeOf(conv).(*types.Pointer); ok {
			return p.Elem()
		}
	}
	return nil
}

// toolVar returns the package-level variable that e names (X or pkg.X), or
// nil.
func toolVar(pass *analysis.Pass, e ast.Expr) *types.Var {
	var id *ast.Ident
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id = x.Sel
	default:
		return nil
	}
	v, ok := pass.TypesInfo.Uses[id].(*types.Var)
	if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
		return nil
	}
	return v
}

// byName qualifies types by package name, for messages.
func byName(p *types.Package) string { return p.Name() }

// isRuntimeTool reports whether t is runtime.Tool.
func isRuntimeTool(t types.Type) bool {
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Name() == "Tool" && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == RuntimePath
}
