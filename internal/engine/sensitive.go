package engine

import (
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// What a plan masks: the properties Kyku's schema, a provider's schema or
// the configuration (a sensitive variable) say are sensitive, and those
// that reference a sensitive attribute.

// sortedSet is names sorted, each once; nil for none.
func sortedSet(names []string) []string {
	if len(names) == 0 {
		return nil
	}
	out := slices.Clone(names)
	slices.Sort(out)
	return slices.Compact(out)
}

// refSensitive lists the top-level properties of props that reference a
// sensitive attribute: sensitive is, per resource, its sensitive
// top-level attributes.
func refSensitive(props map[string]any, sensitive map[string][]string) []string {
	if len(sensitive) == 0 {
		return nil
	}
	var out []string
	for name, v := range props {
		for _, ref := range value.Refs(v) {
			// A whole object read (value.AllAttrs) holds its sensitive attributes.
			if s := sensitive[ref.Resource]; len(s) > 0 && (ref.Attr == value.AllAttrs || ref.Attr != "" && slices.Contains(s, ref.Attr)) {
				out = append(out, name)
				break
			}
		}
	}
	slices.Sort(out)
	return out
}

// partlySecret is within (config.Resource.SensitiveWithin) without the
// properties that are secret whole for another reason (the schemas, a
// reference to a sensitive attribute, what state recorded): the
// properties a plan masks only in parts. nil for none.
func partlySecret(within map[string][]string, whole ...[]string) map[string][]string {
	var out map[string][]string
	for name, paths := range within {
		if slices.ContainsFunc(whole, func(names []string) bool { return slices.Contains(names, name) }) {
			continue
		}
		if out == nil {
			out = map[string][]string{}
		}
		out[name] = paths
	}
	return out
}

// schemaSensitive lists the properties Kyku's schema marks sensitive of
// typ (none for a provider's type).
func schemaSensitive(typ string) []string {
	t, ok := schema.Lookup(typ)
	if !ok {
		return nil
	}
	var out []string
	for _, name := range t.SortedProps() {
		if t.Sensitive(name) {
			out = append(out, name)
		}
	}
	return out
}

// refuseSensitiveOutputs refuses the outputs that read a sensitive
// attribute of a provider's resource (its schema says so, or it holds a
// sensitive value: sensitive, by resource) unless they are declared sensitive
// ({ value: …, sensitive: true }), as Terraform refuses them: outputs are
// listed after apply, in the apply's comment and by kyku output, so one
// holding a secret must say so to be masked there.
func refuseSensitiveOutputs(diags *diag.Diagnostics, cfg *config.Config, sensitive map[string][]string) {
	for _, o := range cfg.Outputs {
		if o.Sensitive {
			continue
		}
		refs := value.Refs(o.Value)
		if sr, ok := o.Value.(interface{ SecretRefs() []value.Ref }); ok {
			refs = sr.SecretRefs() // nonsensitive() takes the mark off
		}
		for _, ref := range refs {
			if ref.Attr == "" || !slices.Contains(sensitive[ref.Resource], ref.Attr) {
				continue
			}
			if o.Pos.InTerraformFile() {
				diags.Add(o.Pos, "Output refers to sensitive values: output %q reads %s.%s, which is sensitive (its provider's schema says so, or it holds a sensitive value): declare the output sensitive = true to confirm your intent (or take the mark off with nonsensitive())",
					o.Name, ref.Resource, ref.Attr)
				break
			}
			diags.Add(o.Pos, "output %q reads %s, which is sensitive (its provider's schema says so, or it holds a sensitive value): declare it sensitive to have it masked wherever outputs are shown (%s: { value: \"%s\", sensitive: true })",
				o.Name, ref.String(), o.Name, ref.String())
			break
		}
	}
}

// unordered lists the properties of Kyku's schema of typ that are sets
// (schema.Prop.Set): their changes are compared in sorted order, so a
// secret element's index in the configuration need not be its index in
// what a plan shows; such a property is masked whole (none for a
// provider's type).
func unordered(typ string) []string {
	t, ok := schema.Lookup(typ)
	if !ok {
		return nil
	}
	var out []string
	for _, name := range t.SortedProps() {
		if p := t.Props[name]; p != nil && p.Set {
			out = append(out, name)
		}
	}
	return out
}
