package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
)

// resolver answers, for references, which resources exist and their types.
type resolver struct {
	p     *parser
	auto  map[string]*Resource // auto-subnet name → its Vpc
	names []string             // every name, sorted, for suggestions (lazy)
}

// typeOf returns the type of resource name ("" if the resource exists but
// its type is invalid) and whether it exists.
func (rv *resolver) typeOf(name string) (string, bool) {
	if r := rv.p.resources[name]; r != nil {
		if _, ok := schema.Lookup(r.Type); !ok {
			return "", true
		}
		return r.Type, true
	}
	if _, ok := rv.auto[name]; ok {
		return "Subnet", true
	}
	return "", false
}

func (rv *resolver) unknown(name string) string {
	if rv.names == nil {
		rv.names = make([]string, 0, len(rv.p.resources)+len(rv.auto))
		for n := range rv.p.resources {
			rv.names = append(rv.names, n)
		}
		for n := range rv.auto {
			rv.names = append(rv.names, n)
		}
		sort.Strings(rv.names)
	}
	return fmt.Sprintf("reference to unknown resource %q%s", name, didYouMean(name, rv.names))
}

// checkRefs validates every recorded reference and dependsOn entry.
func (p *parser) checkRefs(auto map[string]*Resource) {
	rv := &resolver{p: p, auto: auto}
	for _, ref := range p.refs {
		where := ref.owner
		if ref.prop != "" {
			where += fmt.Sprintf(": property %q", ref.prop)
		}
		if ref.refType != "" {
			p.checkTypedRef(rv, ref, where)
			continue
		}
		for _, r := range value.Refs(ref.s) {
			p.checkOneRef(rv, ref, where, r)
		}
	}
	for _, d := range p.deps {
		if _, ok := rv.typeOf(d.name); !ok {
			p.diags.Add(d.pos, "%s: dependsOn: %s", d.owner, strings.TrimPrefix(rv.unknown(d.name), "reference to "))
		}
	}
}

// checkTypedRef checks a schema Ref property: exactly ${name}, naming a
// resource of the expected type.
func (p *parser) checkTypedRef(rv *resolver, ref pendingRef, where string) {
	r, ok := value.ParseRef(ref.s)
	switch {
	case !ok:
		hint := ""
		if _, exists := rv.typeOf(ref.s); exists {
			hint = fmt.Sprintf(" (did you mean \"${%s}\"?)", ref.s)
		}
		p.diags.Add(ref.pos, "%s: expected a reference to a %s like \"${name}\", got %q%s", where, ref.refType, ref.s, hint)
		return
	case r.Attr != "":
		p.diags.Add(ref.pos, "%s: expected a reference to a %s like \"${%s}\", got output reference %q", where, ref.refType, r.Resource, ref.s)
		return
	}
	typ, exists := rv.typeOf(r.Resource)
	switch {
	case !exists:
		p.diags.Add(ref.pos, "%s: %s", where, rv.unknown(r.Resource))
	case typ != "" && typ != ref.refType:
		p.diags.Add(ref.pos, "%s must reference a %s, but %q is a %s", where, ref.refType, r.Resource, typ)
	}
}

// checkOneRef checks one reference inside a string: the resource exists and
// the output, if any, is one its type exposes.
func (p *parser) checkOneRef(rv *resolver, ref pendingRef, where string, r value.Ref) {
	typ, exists := rv.typeOf(r.Resource)
	if !exists {
		p.diags.Add(ref.pos, "%s: %s", where, rv.unknown(r.Resource))
		return
	}
	if r.Attr == "" || typ == "" {
		return
	}
	t, _ := schema.Lookup(typ)
	if t.HasOutput(r.Attr) {
		return
	}
	hint := didYouMean(r.Attr, t.Outputs)
	if hint == "" {
		hint = " (it has: " + strings.Join(t.Outputs, ", ") + ")"
	}
	p.diags.Add(ref.pos, "%s: %q: %s has no output %q%s", ref.owner, r.String(), typ, r.Attr, hint)
}

// checkCycles reports one dependency cycle, if any, at the position of the
// first resource on it.
func (p *parser) checkCycles(auto map[string]*Resource) {
	g := BuildGraph(p.cfg)
	names := make([]string, 0, len(auto))
	for n := range auto {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		g.AddEdge(n, auto[n].Name)
	}
	if g.Acyclic() {
		return
	}
	cycle := g.FindCycle()
	if cycle == nil {
		return
	}
	var pos diag.Pos
	if r := p.resources[cycle[0]]; r != nil {
		pos = r.Pos
	} else if vpc := auto[cycle[0]]; vpc != nil {
		pos = vpc.Pos
	}
	p.diags.Add(pos, "dependency cycle: %s", strings.Join(cycle, " → "))
}
