// Package browsertest runs the project's browser tests in a real, headless
// Chromium driven with chromedp: one browser per test binary, started by
// the first test that asks for a tab and closed after the last test, each
// test in a tab of its own.
//
// The browser is the one of the machine: $OCPGEN_CHROMIUM, else chromium
// (Debian's package, which .ci/run installs) on the PATH. Without one a
// test skips saying so, except under CI=true, where it fails.
//
//	func TestMain(m *testing.M) { goleak.VerifyTestMain(browsertest.Main(m)) }
//
//	func TestPage(t *testing.T) {
//		tab := browsertest.Tab(t)
//		...
//	}
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Flags are the browser's command-line flags besides the profile
// directory: headless, and nothing reaching for the network on its own
// (the tests' machines have none but loopback).
var Flags = []string{
	"headless", "no-sandbox", "disable-gpu", "disable-quic", "no-first-run",
	"disable-background-networking", "disable-component-update", "disable-sync",
	"no-default-browser-check", "disable-extensions", "disable-default-apps",
	"disable-dev-shm-usage", "hide-scrollbars", "mute-audio",
	"disable-breakpad", "disable-features=Translate,MediaRouter,OptimizationHints",
	"password-store=basic", "use-mock-keychain", "force-color-profile=srgb",
}

// browser is the test binary's one browser.
var browser struct {
	once    sync.Once
	ctx     context.Context // a tab of it, whose children are new tabs
	err     error
	skip    string
	dir     string
	cancels []func()
}

// Path returns the browser's executable, or why there is none.
func Path() (string, error) {
	if p := os.Getenv("OCPGEN_CHROMIUM"); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("$OCPGEN_CHROMIUM: %w", err)
		}
		return p, nil
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		return "", errors.New("no chromium on the PATH (apt-get install chromium, or set $OCPGEN_CHROMIUM)")
	}
	return p, nil
}

func start() {
	path, err := Path()
	if err != nil {
		browser.skip = err.Error()
		return
	}
	if browser.dir, err = os.MkdirTemp("", "ocpgen-chromium-"); err != nil {
		browser.err = err
		return
	}
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.UserDataDir(browser.dir), chromedp.WindowSize(1200, 900)}
	for _, f := range Flags {
		if name, value, ok := strings.Cut(f, "="); ok {
			opts = append(opts, chromedp.Flag(name, value))
		} else {
			opts = append(opts, chromedp.Flag(f, true))
		}
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	browser.cancels = []func(){cancelBrowser, cancelAlloc}
	// The first run starts the browser, which lives as long as bctx: no
	// timeout on it. A browser that cannot start makes chromedp fail.
	if err := chromedp.Do(bctx); err != nil {
		browser.err = fmt.Errorf("starting %s: %w", path, err)
		return
	}
	browser.ctx = bctx
}

// Tab returns the context of a new tab of the browser, closed when t ends.
// Without a browser, t skips saying why, or fails under CI=true.
func Tab(t testing.TB) context.Context {
	t.Helper()
	browser.once.Do(start)
	switch {
	case browser.skip != "" && os.Getenv("CI") == "true":
		t.Fatalf("CI=true and the browser test cannot run: %s", browser.skip)
	case browser.skip != "":
		t.Skipf("skipping the browser test: %s", browser.skip)
	case browser.err != nil:
		t.Fatal(browser.err)
	}
	tab, cancel := chromedp.NewContext(browser.ctx)
	t.Cleanup(cancel)
	// The first run opens the tab, which then lives as long as the
	// context of that run: tab itself, not one with a timeout (a tab opened
	// under a timeout stops answering when the timeout's context ends).
	// The wait is bounded all the same.
	opened := make(chan error, 1)
	go func() { opened <- chromedp.Do(tab) }()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("opening a tab: %v", err)
		}
	case <-time.After(openTimeout):
		cancel()
		t.Fatalf("timed out after %v waiting for the browser to open a tab", openTimeout)
	}
	return tab
}

// openTimeout bounds the wait for a new tab.
const openTimeout = time.Minute

// m is a testing.M whose Run closes the browser after the tests.
type m struct{ m *testing.M }

// Main returns m for goleak.VerifyTestMain (or a TestMain's os.Exit): its
// Run runs the tests, then closes the browser and removes its profile.
func Main(tm *testing.M) interface{ Run() int } { return m{tm} }

func (x m) Run() int {
	code := x.m.Run()
	for _, c := range browser.cancels {
		c()
	}
	if browser.dir != "" {
		os.RemoveAll(browser.dir)
	}
	return code
}
