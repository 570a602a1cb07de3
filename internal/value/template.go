package value

import (
	"encoding/json"
	"strings"
)

// A Template is an Expr made of text and references read plainly
// ("${web[0].publicIp}", "db-${main-vpc}"): what a kyku.yaml template
// that only reads resources is, parsed once where it is written
// (package config builds it from the HCL template's parts). A Template
// that is exactly one reference takes the referenced value's type (and
// Whole names it); otherwise each reference reads as text (Text), a
// value not known yet as Unknown. Its JSON is its text in Kyku's
// reference form, the form plan files keep (ParseTemplate reads it
// back). Immutable and safe for concurrent use.
type Template struct {
	parts []templatePart
	refs  []Ref
	text  string
}

var _ Expr = (*Template)(nil)

// templatePart is literal text, or a reference (isRef).
type templatePart struct {
	text  string
	ref   Ref
	isRef bool
}

// A TemplateBuilder makes a Template part by part.
type TemplateBuilder struct{ t Template }

// Text appends text; a reference in Kyku's form inside it ("${db}",
// from a variable's value, say) is a reference, as it is when the
// template's JSON is read back (ParseTemplate), so that what a plan
// shows and what its saved plan applies read the same.
func (b *TemplateBuilder) Text(s string) {
	last := 0
	for {
		r, start, end, ok := nextRef(s, last)
		if !ok {
			break
		}
		b.literal(s[last:start])
		b.Ref(r)
		last = end
	}
	b.literal(s[last:])
}

// literal appends literal text.
func (b *TemplateBuilder) literal(s string) {
	if n := len(b.t.parts); n > 0 && !b.t.parts[n-1].isRef {
		b.t.parts[n-1].text += s
		return
	}
	if s != "" {
		b.t.parts = append(b.t.parts, templatePart{text: s})
	}
}

// Ref appends a reference.
func (b *TemplateBuilder) Ref(r Ref) {
	b.t.parts = append(b.t.parts, templatePart{ref: r, isRef: true})
}

// Template is the template built, nil when it reads no resource (it is
// then text: use the parts' text as such).
func (b *TemplateBuilder) Template() *Template {
	t := &Template{parts: b.t.parts}
	var s strings.Builder
	seen := map[Ref]bool{}
	for _, p := range t.parts {
		if !p.isRef {
			s.WriteString(p.text)
			continue
		}
		s.WriteString(p.ref.String())
		if !seen[p.ref] {
			seen[p.ref] = true
			t.refs = append(t.refs, p.ref)
		}
	}
	if len(t.refs) == 0 {
		return nil
	}
	t.text = s.String()
	return t
}

// ParseTemplate reads a string in Kyku's reference form (a plan file's,
// see Template) as a Template; ok is false when it holds no reference.
func ParseTemplate(s string) (*Template, bool) {
	if !strings.Contains(s, "${") {
		return nil, false
	}
	var b TemplateBuilder
	b.Text(s)
	t := b.Template()
	return t, t != nil
}

// Refs are the references the template reads, in order, once each.
func (t *Template) Refs() []Ref { return t.refs }

// Whole is the reference the template is, when it is exactly one.
func (t *Template) Whole() (Ref, bool) {
	if len(t.parts) == 1 && t.parts[0].isRef {
		return t.parts[0].ref, true
	}
	return Ref{}, false
}

// String is the template in Kyku's reference form: "db-${main-vpc}".
func (t *Template) String() string { return t.text }

// MarshalJSON writes the template as String, the form plan files and
// the configuration's hash keep.
func (t *Template) MarshalJSON() ([]byte, error) { return json.Marshal(t.text) }

// Eval reads every reference with lookup (its path read by Walk: a path
// that does not apply is a *RefError naming it, the value Unknown).
func (t *Template) Eval(lookup Lookup) (any, bool, error) {
	var first error
	get := func(r Ref) (any, bool) {
		got, ok, err := ReadRef(r, lookup)
		if err != nil && first == nil {
			first = err
		}
		return got, ok
	}
	if r, ok := t.Whole(); ok {
		got, ok := get(r)
		if !ok {
			return Unknown, true, first
		}
		return Normalize(got), false, first
	}
	unknown := false
	var b strings.Builder
	for _, p := range t.parts {
		if !p.isRef {
			b.WriteString(p.text)
			continue
		}
		if got, ok := get(p.ref); ok {
			b.WriteString(Text(got))
		} else {
			unknown = true
			b.WriteString(Unknown)
		}
	}
	return b.String(), unknown, first
}

// ReadRef looks r up and reads its path (Walk); ok is false when the
// value is not known yet, and err (a *RefError) says which step of the
// path does not apply.
func ReadRef(r Ref, lookup Lookup) (v any, ok bool, err error) {
	got, ok := lookup(r)
	if !ok || r.Path == "" {
		return got, ok, nil
	}
	got, ok, err = Walk(Normalize(got), r.Steps())
	if err != nil {
		return got, ok, &RefError{Ref: r, Err: err}
	}
	return got, ok, nil
}

// WholeRef is the reference v is when it is exactly one: a Template's
// (Whole), or a string in Kyku's reference form ("${vpc}", a plan
// file's or a provider's caller's).
func WholeRef(v any) (Ref, bool) {
	switch x := v.(type) {
	case *Template:
		return x.Whole()
	case string:
		return ParseRef(x)
	}
	return Ref{}, false
}

// ReadTemplates is v (a plan file's configuration values) with every
// string holding a reference in Kyku's reference form read as the
// Template it was written from (see Template's JSON); lists and maps
// are copied where they change.
func ReadTemplates(v any) any {
	switch x := v.(type) {
	case string:
		if tp, ok := ParseTemplate(x); ok {
			return tp
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ReadTemplates(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = ReadTemplates(e)
		}
		return out
	}
	return v
}

// RefTemplate is the Template that is exactly reference r.
func RefTemplate(r Ref) *Template {
	var b TemplateBuilder
	b.Ref(r)
	return b.Template()
}
