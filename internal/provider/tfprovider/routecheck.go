package tfprovider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/suggest"
	"github.com/kyku/action/internal/tfschema"
	"github.com/kyku/action/internal/value"
)

// The Router's checks: each provider checks its own types, and references
// to a Terraform provider's attributes are checked against its schema.

// split divides rs into base's and each Terraform provider's (a type of
// a provider not configured in neither: ValidateConfigs refuses it; a
// type served in process in neither: its provider is asked alone).
func (r *Router) split(rs []provider.Desired) (base []provider.Desired, plugins map[*Provider][]provider.Desired) {
	plugins = map[*Provider][]provider.Desired{}
	for _, d := range rs {
		if r.inProcess(d.Type) != nil {
			continue
		}
		if p, err := r.route(d.Type); p != nil || err != nil {
			if p != nil {
				plugins[p] = append(plugins[p], d)
			}
			continue
		}
		base = append(base, d)
	}
	return base, plugins
}

// CheckResources asks base about its types (the Terraform providers'
// types are checked by ValidateConfigs, which needs their schemas).
func (r *Router) CheckResources(rs []provider.Desired) []provider.Refusal {
	base, _ := r.split(rs)
	return r.base.CheckResources(base)
}

// CheckName asks base about its types; a Terraform provider's objects
// have no cloud name of Kyku's.
func (r *Router) CheckName(typ, cloudName string) error {
	if r.ownState(typ) {
		return nil
	}
	return r.base.CheckName(typ, cloudName)
}

// ValidID asks base about its types: Kyku's stale-ID checks do not apply
// to a Terraform provider's objects.
func (r *Router) ValidID(typ, id string) bool {
	if r.ownState(typ) {
		return true
	}
	return r.base.ValidID(typ, id)
}

// CheckCloud asks base about its types.
func (r *Router) CheckCloud(ctx context.Context, rs []provider.Desired) ([]provider.Refusal, error) {
	base, _ := r.split(rs)
	if len(base) == 0 {
		return nil, nil
	}
	return r.base.CheckCloud(ctx, base)
}

// ValidateConfigs refuses the types of providers not configured, asks
// base about its types and each Terraform provider about its resources
// and data sources (schema, then the provider's own validation), and
// checks every reference to an attribute of one of them (${zone.zone_id})
// names an attribute its schema has.
func (r *Router) ValidateConfigs(ctx context.Context, rs []provider.Desired) ([]provider.Refusal, error) {
	var out []provider.Refusal
	typeOf := make(map[string]provider.Desired, len(rs))
	for _, d := range rs {
		typeOf[d.Name] = d
		if _, err := r.route(d.Type); err != nil {
			out = append(out, provider.Refusal{Resource: d.Name, Reason: err.Error()})
		}
	}
	base, plugins := r.split(rs)
	if len(base) > 0 {
		got, err := r.base.ValidateConfigs(ctx, base)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	for _, prefix := range slices.Sorted(maps.Keys(r.inProc)) {
		ip := r.inProc[prefix]
		var mine []provider.Desired
		for _, d := range rs {
			if r.inProcess(d.Type) == ip {
				mine = append(mine, d)
			}
		}
		if len(mine) == 0 {
			continue
		}
		got, err := ip.ValidateConfigs(ctx, mine)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	names := make([]string, 0, len(plugins))
	byName := map[string]*Provider{}
	for p := range plugins {
		names = append(names, p.Name())
		byName[p.Name()] = p
	}
	slices.Sort(names)
	for _, n := range names {
		p := byName[n]
		got, err := p.ValidateConfigs(ctx, plugins[p])
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	for _, d := range rs {
		refused, err := r.checkRefs(ctx, d, typeOf)
		if err != nil {
			return nil, err
		}
		out = append(out, refused...)
	}
	return out, nil
}

// CheckReads refuses the references of reads (a configuration's outputs,
// by name) to attributes a Terraform provider's resource or data source
// of rs does not have, as checkRefs refuses a resource's.
func (r *Router) CheckReads(ctx context.Context, rs []provider.Desired, reads map[string]any) ([]provider.Refusal, error) {
	typeOf := make(map[string]provider.Desired, len(rs))
	for _, d := range rs {
		typeOf[d.Name] = d
	}
	var out []provider.Refusal
	for _, name := range slices.Sorted(maps.Keys(reads)) {
		refused, err := r.checkRefs(ctx, provider.Desired{Name: name, Properties: map[string]any{"value": reads[name]}}, typeOf)
		if err != nil {
			return nil, err
		}
		for _, ref := range refused {
			ref.Path = ""
			out = append(out, ref)
		}
	}
	return out, nil
}

// checkRefs refuses the references of d to attributes a Terraform
// provider's resource or data source does not have.
func (r *Router) checkRefs(ctx context.Context, d provider.Desired, typeOf map[string]provider.Desired) ([]provider.Refusal, error) {
	var out []provider.Refusal
	// check refuses ref, read at path of d and written as written, when
	// it names an attribute its resource's type does not have.
	check := func(path string, ref value.Ref, written string) error {
		target, ok := typeOf[ref.Resource]
		if !ok || ref.Attr == "" || ref.Attr == "id" || ref.Attr == value.AllAttrs {
			return nil
		}
		p := r.plugin(target.Type)
		if p == nil {
			if ip := r.inProcess(target.Type); ip != nil {
				// terraform_data: the provider says which it has.
				if _, err := ip.AttributeType(ctx, target.Type, target.Data, ref.Attr, nil); errors.Is(err, provider.ErrNoAttribute) {
					out = append(out, provider.Refusal{Resource: d.Name, Path: path,
						Reason:  fmt.Sprintf("%q: %v", written, err),
						Summary: "Unsupported attribute",
						Detail:  fmt.Sprintf("This object has no argument, nested block, or exported attribute named %q (read as %s).", ref.Attr, written)})
				}
			}
			return nil
		}
		b, ok, err := p.block(ctx, target.Type, target.Data)
		if err != nil || !ok {
			return err
		}
		if names := b.Order(); !slices.Contains(names, ref.Attr) {
			out = append(out, provider.Refusal{Resource: d.Name, Path: path,
				Reason:  fmt.Sprintf("%q: %s has no attribute %q%s", written, target.Type, ref.Attr, didYouMean(ref.Attr, names)),
				Summary: "Unsupported attribute",
				Detail:  fmt.Sprintf("This object has no argument, nested block, or exported attribute named %q (read as %s).%s", ref.Attr, written, suggest.Terraform(ref.Attr, names))})
			return nil
		}
		if a := b.Attributes[ref.Attr]; a != nil && a.WriteOnly {
			out = append(out, provider.Refusal{Resource: d.Name, Path: path,
				Reason: fmt.Sprintf("%q: %s's attribute %q is write-only: it is sent to the provider and never kept, so there is nothing to read (use what it is set from)", written, target.Type, ref.Attr)})
			return nil
		}
		// A path must fit the attribute's type (its value is checked
		// when it is known).
		if ref.Path != "" {
			if err := tfschema.CheckPath(b.ImpliedType().AttributeType(ref.Attr), ref.Steps()); err != nil {
				out = append(out, provider.Refusal{Resource: d.Name, Path: path, Reason: fmt.Sprintf("%q: %v", written, err)})
			}
		}
		return nil
	}
	var walk func(path string, v any) error
	walk = func(path string, v any) error {
		switch x := v.(type) {
		case *value.Template, string: // a plain template (a string: a caller's in the reference form)
			for _, ref := range value.Refs(x) {
				if err := check(path, ref, ref.String()); err != nil {
					return err
				}
			}
		case value.Expr: // an argument of a .tf file: what it reads, through locals and variables too
			for _, ref := range x.Refs() {
				if err := check(path, ref, ref.Resource+"."+ref.Attr); err != nil {
					return err
				}
			}
		case []any:
			for i, e := range x {
				if err := walk(fmt.Sprintf("%s[%d]", path, i), e); err != nil {
					return err
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				sub := k
				if path != "" {
					sub = path + "." + k
				}
				if err := walk(sub, x[k]); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk("", d.Properties)
}

func didYouMean(name string, names []string) string {
	if hint := suggest.DidYouMean(name, names); hint != "" {
		return hint
	}
	return " (it has: " + strings.Join(names, ", ") + ")"
}
