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
		if _, ok := schema.Lookup(r.Type); !ok && r.Provider == "" {
			return "", true
		}
		return r.Type, true
	}
	if _, ok := rv.auto[name]; ok {
		return "Subnet", true
	}
	if t := rv.p.templates[value.BaseName(name)]; t != nil && t.bad {
		return "", true // its count or forEach was reported: instances unknown
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
	if msg := rv.p.instanceHint(name); msg != "" {
		return msg
	}
	return fmt.Sprintf("reference to unknown resource %q%s", name, didYouMean(name, rv.names))
}

// instanceHint explains a reference to an address that is not a resource
// when its resource exists: web of a resource with count, web[7] past its
// count, edge["z"] that forEach has no key for.
func (p *parser) instanceHint(name string) string {
	a, ok := value.ParseAddress(name)
	if !ok {
		return ""
	}
	t := p.templates[a.Name]
	if t == nil || t.bad {
		return ""
	}
	switch {
	case t.kind == plainScope:
		return fmt.Sprintf("reference to %s, but %q has no count or forEach: refer to it as %q", value.QuoteName(name), a.Name, a.Name)
	case a.Kind == value.NoIndex && t.kind == countScope:
		return fmt.Sprintf("reference to %q, which has count: refer to one instance (%q) or to all (%q)", name, "${"+value.InstanceName(name, 0)+"}", "${"+name+"[*]}")
	case a.Kind == value.NoIndex:
		return fmt.Sprintf("reference to %q, which has forEach: refer to one instance (%q) or to all (%q)", name, "${"+value.KeyName(name, "key")+"}", "${"+name+"[*]}")
	case t.kind == countScope && a.Kind != value.IntIndex:
		return fmt.Sprintf("reference to %s, but %q has count: index it with a number (%s)", value.QuoteName(name), a.Name, t.describe())
	case t.kind == eachScope && a.Kind != value.KeyIndex:
		return fmt.Sprintf("reference to %s, but %q has forEach: index it with a key (%s)", value.QuoteName(name), a.Name, t.describe())
	case t.kind == eachScope:
		return fmt.Sprintf("reference to %s, which does not exist (%s)%s", value.QuoteName(name), t.describe(), didYouMean(a.Key, t.keys))
	}
	return fmt.Sprintf("reference to %s, which does not exist (%s)", value.QuoteName(name), t.describe())
}

// checkSafeNames reports two resources whose addresses give one cloud
// name (web[0] and a resource called web-0): clouds name objects after
// value.SafeName, and an idempotent create must never find another
// resource's object.
func (p *parser) checkSafeNames(auto map[string]*Resource) {
	if len(p.templates) == len(p.resources) && len(auto) == 0 {
		return // no instances: every safe name is the resource's own name
	}
	owner := make(map[string]string, len(p.resources)+len(auto))
	for _, r := range p.cfg.Resources {
		if _, taken := owner[value.SafeName(r.Name)]; !taken {
			owner[value.SafeName(r.Name)] = r.Name
		}
	}
	for _, r := range p.cfg.Resources {
		safe := value.SafeName(r.Name)
		if other := owner[safe]; other != r.Name {
			p.diags.Add(r.Pos, "resource %s and resource %s would have the same cloud name %q; rename one of them", value.QuoteName(r.Name), value.QuoteName(other), safe)
		}
	}
	for name, vpc := range auto {
		if other, ok := owner[name]; ok && other != name {
			p.diags.Add(vpc.Pos, "an auto-subnet of Vpc %q and resource %q would have the same cloud name %q; rename one of them", vpc.Name, other, name)
		}
	}
}

// checkRefs validates every recorded reference and dependsOn entry.
func (p *parser) checkRefs(auto map[string]*Resource) {
	rv := &resolver{p: p, auto: auto}
	for _, ref := range p.refs {
		where := ref.owner
		if ref.prop != "" {
			where += fmt.Sprintf(": property %q", ref.prop)
		}
		switch {
		case ref.secret:
			p.checkSecretRef(rv, ref, where)
		case ref.refType != "":
			p.checkTypedRef(rv, ref, where)
		default:
			for _, r := range value.Refs(ref.s) {
				p.checkOneRef(rv, ref, where, r)
			}
		}
	}
	for _, d := range p.deps {
		if _, ok := rv.typeOf(d.name); !ok {
			what := strings.TrimPrefix(rv.unknown(d.name), "reference to ")
			if d.secret {
				what = masked + " names no resource"
			}
			p.diags.Add(d.pos, "%s: dependsOn: %s", d.owner, what)
		}
	}
}

// checkTypedRef checks a schema Ref property: exactly ${name}, naming a
// resource of the expected type.
func (p *parser) checkTypedRef(rv *resolver, ref pendingRef, where string) {
	r, ok := value.WholeRef(ref.v)
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
		p.addAt(ref, r, "%s: %s", where, rv.unknown(r.Resource))
	case typ != "" && typ != ref.refType:
		p.addAt(ref, r, "%s must reference a %s, but %q is a %s", where, ref.refType, r.Resource, typ)
	}
}

// checkSecretRef is checkTypedRef and checkOneRef for a string holding a
// sensitive value: the same checks, reported without the value (nor a
// name in it, nor a "did you mean" close to it).
func (p *parser) checkSecretRef(rv *resolver, ref pendingRef, where string) {
	const fix = "; use a value that is not sensitive, or check the variable"
	if ref.refType != "" {
		r, ok := value.WholeRef(ref.v)
		var typ string
		exists := false
		if ok && r.Attr == "" {
			typ, exists = rv.typeOf(r.Resource)
		}
		switch {
		case !ok || r.Attr != "":
			p.diags.Add(ref.pos, "%s: expected a reference to a %s like \"${name}\", got %s%s", where, ref.refType, masked, fix)
		case !exists:
			p.diags.Add(ref.pos, "%s: %s references a resource that does not exist%s", where, masked, fix)
		case typ != "" && typ != ref.refType:
			p.diags.Add(ref.pos, "%s must reference a %s, but %s references a %s%s", where, ref.refType, masked, typ, fix)
		}
		return
	}
	for _, r := range value.Refs(ref.s) {
		typ, exists := rv.typeOf(r.Resource)
		if !exists {
			p.diags.Add(ref.pos, "%s: %s holds a reference to a resource that does not exist%s", where, masked, fix)
			return
		}
		if t, ok := schema.Lookup(typ); ok && r.Attr != "" && (!t.HasOutput(r.Attr) || r.Path != "") {
			p.diags.Add(ref.pos, "%s: %s holds a reference to an output %s does not have%s", where, masked, typ, fix)
			return
		}
	}
}

// checkOneRef checks one reference a template reads: the resource exists
// and the output, if any, is one its type exposes; a problem is reported
// where the reference is written.
func (p *parser) checkOneRef(rv *resolver, ref pendingRef, where string, r value.Ref) {
	typ, exists := rv.typeOf(r.Resource)
	if !exists {
		p.addAt(ref, r, "%s: %s", where, rv.unknown(r.Resource))
		return
	}
	if r.Attr == "" || typ == "" {
		return
	}
	t, ok := schema.Lookup(typ)
	if !ok {
		return // a provider's type: its schema is checked with the provider
	}
	if t.HasOutput(r.Attr) {
		if r.Path != "" {
			p.addAt(ref, r, "%s: %q: %s's output %q is a single value, with nothing to read into (%s reads into a Terraform provider's attribute only); write %q",
				ref.owner, r.String(), typ, r.Attr, r.Path, r.Whole().String())
		}
		return
	}
	hint := didYouMean(r.Attr, t.Outputs)
	if hint == "" {
		hint = " (it has: " + strings.Join(t.Outputs, ", ") + ")"
	}
	p.addAt(ref, r, "%s: %q: %s has no output %q%s", ref.owner, r.String(), typ, r.Attr, hint)
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
