package tfschema

import (
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// Severity is a diagnostic's weight.
type Severity int

// The severities of the plugin protocol.
const (
	SeverityInvalid Severity = iota
	Error
	Warning
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "invalid"
}

// Diagnostic is one problem found by Kyku against a schema or reported by
// a provider. Path, when not empty, names the attribute it is about (the
// caller turns it into file:line:col).
type Diagnostic struct {
	Severity Severity
	Summary  string
	Detail   string
	Path     cty.Path
	// TF is how OpenTofu words what Kyku found itself (Summary, in
	// Kyku's words): its summary and detail, for a Terraform
	// configuration's errors. Empty for a provider's diagnostic, whose
	// own Summary and Detail are already those.
	TF struct{ Summary, Detail string }
}

// String is "path: summary: detail" with whatever parts are set.
func (d Diagnostic) String() string {
	var b strings.Builder
	if len(d.Path) > 0 {
		b.WriteString(PathString(d.Path))
		b.WriteString(": ")
	}
	b.WriteString(d.Summary)
	if d.Detail != "" {
		b.WriteString(": ")
		b.WriteString(d.Detail)
	}
	return b.String()
}

// Diagnostics is a list of diagnostics, all collected before returning.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Err returns the errors of ds as one error, or nil when there are none.
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	return DiagnosticsError(ds)
}

// DiagnosticsError is a list of diagnostics holding at least one error.
type DiagnosticsError Diagnostics

func (e DiagnosticsError) Error() string {
	var lines []string
	for _, d := range e {
		if d.Severity == Error {
			lines = append(lines, d.String())
		}
	}
	return strings.Join(lines, "\n")
}

func (ds *Diagnostics) errorf(path cty.Path, summary string) {
	*ds = append(*ds, Diagnostic{Severity: Error, Summary: summary, Path: path.Copy()})
}

// errorTF is errorf with OpenTofu's summary and detail for the same.
func (ds *Diagnostics) errorTF(path cty.Path, summary, tfSummary, tfDetail string) {
	d := Diagnostic{Severity: Error, Summary: summary, Path: path.Copy()}
	d.TF.Summary, d.TF.Detail = tfSummary, tfDetail
	*ds = append(*ds, d)
}

// lastAttr is the name of the last attribute step of path ("" for none):
// the argument OpenTofu names in a value's error.
func lastAttr(path cty.Path) string {
	for i := len(path) - 1; i >= 0; i-- {
		if s, ok := path[i].(cty.GetAttrStep); ok {
			return s.Name
		}
	}
	return ""
}

// PathString renders a path as a Kyku reader writes it: rule[0].port,
// tags["env"].
func PathString(p cty.Path) string {
	var b strings.Builder
	for _, step := range p {
		switch s := step.(type) {
		case cty.GetAttrStep:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		case cty.IndexStep:
			b.WriteByte('[')
			switch {
			case s.Key.IsNull() || !s.Key.IsKnown():
				b.WriteByte('?')
			case s.Key.Type() == cty.String:
				b.WriteString(strconv.Quote(s.Key.AsString()))
			case s.Key.Type() == cty.Number:
				b.WriteString(s.Key.AsBigFloat().Text('f', -1))
			default:
				b.WriteByte('?')
			}
			b.WriteByte(']')
		}
	}
	return b.String()
}
