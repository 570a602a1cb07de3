package render

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// knownAfterApply is how an unknown new value is shown.
const knownAfterApply = value.Unknown

// oldValue is what may be shown of a property's old value: masked when
// sensitive (only its secret parts when it is so in parts: within.go),
// otherwise the canonical value; null (a create's) stays null.
func oldValue(pc plan.PropChange) any {
	if pc.Sensitive {
		return maskParts(pc.Old, pc.Within)
	}
	return pc.Old
}

// newValue is what may be shown of a property's new value: masked when
// sensitive (null, a destroy's, stays null), otherwise the canonical
// value with each part known only after apply (a string that interpolates
// one too) the unknown marker, beside the parts that are known.
func newValue(pc plan.PropChange) any {
	switch {
	case pc.Sensitive && len(pc.Within) > 0 && pc.Unknown:
		return unknownParts(maskParts(pc.New, pc.Within))
	case pc.Sensitive:
		return maskParts(pc.New, pc.Within)
	case pc.Unknown:
		return unknownParts(pc.New)
	}
	return pc.New
}

// unknownParts is v with every string holding the unknown marker made
// the marker alone (Terraform too makes "web-${unknown}" unknown).
func unknownParts(v any) any {
	switch x := v.(type) {
	case string:
		if strings.Contains(x, knownAfterApply) {
			return knownAfterApply
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = unknownParts(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = unknownParts(e)
		}
		return out
	}
	return v
}

// valueText renders a canonical value on one line for humans: strings bare,
// lists and maps as compact JSON, control characters escaped so a value can
// neither break a line-oriented layout nor drive a terminal. A part known
// only after apply is the bare marker beside the known parts:
// {"k":"one","pet":(known after apply)}.
func valueText(v any) string {
	switch x := v.(type) {
	case string:
		if strings.Contains(x, knownAfterApply) {
			return knownAfterApply
		}
	case []any, map[string]any:
		if hasUnknown(x) || hasMasked(x) {
			var b strings.Builder
			writePartial(&b, x)
			return oneLine(b.String())
		}
	}
	return oneLine(value.Text(v))
}

// hasUnknown reports whether a part of v is known only after apply.
func hasUnknown(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, knownAfterApply)
	case []any:
		return slices.ContainsFunc(x, hasUnknown)
	case map[string]any:
		for _, e := range x {
			if hasUnknown(e) {
				return true
			}
		}
	}
	return false
}

// hasMasked reports whether a part of v is a masked secret.
func hasMasked(v any) bool {
	switch x := v.(type) {
	case string:
		return x == plan.Masked
	case []any:
		return slices.ContainsFunc(x, hasMasked)
	case map[string]any:
		for _, e := range x {
			if hasMasked(e) {
				return true
			}
		}
	}
	return false
}

// writePartial writes v as compact JSON (keys sorted, as value.Text
// writes it) with each unknown part, and each masked secret, the bare
// marker.
func writePartial(b *strings.Builder, v any) {
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writePartial(b, e)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSON(b, k)
			b.WriteByte(':')
			writePartial(b, x[k])
		}
		b.WriteByte('}')
	case string:
		if strings.Contains(x, knownAfterApply) {
			b.WriteString(knownAfterApply)
			return
		}
		if x == plan.Masked {
			b.WriteString(plan.Masked)
			return
		}
		writeJSON(b, x)
	default:
		writeJSON(b, x)
	}
}

// writeJSON writes a leaf as value.Text writes it inside a list or map.
func writeJSON(b *strings.Builder, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		b.WriteString(value.Text(v))
		return
	}
	b.Write(out)
}

// oneLine escapes control characters (newlines included) and invalid UTF-8
// the way Go quotes them, leaving printable text, spaces included, as is.
func oneLine(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (!unicode.IsPrint(r) && r != ' ') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		chunk := s[i : i+size]
		i += size
		if r == ' ' || (r != utf8.RuneError && unicode.IsPrint(r)) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteToASCII(chunk)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// truncateRunes shortens s to at most n runes, ending with "…" when cut.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// forgets counts changes that only drop a resource from state.
func forgets(p *plan.Plan) int {
	n := 0
	for _, c := range p.Changes {
		if c.Action == plan.Forget {
			n++
		}
	}
	return n
}

// summaryLine is the seed's counters line, plus forgets, moves, imports
// and data sources read during apply when there are any.
func summaryLine(p *plan.Plan) string {
	c := p.Counters
	s := "Plan: " + strconv.Itoa(c.Create) + " to create, " + strconv.Itoa(c.Update) + " to update, " +
		strconv.Itoa(c.Replace) + " to replace, " + strconv.Itoa(c.Destroy) + " to destroy, " +
		strconv.Itoa(c.NoOp) + " no-op"
	if n := forgets(p); n > 0 {
		s += ", " + strconv.Itoa(n) + " to forget"
	}
	if c.Move > 0 {
		s += ", " + strconv.Itoa(c.Move) + " to move"
	}
	if c.Import > 0 {
		s += ", " + strconv.Itoa(c.Import) + " to import"
	}
	if c.Read > 0 {
		s += ", " + strconv.Itoa(c.Read) + " to read during apply"
	}
	return s
}

// noChanges is printed when applying the plan would change nothing.
const noChanges = "No changes. Infrastructure matches the configuration."

// outputsOnly follows the output changes of a plan changing nothing else.
const outputsOnly = "You can apply this plan to save these new output values to the state, without changing any real infrastructure."

// forcesNote is what follows a property that forces a replace:
// "  # forces replacement: <the provider's reason>" (without a reason,
// "  # forces replacement"); "" for any other property.
func forcesNote(pc plan.PropChange) string {
	if !pc.ForcesReplace {
		return ""
	}
	if pc.ReplaceReason == "" {
		return "  # forces replacement"
	}
	return "  # forces replacement: " + oneLine(pc.ReplaceReason)
}

// replaceOrderText says how replace c is carried out, as the text and the
// comment show it.
func replaceOrderText(c *plan.Change) string {
	switch o := c.ReplaceOrder; o {
	case plan.CreateBeforeDestroy:
		if c.PriorCloudName == "" { // a provider's resource: no cloud name of Kyku's
			return "create-before-destroy: the replacement is made first, what uses the object moves to it, then the object is destroyed"
		}
		return "create-before-destroy: the replacement is made first (under another cloud name), what uses the object moves to it, then the object is destroyed"
	case plan.DestroyBeforeCreate:
		return "destroy-before-create: the object is destroyed, then made again"
	case plan.ForgetThenCreate:
		return "forget-then-create (lifecycle destroy = false): the object is dropped from state and left in the cloud, then made again"
	default:
		return "replace order " + string(o)
	}
}
