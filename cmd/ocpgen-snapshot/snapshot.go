package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ocpgen/ocpgen/gen"
	"github.com/ocpgen/ocpgen/internal/cli"
	"github.com/ocpgen/ocpgen/internal/outdir"
)

// headerFlags collects repeated -header "Name: value" flags.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ", ") }
func (h *headerFlags) Set(v string) error { *h = append(*h, v); return nil }

// maxPages bounds the tools/list cursor loop against a server that never
// stops paginating.
const maxPages = 10000

// synopsis is the command line, after "ocpgen-snapshot".
const synopsis = `(-url URL | -command "PROG ARGS...") [-header "Name: value"]... [-timeout D] -o FILE`

// help is what the command does, with an example, for -h.
const help = "Connects to an MCP server (Streamable HTTP or a stdio command), lists its\n" +
	"tools and writes them as a canonical snapshot file: sorted, no timestamps, so\n" +
	"an unchanged server gives the same bytes. When done it prints the file, the\n" +
	"server, its tools and the time taken on stderr (not with -q).\n\n" +
	"example: ocpgen-snapshot -command \"npx -y @modelcontextprotocol/server-memory\" -o memory.tools.json"

// snapshot runs the command on its flags.
func snapshot(args []string, stderr io.Writer) error {
	fs := cli.NewFlags(prog, "", synopsis, help, stderr)
	url := fs.String("url", "", "Streamable HTTP endpoint of the MCP server")
	command := fs.String("command", "", "command line of a stdio MCP server (split on spaces; quote with \" or ')")
	var headers headerFlags
	fs.Var(&headers, "header", "HTTP header \"Name: value\" for -url (repeatable); $VAR and ${VAR} in the value are expanded from the environment, and the value is never written to the snapshot")
	timeout := fs.Duration("timeout", 30*time.Second, "give up after this long")
	output := fs.String("o", "", "snapshot file to write (NAME.tools.json)")
	quiet := fs.Bool("q", false, "quiet: print only errors (no line when the snapshot is written)")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	start := time.Now()
	if err := cli.Missing(fs, "o"); err != nil {
		return err
	}
	if (*url == "") == (*command == "") {
		return cli.UsageError(fs, "ocpgen-snapshot: give exactly one of -url and -command")
	}
	if len(headers) > 0 && *url == "" {
		return cli.UsageError(fs, "ocpgen-snapshot: -header goes with -url")
	}

	var (
		raw    *rawTransport
		source string
		// what names the server in errors: the command line in full (the
		// snapshot's source shortens paths), credentials redacted.
		what  string
		stdio *stdioServer
	)
	if *url != "" {
		h, err := parseHeaders(headers)
		if err != nil {
			return err
		}
		src, err := urlSource(*url)
		if err != nil {
			return fmt.Errorf("ocpgen-snapshot: -url: %w", err)
		}
		st := &mcp.StreamableClientTransport{
			Endpoint:   *url,
			MaxRetries: -1,
			// A snapshot needs no server-initiated messages.
			DisableStandaloneSSE: true,
		}
		raw = newRawTransport(st)
		st.HTTPClient = &http.Client{Transport: protocolHeader{raw.protocolVersion, headerTransport{h, http.DefaultTransport}}}
		source, what = src, src
	} else {
		argv, err := splitCommand(*command)
		if err != nil {
			return fmt.Errorf("ocpgen-snapshot: -command: %w", err)
		}
		source, what = commandSource(argv), "stdio "+strings.Join(redactCommand(argv, false), " ")
		if stdio, err = startStdio(argv, stderr); err != nil {
			return fmt.Errorf("ocpgen-snapshot: snapshot of %s: %w", what, err)
		}
		raw = newRawTransport(stdio.transport())
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	server, tools, err := listTools(ctx, raw)
	timedOut := err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil)
	if err != nil && !timedOut && stdio != nil {
		// A listing that failed with the process gone: it exited before
		// answering (a missing argument, a crash), which "EOF" does not say.
		if st, ok := stdio.exitedWithin(stopGrace); ok {
			err = fmt.Errorf("the server exited (%v) before answering; its stderr, if any, is above (%w)", st, err)
		}
	}
	if stdio != nil {
		stdio.stop(!timedOut) // at the deadline, at once: -timeout is the user's bound
	}
	if err != nil {
		if timedOut {
			return fmt.Errorf("ocpgen-snapshot: snapshot of %s: no complete answer within %v (-timeout)", what, *timeout)
		}
		return fmt.Errorf("ocpgen-snapshot: snapshot of %s: %w", what, err)
	}
	data, err := gen.EncodeSnapshot(*output, server, source, tools)
	if err != nil {
		return err
	}
	if err := outdir.WriteFile(*output, data); err != nil {
		return fmt.Errorf("ocpgen-snapshot: %w", err)
	}
	if !*quiet {
		name := ""
		if server.Name != "" {
			name = "server " + cli.OneLine(strings.TrimSpace(server.Name+" "+server.Version)) + ", "
		}
		fmt.Fprintf(stderr, "wrote %s: %s%s, in %v\n", *output, name, cli.Tools(len(tools)), time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// listTools connects, pages through tools/list to the end, and closes. It
// returns each tool as the server sent it (see rawTransport).
func listTools(ctx context.Context, t *rawTransport) (gen.SnapshotServer, []json.RawMessage, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "ocpgen", Version: cli.Version()}, &mcp.ClientOptions{
		// The snapshot client declares no capability (the go-sdk would
		// otherwise declare roots): the server gets nothing from us.
		Capabilities: &mcp.ClientCapabilities{},
	})
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		return gen.SnapshotServer{}, nil, fmt.Errorf("connect: %w", err)
	}
	defer session.Close()
	var server gen.SnapshotServer
	if init := session.InitializeResult(); init != nil && init.ServerInfo != nil {
		server = gen.SnapshotServer{Name: init.ServerInfo.Name, Version: init.ServerInfo.Version}
	}
	var (
		tools  []json.RawMessage
		cursor string
		seen   = map[string]bool{}
	)
	for page := 0; ; page++ {
		if page == maxPages {
			return server, nil, fmt.Errorf("tools/list: more than %d pages", maxPages)
		}
		res, err := session.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return server, nil, fmt.Errorf("tools/list: %w", err)
		}
		rawRes, ok := t.takeList()
		if !ok {
			return server, nil, errors.New("tools/list: the raw result was not seen")
		}
		var page struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(rawRes, &page); err != nil {
			return server, nil, fmt.Errorf("tools/list: %w", err)
		}
		if len(page.Tools) != len(res.Tools) {
			return server, nil, leftOutError(page.Tools, res.Tools)
		}
		tools = append(tools, page.Tools...)
		if res.NextCursor == "" {
			return server, tools, nil
		}
		if seen[res.NextCursor] {
			return server, nil, fmt.Errorf("tools/list: the server repeated cursor %q", res.NextCursor)
		}
		seen[res.NextCursor] = true
		cursor = res.NextCursor
	}
}

// leftOutError is the error for a page of tools/list of which the go-sdk
// client left tools out: it leaves out a tool whose x-mcp-header
// annotations break the rules of MCP 2026-07-28 (SEP-2243: a non-empty
// token, on a string, integer or boolean property, unique), at every
// revision, so a Hub's client would never list it either.
func leftOutError(raw []json.RawMessage, decoded []*mcp.Tool) error {
	kept := map[string]bool{}
	for _, t := range decoded {
		kept[t.Name] = true
	}
	var out []string
	for _, r := range raw {
		var t struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(r, &t) == nil && !kept[t.Name] {
			out = append(out, strconv.Quote(t.Name))
		}
	}
	return fmt.Errorf("tools/list: the MCP client refuses the definition of %s (an x-mcp-header annotation breaks the rules of MCP 2026-07-28: a non-empty token on a string, integer or boolean property, unique), so a Hub could never call it; the server must fix it", strings.Join(out, ", "))
}

// urlSource is the "source" recorded for a -url snapshot: the scheme and
// the host only. A URL's user info, query and path can all carry
// credentials (?api_key=..., /s/<token>/mcp), and a snapshot is committed.
func urlSource(raw string) (string, error) {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "", err
	}
	if u.Scheme == "" || u.Host == "" {
		return "", errors.New("want an absolute http(s) URL")
	}
	return "streamable-http " + u.Scheme + "://" + u.Host, nil
}

// commandSource is the "source" recorded for a -command snapshot: the
// command line with each path reduced to its base name (a directory is
// machine-specific) and the value of a flag named like a credential
// (--token, --api-key=..., -password) replaced by "REDACTED". It is a note
// for people: it is in no digest and in no generated file, so two machines
// that start the same server differently generate the same code.
func commandSource(argv []string) string {
	return "stdio " + strings.Join(redactCommand(argv, true), " ")
}

// redactCommand returns argv with the value of every flag named like a
// credential replaced by "REDACTED" and, with short, each path reduced to
// its base name (see commandSource).
func redactCommand(argv []string, short bool) []string {
	out := make([]string, len(argv))
	secretNext := false
	for i, a := range argv {
		switch {
		case secretNext:
			a, secretNext = "REDACTED", false
		case strings.HasPrefix(a, "-"):
			name, _, hasValue := strings.Cut(a, "=")
			if secretName(name) {
				if hasValue {
					a = name + "=REDACTED"
				} else {
					secretNext = true
				}
			}
		case short && (filepath.IsAbs(a) || strings.HasPrefix(a, "."+string(filepath.Separator)) || strings.HasPrefix(a, ".."+string(filepath.Separator)) || strings.HasPrefix(a, "~")):
			a = filepath.Base(a)
		}
		out[i] = a
	}
	return out
}

// secretName reports whether a flag's name says it holds a credential.
func secretName(flag string) bool {
	f := strings.ToLower(strings.TrimLeft(flag, "-"))
	for _, w := range []string{"token", "key", "secret", "password", "passwd", "auth", "credential"} {
		if strings.Contains(f, w) {
			return true
		}
	}
	return false
}

// parseHeaders parses "Name: value" pairs, expanding $VAR in values.
func parseHeaders(hs []string) (http.Header, error) {
	h := http.Header{}
	for _, s := range hs {
		name, value, ok := strings.Cut(s, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("ocpgen-snapshot: -header %q: want \"Name: value\"", s)
		}
		var unset []string
		value = os.Expand(strings.TrimSpace(value), func(v string) string {
			x, ok := os.LookupEnv(v)
			if !ok {
				unset = append(unset, v)
			}
			return x
		})
		if len(unset) > 0 {
			return nil, fmt.Errorf("ocpgen-snapshot: -header %s: environment variable %s is not set", name, strings.Join(unset, ", "))
		}
		h.Add(name, value)
	}
	return h, nil
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	h    http.Header
	next http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, vs := range t.h {
		r.Header[k] = append([]string(nil), vs...)
	}
	return t.next.RoundTrip(r)
}

// splitCommand splits a command line on white space, honouring "..." and
// '...' quoting (no escapes, no variables: it runs no shell).
func splitCommand(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		quote rune
		inArg bool
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inArg = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}
