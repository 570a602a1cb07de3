package engine

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/value"
)

// A Terraform provider's object read whole (value.AllAttrs: an output of
// aws_vpc.main, for_each over a resource, a module output passing one on)
// holds every attribute of its schema, as OpenTofu's does: state leaves a
// null attribute out, so the object answered gets it back as null.
// Otherwise reading one (each.value.ipv6_cidr_block, a module output's
// .prefix) failed, "This object does not have an attribute named …",
// where OpenTofu reads null.

// attrNamesKey is a resource type and whether it is a data source's.
type attrNamesKey struct {
	typ  string
	data bool
}

// learnAttrNames asks the provider, once per type, for the attributes of
// the types whose objects cfg reads whole (or, for count and for_each,
// reads at all) (provider.Schemas.AttributeType of value.AllAttrs), for
// the lookups to fill in (withNulls). A type no expression reads whole
// is not asked: its provider need not start for it.
func (e *Engine) learnAttrNames(ctx context.Context, cfg *config.Config) {
	if cfg == nil || !cfg.Terraform {
		return
	}
	want := map[attrNamesKey]bool{}
	add := func(name string) {
		if typ, data := addressType(name); typ != "" {
			want[attrNamesKey{typ, data}] = true
		}
	}
	wholes := func(v any) {
		for _, ref := range value.Refs(v) {
			if ref.Attr == value.AllAttrs {
				add(ref.Resource)
			}
		}
	}
	conditions := func(cs []*config.Condition) {
		for _, c := range cs {
			wholes(c.Check)
		}
	}
	for _, r := range cfg.Resources {
		wholes(r.Properties)
		conditions(r.Conditions)
		// Its arguments of any type record their values' types
		// (dynamicTypes): what they read has its schema's.
		for _, name := range r.DynamicArgs() {
			if _, known := r.DynamicTypes[name]; !known {
				for _, ref := range value.Refs(r.Properties[name]) {
					add(ref.Resource)
				}
			}
		}
	}
	for _, o := range cfg.Outputs {
		// An output records its value's type: what it reads of a
		// provider's object is of its schema's (value.ObjectType).
		for _, ref := range value.Refs(o.Value) {
			add(ref.Resource)
		}
		conditions(o.Conditions)
	}
	conditions(cfg.CheckAssertions)
	conditions(cfg.ModuleOutputConditions)
	for _, cr := range cfg.CountReads {
		for _, name := range cr.Reads {
			add(name)
		}
	}
	for k := range want {
		if _, done := e.attrNames.Load(k); done {
			continue
		}
		var known objectSchema
		if t, err := e.provider.AttributeType(ctx, k.typ, k.data, value.AllAttrs, nil); err == nil {
			if parts, ok := t.([]any); ok && len(parts) == 2 && parts[0] == "object" {
				if attrs, ok := parts[1].(map[string]any); ok {
					known.names = slices.Sorted(maps.Keys(attrs))
					if b, err := json.Marshal(t); err == nil {
						known.typ = string(b)
						e.typesKnown.Store(true)
					}
				}
			}
		}
		e.attrNames.Store(k, known) // none: a Kyku type's, or the schema not known
	}
}

// objectSchema is what learnAttrNames learns of a type: its attributes'
// names and its object's type (Terraform's JSON type syntax).
type objectSchema struct {
	names []string
	typ   string // JSON text; "" not known
}

// objectType is what a lookup answers a value.ObjectType reference of
// addr: the type of its object as JSON text, when learnAttrNames learned
// it.
func (e *Engine) objectType(addr string) (any, bool) {
	if !e.typesKnown.Load() {
		return nil, false
	}
	known := e.learned(addr)
	return known.typ, known.typ != ""
}

// learned is what learnAttrNames learned of the type of the object at
// addr (nothing for a name that is no Terraform address).
func (e *Engine) learned(addr string) objectSchema {
	typ, data := addressType(addr)
	if typ == "" {
		return objectSchema{}
	}
	got, _ := e.attrNames.Load(attrNamesKey{typ, data})
	known, _ := got.(objectSchema)
	return known
}

// withNulls is what lookup answers r, an object read whole (value.AllAttrs)
// given the attributes of its type's schema it lacks, null.
func (e *Engine) withNulls(r value.Ref, v any, ok bool) (any, bool) {
	if r.Attr != value.AllAttrs || !ok {
		return v, ok
	}
	obj, isMap := v.(map[string]any)
	if !isMap {
		return v, ok
	}
	var out map[string]any
	for _, n := range e.learned(r.Resource).names {
		if _, has := obj[n]; has {
			continue
		}
		if out == nil {
			out = maps.Clone(obj)
		}
		out[n] = nil
	}
	if out == nil {
		return v, ok
	}
	return out, true
}

// addressType is the resource type of a Terraform address
// (module.net["a"].aws_subnet.private[0]: aws_subnet) and whether it is a
// data source's; "" for a name that is no Terraform address.
func addressType(addr string) (typ string, data bool) {
	_, res := value.SplitModule(addr)
	switch segs := value.Segments(value.BaseName(res)); {
	case len(segs) == 3 && segs[0] == "data":
		return segs[1], true
	case len(segs) == 2 && segs[0] != "module":
		return segs[0], false
	}
	return "", false
}
