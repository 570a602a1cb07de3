package marks

import "github.com/zclconf/go-cty/cty"

// Mark is a go-cty value mark with a meaning in the language.
type Mark string

// String names the mark as OpenTofu's messages do.
func (m Mark) String() string { return string(m) }

const (
	// Sensitive marks a value that is shown only as "(sensitive value)".
	Sensitive Mark = "sensitive"
	// Ephemeral marks a value that lives only for one run and is never
	// written to a plan or to state.
	Ephemeral Mark = "ephemeral"
)

// Has reports whether v itself (not a value nested in it) carries m.
func Has(v cty.Value, m Mark) bool { return v.HasMark(m) }

// Contains reports whether v or any value nested in it carries m.
func Contains(v cty.Value, m Mark) bool {
	if !v.ContainsMarked() {
		return false
	}
	_, pvm := v.UnmarkDeepWithPaths()
	for _, p := range pvm {
		if _, ok := p.Marks[m]; ok {
			return true
		}
	}
	return false
}

// Redacted is what a message shows in place of a value carrying marks:
// "(sensitive value)", "(ephemeral value)" or "(ephemeral sensitive
// value)"; "" when none of them is there.
func Redacted(ms ...cty.ValueMarks) string {
	var sensitive, ephemeral bool
	for _, m := range ms {
		_, s := m[Sensitive]
		_, e := m[Ephemeral]
		sensitive, ephemeral = sensitive || s, ephemeral || e
	}
	switch {
	case sensitive && ephemeral:
		return "(ephemeral sensitive value)"
	case ephemeral:
		return "(ephemeral value)"
	case sensitive:
		return "(sensitive value)"
	}
	return ""
}
