package tfconfig

import (
	"strconv"
	"strings"
)

// StateProvider is the provider configuration address OpenTofu writes in
// a state for the resource typ.name (a data source when data) of the
// module the call names lead to from m (none: the root):
// provider["registry.opentofu.org/hashicorp/aws"], with ".alias" for an
// alias and "module.NAME." before it for a configuration the module
// declares itself. A configuration a module does not declare is its
// parent's, through the call's providers map. "" when the resource is
// not in the configuration.
func StateProvider(m *Module, calls []string, data bool, typ, name string) string {
	mods := []*Module{m}
	for _, c := range calls {
		child := mods[len(mods)-1].Children[c]
		if child == nil {
			return ""
		}
		mods = append(mods, child)
	}
	key := typ + "." + name
	if data {
		key = "data." + key
	}
	r := mods[len(mods)-1].Resources[key]
	if r == nil {
		return ""
	}
	ref := ProviderRef{Name: impliedProvider(typ)}
	if r.Provider != nil {
		ref = *r.Provider
	}
	if _, required := mods[len(mods)-1].RequiredProviders[ref.Name]; ref.Name == "terraform" && ref.Alias == "" && !required {
		// OpenTofu's built-in provider (terraform_data,
		// terraform_remote_state), the same address in every module.
		return builtinProviderAddr
	}
	// Up from the resource's module to the one declaring the configuration.
	for i := len(mods) - 1; ; i-- {
		mod := mods[i]
		if _, declared := mod.Providers[ref.Key()]; declared || i == 0 {
			return providerAddr(calls[:i], providerSource(mod, ref.Name), ref.Alias)
		}
		parentRef, passed := ProviderRef{}, false
		for _, pp := range mods[i-1].Calls[calls[i-1]].Providers {
			if pp.InChild.Key() == ref.Key() {
				parentRef, passed = pp.InParent, true
				break
			}
		}
		if !passed {
			parentRef = ProviderRef{Name: ref.Name, Alias: ref.Alias}
			if ref.Alias != "" { // not passed: OpenTofu refuses it at load
				return ""
			}
		}
		ref = parentRef
	}
}

// builtinProviderAddr is the address OpenTofu records the resources of its
// built-in provider with.
const builtinProviderAddr = `provider["terraform.io/builtin/terraform"]`

// providerAddr writes a provider configuration address as OpenTofu does.
func providerAddr(calls []string, source, alias string) string {
	var b strings.Builder
	for _, c := range calls {
		b.WriteString("module." + c + ".")
	}
	source = strings.ToLower(source)
	if strings.Count(source, "/") == 1 {
		source = "registry.opentofu.org/" + source
	}
	b.WriteString("provider[" + strconv.Quote(source) + "]")
	if alias != "" {
		b.WriteString("." + alias)
	}
	return b.String()
}

// ModuleCalls are the call names of a module instance's address
// (module.a["k"].module.b: a, b), its instance keys left out.
func ModuleCalls(addr string) []string {
	var calls []string
	for addr != "" {
		rest, ok := strings.CutPrefix(addr, "module.")
		if !ok {
			return calls
		}
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			return append(calls, rest)
		}
		calls = append(calls, rest[:end])
		rest = rest[end:]
		if rest[0] == '[' {
			rest = rest[skipKey(rest):]
		}
		addr = strings.TrimPrefix(rest, ".")
	}
	return calls
}

// skipKey is the length of the instance key s starts with ([0], ["a.b"]).
func skipKey(s string) int {
	quoted := false
	for i := 1; i < len(s); i++ {
		switch {
		case quoted && s[i] == '\\':
			i++
		case s[i] == '"':
			quoted = !quoted
		case !quoted && s[i] == ']':
			return i + 1
		}
	}
	return len(s)
}

// KykuType is the type Kyku's model gives a resource of Terraform type
// typ whose state records the provider configuration provider (as
// StateProvider writes it): typ prefixed with Kyku's name of that
// configuration of the root module m (aws-west_instance for
// provider["registry.opentofu.org/hashicorp/aws"].west), as the
// configuration's resources of it are typed, so that the state's object
// is served by the configuration that made it; typ itself for the
// provider it implies, and for a configuration m does not name. A source
// on HashiCorp's registry host (a state Terraform wrote) is the same
// source on OpenTofu's.
func KykuType(m *Module, typ, provider string) string {
	if strings.HasPrefix(provider, "module.") {
		return typ // a module's own configuration: Kyku refuses those at load
	}
	rest, ok := strings.CutPrefix(provider, "provider[")
	if !ok {
		return typ
	}
	end := strings.Index(rest, "]")
	if end < 0 {
		return typ
	}
	source, err := strconv.Unquote(rest[:end])
	if err != nil {
		return typ
	}
	alias, _ := strings.CutPrefix(rest[end+1:], ".")
	// A state Terraform wrote names HashiCorp's registry: the same
	// providers, as OpenTofu takes them.
	if tail, ok := strings.CutPrefix(strings.ToLower(source), "registry.terraform.io/"); ok {
		source = "registry.opentofu.org/" + tail
	}
	local := ""
	for _, name := range sortedKeys(m.RequiredProviders) {
		if sameSource(providerSource(m, name), source) {
			local = name
			break
		}
	}
	implied := impliedProvider(typ)
	if local == "" && sameSource(providerSource(m, implied), source) {
		local = implied
	}
	if local == "" {
		return typ
	}
	return servedType(typ, kykuProviderName(local, alias))
}
