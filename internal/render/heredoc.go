package render

import (
	"strings"

	"github.com/kyku/action/internal/plan"
)

// A string of several lines (a PEM key, a certificate, a script) is shown
// as OpenTofu shows it, a heredoc of its lines (surrounding blank space
// trimmed) between `<<-EOT` and `EOT`; for a change in place, the lines
// of the old and the new value line up, those removed and added marked.

// hereLine is one line of a block (a heredoc, a list, a map): mark is
// ' ' (as it was, or a create's or destroy's line), '-' (removed) or '+'
// (added).
type hereLine struct {
	mark byte
	text string // what two lines compare by
	// ref names the reference the value on the line came from (the new
	// value's): shown beside it (withRef, openRef), never compared.
	ref   string
	tail  string // a list entry's comma, after ref
	opens bool   // the line opens a block of its own: ref shows as a comment
}

// String is the line as shown: text, the reference beside the value it
// gave, the tail.
func (l hereLine) String() string {
	switch {
	case l.ref == "":
		return l.text + l.tail
	case l.opens:
		return l.text + l.tail + openRef(l.ref)
	}
	return withRef(l.text, l.ref) + l.tail
}

// heredoc returns the lines to show for a property of action a whose
// shown values are old and new, and whether it is a heredoc at all (one
// of the values it shows is a string of several lines).
func heredoc(a plan.Action, old, new any) ([]hereLine, bool) {
	switch a {
	case plan.Create, plan.Read:
		return plainLines(new)
	case plan.Destroy, plan.Forget:
		return plainLines(old)
	}
	if !multiline(old) && !multiline(new) {
		return nil, false
	}
	ol, _ := textLines(old)
	nl, _ := textLines(new)
	return lineDiff(unmarked(ol), unmarked(nl)), true
}

// plainLines are v's lines, all marked ' ', when v is a string of several.
func plainLines(v any) ([]hereLine, bool) {
	if !multiline(v) {
		return nil, false
	}
	lines, _ := textLines(v)
	return unmarked(lines), true
}

// multiline reports whether v shows as several lines (a heredoc): a
// string with a line break that is known. The checks ask it first, so
// that a value shown on one line is not rendered only to be dropped (a
// create's list or map was rendered whole as JSON to learn that).
func multiline(v any) bool {
	s, ok := v.(string)
	return ok && strings.Contains(s, "\n") && !strings.Contains(s, knownAfterApply)
}

// textLines are the lines v shows as, control characters escaped, and
// whether v is a string of several lines; null is no line at all.
func textLines(v any) ([]string, bool) {
	if v == nil {
		return nil, false
	}
	if !multiline(v) {
		return []string{valueText(v)}, false
	}
	lines := strings.Split(strings.TrimSpace(v.(string)), "\n")
	for i, l := range lines {
		lines[i] = oneLine(l)
	}
	return lines, true
}

// maxDiffCells bounds the table lineDiff builds: past it (two texts of
// about a thousand lines each), the old lines are all shown removed and
// the new ones added.
const maxDiffCells = 1 << 20

// lineDiff lines up old and new by their longest common subsequence,
// lines compared by text and tail: common lines ' ' (with the new line's
// reference), the others '-' (old) before '+' (new).
func lineDiff(old, new []hereLine) []hereLine {
	n, m := len(old), len(new)
	mark := func(l hereLine, c byte) hereLine {
		l.mark = c
		return l
	}
	if n*m > maxDiffCells {
		out := make([]hereLine, 0, n+m)
		for _, l := range old {
			out = append(out, mark(l, '-'))
		}
		for _, l := range new {
			out = append(out, mark(l, '+'))
		}
		return out
	}
	same := func(i, j int) bool { return old[i].text == new[j].text && old[i].tail == new[j].tail }
	// lcs[i][j]: the longest common subsequence of old[i:] and new[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if same(i, j) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	out := make([]hereLine, 0, n+m)
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && same(i, j):
			out = append(out, mark(new[j], ' '))
			i, j = i+1, j+1
		case j == m || (i < n && lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, mark(old[i], '-'))
			i++
		default:
			out = append(out, mark(new[j], '+'))
			j++
		}
	}
	return out
}

// changed reports whether a heredoc marks a line removed or added: one
// that does not changed only in the blank space around or at the end.
func changed(lines []hereLine) bool {
	for _, l := range lines {
		if l.mark != ' ' {
			return true
		}
	}
	return false
}

// heredocNote is what a heredoc's first line says after `<<-EOT` (and
// the reference its value came from): `  # whitespace changes` for a
// change in place whose lines are all alike, else nothing.
func heredocNote(a plan.Action, lines []hereLine) string {
	if a != plan.Create && a != plan.Read && a != plan.Destroy && a != plan.Forget && !changed(lines) {
		return "  # whitespace changes"
	}
	return ""
}
