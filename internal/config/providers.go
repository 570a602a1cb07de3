package config

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
	"go.yaml.in/yaml/v3"
)

// Terraform providers. A `providers:` section names the provider plugins
// a configuration uses:
//
//	providers:
//	  null: { source: hashicorp/null, version: "3.3.1" }
//	  aws:  { source: hashicorp/aws, version: "~> 6.0", config: { region: eu-west-1 } }
//
// A resource (or data source, under `data:`) whose type is `<name>_…`
// with <name> declared here is that provider's: its properties follow the
// provider's schema, which only the provider knows, so they are read here
// as YAML maps and lists with a position on every element and field
// (Resource.PropPos), and checked against the schema when the engine has
// the provider (all at once, each at its file:line:col). References to
// its attributes (${zone.zone_id}) are checked there too.

// PluginProvider is one entry of the `providers:` section: a Terraform
// provider plugin and its configuration.
type PluginProvider struct {
	Name string `json:"name"` // the local name, the prefix of its types
	// Source is the provider's address as written: [HOST/]NAMESPACE/TYPE
	// (without host: registry.opentofu.org).
	Source string `json:"source"`
	// Version is a version constraint as Terraform writes them ("3.3.1",
	// "~> 6.0"); "" allows any version.
	Version string `json:"version,omitempty"`
	// Config is the provider's configuration block (variables
	// substituted), checked against its schema.
	Config map[string]any `json:"config,omitempty"`
	// Sensitive lists the top-level config keys holding a sensitive
	// variable's value.
	Sensitive []string `json:"sensitive,omitempty"`

	Pos        diag.Pos       `json:"-"` // of its name
	SourcePos  diag.Pos       `json:"-"`
	VersionPos diag.Pos       `json:"-"`
	PropPos    diag.Positions `json:"-"` // of config's keys, elements and fields
}

var providerKeys = []string{"config", "source", "version"}

// PluginProvider returns the provider declared as name, or nil.
func (c *Config) PluginProvider(name string) *PluginProvider {
	for _, pp := range c.Providers {
		if pp.Name == name {
			return pp
		}
	}
	return nil
}

// ProviderOf returns the name of the declared provider whose type typ is
// (the part of typ before its first "_"), or "" when typ is none's.
func (c *Config) ProviderOf(typ string) string {
	name, _, ok := strings.Cut(typ, "_")
	if !ok || c.PluginProvider(name) == nil {
		return ""
	}
	return name
}

// providerNameOK: lower-case letters, digits and dashes, a letter first
// (Terraform's local names, without "_": it ends the prefix of a type).
func providerNameOK(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z':
		case (c >= '0' && c <= '9' || c == '-') && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// sourceOK is the shape of a provider source: two or three parts
// separated by "/", none empty or holding spaces (the installer parses it
// fully).
func sourceOK(s string) bool {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return false
	}
	for _, part := range parts {
		if part == "" || strings.ContainsAny(part, " \t\\${}") {
			return false
		}
	}
	return true
}

// expandProviders reads every `providers:` entry (variables substituted
// in their config), before the resources are walked: a resource's type
// names its provider.
func (p *parser) expandProviders() {
	for _, raw := range p.rawProviders {
		p.file = raw.file
		name, pos := raw.key.Value, p.pos(raw.key)
		if !providerNameOK(name) {
			p.diags.Add(pos, "provider name %q is invalid: use lower-case letters, digits and - (a letter first); it is the prefix of its types (%s_…)", name, name)
			continue
		}
		if first := p.cfg.PluginProvider(name); first != nil {
			p.diags.Add(pos, "duplicate provider %q (first defined at %s)", name, first.Pos)
			continue
		}
		owner := "provider " + strconv.Quote(name)
		path := "providers." + name
		pairs, ok := p.mapping(raw.val, path, `mapping with "source" (e.g. { source: hashicorp/null, version: "3.3.1" })`)
		if !ok {
			continue
		}
		pp := &PluginProvider{Name: name, Pos: pos}
		for _, kv := range pairs {
			switch kv.key.Value {
			case "source":
				if s, ok := p.str(kv.val, path+".source"); ok {
					pp.Source, pp.SourcePos = s, p.pos(kv.val)
					if !sourceOK(s) {
						p.diags.Add(pp.SourcePos, "%s: source %q is not [HOST/]NAMESPACE/TYPE (e.g. hashicorp/null)", owner, s)
					}
				}
			case "version":
				if s, ok := p.str(kv.val, path+".version"); ok {
					pp.Version, pp.VersionPos = s, p.pos(kv.val)
				}
			case "config":
				p.providerConfig(pp, owner, kv.val, path+".config")
			default:
				p.unknownKey(kv.key, owner, providerKeys)
			}
		}
		if pp.Source == "" {
			p.diags.Add(pos, "%s: missing \"source\" (e.g. source: hashicorp/%s)", owner, name)
			continue
		}
		p.cfg.Providers = append(p.cfg.Providers, pp)
	}
	sort.Slice(p.cfg.Providers, func(i, j int) bool { return p.cfg.Providers[i].Name < p.cfg.Providers[j].Name })
	p.file = ""
}

// providerConfig reads a provider's config block. Variables are
// substituted; references to resources are refused (a provider is
// configured before any resource is planned).
func (p *parser) providerConfig(pp *PluginProvider, owner string, n *yaml.Node, path string) {
	p.scope = &scope{owner: owner}
	defer func() { p.scope = nil }()
	d := p.deref(n, path)
	if d == nil || isNull(d) || p.refuseSecret(d, owner, "config", "its keys would be argument names shown in clear") {
		return
	}
	pairs, ok := p.mapping(d, path, "mapping of the provider's arguments")
	if !ok {
		return
	}
	pp.Config = make(map[string]any, len(pairs))
	for _, kv := range pairs {
		name := kv.key.Value
		pp.PropPos.Set(name, p.pos(kv.key))
		p.scope.sensitive = false
		p.propPos = &pp.PropPos
		v, ok := p.pluginValue(kv.val, path+"."+name, name, func(n *yaml.Node, s, prop string) bool {
			if strings.Contains(s, "${") {
				p.diags.Add(p.pos(n), "%s: config %q refers to %s: a provider's configuration cannot use resources (it is configured before any is planned); use a variable", owner, prop, p.quoted(n, s))
				return false
			}
			return true
		})
		p.propPos = nil
		if ok && v != nil {
			pp.Config[name] = v
		}
		if p.scope.sensitive && !slices.Contains(pp.Sensitive, name) {
			pp.Sensitive = append(pp.Sensitive, name)
		}
	}
}

// pluginType reports whether r's type tn belongs to a declared provider,
// and records it (Resource.Provider); otherwise it reports the unknown
// type, saying which providers exist.
func (p *parser) pluginType(r *Resource, tn string, n *yaml.Node, owner string, data bool) bool {
	if name := p.cfg.ProviderOf(tn); name != "" {
		r.Provider = name
		return true
	}
	prefix, _, hasPrefix := strings.Cut(tn, "_")
	declared := make([]string, len(p.cfg.Providers))
	for i, pp := range p.cfg.Providers {
		declared[i] = pp.Name
	}
	switch {
	case data && hasPrefix:
		p.diags.Add(p.pos(n), "%s: data source type %q: no provider %q is declared under providers:%s", owner, tn, prefix, didYouMean(prefix, declared))
	case data:
		p.diags.Add(p.pos(n), "%s: data source type %q is not a provider's (a data source's type is <provider>_<name>, e.g. aws_ami)", owner, tn)
	case hasPrefix && prefix == strings.ToLower(prefix):
		p.diags.Add(p.pos(n), "%s: unknown type %q: no provider %q is declared under providers:%s", owner, tn, prefix, didYouMean(prefix, declared))
	default:
		return false
	}
	return true
}

// pluginProperties reads the properties of a provider's resource: any
// YAML value, positioned everywhere, references recorded for checking.
func (p *parser) pluginProperties(r *Resource, owner string, n *yaml.Node) {
	path := "resources." + value.BaseName(r.Name) + ".properties"
	if n == nil {
		return
	}
	d := p.deref(n, path)
	if d == nil || isNull(d) || p.refuseSecret(d, owner, "properties", "its keys would be attribute names shown in clear") {
		return
	}
	pairs, _ := p.mapping(d, path, "mapping of properties")
	for _, kv := range pairs {
		name := kv.key.Value
		r.PropPos.Set(name, p.pos(kv.key))
		if isNull(kv.val) {
			continue
		}
		p.scope.sensitive = false
		p.propPos = &r.PropPos
		v, ok := p.pluginValue(kv.val, path+"."+name, name, func(n *yaml.Node, s, prop string) bool {
			return p.checkString(n, s, owner, prop)
		})
		p.propPos = nil
		if ok && v != nil {
			r.Properties[name] = v
		}
		if p.scope.sensitive && !slices.Contains(r.Sensitive, name) {
			r.Sensitive = append(r.Sensitive, name)
		}
	}
}

// pluginValue converts any YAML value to a canonical one (as generic),
// noting where each list element and map entry is written (prop is its
// property path: "rule[0].port", "tags.env") and handing every string to
// visit.
func (p *parser) pluginValue(n *yaml.Node, path, prop string, visit func(n *yaml.Node, s, prop string) bool) (any, bool) {
	orig := n
	if n = p.deref(n, path); n == nil {
		return nil, false
	}
	p.enter(orig, n)
	defer p.leave(orig, n)
	switch n.Kind {
	case yaml.MappingNode:
		pairs, ok := p.mapping(n, path, "mapping")
		out := make(map[string]any, len(pairs))
		for _, kv := range pairs {
			k := p.shown(kv.key) // a sensitive map's keys are not shown
			p.notePos(prop+"."+k, kv.key)
			v, vok := p.pluginValue(kv.val, path+"."+k, prop+"."+k, visit)
			ok = ok && vok
			out[kv.key.Value] = v
		}
		return out, ok
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		ok := true
		for i, e := range n.Content {
			idx := "[" + strconv.Itoa(i) + "]"
			p.notePos(prop+idx, e)
			v, eok := p.pluginValue(e, path+idx, prop+idx, visit)
			ok = ok && eok
			out[i] = v
		}
		return out, ok
	}
	if x := p.exprs[n]; x != nil {
		return x, visit(n, x.refText(), prop)
	}
	if isString(n) {
		return p.textValue(n, n.Value), visit(n, n.Value, prop)
	}
	return p.generic(n, path, nil)
}

// pluginIgnoreChanges reads the ignoreChanges of a provider's resource:
// any attribute name (the provider's schema decides), only its form is
// checked here.
func (p *parser) pluginIgnoreChanges(r *Resource, owner string, n *yaml.Node, path string) {
	elems, _ := p.sequence(n, path, "list of attribute names")
	for i, e := range elems {
		d, name, ok := p.strNode(e, path+"["+strconv.Itoa(i)+"]")
		if !ok {
			continue
		}
		if name == "" || strings.ContainsAny(name, ".[${ ") {
			p.diags.Add(p.pos(e), "%s: ignoreChanges lists top-level attribute names, got %s", owner, p.quoted(d, name))
			continue
		}
		r.IgnoreChanges = append(r.IgnoreChanges, name)
	}
}
