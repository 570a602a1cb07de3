package tfstate

import (
	"slices"
	"strings"

	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/state"
)

// Kyku's own types (kyku_vpc, kyku_vm, …: package schema) in a Terraform
// state are the resources of a provider of their own, whose type is
// "kyku": KykuProvider unless the configuration's required_providers
// gives local name kyku another source. An instance's attributes are the
// whole object, as a Terraform provider's are: its configuration's
// arguments and its outputs in snake case (cidr, user_data, public_ip,
// id), and the name Kyku gave it in the cloud (cloud_name). In Kyku's
// model the resource is of its Kyku type (Vpc), Config its arguments,
// Outputs its outputs, CloudName its cloud_name: all of it in the
// Terraform state, so that a state OpenTofu rewrote (tofu state mv, rm,
// push) loses none of it. What else Kyku records of it (Protect, Basis)
// is Extra, as for any resource.

// KykuProvider is the provider configuration address of Kyku's own types
// in a Terraform state when the configuration gives local name kyku no
// source.
const KykuProvider = `provider["registry.opentofu.org/kyku/kyku"]`

// cloudNameAttr is the attribute holding the name Kyku gave an object of
// its own types in the cloud.
const cloudNameAttr = "cloud_name"

// kykuTypeOf is Kyku's type of r: the type its name says (kyku_vpc) when
// its provider's type is kyku; nil for any other resource.
func kykuTypeOf(r *Resource) *schema.Type {
	t, ok := schema.ByHCLType(r.Type)
	if !ok || !isKykuProvider(r.Provider) {
		return nil
	}
	return t
}

// isKykuProvider reports whether the provider configuration address p
// (module.a.provider["registry.opentofu.org/kyku/kyku"].alias) is of a
// provider whose type is kyku.
func isKykuProvider(p string) bool {
	_, rest, ok := strings.Cut(p, `provider["`)
	if !ok {
		return false
	}
	source, _, ok := strings.Cut(rest, `"]`)
	if !ok {
		return false
	}
	i := strings.LastIndexByte(source, '/')
	return source[i+1:] == "kyku"
}

// modelKykuType is Kyku's type of sr, a resource of Kyku's model: nil
// unless it is one of Kyku's own types (a Terraform provider's types are
// named as in HCL, aws_instance, never as Kyku's, Vm).
func modelKykuType(sr *state.Resource) *schema.Type {
	t, ok := schema.Lookup(sr.Type)
	if !ok {
		return nil
	}
	return t
}

// stateType is the type a Terraform state records sr under.
func stateType(sr *state.Resource) string {
	if t := modelKykuType(sr); t != nil {
		return t.HCLType()
	}
	return sr.Type
}

// fromKykuAttrs sets sr, read as a Terraform provider's resource (its
// attributes its Outputs), to what Kyku's model holds of an object of
// Kyku's type t. An attribute that is neither an argument nor an output
// of t is left out.
func fromKykuAttrs(t *schema.Type, sr *state.Resource) {
	props, outs := kykuNames(t)
	attrs := sr.Outputs
	sr.Type, sr.Config, sr.Outputs = t.Name, map[string]any{}, map[string]any{}
	for name, v := range attrs {
		if p, ok := props[name]; ok {
			sr.Config[p] = v
		} else if o, ok := outs[name]; ok {
			sr.Outputs[o] = v
		} else if s, ok := v.(string); ok && name == cloudNameAttr {
			sr.CloudName = s
		}
	}
	for i, n := range sr.Sensitive {
		if p, ok := props[n]; ok {
			sr.Sensitive[i] = p
		} else if o, ok := outs[n]; ok {
			sr.Sensitive[i] = o
		}
	}
	slices.Sort(sr.Sensitive)
	if sr.SensitiveWithin == nil {
		return
	}
	within := make(map[string][]string, len(sr.SensitiveWithin))
	for n, paths := range sr.SensitiveWithin {
		if p, ok := props[n]; ok {
			n = p
		} else if o, ok := outs[n]; ok {
			n = o
		}
		within[n] = paths
	}
	sr.SensitiveWithin = within
}

// kykuAttrs are the attributes of sr, an object of Kyku's type t, in a
// Terraform state.
func kykuAttrs(t *schema.Type, sr *state.Resource) map[string]any {
	out := make(map[string]any, len(sr.Config)+len(sr.Outputs)+1)
	for name, v := range sr.Config {
		out[schema.HCLName(name)] = v
	}
	for name, v := range sr.Outputs {
		if t.HasOutput(name) {
			out[schema.HCLName(name)] = v
		}
	}
	if sr.CloudName != "" {
		out[cloudNameAttr] = sr.CloudName
	}
	return out
}

// kykuNames map the snake-case names of t's arguments and of its outputs
// to Kyku's.
func kykuNames(t *schema.Type) (props, outs map[string]string) {
	props, outs = map[string]string{}, map[string]string{}
	for _, p := range t.SortedProps() {
		props[schema.HCLName(p)] = p
	}
	for _, o := range t.Outputs {
		outs[schema.HCLName(o)] = o
	}
	return props, outs
}

// stateAttrs are the attributes a Terraform state holds of sr.
func stateAttrs(sr *state.Resource) map[string]any {
	if t := modelKykuType(sr); t != nil {
		return kykuAttrs(t, sr)
	}
	return wrapDynamic(sr.Type, sr.Outputs, sr.Types)
}

// stateSensitive are the top-level attributes a Terraform state names as
// sensitive for sr.
func stateSensitive(sr *state.Resource) []string {
	if modelKykuType(sr) == nil || len(sr.Sensitive) == 0 {
		return sr.Sensitive
	}
	out := make([]string, len(sr.Sensitive))
	for i, n := range sr.Sensitive {
		out[i] = schema.HCLName(n)
	}
	slices.Sort(out)
	return out
}
