package tfconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/tfinstall"
	"github.com/kyku/action/internal/value"
)

// OpenTofuVersion is the OpenTofu release whose language and protocol
// Kyku follows: required_version constraints are checked against it, and
// providers are told it is their client's version.
const OpenTofuVersion = "1.12.6"

// providers adds the root module's provider configurations to cfg, one
// Kyku plugin provider each: the default configuration of local name
// "aws" is "aws", its configuration aliased west "aws-west" (Kyku's
// provider names are lower-case letters, digits and dashes). A provider
// some resource uses without a provider block is configured empty.
func (ev *evaluator) providers(m *Module, cfg *config.Config) {
	names := map[string]string{} // Kyku name → the configuration it is
	add := func(local, alias string, body hcl.Body, rng hcl.Range) {
		name := kykuProviderName(local, alias)
		key := local
		if alias != "" {
			key += "." + alias
		}
		if other, taken := names[name]; taken {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Provider configurations with one Kyku name",
				Detail:   fmt.Sprintf("Kyku names the provider configuration %s %q, as it does %s: rename one of their aliases.", key, name, other),
				Subject:  rng.Ptr(),
			})
			return
		}
		names[name] = key
		pp := &config.PluginProvider{Name: name, Source: providerSource(m, local), Pos: pos(rng), SourcePos: pos(rng), VersionPos: pos(rng)}
		if rp := m.RequiredProviders[local]; rp != nil {
			pp.Version, pp.SourcePos, pp.VersionPos = rp.Version, pos(rp.Range), pos(rp.Range)
		}
		if body != nil {
			pp.Config = ev.providerConfig(body, pp)
		}
		cfg.Providers = append(cfg.Providers, pp)
	}
	for _, key := range sortedKeys(m.Providers) {
		if p := m.Providers[key]; p.Name != "kyku" {
			add(p.Name, p.Alias, p.Body, p.DeclRange)
		}
	}
	for _, local := range usedProviders(m) {
		if builtinProvider(m, local) {
			continue // served in process: nothing to install or configure
		}
		if m.Providers[local] == nil {
			rng := hcl.Range{Filename: firstFile(m)}
			if rp := m.RequiredProviders[local]; rp != nil {
				rng = rp.Range
			}
			add(local, "", nil, rng)
		}
	}
	for _, fp := range append(functionProviders(m), requiredOnly(m)...) {
		if slices.ContainsFunc(cfg.Providers, func(pp *config.PluginProvider) bool { return sameSource(pp.Source, fp.Source) }) {
			continue // installed for its resources, or its functions
		}
		name := kykuProviderName(fp.Name, "")
		if _, taken := names[name]; taken {
			name = kykuProviderName(fp.Name, "functions")
		}
		names[name] = fp.Name
		cfg.Providers = append(cfg.Providers, &config.PluginProvider{Name: name, Source: fp.Source, Version: fp.Version,
			Pos: pos(fp.Range), SourcePos: pos(fp.Range), VersionPos: pos(fp.Range)})
	}
	ev.childProviders(m)
}

// functionProviders are the providers the modules of m call functions of
// (provider::NAME::FUNCTION) and require, one per source, as the first
// module calling them requires them: installed and locked, as OpenTofu
// installs every provider required, though no resource of theirs is
// configured.
func functionProviders(m *Module) []*RequiredProvider {
	var out []*RequiredProvider
	eachFunctionCall(m, func(m *Module, _ FunctionCall, local, _ string) {
		rp := m.RequiredProviders[local]
		if rp == nil || builtinProvider(m, local) || strings.EqualFold(rp.Source, "terraform.io/builtin/terraform") {
			return
		}
		src := providerSource(m, local)
		if !slices.ContainsFunc(out, func(o *RequiredProvider) bool { return sameSource(o.Source, src) }) {
			out = append(out, &RequiredProvider{Name: local, Source: src, Version: rp.Version, Range: rp.Range})
		}
	})
	return out
}

// requiredOnly are the providers the modules of m require (their
// required_providers) that no resource, provider block or function call
// uses, one per source, as the first module requiring them requires them:
// installed and locked all the same, as OpenTofu's init installs every
// provider required (so a team's lock naming one is kept as it is).
func requiredOnly(m *Module) []*RequiredProvider {
	var out []*RequiredProvider
	var walk func(m *Module)
	walk = func(m *Module) {
		for _, local := range sortedKeys(m.RequiredProviders) {
			rp := m.RequiredProviders[local]
			if local == "kyku" || builtinProvider(m, local) || strings.EqualFold(rp.Source, "terraform.io/builtin/terraform") {
				continue
			}
			src := providerSource(m, local)
			if !slices.ContainsFunc(out, func(o *RequiredProvider) bool { return sameSource(o.Source, src) }) {
				out = append(out, &RequiredProvider{Name: local, Source: src, Version: rp.Version, Range: rp.Range})
			}
		}
		for _, name := range sortedKeys(m.Children) {
			walk(m.Children[name])
		}
	}
	walk(m)
	return out
}

// sameSource reports whether two provider sources name one provider
// (the registry host implied or written, in any case).
func sameSource(a, b string) bool { return sourceKey(a) == sourceKey(b) }

// sourceKey is a provider source as sameSource compares them: as the
// installer reads it (tfinstall.ParseSource), else as written, in lower
// case.
func sourceKey(s string) string {
	if src, err := tfinstall.ParseSource(s); err == nil {
		return src.String()
	}
	return strings.ToLower(s)
}

// builtinProvider reports whether local name is OpenTofu's built-in
// provider in m: "terraform", its source implied or
// terraform.io/builtin/terraform.
func builtinProvider(m *Module, local string) bool {
	if local != "terraform" || m.Providers[local] != nil {
		return false
	}
	src := providerSource(m, local)
	return src == "hashicorp/terraform" || src == "terraform.io/builtin/terraform"
}

// kykuProviderName is Kyku's name of a provider configuration.
func kykuProviderName(local, alias string) string {
	name := local
	if alias != "" {
		name += "-" + alias
	}
	return strings.ToLower(strings.ReplaceAll(name, "_", "-"))
}

// providerSource is the source of local name in m: required_providers',
// or hashicorp/<name> as OpenTofu implies it; kyku/kyku for kyku, Kyku's
// own types (tfstate.KykuProvider).
func providerSource(m *Module, local string) string {
	if rp := m.RequiredProviders[local]; rp != nil && rp.Source != "" {
		return rp.Source
	}
	if local == "kyku" {
		return "kyku/kyku"
	}
	return "hashicorp/" + local
}

func firstFile(m *Module) string {
	if len(m.Files) == 0 {
		return m.Dir
	}
	return m.Files[0]
}

// usedProviders are the local names of the default configurations m's
// resources (and its children's, unless passed another) use, and those of
// the resources its removed blocks name: they are in state only, and
// reading them (to forget or destroy them) needs their provider.
func usedProviders(m *Module) []string {
	seen := map[string]bool{}
	var walk func(m *Module, rename map[string]string)
	walk = func(m *Module, rename map[string]string) {
		for _, r := range m.Resources {
			local := impliedProvider(r.Type)
			if r.Provider != nil {
				if r.Provider.Alias != "" {
					continue
				}
				local = r.Provider.Name
			}
			if to, ok := rename[local]; ok {
				local = to
			}
			if local != "" && local != "kyku" {
				seen[local] = true
			}
		}
		for _, r := range m.Removed { // what it forgets or destroys is read first
			if local := removedProvider(r.From); local != "" && local != "kyku" {
				if to, ok := rename[local]; ok {
					local = to
				}
				seen[local] = true
			}
		}
		for name, c := range m.Calls {
			child := m.Children[name]
			if child == nil {
				continue
			}
			sub := map[string]string{}
			for _, pp := range c.Providers {
				if pp.InParent.Alias == "" {
					sub[pp.InChild.Key()] = pp.InParent.Name
				}
			}
			for k, v := range rename {
				if _, set := sub[k]; !set {
					sub[k] = v
				}
			}
			walk(child, sub)
		}
	}
	walk(m, map[string]string{})
	return sortedKeys(seen)
}

// impliedProvider is the local name a resource type's provider has by
// default: the type's prefix.
func impliedProvider(typ string) string {
	name, _, _ := strings.Cut(typ, "_")
	return name
}

// childProviders refuses provider blocks in called modules: Kyku takes
// provider configurations from the root module, passed down.
func (ev *evaluator) childProviders(m *Module) {
	for _, name := range sortedKeys(m.Children) {
		child := m.Children[name]
		for _, key := range sortedKeys(child.Providers) {
			p := child.Providers[key]
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Provider configuration in a called module",
				Detail:   fmt.Sprintf("Kyku configures providers in the root module only: move provider %q to the root module and pass it to module %q with providers = { %s = %s }.", key, name, key, key),
				Subject:  p.DeclRange.Ptr(),
			})
		}
		ev.childProviders(child)
	}
}

// providerConfig evaluates a provider block's arguments in the root
// module (variables and locals; no resource).
func (ev *evaluator) providerConfig(body hcl.Body, pp *config.PluginProvider) map[string]any {
	native, ok := body.(*hclsyntax.Body)
	if !ok {
		attrs, diags := body.JustAttributes()
		ev.diags = append(ev.diags, diags...)
		out := map[string]any{}
		for name, a := range attrs {
			v, diags := scope{mi: ev.root}.eval(a.Expr, nil, memo{})
			ev.diags = append(ev.diags, diags...)
			if sensitiveIn(v) {
				pp.Sensitive = append(pp.Sensitive, name)
			}
			pp.PropPos.Set(name, pos(a.NameRange))
			if c, _ := canonical(v); c != nil {
				out[name] = plain(c)
			}
		}
		return out
	}
	r := &Resource{Body: &Body{Native: &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, SrcRange: native.SrcRange, EndRange: native.EndRange}}}
	for name, a := range native.Attributes {
		if name != "alias" && name != "version" {
			r.Body.Native.Attributes[name] = a
		}
	}
	r.Body.Native.Blocks = native.Blocks
	cr := &config.Resource{Properties: map[string]any{}}
	ev.properties(scope{mi: ev.root}, r, cr)
	for name, v := range cr.Properties {
		if e, isExpr := v.(value.Expr); isExpr {
			c, _, _ := e.Eval(nil)
			cr.Properties[name] = plain(c)
		}
	}
	pp.Sensitive = cr.Sensitive
	pp.PropPos = cr.PropPos
	return cr.Properties
}

// providerOf is the Kyku provider name and type of resource r of mi: the
// configuration its provider argument names, or the default one of its
// type's provider, as mi's callers passed it down. The type is renamed
// to the configuration's prefix when that is not the type's own (Kyku
// routes a type by its prefix; the provider is told its own name).
func (ev *evaluator) providerOf(mi *modInst, r *Resource) (string, string) {
	ref := ProviderRef{Name: impliedProvider(r.Type)}
	if r.Provider != nil {
		ref = *r.Provider
	}
	for m := mi; ; m = m.parent {
		if m.mod.Providers[ref.Key()] != nil {
			break // configured where it is named
		}
		if m.call == nil {
			if ref.Alias != "" {
				at := r.DeclRange
				if r.Provider != nil {
					at = r.Provider.Range
				}
				ev.diags = append(ev.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Provider configuration not present",
					Detail:   fmt.Sprintf("%s uses the provider configuration %s, which the root module does not declare: add a provider %q block with alias = %q.", mi.instanceAddr(r.Key(), instKey{}), ref.Key(), ref.Name, ref.Alias),
					Subject:  at.Ptr(),
				})
			}
			break
		}
		passed := false
		for _, pp := range m.call.Providers {
			if pp.InChild.Key() == ref.Key() {
				ref, passed = pp.InParent, true
				break
			}
		}
		if !passed && ref.Alias != "" {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Provider configuration not present",
				Detail:   fmt.Sprintf("To work with %s its original provider configuration at provider[%q].%s is required, but it has been removed. Pass it to the module with providers = { %s = … }.", mi.instanceAddr(r.Key(), instKey{}), ref.Name, ref.Alias, ref.Key()),
				Subject:  r.DeclRange.Ptr(),
			})
			break
		}
		// Not passed, the default configuration: the caller's, inherited.
	}
	name := kykuProviderName(ref.Name, ref.Alias)
	return name, servedType(r.Type, name)
}

// servedType is Terraform type typ as Kyku's model types it when the
// provider configuration Kyku names name serves it: its implied
// provider's prefix replaced by name (aws_instance served by aws-west:
// aws-west_instance), for the router to send it there.
func servedType(typ, name string) string {
	if prefix := impliedProvider(typ); prefix != name {
		return name + strings.TrimPrefix(typ, prefix)
	}
	return typ
}

// backend maps the terraform block's backend onto Kyku's backends: the
// same places, Kyku's own state in them (Kyku neither reads nor writes
// a terraform.tfstate).
func (ev *evaluator) backend(root *modInst, cfg *config.Config) {
	b := root.mod.Backend
	if b == nil {
		return
	}
	attrs, diags := b.Body.JustAttributes()
	ev.diags = append(ev.diags, diags...)
	vals := map[string]any{}
	for name, a := range attrs {
		v, ds := scope{mi: root}.eval(a.Expr, nil, memo{})
		ev.diags = append(ev.diags, ds...)
		vals[name], _ = canonical(v)
	}
	str := func(name string) string { s, _ := vals[name].(string); return s }
	flag := func(name string) bool { t, _ := vals[name].(bool); return t }
	out := &config.Backend{Type: b.Type, Pos: pos(b.DeclRange)}
	var known []string
	switch b.Type {
	case "local":
		known = []string{"path", "workspace_dir"}
		if p := str("path"); p != "" {
			out.Path = strings.TrimSuffix(p, ".tfstate") + ".kyku"
		}
	case "s3":
		known = []string{"bucket", "key", "region", "endpoint", "endpoints", "use_path_style", "kms_key_id", "encrypt", "dynamodb_table", "use_lockfile", "workspace_key_prefix", "profile", "role_arn", "assume_role", "skip_credentials_validation", "skip_region_validation", "skip_requesting_account_id", "skip_metadata_api_check", "skip_s3_checksum", "acl"}
		out.Bucket, out.Region, out.KMSKeyID, out.UsePathStyle = str("bucket"), str("region"), str("kms_key_id"), flag("use_path_style")
		out.Prefix = strings.TrimSuffix(str("key"), ".tfstate") + ".kyku"
		out.Endpoint = str("endpoint")
		if eps, ok := vals["endpoints"].(map[string]any); ok {
			if s, ok := eps["s3"].(string); ok {
				out.Endpoint = s
			}
		}
	case "gcs":
		known = []string{"bucket", "prefix", "credentials", "access_token", "impersonate_service_account", "impersonate_service_account_delegates",
			"encryption_key", "kms_encryption_key", "storage_custom_endpoint", "universe_domain"}
		out.Bucket, out.Prefix = str("bucket"), str("prefix")
		if out.Prefix == "" {
			out.Prefix = "kyku"
		}
	case "http":
		known = []string{"address", "lock_address", "unlock_address", "username", "password", "update_method", "lock_method", "unlock_method", "retry_max", "retry_wait_min", "retry_wait_max", "skip_cert_verification"}
		out.HTTP = config.HTTPBackend{
			Address: str("address"), LockAddress: str("lock_address"), UnlockAddress: str("unlock_address"), Username: str("username"),
			UpdateMethod: str("update_method"), LockMethod: str("lock_method"), UnlockMethod: str("unlock_method"),
		}
		if n, ok := vals["retry_max"].(float64); ok {
			out.HTTP.RetryMax = int(n)
		}
		if _, ok := attrs["password"]; ok {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Password in the backend block",
				Detail:   "Kyku reads the http backend's password from KYKU_HTTP_PASSWORD only: a password in a file is in the repository's history. Remove it.",
				Subject:  attrs["password"].Range.Ptr(),
			})
		}
	default:
		ev.diags = append(ev.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unsupported backend type",
			Detail:   fmt.Sprintf("Kyku keeps state in a local, s3, gcs or http backend; it has no %q backend. Use one of those, or remove the backend block to keep state in .kyku beside the configuration.", b.Type),
			Subject:  b.TypeRange.Ptr(),
		})
		return
	}
	for _, name := range sortedKeys(attrs) {
		if !slices.Contains(known, name) {
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unsupported argument",
				Detail:   fmt.Sprintf("An argument named %q is not expected here.", name),
				Subject:  attrs[name].NameRange.Ptr(),
			})
		}
	}
	cfg.Backend = out
}

// removedProvider is the provider a removed block's from implies: its
// resource type's (random for random_pet.x, module.m.random_pet.x); ""
// for a module (its resources' providers are the module's).
func removedProvider(from hcl.Traversal) string {
	var names []string
	for i := range from {
		name, ok := stepName(from, i)
		if i == 0 {
			name, ok = from.RootName(), true
		}
		if ok {
			if _, isIndex := from[i].(hcl.TraverseIndex); !isIndex {
				names = append(names, name)
			}
		}
	}
	for len(names) >= 2 && names[0] == "module" {
		names = names[2:]
	}
	if len(names) > 0 && names[0] == "data" {
		names = names[1:]
	}
	if len(names) < 2 {
		return ""
	}
	return impliedProvider(names[0])
}
