package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestTablesBuiltOnFirstUse holds the tables that only some commands or
// inputs need (ecmare's \p{...} property names, diff's change kinds, the
// skeleton's and the classification loader's regular expressions) to being
// built on first use, not when the process starts: the init of their
// packages allocates at most lazyInitBytes, as GODEBUG=inittrace=1 reports
// it for this test binary, which links the packages ocpgen does.
func TestTablesBuiltOnFirstUse(t *testing.T) {
	const lazyInitBytes = 1024
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	// "init PKG @0.5 ms, 0.01 ms clock, 568 bytes, 14 allocs"
	allocated := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 9 && f[0] == "init" && f[8] == "bytes," {
			allocated[f[1]] = f[7]
		}
	}
	for _, pkg := range []string{
		"github.com/ocpgen/ocpgen/internal/ecmare",
		"github.com/ocpgen/ocpgen/gen/internal/diff",
		"github.com/ocpgen/ocpgen/gen/internal/emit",
	} {
		b, ok := allocated[pkg]
		if !ok {
			t.Errorf("%s: no init line in GODEBUG=inittrace=1's output:\n%s", pkg, out)
			continue
		}
		n, err := strconv.Atoi(b)
		if err != nil {
			t.Fatalf("%s: init allocated %q bytes: %v", pkg, b, err)
		}
		if n > lazyInitBytes {
			t.Errorf("%s: init allocates %d bytes, want at most %d: a table only some inputs need is built at start", pkg, n, lazyInitBytes)
		}
	}
}
