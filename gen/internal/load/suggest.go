package load

import "fmt"

// didYouMean returns ` (did you mean "x"?)` for the candidate closest to s,
// or "" when none is close: at most 2 edits (a quarter of s for longer
// strings), and fewer than half of s.
// Strings longer than 128 bytes get no suggestion.
func didYouMean(s string, candidates []string) string {
	const maxLen = 128 // keeps the quadratic distance cheap on hostile input
	if len(s) > maxLen {
		return ""
	}
	n := len([]rune(s))
	best, bestDist := "", max(2, n/4)+1
	for _, c := range candidates {
		if len(c) > maxLen {
			continue
		}
		if d := editDistance(s, c); d < bestDist && 2*d < n {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// editDistance is the Levenshtein distance between a and b, in characters,
// counting a swap of two neighbours as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// d[i][j] is the distance between ra[:i] and rb[:j].
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// staleHint is the "did you mean" of a stale classification entry e (its
// tool is not in s): the closest snapshot tool that the entry's policy could
// move onto without changing any other tool's policy or the access of the
// one it lands on. That excludes every tool with an entry of its own in c
// (following the hint would replace, or duplicate, that tool's policy), and
// a read entry entirely: a tool without an entry is a write (model's
// ResolvePolicy), so moving a read entry onto it would turn a write into a
// read. "" when no tool qualifies or none is close.
func staleHint(e *Entry, s *Snapshot, c *Classification) string {
	if e.Access != AccessWrite {
		return ""
	}
	listed := make(map[string]bool, len(c.Tools))
	for _, other := range c.Tools {
		listed[other.Name] = true
	}
	var candidates []string
	for _, t := range s.Tools {
		if !listed[t.Name] {
			candidates = append(candidates, t.Name)
		}
	}
	return didYouMean(e.Name, candidates)
}
