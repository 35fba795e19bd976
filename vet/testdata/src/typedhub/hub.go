package typedhub

import (
	"context"

	ocprt "github.com/ocpgen/ocpgen/runtime"

	"typedhub/tools"
)

func typedCalls(ctx context.Context, g *ocprt.Gate, p ocprt.Principal, some ocprt.Args) {
	tools.DeleteFile.Call(ctx, g, p, tools.DeleteFileArgs{Path: "a"})
	tools.DeleteFile.Call(ctx, g, p, &tools.DeleteFileArgs{Path: "a"})
	(tools.ReadFile).Call(ctx, g, p, tools.ReadFileArgs{})

	tools.DeleteFile.Call(ctx, g, p, tools.ReadFileArgs{Path: "a"})  // want `DeleteFile.Call with arguments of type tools.ReadFileArgs, but the tool's arguments are tools.DeleteFileArgs`
	tools.ReadFile.Call(ctx, g, p, &tools.DeleteFileArgs{Path: "a"}) // want `ReadFile.Call with arguments of type tools.DeleteFileArgs, but the tool's arguments are tools.ReadFileArgs`

	// Not known statically: the gate checks these at run time.
	tools.DeleteFile.Call(ctx, g, p, some)
	t := tools.DeleteFile
	t.Call(ctx, g, p, tools.ReadFileArgs{})
	tools.Handmade.Call(ctx, g, p, tools.DeleteFileArgs{})

	// Gate.Call finds the tool from the arguments: nothing to check.
	g.Call(ctx, p, tools.ReadFileArgs{})
}
