package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DialGate builds a [Gate] over a [ClientCaller] made by [Dial]: the gate
// calls the server through the client, and the client keeps the gate's
// advertised catalogue in step with the server (on connect, on every
// notifications/tools/list_changed, and withdrawn while disconnected). It is
// the usual way for a Hub to front one MCP server.
//
// cfg.Caller and opts.Syncer must be nil: DialGate sets them. The Hub closes
// the returned client when it is done.
func DialGate(ctx context.Context, cfg Config, dial func(context.Context) (mcp.Transport, error), opts ClientOptions) (*Gate, *ClientCaller, error) {
	if cfg.Caller != nil || opts.Syncer != nil {
		return nil, nil, errors.New("ocpgen runtime: DialGate sets Config.Caller and ClientOptions.Syncer; leave them nil")
	}
	late := &lateCaller{}
	cfg.Caller = late
	g, err := NewGate(cfg)
	if err != nil {
		return nil, nil, err
	}
	opts.Syncer = g
	c, err := Dial(ctx, dial, opts)
	if err != nil {
		return nil, nil, err
	}
	late.c.Store(c)
	return g, c, nil
}

// lateCaller lets the gate exist before its client, which needs the gate as
// its syncer. Until the client is set it refuses every call.
type lateCaller struct {
	c atomic.Pointer[ClientCaller]
}

func (l *lateCaller) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	c := l.c.Load()
	if c == nil {
		return nil, ErrNotConnected
	}
	return c.CallTool(ctx, name, args)
}
