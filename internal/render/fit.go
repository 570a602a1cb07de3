package render

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

func itoa(n int) string { return strconv.Itoa(n) }

// section is a droppable part of a markdown document: lead and trail stay,
// items are dropped from the end when the document is over its limit, and
// more(n) (when set) stands in for n dropped items.
type section struct {
	lead  string
	items []string
	more  func(n int) string
	trail string
}

// fit assembles head, sections and tail into at most limit bytes. When the
// whole does not fit, items are dropped from the end — last section first —
// and notice(dropped), given how many items each section lost, is placed
// before tail. head, leads, trails and tail are never dropped; only when they
// alone exceed limit is the result cut at limit as a last resort.
func fit(limit int, head string, secs []section, notice func(dropped []int) string, tail string) string {
	total := 0
	for _, s := range secs {
		total += len(s.items)
	}
	build := func(kept int) string {
		var b strings.Builder
		b.WriteString(head)
		dropped := make([]int, len(secs))
		trimmed := false
		for i, s := range secs {
			b.WriteString(s.lead)
			n := min(kept, len(s.items))
			kept -= n
			for _, it := range s.items[:n] {
				b.WriteString(it)
			}
			if d := len(s.items) - n; d > 0 {
				dropped[i], trimmed = d, true
				if s.more != nil {
					b.WriteString(s.more(d))
				}
			}
			b.WriteString(s.trail)
		}
		if trimmed && notice != nil {
			b.WriteString(notice(dropped))
		}
		b.WriteString(tail)
		return b.String()
	}
	if out := build(total); len(out) <= limit {
		return out
	}
	// The largest prefix of items that fits: lengths grow with kept (a
	// "more" line shrinks by at most a digit per item added), so search,
	// then step down while still over.
	lo, hi := 0, total
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(build(mid)) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for ; lo > 0; lo-- {
		if out := build(lo); len(out) <= limit {
			return out
		}
	}
	return cut(build(0), limit)
}

// cut shortens s to at most limit bytes on a rune boundary.
func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	if limit <= 0 {
		return ""
	}
	s = s[:limit]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
