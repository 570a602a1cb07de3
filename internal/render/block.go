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
// those removed and added marked (lineDiff), as a heredoc's do. A value
// that came from a reference names it (references.go).

// block is a property shown on several lines: open (and the reference
// the whole value came from, and note) follows the path on its first
// line, lines go under it, close ends it.
type block struct {
	open, ref, note, close string
	lines                  []hereLine
}

// head is what follows the path on a block's first line, the note of a
// property forcing a replace last.
func (b block) head(pc plan.PropChange) string {
	s := b.open
	if b.ref != "" {
		s += openRef(b.ref)
	}
	return s + b.note + forcesNote(pc)
}

// indentStep is how much deeper each level of a nested value is shown.
const indentStep = "    "

// valueBlock is the block pc shows as in a change of action a, and
// whether it shows as one: a string of several lines, or a list or map
// with an entry (on both sides of a change in place, or null on one).
// Anything else (a secret, which is masked, a value known only after
// apply as a whole, a list becoming a map) stays on one line. refs are
// the change's references (plan.Change.References).
func valueBlock(a plan.Action, pc plan.PropChange, refs map[string]string) (block, bool) {
	old, new := oldValue(pc), newValue(pc)
	ref := refOf(pc, refs)
	if a == plan.Destroy || a == plan.Forget {
		ref = "" // an old value: the references are the configuration's now
	}
	if lines, ok := heredoc(a, old, new); ok {
		return block{open: "<<-EOT", ref: ref, note: heredocNote(a, lines), close: "EOT", lines: lines}, true
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
	b := block{open: open, ref: ref, close: close}
	switch a {
	case plan.Create, plan.Read:
		b.lines = nestedLines(new, 0, pc.Path, refs)
	case plan.Destroy, plan.Forget:
		b.lines = nestedLines(old, 0, pc.Path, nil)
	default:
		b.lines = lineDiff(nestedLines(old, 0, pc.Path, nil), nestedLines(new, 0, pc.Path, refs))
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

// unmarked are texts as lines, none marked.
func unmarked(texts []string) []hereLine {
	out := make([]hereLine, len(texts))
	for i, t := range texts {
		out[i] = hereLine{mark: ' ', text: t}
	}
	return out
}

// nestedLines are the lines of the entries of v, a list or a map at
// path, depth levels below the property: a map's by key, sorted; each
// value with the reference refs name at its path.
func nestedLines(v any, depth int, path string, refs map[string]string) []hereLine {
	ind := strings.Repeat(indentStep, depth)
	var out []hereLine
	switch x := v.(type) {
	// an entry's path serves only to find its reference: without any
	// (most changes), none is made
	case []any:
		for i, e := range x {
			var p string
			if len(refs) > 0 {
				p = path + "[" + strconv.Itoa(i) + "]"
			}
			out = entryLines(out, entry{ind, "", ",", depth, p}, e, refs)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			var p string
			if len(refs) > 0 {
				p = path + "." + k
			}
			out = entryLines(out, entry{ind, keyText(k) + ": ", "", depth, p}, x[k], refs)
		}
	}
	return out
}

// entry is where one entry of a list or map goes: its indentation, its
// label (a map's key and ": "; "" for a list's element), its tail (a
// list's comma), its depth and path.
type entry struct {
	ind, label, tail string
	depth            int
	path             string
}

// entryLines appends the lines of one entry, v: a list or map with
// entries as a block of its own, a string of several lines as a heredoc,
// anything else on one line.
func entryLines(out []hereLine, e entry, v any, refs map[string]string) []hereLine {
	ref := refs[e.path]
	if open, close, ok := brackets(nil, v); ok {
		out = append(out, hereLine{mark: ' ', text: e.ind + e.label + open, ref: ref, opens: true})
		out = append(out, nestedLines(v, e.depth+1, e.path, refs)...)
		return append(out, hereLine{mark: ' ', text: e.ind + close, tail: e.tail})
	}
	if multiline(v) {
		lines, _ := textLines(v)
		out = append(out, hereLine{mark: ' ', text: e.ind + e.label + "<<-EOT", ref: ref, opens: true})
		for _, l := range lines {
			out = append(out, hereLine{mark: ' ', text: e.ind + indentStep + l})
		}
		return append(out, hereLine{mark: ' ', text: e.ind + "EOT", tail: e.tail})
	}
	return append(out, hereLine{mark: ' ', text: e.ind + e.label + valueText(v), ref: ref, tail: e.tail})
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
