package diff

import (
	"fmt"
	"strings"
)

// Op is one line of a line diff.
type Op struct {
	// Kind is ' ' (in both), '-' (only in the old text) or '+' (only in the
	// new text).
	Kind byte
	Line string
}

// maxCells bounds the LCS table (rows × columns after the common prefix
// and suffix are trimmed). Beyond it the differing middle is shown as all
// removed then all added: still a correct diff, just not a minimal one.
const maxCells = 4 << 20

// Lines returns a line diff of a and b: applying the '-' and '+' lines to a
// gives b. It is minimal (a longest common subsequence) unless the differing
// middle is larger than maxCells.
func Lines(a, b []string) []Op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []Op
	for _, l := range a[:pre] {
		ops = append(ops, Op{' ', l})
	}
	ops = append(ops, middle(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, Op{' ', l})
	}
	return ops
}

func middle(a, b []string) []Op {
	var ops []Op
	n, m := len(a), len(b)
	if n == 0 || m == 0 || n*m > maxCells || n*m/n != m {
		for _, l := range a {
			ops = append(ops, Op{'-', l})
		}
		for _, l := range b {
			ops = append(ops, Op{'+', l})
		}
		return ops
	}
	// lcs[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, Op{' ', a[i]})
			i++
			j++
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			ops = append(ops, Op{'-', a[i]})
			i++
		default:
			ops = append(ops, Op{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, Op{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, Op{'+', b[j]})
	}
	return ops
}

// SplitLines splits text into lines without their "\n". A text that does
// not end in "\n" has its last line marked by noEOL.
func SplitLines(text string) (lines []string, noEOL bool) {
	if text == "" {
		return nil, false
	}
	noEOL = !strings.HasSuffix(text, "\n")
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n"), noEOL
}

// Unified returns a unified diff (three lines of context) from oldName's
// text a to newName's text b, or "" when they are equal. A file that is
// absent is passed as "" with its name "/dev/null".
func Unified(oldName, newName, a, b string) string {
	if a == b {
		return ""
	}
	al, aNoEOL := SplitLines(a)
	bl, bNoEOL := SplitLines(b)
	// A missing final newline makes the last line differ, as in diff(1).
	const noEOLMark = "\x00noeol"
	if aNoEOL {
		al[len(al)-1] += noEOLMark
	}
	if bNoEOL {
		bl[len(bl)-1] += noEOLMark
	}
	ops := Lines(al, bl)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	const ctx = 3
	// Find hunks: runs of changes joined when separated by ≤ 2*ctx lines.
	for start := 0; start < len(ops); {
		for start < len(ops) && ops[start].Kind == ' ' {
			start++
		}
		if start == len(ops) {
			break
		}
		end := start // one past the last change of the hunk
		for k := start; k < len(ops); k++ {
			if ops[k].Kind != ' ' {
				end = k + 1
				continue
			}
			if k-end >= 2*ctx {
				break
			}
		}
		lo := max(0, start-ctx)
		hi := min(len(ops), end+ctx)
		// Line numbers of the hunk's first line in each text.
		aLine, bLine := 1, 1
		for _, op := range ops[:lo] {
			if op.Kind != '+' {
				aLine++
			}
			if op.Kind != '-' {
				bLine++
			}
		}
		aCount, bCount := 0, 0
		for _, op := range ops[lo:hi] {
			if op.Kind != '+' {
				aCount++
			}
			if op.Kind != '-' {
				bCount++
			}
		}
		if aCount == 0 {
			aLine--
		}
		if bCount == 0 {
			bLine--
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aLine, aCount), hunkRange(bLine, bCount))
		for _, op := range ops[lo:hi] {
			line, cut := strings.CutSuffix(op.Line, noEOLMark)
			out.WriteByte(op.Kind)
			out.WriteString(line)
			out.WriteByte('\n')
			if cut {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		start = hi
	}
	return out.String()
}

func hunkRange(line, count int) string {
	if count == 1 {
		return fmt.Sprint(line)
	}
	return fmt.Sprintf("%d,%d", line, count)
}
