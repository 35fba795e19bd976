package argengine

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// A fast matcher for the patterns that schemas use most: anchored at both
// ends, a sequence of single characters or character classes, each
// repeated a fixed number of times, the last one possibly a range of times
// (^[0-9]{4}-[0-9]{2}-[0-9]{2}$, ^[A-Za-z0-9_-]{1,64}$, ^\d+$). For such a
// pattern a string matches exactly when its runes, in order, fall in the
// classes the right number of times, which needs no regexp machine.
//
// Any other pattern (alternation, groups, unanchored, case folding, empty
// assertions inside) has no fast matcher and keeps the regexp.
// TestPatternFastAgreesWithRegexp and FuzzPatternFast hold it to regexp's
// verdict.

// runeSeq is a compiled fast pattern.
type runeSeq struct {
	items []runeItem
}

// runeItem is one class repeated min to max times (max < 0: unbounded).
type runeItem struct {
	ranges   []rune // lo, hi pairs, sorted, as syntax.Regexp.Rune
	min, max int
}

// compileRuneSeq returns the fast matcher of re, or nil.
func compileRuneSeq(re *regexp.Regexp) *runeSeq {
	ast, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil || ast.Op != syntax.OpConcat || len(ast.Sub) < 2 {
		return nil
	}
	subs := ast.Sub
	if subs[0].Op != syntax.OpBeginText || subs[len(subs)-1].Op != syntax.OpEndText {
		return nil
	}
	var seq runeSeq
	for k, s := range subs[1 : len(subs)-1] {
		last := k == len(subs)-3
		switch s.Op {
		case syntax.OpLiteral:
			if s.Flags&syntax.FoldCase != 0 {
				return nil
			}
			for _, r := range s.Rune {
				seq.items = append(seq.items, runeItem{ranges: []rune{r, r}, min: 1, max: 1})
			}
			continue
		case syntax.OpCharClass, syntax.OpAnyCharNotNL, syntax.OpAnyChar:
			it, ok := classItem(s)
			if !ok {
				return nil
			}
			seq.items = append(seq.items, runeItem{ranges: it, min: 1, max: 1})
			continue
		}
		var lo, hi int
		switch s.Op {
		case syntax.OpRepeat:
			lo, hi = s.Min, s.Max
		case syntax.OpStar:
			lo, hi = 0, -1
		case syntax.OpPlus:
			lo, hi = 1, -1
		case syntax.OpQuest:
			lo, hi = 0, 1
		default:
			return nil
		}
		if len(s.Sub) != 1 || (lo != hi && !last) {
			return nil // a range of times is deterministic only at the end
		}
		it, ok := classItem(s.Sub[0])
		if !ok {
			return nil
		}
		seq.items = append(seq.items, runeItem{ranges: it, min: lo, max: hi})
	}
	return &seq
}

// classItem returns the ranges of a single-character expression.
func classItem(s *syntax.Regexp) ([]rune, bool) {
	switch s.Op {
	case syntax.OpLiteral:
		if len(s.Rune) != 1 || s.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []rune{s.Rune[0], s.Rune[0]}, true
	case syntax.OpCharClass:
		if len(s.Rune) == 0 || len(s.Rune)%2 != 0 {
			return nil, false
		}
		return s.Rune, true
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}, true
	case syntax.OpAnyChar:
		return []rune{0, utf8.MaxRune}, true
	}
	return nil, false
}

func (it *runeItem) has(r rune) bool {
	for k := 0; k < len(it.ranges); k += 2 {
		if r < it.ranges[k] {
			return false
		}
		if r <= it.ranges[k+1] {
			return true
		}
	}
	return false
}

// match reports whether s, valid UTF-8, matches.
func (q *runeSeq) match(s string) bool {
	i := 0
	for k := range q.items {
		it := &q.items[k]
		n := 0
		for it.max < 0 || n < it.max {
			if i >= len(s) {
				break
			}
			r, size := rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
			if !it.has(r) {
				break
			}
			i += size
			n++
		}
		if n < it.min {
			return false
		}
	}
	return i == len(s)
}
