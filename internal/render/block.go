package render

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/plan"
)

// A property whose value does not fit one line is shown as a block, as
// OpenTofu shows it: a string of several lines as a heredoc (heredoc.go),
// a list or a map (an object, a nested block) as its entries between
// brackets, one a line, four spaces deeper a level, a list's entries
// ending with a comma:
//
//	ingress: [
//	    {
//	        cidr: 0.0.0.0/0
//	        port: 80
//	    },
//	]
//
// For a change in place, the lines of the old and the new value line up,
// those removed and added marked (lineDiff), as a heredoc's do.

// block is a property shown on several lines: open follows the path on
// its first line, lines go under it, close ends it.
type block struct {
	open, close string
	lines       []hereLine
}

// indentStep is how much deeper each level of a nested value is shown.
const indentStep = "    "

// valueBlock is the block pc shows as in a change of action a, and
// whether it shows as one: a string of several lines, or a list or map
// with an entry (on both sides of a change in place, or null on one).
// Anything else (a secret, which is masked, a value known only after
// apply as a whole, a list becoming a map) stays on one line.
func valueBlock(a plan.Action, pc plan.PropChange) (block, bool) {
	old, new := oldValue(pc), newValue(pc)
	if lines, ok := heredoc(a, old, new); ok {
		return block{open: heredocOpen(a, lines), close: "EOT", lines: lines}, true
	}
	switch a {
	case plan.Create, plan.Read:
		old = nil
	case plan.Destroy, plan.Forget:
		new = nil
	}
	open, close, ok := brackets(old, new)
	if !ok {
		return block{}, false
	}
	b := block{open: open, close: close}
	switch a {
	case plan.Create, plan.Read:
		b.lines = unmarked(nestedLines(new, 0))
	case plan.Destroy, plan.Forget:
		b.lines = unmarked(nestedLines(old, 0))
	default:
		b.lines = lineDiff(nestedLines(old, 0), nestedLines(new, 0))
	}
	return b, true
}

// brackets are the brackets around a block of old and new (null where
// there is none), and whether they show as one: both lists, or both
// maps, one of them with an entry.
func brackets(old, new any) (open, close string, ok bool) {
	kind, entries := byte(0), false
	for _, v := range []any{old, new} {
		var k byte
		switch x := v.(type) {
		case nil:
			continue
		case []any:
			k, entries = '[', entries || len(x) > 0
		case map[string]any:
			k, entries = '{', entries || len(x) > 0
		default:
			return "", "", false
		}
		if kind != 0 && k != kind {
			return "", "", false
		}
		kind = k
	}
	switch {
	case !entries:
		return "", "", false
	case kind == '[':
		return "[", "]", true
	}
	return "{", "}", true
}

// unmarked are lines as a create or a destroy shows them: none marked.
func unmarked(texts []string) []hereLine {
	out := make([]hereLine, len(texts))
	for i, t := range texts {
		out[i] = hereLine{' ', t}
	}
	return out
}

// nestedLines are the lines of the entries of v, a list or a map, at
// depth levels below the property: a map's by key, sorted.
func nestedLines(v any, depth int) []string {
	ind := strings.Repeat(indentStep, depth)
	var out []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			out = entryLines(out, ind, "", e, ",", depth)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			out = entryLines(out, ind, keyText(k)+": ", x[k], "", depth)
		}
	}
	return out
}

// entryLines appends the lines of one entry, v, labelled label (a map's
// key and ": "; "" for a list's element) and followed by tail (a list's
// comma): a list or map with entries as a block of its own, a string of
// several lines as a heredoc, anything else on one line.
func entryLines(out []string, ind, label string, v any, tail string, depth int) []string {
	if open, close, ok := brackets(nil, v); ok {
		out = append(out, ind+label+open)
		out = append(out, nestedLines(v, depth+1)...)
		return append(out, ind+close+tail)
	}
	if lines, multi := textLines(v); multi {
		out = append(out, ind+label+"<<-EOT")
		for _, l := range lines {
			out = append(out, ind+indentStep+l)
		}
		return append(out, ind+"EOT"+tail)
	}
	return append(out, ind+label+valueText(v)+tail)
}

// keyText is a map's key as a block shows it: bare when it is a word
// (letters, digits and "_-./"), else quoted, so that no key reads as
// another line or another key's value.
func keyText(k string) string {
	if k == "" {
		return `""`
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./", r)) {
			return strconv.Quote(k)
		}
	}
	return k
}
