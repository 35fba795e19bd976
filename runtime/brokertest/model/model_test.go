package model

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The model's bounds, as compiled in confirm.pml: two replicas (A waits,
// B decides), DECISIONS=2 decisions of any kind (approve or deny, right or
// wrong digest, no channel, the requester's channel or another, authorized
// or not), MAXFAULTS=2 environment events (cancellation, catalogue change,
// revocation, A dying, Redis down then back empty, A's link cut then back),
// any pub/sub wake-up lost or one duplicated, a clock of EXP=1, LEASE=2.

// tools finds spin and a C compiler. Under CI=true a missing one fails the
// test: the model is a check CI must run, never skip.
func tools(t *testing.T) (spin, cc string) {
	t.Helper()
	var missing []string
	spin, err := exec.LookPath("spin")
	if err != nil {
		missing = append(missing, "spin")
	}
	cc, err = exec.LookPath("gcc")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			missing = append(missing, "gcc")
		}
	}
	if len(missing) > 0 {
		msg := "the model checker needs " + strings.Join(missing, " and ") + " (apt-get install -y spin gcc)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true: .ci/run must install them")
		}
		t.Skip(msg)
	}
	return spin, cc
}

// verifier generates and compiles the verifier of confirm.pml with the
// given spin -D options and C flags, in a temporary directory.
func verifier(t *testing.T, spinDefs []string, cflags ...string) (dir string) {
	t.Helper()
	spin, cc := tools(t)
	dir = t.TempDir()
	src, err := os.ReadFile("confirm.pml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "confirm.pml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, spin, append(append([]string{}, spinDefs...), "-a", "confirm.pml")...)
	run(t, dir, cc, append([]string{"-O2", "-w", "-o", "pan"}, append(cflags, "pan.c")...)...)
	return dir
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// pan runs the verifier and returns its report. -m bounds the depth (the
// model's longest run is under 200 steps; pan says so if it is not).
func pan(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("./pan", append([]string{"-m10000"}, args...)...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // pan's exit status does not say whether it found an error
	s := out.String()
	if strings.Contains(s, "max search depth too small") {
		t.Fatalf("pan: the depth bound was reached: the search was not exhaustive\n%s", s)
	}
	if !strings.Contains(s, "errors:") {
		t.Fatalf("pan did not finish:\n%s", s)
	}
	return s
}

func wantNoErrors(t *testing.T, what, report string) {
	t.Helper()
	if !strings.Contains(report, "errors: 0") {
		t.Fatalf("%s: the model has a counterexample:\n%s", what, report)
	}
	t.Logf("%s: %s", what, summary(report))
}

// summary is pan's state count and time.
func summary(report string) string {
	var keep []string
	for _, l := range strings.Split(report, "\n") {
		l = strings.TrimSpace(l)
		if strings.Contains(l, "states, stored") || strings.HasPrefix(l, "pan: elapsed time") || strings.HasPrefix(l, "State-vector") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "; ")
}

// TestModelSafety checks every assertion of the model (invariants I1, I2,
// I3, I5) and that no run gets stuck, over the whole state space.
func TestModelSafety(t *testing.T) {
	dir := verifier(t, nil, "-DSAFETY", "-DNOCLAIM")
	wantNoErrors(t, "safety", pan(t, dir))
}

// TestModelLiveness checks I4 under weak fairness: every confirm ends, and
// by its expiry plus the lease (the clock never passes EXP+LEASE with a
// confirm alive);
// and I2 as a temporal property.
func TestModelLiveness(t *testing.T) {
	dir := verifier(t, nil, "-DNFAIR=7")
	for _, claim := range []string{"ends", "bounded", "agree"} {
		wantNoErrors(t, "ltl "+claim, pan(t, dir, "-a", "-f", "-N", claim))
	}
}

// TestModelFindsSeededBugs checks that the check can fail: the model with a
// seeded bug (scriptDecide accepting a decision after expiry), and the
// model of the code before the close-failure fix, each have a
// counterexample, which the test prints as the trace of named transitions.
func TestModelFindsSeededBugs(t *testing.T) {
	for _, tc := range []struct{ def, want string }{
		{"-DSEEDED_BUG", "accBefore"},
		{"-DOLD_CLOSE", "reqOut==accO"},
	} {
		t.Run(tc.def[2:], func(t *testing.T) {
			dir := verifier(t, []string{tc.def}, "-DSAFETY", "-DNOCLAIM")
			report := pan(t, dir)
			if strings.Contains(report, "errors: 0") || !strings.Contains(report, "assertion violated") || !strings.Contains(report, tc.want) {
				t.Fatalf("%s: want a violation of the assertion with %q, got:\n%s", tc.def, tc.want, report)
			}
			spin, _ := tools(t)
			t.Logf("counterexample:\n%s", events(run(t, dir, spin, tc.def, "-t", "confirm.pml")))
		})
	}
}

// events keeps the model's named transitions ("EV ...") of a spin replay.
func events(out string) string {
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "EV ") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

var writeTraces = flag.Bool("write-traces", false, "write the model's traces to runtime/brokertest/testdata/traces")

const traceDir = "../testdata/traces"

// TestTraces makes the traces that runtime/brokertest.Replay replays against
// every broker, and checks that the committed ones are current (spin's
// simulation is deterministic for a seed): random walks from fixed seeds,
// of the whole model, of the model without store failures and of the
// model without environment events, and walks whose decisions all reach the
// broker, and the
// counterexamples found while writing the model.
func TestTraces(t *testing.T) {
	spin, _ := tools(t)
	want := map[string]string{}
	walk := func(name string, seed int, defs ...string) {
		dir := t.TempDir()
		src, err := os.ReadFile("confirm.pml")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "confirm.pml"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append([]string{}, defs...), fmt.Sprintf("-n%d", seed), "confirm.pml")
		want[name] = fmt.Sprintf("# spin %s\n", strings.Join(args, " ")) + events(run(t, dir, spin, args...))
	}
	for seed := 1; seed <= 12; seed++ {
		walk(fmt.Sprintf("walk-%02d.trace", seed), seed)
		walk(fmt.Sprintf("walk-nostore-%02d.trace", seed), seed, "-DNO_STORE_FAULTS")
		walk(fmt.Sprintf("walk-nofault-%02d.trace", seed), seed, "-DMAXFAULTS=0")
		walk(fmt.Sprintf("walk-broker-%02d.trace", seed), seed, "-DWALK_BROKER", "-DNO_STORE_FAULTS", "-DMAXFAULTS=1")
	}
	cex := func(name, header string, defs ...string) {
		dir := verifier(t, defs, "-DSAFETY", "-DNOCLAIM")
		if r := pan(t, dir); strings.Contains(r, "errors: 0") {
			t.Fatalf("%v: no counterexample", defs)
		}
		want[name] = header + fmt.Sprintf("# spin %s -t confirm.pml (after pan)\n", strings.Join(defs, " ")) + events(run(t, dir, spin, append(defs, "-t", "confirm.pml")...))
	}
	cex("cex-seeded-late-approval.trace", "# diverge: the seeded bug accepts the last decision, after expiry; a broker must refuse it\n", "-DSEEDED_BUG", "-DNO_STORE_FAULTS")
	cex("cex-close-failure.trace", "# the code before the close fix: Request returned cancelled, then an approval was accepted (redisbroker TestCloseThatCannotReachRedisIsRetried)\n", "-DOLD_CLOSE")

	if *writeTraces {
		if err := os.MkdirAll(traceDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, s := range want {
			if err := os.WriteFile(filepath.Join(traceDir, name), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for name, s := range want {
		got, err := os.ReadFile(filepath.Join(traceDir, name))
		if err != nil || string(got) != s {
			t.Errorf("%s is not the model's current trace (err %v): go test ./runtime/brokertest/model -run TestTraces -write-traces", name, err)
		}
	}
}

// TestTransitionsNamedInCode holds the model and the code together: every
// transition the model names ("model: NAME" in confirm.pml) is named at the
// statement of the code that makes it, and every name in the code is one
// of the model's transitions or events.
func TestTransitionsNamedInCode(t *testing.T) {
	names := func(file string) map[string]bool {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, m := range modelName.FindAllStringSubmatch(string(b), -1) {
			for _, n := range strings.Split(m[1], ",") {
				if n = strings.TrimSpace(n); n != "" {
					out[n] = true
				}
			}
		}
		return out
	}
	model := names("confirm.pml")
	src, err := os.ReadFile("confirm.pml")
	if err != nil {
		t.Fatal(err)
	}
	inCode := map[string]bool{}
	for _, f := range []string{"../../ocp/confirm.go", "../../ocp/dispatch.go", "../../ocp/decide.go", "../../../redisbroker/scripts.go", "../../../redisbroker/broker.go"} {
		for n := range names(f) {
			inCode[n] = true
			// A name in the code is a transition of the model, or one of its
			// printed events ("EV cancel", "EV gate -> withdrawn").
			ev := n
			if i := strings.Index(ev, " ("); i >= 0 {
				ev = ev[:i]
			}
			if !model[ev] && !strings.Contains(string(src), `"EV `+ev) && !strings.Contains(string(src), `EV `+strings.Fields(ev)[0]) {
				t.Errorf("%s names %q, which the model does not have", f, n)
			}
		}
	}
	for n := range model {
		if !inCode[n] {
			t.Errorf("the model's transition %q is named nowhere in the code", n)
		}
	}
}

var modelName = regexp.MustCompile(`model: ([a-z_]+(?:, [a-z_]+)*(?: -> [a-z_]+)?)`)
