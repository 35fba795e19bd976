package ocp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errNotObject refuses arguments that are not a JSON object, before sending.
var errNotObject = errors.New("ocp client: arguments are not a JSON object")

// The MCP revisions the client asks for, in the order it asks.
const (
	// ProtocolVersion is the current revision, asked for first. A server
	// that speaks it is spoken to in it (SEP-2575: server/discover, no
	// initialize handshake, subscriptions/listen, and on Streamable HTTP no
	// session); any other is spoken to in LegacyProtocolVersion through the
	// initialize handshake.
	ProtocolVersion = "2026-07-28"
	// LegacyProtocolVersion is the revision offered in the initialize
	// handshake to a server that does not speak ProtocolVersion. A server
	// may answer it with an older revision (2025-06-18, 2025-03-26,
	// 2024-11-05); the client speaks that one too, with the same rules.
	LegacyProtocolVersion = "2025-11-25"
)

// spokenVersions are the revisions a session may use, newest first: what
// a server receives under each is known (docs/mcp-revisions.md). A revision
// the go-sdk learns later is refused at connect until it is added here.
var spokenVersions = []string{ProtocolVersion, LegacyProtocolVersion, "2025-06-18", "2025-03-26", "2024-11-05"}

// hubMetaKeys are the _meta keys a request may carry under ProtocolVersion:
// SEP-2575's, which describe the Hub (its revision, its client info, its
// capabilities) and the log level it asks for. Every other key is removed
// before sending, and under an older revision _meta is removed whole.
var hubMetaKeys = []string{mcp.MetaKeyProtocolVersion, mcp.MetaKeyClientInfo, mcp.MetaKeyClientCapabilities, mcp.MetaKeyLogLevel}

const (
	defaultClientName    = "ocpgen-hub"
	defaultClientVersion = "0.0.0"
	// listTimeout bounds one complete tools/list (all pages), so a server
	// that stops answering cannot stall catalogue sync until Close.
	listTimeout = time.Minute
	// maxListPages stops a server that returns cursors forever.
	maxListPages = 10000
	// Redial back-off for a caller made by Dial: doubles from min to max.
	minRedialDelay = 100 * time.Millisecond
	maxRedialDelay = 30 * time.Second
)

// ClientOptions configure a [Client].
type ClientOptions struct {
	// Audit receives server log messages (notifications/message), refused
	// server requests, listing failures and session changes, and the go-sdk
	// client's own log. Nil discards.
	Audit *slog.Logger
	// Name and Version are the client implementation info sent in the
	// initialize request. Defaults: "ocpgen-hub" and "0.0.0".
	Name, Version string
	// LogLevel, if set, asks the server for its log messages (to the audit
	// log) at that level and above: under [ProtocolVersion] every request
	// carries it in _meta (io.modelcontextprotocol/logLevel); under an
	// older revision it is sent with logging/setLevel after connecting, if
	// the server declares the logging capability. Empty: the client does
	// not ask for log messages (a server may still send some).
	LogLevel mcp.LoggingLevel
	// RelistEvery is how often the client lists the server's tools again
	// although the server sent no notifications/tools/list_changed, so a
	// server that changes a schema silently (or whose subscriptions/listen
	// stream ended) is caught within it. Every listing asks the server: a
	// list result's cache TTL (SEP-2549 ttlMs) is not honoured, so no
	// catalogue is older than this. Zero means 5 minutes; a negative
	// value turns it off (the client still lists on every connect and every
	// list_changed).
	RelistEvery time.Duration
}

// defaultRelistEvery is the default of ClientOptions.RelistEvery.
const defaultRelistEvery = 5 * time.Minute

// Client is the [Server] over a go-sdk MCP client session, for [NewGate].
// It speaks [ProtocolVersion] to a server that does, and
// [LegacyProtocolVersion] (or the older revision the server answers with)
// to one that does not; [Client.ProtocolVersion] says which. It keeps the
// gate's catalogue in step with the server (see [Server.WatchTools]):
// under ProtocolVersion list changes arrive through subscriptions/listen.
// It treats the server as a tool provider, not a peer: the client declares
// no capability (no roots, sampling or elicitation), refuses every request
// the server sends except ping, answers no input request of a result (the
// gate fails the call), and passes server log messages only to the audit
// log. A request carries _meta only under ProtocolVersion, and then only
// the keys that describe the Hub (see docs/mcp-revisions.md).
//
// It does not expose its *mcp.ClientSession: Hub code holding the session
// could call tools without the gate. Its CallTool is for the gate alone,
// and `ocpgen vet` reports a call of it from Hub code.
type Client struct {
	client *mcp.Client
	audit  *slog.Logger
	level  mcp.LoggingLevel
	relist time.Duration                                // <= 0: never on a timer
	dial   func(context.Context) (mcp.Transport, error) // nil: no redial

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc

	mu      sync.Mutex
	session *mcp.ClientSession // nil while disconnected
	closed  bool

	kick    chan struct{}   // list_changed seen; capacity 1, so changes coalesce
	resyncs chan chan error // Resync requests to the worker
	done    chan struct{}   // closed when the worker has returned
	wg      sync.WaitGroup  // session watchers
	once    sync.Once
	err     error // Close's result

	// toolsMu serializes the tool lists passed to the watcher; tools is the
	// latest one.
	toolsMu sync.Mutex
	tools   []LiveTool
	watcher func([]LiveTool)
}

var _ Server = (*Client)(nil)

// Connect connects to the MCP server over t and lists its tools (every
// page) before returning. It does not reconnect:
// once the session ends, the catalogue is withdrawn and CallTool returns
// [ErrNotConnected]; the Hub may Close it and Connect again. Use [Dial] for
// a caller that reconnects by itself.
func Connect(ctx context.Context, t mcp.Transport, opts ClientOptions) (*Client, error) {
	if t == nil {
		return nil, errors.New("ocp client: Connect: nil transport")
	}
	return start(ctx, func(context.Context) (mcp.Transport, error) { return t, nil }, false, opts)
}

// Dial is [Connect] with a transport factory, so that the caller can
// reconnect: when the session ends (a Streamable HTTP server restarted, a
// stdio server exited), the catalogue is withdrawn at once and the caller dials again in the background with
// growing delays until it succeeds or is closed; the new session's tool
// list is then synced. dial must return a fresh transport each time (for
// example a new &mcp.StreamableClientTransport{Endpoint: url}). The first
// connection is made before Dial returns, and its failure is returned.
func Dial(ctx context.Context, dial func(context.Context) (mcp.Transport, error), opts ClientOptions) (*Client, error) {
	if dial == nil {
		return nil, errors.New("ocp client: Dial: nil dial func")
	}
	return start(ctx, dial, true, opts)
}

func start(ctx context.Context, dial func(context.Context) (mcp.Transport, error), redial bool, opts ClientOptions) (*Client, error) {
	audit := opts.Audit
	if audit == nil {
		audit = slog.New(slog.DiscardHandler)
	}
	impl := &mcp.Implementation{Name: opts.Name, Version: opts.Version}
	if impl.Name == "" {
		impl.Name = defaultClientName
	}
	if impl.Version == "" {
		impl.Version = defaultClientVersion
	}
	if opts.RelistEvery == 0 {
		opts.RelistEvery = defaultRelistEvery
	}
	c := &Client{
		audit:   audit,
		level:   opts.LogLevel,
		relist:  opts.RelistEvery,
		kick:    make(chan struct{}, 1),
		resyncs: make(chan chan error),
		done:    make(chan struct{}),
	}
	if redial {
		c.dial = dial
	}
	c.client = mcp.NewClient(impl, &mcp.ClientOptions{
		Logger: audit,
		// A non-nil, empty Capabilities is the go-sdk's way to declare no
		// capability at all; nil would declare roots. No sampling or
		// elicitation handler is set, so neither is inferred.
		Capabilities: &mcp.ClientCapabilities{},
		// Multi round-trip results would have the client answer the
		// server's input requests (elicitation, sampling) itself.
		MultiRoundTrip:         &mcp.MultiRoundTripOptions{Disabled: true},
		ToolListChangedHandler: c.toolListChanged,
		LoggingMessageHandler:  c.serverLog,
	})
	c.client.AddReceivingMiddleware(c.refuseServerRequests)
	c.client.AddSendingMiddleware(c.hubMetaOnly, freshLists)

	c.ctx, c.cancel = context.WithCancel(context.Background())
	cs, err := c.open(ctx, dial)
	if err != nil {
		c.cancel()
		return nil, err
	}
	go c.run(cs)
	return c, nil
}

// WatchTools implements [Server]: fn receives the latest tool list at
// once, then every later one. A Client serves one gate: a second watcher is
// refused.
func (c *Client) WatchTools(fn func([]LiveTool)) error {
	if fn == nil {
		return errors.New("ocp client: WatchTools: nil func")
	}
	c.toolsMu.Lock()
	defer c.toolsMu.Unlock()
	if c.watcher != nil {
		return errors.New("ocp client: this Client already serves a gate; dial one Client per gate")
	}
	c.watcher = fn
	fn(slices.Clone(c.tools))
	return nil
}

// publish records the server's current tool list (nil: nothing may be
// called) and passes it to the watcher.
func (c *Client) publish(live []LiveTool) {
	c.toolsMu.Lock()
	defer c.toolsMu.Unlock()
	c.tools = live
	if c.watcher != nil {
		c.watcher(slices.Clone(live))
	}
}

// CallTool calls the named tool with exactly args as params.arguments, and
// nothing else but the _meta that describes the Hub under [ProtocolVersion]
// (see [Client]), and returns the go-sdk result or error unchanged. A
// result with isError set, or one that asks for input, is a result, not an
// error. args must be a JSON object; empty args are sent as {}.
// encoding/json compacts insignificant white space in args, and changes
// nothing else.
func (c *Client) CallTool(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	} else if !isJSONObject(args) {
		return nil, fmt.Errorf("%w: arguments of %q", errNotObject, name)
	}
	return c.callObject(ctx, name, args)
}

// callObject is CallTool for arguments known to be one JSON object (the
// gate's, which it has parsed: see call.callServer), without CallTool's
// check.
func (c *Client) callObject(ctx context.Context, name string, args json.RawMessage) (*mcp.CallToolResult, error) {
	cs, err := c.current()
	if err != nil {
		return nil, err
	}
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
}

// Resync lists the server's tools now and passes them to the syncer, after
// any sync already under way (syncs never overlap or arrive out of order).
// For a caller made by [Dial] that is disconnected, it first tries to
// reconnect. A listing failure withdraws the catalogue and is returned.
func (c *Client) Resync(ctx context.Context) error {
	reply := make(chan error, 1) // buffered: the worker never waits for us
	select {
	case c.resyncs <- reply:
	case <-c.done:
		return ErrClientClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close withdraws the catalogue (the watcher receives nil: no listing, so
// the gate logs no tool as removed by the server), stops
// catalogue sync and redialling, and closes the session. It waits for the
// client's goroutines to end. Close is idempotent; later calls return the
// first call's result. It must not be called from the watcher, which runs
// on the goroutine Close waits for.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.cancel()
		<-c.done
		c.mu.Lock()
		cs := c.session
		c.session = nil
		c.closed = true
		c.mu.Unlock()
		c.publish(nil)
		if cs != nil {
			c.err = cs.Close()
		}
		c.wg.Wait()
	})
	return c.err
}

func (c *Client) current() (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return nil, ErrClientClosed
	case c.session == nil:
		return nil, ErrNotConnected
	}
	return c.session, nil
}

func (c *Client) setSession(cs *mcp.ClientSession) {
	c.mu.Lock()
	c.session = cs
	c.mu.Unlock()
}

// open dials, connects, asks for log messages if configured, lists the tools
// and syncs them. On success the new session is current.
func (c *Client) open(ctx context.Context, dial func(context.Context) (mcp.Transport, error)) (*mcp.ClientSession, error) {
	t, err := dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("ocp client: dial MCP server: %w", err)
	}
	t = tapLists(t)
	cs, err := c.client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, fmt.Errorf("ocp client: connect to MCP server: %w", err)
	}
	version := sessionVersion(cs)
	if !slices.Contains(spokenVersions, version) {
		// What a server receives under a revision the Hub does not know
		// is not known: refuse rather than send it anything.
		if version == "" {
			version = "(none)"
		}
		_ = cs.Close()
		return nil, fmt.Errorf("ocp client: the MCP server answered with protocol version %s; the Hub speaks %s", boundTo(version, maxAuditName), strings.Join(spokenVersions, ", "))
	}
	if c.level != "" && version < ProtocolVersion {
		// Under ProtocolVersion the level travels in each request's _meta
		// (hubMetaOnly); logging/setLevel is gone.
		if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil && ir.Capabilities.Logging != nil {
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: c.level}); err != nil {
				c.audit.LogAttrs(ctx, slog.LevelWarn, "mcp set log level failed", slog.String("error", boundText(err.Error())))
			}
		}
	}
	live, err := c.listAll(ctx, cs)
	if err != nil {
		_ = cs.Close()
		return nil, err
	}
	c.setSession(cs)
	c.publish(live)
	c.audit.LogAttrs(ctx, slog.LevelInfo, "mcp connected", slog.String("protocol", version), slog.Int("tools", len(live)))
	return cs, nil
}

// sessionVersion is the revision cs negotiated ("" if none).
func sessionVersion(cs *mcp.ClientSession) string {
	if ir := cs.InitializeResult(); ir != nil {
		return ir.ProtocolVersion
	}
	return ""
}

// ProtocolVersion returns the MCP revision of the current session with the
// server ([ProtocolVersion], [LegacyProtocolVersion] or an older one the
// server answered with), or "" while there is none. A gate reports it in
// its sync audit events and in [SyncInfo].
func (c *Client) ProtocolVersion() string {
	c.mu.Lock()
	cs := c.session
	c.mu.Unlock()
	if cs == nil {
		return ""
	}
	return sessionVersion(cs)
}

// run is the single worker that syncs the catalogue and redials, so syncs
// are serialised and never run on the go-sdk's notification goroutine.
func (c *Client) run(cs *mcp.ClientSession) {
	defer close(c.done)
	gone := c.watch(cs)
	var (
		timer  *time.Timer
		redial <-chan time.Time
		delay  = minRedialDelay
		relist <-chan time.Time
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	if c.relist > 0 {
		t := time.NewTicker(c.relist)
		defer t.Stop()
		relist = t.C
	}
	// reconnect dials once; on success the new session is current.
	reconnect := func() error {
		next, err := c.open(c.ctx, c.dial)
		if err != nil {
			c.audit.LogAttrs(c.ctx, slog.LevelWarn, "mcp reconnect failed", slog.String("error", boundText(err.Error())))
			return err
		}
		cs, gone, redial, delay = next, c.watch(next), nil, minRedialDelay
		return nil
	}
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.kick:
			if cs != nil {
				_ = c.syncOrWithdraw(cs)
			}
		case <-relist:
			if cs != nil {
				_ = c.syncOrWithdraw(cs)
			}
		case reply := <-c.resyncs:
			switch {
			case cs != nil:
				reply <- c.syncOrWithdraw(cs)
			case c.dial != nil:
				reply <- reconnect()
			default:
				reply <- ErrNotConnected
			}
		case <-gone:
			// Close what is left of the ended session: under
			// ProtocolVersion its subscriptions/listen call is
			// released only so.
			_ = cs.Close()
			c.setSession(nil)
			c.publish(nil)
			c.audit.LogAttrs(c.ctx, slog.LevelWarn, "mcp session ended; catalogue withdrawn", slog.Bool("redial", c.dial != nil))
			cs, gone = nil, nil
			if c.dial != nil {
				timer, redial = resetTimer(timer, delay)
			}
		case <-redial:
			if reconnect() != nil {
				delay = min(2*delay, maxRedialDelay)
				timer, redial = resetTimer(timer, delay)
			}
		}
	}
}

func resetTimer(t *time.Timer, d time.Duration) (*time.Timer, <-chan time.Time) {
	if t == nil {
		t = time.NewTimer(d)
	} else {
		t.Reset(d)
	}
	return t, t.C
}

// watch returns a channel closed when cs ends, whoever ended it.
func (c *Client) watch(cs *mcp.ClientSession) <-chan struct{} {
	gone := make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		_ = cs.Wait()
		close(gone)
	}()
	return gone
}

// syncOrWithdraw re-lists and syncs. If the listing fails, nothing the
// server offers can be trusted to match the catalogue any more, so it fails
// closed: the catalogue is withdrawn and the error audited.
func (c *Client) syncOrWithdraw(cs *mcp.ClientSession) error {
	live, err := c.listAll(c.ctx, cs)
	if err != nil {
		c.publish(nil)
		c.audit.LogAttrs(c.ctx, slog.LevelError, "mcp tools/list failed; catalogue withdrawn", slog.String("error", boundText(err.Error())))
		return err
	}
	c.publish(live)
	return nil
}

// listAll lists every page of tools/list. A tool listed twice is left out
// (which of its schemas would a call meet?), as is one whose schema cannot
// be encoded; both are audited.
func (c *Client) listAll(ctx context.Context, cs *mcp.ClientSession) ([]LiveTool, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	var (
		live   []LiveTool
		index  = map[string]int{} // name → position in live, or -1 if dropped
		cursor string
	)
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("ocp client: tools/list: more than %d pages", maxListPages)
		}
		tapped, raw := withRawList(ctx)
		res, err := cs.ListTools(tapped, &mcp.ListToolsParams{Cursor: cursor})
		tasks, rawErr := raw.taskSupport()
		if err == nil {
			err = rawErr
		}
		if err != nil {
			return nil, fmt.Errorf("ocp client: tools/list: %w", err)
		}
		for _, t := range res.Tools {
			if i, seen := index[t.Name]; seen {
				if i >= 0 {
					live[i].Tool = nil // removed below
					index[t.Name] = -1
					c.audit.LogAttrs(ctx, slog.LevelWarn, "mcp tool listed twice; left out", slog.String("tool", boundTo(t.Name, maxAuditName)))
				}
				continue
			}
			ts, ok := tasks[t.Name]
			if !ok { // not the response the go-sdk read
				return nil, fmt.Errorf("ocp client: tools/list: tool %q is not in the raw result", boundTo(t.Name, maxAuditName))
			}
			lt := LiveTool{Tool: t, TaskSupport: ts}
			index[t.Name] = len(live)
			live = append(live, lt)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	out := make([]LiveTool, 0, len(live)) // not nil: this is a listing, if of no tools
	for _, t := range live {
		if t.Tool != nil {
			out = append(out, t)
		}
	}
	return out, nil
}

// toolListChanged runs on the go-sdk's notification goroutine: it only
// signals the worker. The kick is not filtered by session, so a change that
// arrives while a new session is being set up is not lost; a spurious kick
// costs one listing.
func (c *Client) toolListChanged(context.Context, *mcp.ToolListChangedRequest) {
	select {
	case c.kick <- struct{}{}:
	default: // a re-list is already pending and will see this change too
	}
}

// serverLog passes a server log message to the audit log, and nowhere else:
// its data as JSON text, bounded as every audit text is (a server may send
// megabytes), and its level and logger name bounded too.
func (c *Client) serverLog(ctx context.Context, req *mcp.LoggingMessageRequest) {
	p := req.Params
	data, err := json.Marshal(p.Data)
	if err != nil {
		data = []byte(fmt.Sprintf("(data does not encode: %v)", err))
	}
	c.audit.LogAttrs(ctx, auditLevel(p.Level), "mcp server log",
		slog.String("mcp_level", boundTo(string(p.Level), maxAuditName)),
		slog.String("logger", boundTo(p.Logger, maxAuditName)),
		slog.String("data", boundText(string(data))))
}

func auditLevel(l mcp.LoggingLevel) slog.Level {
	switch l {
	case "debug":
		return slog.LevelDebug
	case "info", "notice":
		return slog.LevelInfo
	case "warning":
		return slog.LevelWarn
	default: // error, critical, alert, emergency, unknown
		return slog.LevelError
	}
}

// allowedFromServer are the only methods a server may send this client.
// Everything else is refused: a request with a method-not-found error, a
// notification silently (after an audit event).
var allowedFromServer = map[string]bool{
	"ping":                                     true,
	"notifications/cancelled":                  true,
	"notifications/tools/list_changed":         true,
	"notifications/message":                    true,
	"notifications/progress":                   true,
	"notifications/subscriptions/acknowledged": true, // the answer to subscriptions/listen
}

// refuseServerRequests is receiving middleware: the server is not a peer,
// so roots/list, sampling/createMessage, elicitation/create and anything
// else it might ask of the client never reach a handler.
func (c *Client) refuseServerRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if allowedFromServer[method] {
			return next(ctx, method, req)
		}
		c.audit.LogAttrs(ctx, slog.LevelWarn, "mcp server request refused", slog.String("method", method))
		if strings.HasPrefix(method, "notifications/") {
			return nil, nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not supported by this client"}
	}
}

// hubMetaOnly is sending middleware: it decides the _meta of every
// request and notification the client sends, whatever added it. Under
// ProtocolVersion a request keeps only hubMetaKeys (the go-sdk's SEP-2575
// triple, which describes the Hub) and carries the configured log level;
// a notification, and anything under an older revision, carries no _meta.
// Nothing about a call's principal, session, channel or trace, and nothing
// a model sent, is ever in it: the server receives a call's name and its
// arguments, and the protocol's own fields.
func (c *Client) hubMetaOnly(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p := req.GetParams()
		if p == nil || reflect.ValueOf(p).IsNil() {
			return next(ctx, method, req)
		}
		m := p.GetMeta()
		switch {
		case !strings.HasPrefix(method, "notifications/") && usesCurrentRevision(method, req):
			for k := range m {
				if !slices.Contains(hubMetaKeys, k) {
					delete(m, k)
				}
			}
			if c.level != "" && m != nil {
				m[mcp.MetaKeyLogLevel] = c.level
			}
		case m != nil:
			p.SetMeta(nil)
		}
		return next(ctx, method, req)
	}
}

// usesCurrentRevision reports whether req, a request of method the client
// sends, is sent under ProtocolVersion: server/discover (which asks for it)
// and every request of a session that negotiated it.
func usesCurrentRevision(method string, req mcp.Request) bool {
	if method == "server/discover" {
		return true
	}
	cs, ok := req.GetSession().(*mcp.ClientSession)
	return ok && sessionVersion(cs) >= ProtocolVersion
}

// freshLists is sending middleware: it sets the cache TTL (SEP-2549 ttlMs)
// of every tools/list result to zero before the go-sdk caches it, so every
// listing asks the server and no catalogue outlives the re-list period
// (ClientOptions.RelistEvery).
func freshLists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if lr, ok := res.(*mcp.ListToolsResult); ok && lr != nil {
			lr.TTLMs = 0
		}
		return res, err
	}
}

// isJSONObject reports whether b is one valid JSON object.
func isJSONObject(b []byte) bool {
	if !json.Valid(b) {
		return false
	}
	for _, ch := range b {
		switch ch {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return ch == '{'
	}
	return false
}
