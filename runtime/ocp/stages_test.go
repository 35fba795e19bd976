package ocp

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allReasons are the reasons a result may carry.
var allReasons = []Reason{ReasonFailed, ReasonOutcomeUnknown, ReasonDenied, ReasonForbidden, ReasonInvalid, ReasonUnknown}

// Every stage's audit event is "ocp." and its Step, the Steps are distinct,
// and every reason a stage declares is a Reason.
func TestStagesAreNamedOnce(t *testing.T) {
	seen := map[Step]bool{}
	for i, s := range stages {
		if s.event != "ocp."+string(s.step) {
			t.Errorf("stage %d (%s): audit event %q, want %q", i+1, s.step, s.event, "ocp."+string(s.step))
		}
		if seen[s.step] {
			t.Errorf("stage %d: step %s twice", i+1, s.step)
		}
		seen[s.step] = true
		if len(s.reasons) == 0 {
			t.Errorf("stage %d (%s) declares no reason", i+1, s.step)
		}
		for _, r := range s.reasons {
			if !slices.Contains(allReasons, r) {
				t.Errorf("stage %d (%s): %q is not a Reason", i+1, s.step, r)
			}
		}
	}
}

// docStage is one item of a documented stage list.
type docStage struct {
	n          int
	step       Step
	event      string
	writesOnly bool
	reasons    []Reason
}

// stageItem is the head of an item of a stage list: "N. **step**
// (`event`)", then up to the colon what applies to it ("writes only").
var stageItem = regexp.MustCompile("(?m)^(\\d+)\\. \\*\\*([a-z]+)\\*\\* \\(`([a-z.]+)`\\)([^:\\n]*):")

// backticked finds the `code` spans of a text.
var backticked = regexp.MustCompile("`([^`]+)`")

// docStages reads the stage list between <!-- stages --> and
// <!-- /stages --> in the file at path.
func docStages(t *testing.T, path string) []docStage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	const open, close = "<!-- stages -->\n", "<!-- /stages -->"
	i := strings.Index(text, open)
	j := strings.Index(text, close)
	if i < 0 || j < i || strings.Count(text, open) != 1 {
		t.Fatalf("%s: want one block between %q and %q", path, strings.TrimSpace(open), close)
	}
	block := text[i+len(open) : j]
	heads := stageItem.FindAllStringSubmatchIndex(block, -1)
	if len(heads) == 0 || heads[0][0] != 0 {
		t.Fatalf("%s: the stage block does not begin with an item \"1. **step** (`ocp.step`):\"", path)
	}
	var out []docStage
	for k, h := range heads {
		end := len(block)
		if k+1 < len(heads) {
			end = heads[k+1][0]
		}
		n, _ := strconv.Atoi(block[h[2]:h[3]])
		d := docStage{
			n:          n,
			step:       Step(block[h[4]:h[5]]),
			event:      block[h[6]:h[7]],
			writesOnly: strings.Contains(block[h[8]:h[9]], "writes only"),
		}
		for _, m := range backticked.FindAllStringSubmatch(block[h[1]:end], -1) {
			if r := Reason(m[1]); slices.Contains(allReasons, r) && !slices.Contains(d.reasons, r) {
				d.reasons = append(d.reasons, r)
			}
		}
		out = append(out, d)
	}
	return out
}

// The docs name the stages of the declaration, in its order, each with its
// audit event, whether only writes reach it, and the reasons it may end a
// call with (each in `code`, and no other).
func TestStagesAreDocumented(t *testing.T) {
	for _, path := range []string{"../../docs/security-model.md", "../../README.md"} {
		docs := docStages(t, path)
		if len(docs) != len(stages) {
			t.Errorf("%s lists %d stages, the declaration %d", path, len(docs), len(stages))
		}
		for i := range min(len(docs), len(stages)) {
			d, s := docs[i], stages[i]
			want := docStage{n: i + 1, step: s.step, event: s.event, writesOnly: s.writes, reasons: s.reasons}
			slices.Sort(d.reasons)
			slices.Sort(want.reasons)
			if d.n != want.n || d.step != want.step || d.event != want.event || d.writesOnly != want.writesOnly || !slices.Equal(d.reasons, want.reasons) {
				t.Errorf("%s, stage %d:\n got %+v\nwant %+v", filepath.Base(path), i+1, d, want)
			}
		}
	}
}
