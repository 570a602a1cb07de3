package config

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Trust is what a trusted configuration declares about variables (see
// Inputs.Trusted). The zero value declares nothing.
type Trust struct {
	declared map[string]bool // name → declared sensitive
}

// TrustOf reads the variable declarations of files (a default branch's
// configuration): only variables: sections are read, so a problem
// elsewhere (or a value missing in some environment) changes nothing; a
// file that is not valid YAML declares nothing. No files: a Trust that
// declares nothing.
func TrustOf(files []File) *Trust {
	p := &parser{
		cfg: &Config{}, resources: map[string]*Resource{}, outputs: map[string]*Output{},
		expanding: map[*yaml.Node]bool{}, vars: map[string]*Variable{}, envs: map[string]*envDecl{},
		templates: map[string]*template{}, substituted: map[*yaml.Node]bool{}, secret: map[*yaml.Node]*Variable{},
	}
	for _, f := range files {
		p.file = f.Name
		p.parseFile(f.Data)
	}
	t := &Trust{declared: make(map[string]bool, len(p.vars))}
	for name, v := range p.vars {
		t.declared[name] = v.Sensitive
	}
	return t
}

// TrustAll is what ts declare together, where no single one is known to
// be the trusted configuration: a variable is sensitive when any declares
// it so, and declared only when all declare it (a value given outside the
// files is then sensitive unless every one of them says it is not). Nil
// elements declare nothing.
func TrustAll(ts ...*Trust) *Trust {
	out := &Trust{declared: map[string]bool{}}
	counts := map[string]int{}
	for _, t := range ts {
		var declared map[string]bool
		if t != nil {
			declared = t.declared
		}
		for name, sensitive := range declared {
			counts[name]++
			out.declared[name] = out.declared[name] || sensitive
		}
	}
	for name, n := range counts {
		if n < len(ts) && !out.declared[name] {
			delete(out.declared, name)
		}
	}
	return out
}

// Sensitive reports whether the trusted configuration declares variable
// name sensitive.
func (t *Trust) Sensitive(name string) bool { return t != nil && t.declared[name] }

// Declares reports whether the trusted configuration declares variable name.
func (t *Trust) Declares(name string) bool {
	if t == nil {
		return false
	}
	_, ok := t.declared[name]
	return ok
}

// trust makes v sensitive where the trusted configuration says so (see
// Inputs.Trusted); outside says where v's value comes from when it is
// given outside the files ("" when it is not).
func (t *Trust) trust(v *Variable, outside string) {
	switch {
	case t == nil || v.Sensitive:
	case t.Sensitive(v.Name):
		v.Sensitive, v.why = true, "the default branch declares it sensitive"
	case outside != "" && !t.Declares(v.Name):
		if strings.HasPrefix(outside, "--var") {
			outside = "--var (the Action's vars input)"
		}
		v.Sensitive, v.why = true, "its value comes from "+outside+", and the default branch does not declare it"
	}
}

// sensitiveWhy says why v is sensitive, for messages.
func (v *Variable) sensitiveWhy() string {
	if v.why != "" {
		return v.why
	}
	return "declared sensitive"
}

// given reports whether v's value was given outside the files (--var,
// the Action's vars input, KYKU_VAR_<name>; a Terraform configuration's
// --var-file and TF_VAR_<name>): where secrets come from.
func (v *Variable) given() bool {
	return v.Source == "--var" || v.Source == "--var-file" || strings.HasPrefix(v.Source, "KYKU_VAR_") || strings.HasPrefix(v.Source, "TF_VAR_")
}
