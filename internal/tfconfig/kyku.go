package tfconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// Kyku's own types from HCL: provider "kyku", its types kyku_<type> in
// snake case (kyku_vpc, kyku_security_group, kyku_ssh_key), their
// arguments and attributes in snake case too (user_data for userData,
// public_ip for publicIp), as Terraform writes names. The provider block
// "kyku" sets Kyku's provider (name = "aws", its settings beside).

// kykuType is the Kyku type an HCL type names ("kyku_vpc" → "Vpc").
func kykuType(typ string) (*schema.Type, bool) { return schema.ByHCLType(typ) }

// snake is a camel-case name in snake case: SecurityGroup →
// security_group, publicIp → public_ip.
func snake(s string) string { return schema.HCLName(s) }

// kykuResource turns cr, an instance of a kyku_ type, into a resource of
// Kyku's type t: arguments named as Kyku names them, checked against the
// type's schema, defaults set.
func (ev *evaluator) kykuResource(r *Resource, t *schema.Type, cr *config.Resource) {
	cr.Type, cr.Provider = t.Name, ""
	props := map[string]any{}
	byName := map[string]string{} // snake → Kyku's
	for _, name := range t.PropNames() {
		byName[snake(name)] = name
	}
	for arg, v := range cr.Properties {
		name, ok := byName[arg]
		if !ok {
			rng := r.DeclRange
			if p, ok := cr.PropPos.Get(arg); ok {
				rng = hcl.Range{Filename: p.File, Start: hcl.Pos{Line: p.Line, Column: p.Col}, End: hcl.Pos{Line: p.Line, Column: p.Col + len(arg)}}
			}
			var names []string
			for _, n := range t.PropNames() {
				names = append(names, snake(n))
			}
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unsupported argument",
				Detail:   fmt.Sprintf("An argument named %q is not expected here: %s takes %s.", arg, r.Type, strings.Join(names, ", ")),
				Subject:  rng.Ptr(),
			})
			continue
		}
		props[name] = v
	}
	for i, s := range cr.Sensitive {
		if name, ok := byName[s]; ok {
			cr.Sensitive[i] = name
		}
	}
	for i, s := range cr.IgnoreChanges {
		s, _ = value.CutPath(s) // Kyku's types ignore whole arguments
		cr.IgnoreChanges[i] = s
		if name, ok := byName[s]; ok {
			cr.IgnoreChanges[i] = name
		}
	}
	slices.Sort(cr.IgnoreChanges)
	cr.IgnoreChanges = slices.Compact(cr.IgnoreChanges)
	var renamed diag.Positions
	for path, at := range cr.PropPos.All() {
		head, rest, _ := strings.Cut(path, ".")
		if name, ok := byName[head]; ok {
			head = name
		}
		if rest != "" {
			head += "." + rest
		}
		renamed.Set(head, at)
	}
	cr.PropPos = renamed
	for _, name := range t.SortedProps() {
		p := t.Props[name]
		if _, set := props[name]; set {
			continue
		}
		switch {
		case p.Required:
			ev.diags = append(ev.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing required argument",
				Detail:   fmt.Sprintf("The argument %q is required, but no definition was found.", snake(name)),
				Subject:  r.DeclRange.Ptr(),
			})
		case p.Default != nil:
			props[name] = value.Copy(p.Default)
		}
	}
	cr.Properties = props
}

// kykuProvider sets Kyku's provider from the root module's provider
// "kyku" block: name is the provider (sim, aws, hetzner), every other
// argument one of its settings, as text.
func (ev *evaluator) kykuProvider(m *Module, cfg *config.Config) {
	p := m.Providers["kyku"]
	if p == nil {
		return
	}
	attrs, diags := p.Body.JustAttributes()
	ev.diags = append(ev.diags, diags...)
	cfg.Provider.Pos = pos(p.DeclRange)
	for _, name := range sortedKeys(attrs) {
		v, ds := scope{mi: ev.root}.eval(attrs[name].Expr, nil, memo{})
		ev.diags = append(ev.diags, ds...)
		c, _ := canonical(v)
		if c == nil {
			continue
		}
		if _, isList := c.([]any); isList {
			ev.diags = append(ev.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid provider setting",
				Detail: "Kyku's provider settings are single values.", Subject: attrs[name].Expr.Range().Ptr()})
			continue
		}
		if name == "name" {
			cfg.Provider.Name = value.Text(c)
			continue
		}
		if cfg.Provider.Settings == nil {
			cfg.Provider.Settings = map[string]string{}
		}
		cfg.Provider.Settings[name] = value.Text(c)
	}
}
