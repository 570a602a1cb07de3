package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/lang/hcldiag"
	"github.com/kyku/action/internal/schema"
	"github.com/kyku/action/internal/value"
	"go.yaml.in/yaml/v3"
)

var (
	resourceKeys = []string{"count", "createBeforeDestroy", "dependsOn", "forEach", "ignoreChanges", "properties", "protect", "type"}
	dataKeys     = []string{"count", "dependsOn", "forEach", "properties", "type"}
)

// pendingRef is a string holding references, checked in finish once every
// resource (and auto-subnet) is known.
type pendingRef struct {
	owner   string // `resource "web"` or `output "webIp"`
	prop    string // property path, e.g. "network" or "ingress[0].cidr"; "" for outputs
	pos     diag.Pos
	s       string
	refType string  // set for a schema Ref: v must be exactly ${name} of this type
	v       any     // for a schema Ref: the value (a Template when s reads a resource)
	secret  bool    // s holds a sensitive value: messages do not quote it
	at      []refAt // where each reference is written, when a template says
}

// pendingDep is one dependsOn entry.
type pendingDep struct {
	owner  string
	pos    diag.Pos
	name   string
	secret bool // name is a sensitive value's: messages do not quote it
}

// resource walks template t as the instance addr (t.name when t has no
// count or forEach), with p.scope set for it.
func (p *parser) resource(t *template, addr string) {
	name, pos := t.name, p.pos(t.key)
	r := &Resource{Name: addr, Pos: pos, Properties: map[string]any{}}
	p.resources[addr] = r
	p.cfg.Resources = append(p.cfg.Resources, r)
	owner := p.scope.owner
	path := "resources." + name

	body := p.deref(t.val, path)
	if body == nil || p.refuseSecret(body, owner, "its definition", "its keys are shown in clear") {
		return
	}
	pairs, ok := p.mapping(body, path, `mapping with "type" and "properties"`)
	if !ok {
		return
	}
	var typ *schema.Type
	var typeSeen, plugin bool
	var propsNode, ignoreNode *yaml.Node
	r.Data = t.data
	if t.data {
		owner = "data source " + strings.TrimPrefix(owner, "resource ")
		path = "data." + name
	}
	for _, kv := range pairs {
		switch kv.key.Value {
		case "type":
			typeSeen = true
			tnNode, tn, ok := p.strNode(kv.val, path+".type")
			if !ok || p.refuseSecret(tnNode, owner, "type", "plans show it in clear") {
				continue
			}
			r.Type = tn
			if typ, ok = schema.Lookup(tn); t.data {
				typ, ok = nil, false // a data source is always a provider's
			}
			if !ok && p.pluginType(r, tn, kv.val, owner, t.data) {
				plugin = r.Provider != ""
			} else if !ok {
				hint := didYouMean(tn, schema.Names())
				if hint == "" {
					hint = " (expected one of: " + strings.Join(schema.Names(), ", ") + ")"
				}
				p.diags.Add(p.pos(kv.val), "%s: unknown type %q%s", owner, tn, hint)
			}
		case "properties":
			propsNode = kv.val
		case "protect", "ignoreChanges", "createBeforeDestroy":
			switch {
			case t.data:
				p.unknownKey(kv.key, owner, dataKeys) // a data source is only read
			case kv.key.Value == "protect":
				r.Protect, _ = p.boolean(kv.val, path+".protect")
			case kv.key.Value == "createBeforeDestroy":
				r.CreateBeforeDestroy, _ = p.boolean(kv.val, path+".createBeforeDestroy")
			default:
				ignoreNode = kv.val
			}
		case "dependsOn":
			p.dependsOn(r, owner, kv.val, path+".dependsOn")
		case "count", "forEach":
			// evaluated by declareTemplates
		default:
			p.unknownKey(kv.key, owner, resourceKeys)
		}
	}
	if !typeSeen {
		p.diags.Add(pos, "%s: missing \"type\" (one of: %s)", owner, strings.Join(schema.Names(), ", "))
	}
	if plugin {
		// The provider's schema is checked when the engine has the
		// provider: here the values, their positions and references.
		p.pluginProperties(r, owner, propsNode)
		if ignoreNode != nil {
			p.pluginIgnoreChanges(r, owner, ignoreNode, path+".ignoreChanges")
		}
		return
	}
	if typ == nil {
		return // without a schema, properties cannot be checked
	}
	p.properties(r, typ, owner, propsNode)
	if ignoreNode != nil {
		p.ignoreChanges(r, typ, owner, ignoreNode, path+".ignoreChanges")
	}
}

func (p *parser) dependsOn(r *Resource, owner string, n *yaml.Node, path string) {
	elems, _ := p.sequence(n, path, "list of resource names")
	for i, e := range elems {
		d, name, ok := p.strNode(e, path+"["+strconv.Itoa(i)+"]")
		if !ok {
			continue
		}
		secret := p.secret[d] != nil
		if ref, isRef := value.ParseRef(name); isRef {
			write := strconv.Quote(ref.Resource)
			if secret {
				write = "the name, not a sensitive value"
			}
			p.diags.Add(p.pos(e), "%s: dependsOn lists resource names, not references: write %s", owner, write)
			continue
		}
		if a, ok := value.ParseAddress(name); ok {
			if t := p.templates[a.Name]; t != nil && t.kind != plainScope && (a.Kind == value.NoIndex || a.Kind == value.AllIndex) {
				// A resource with instances: depend on every one.
				r.DependsOn = append(r.DependsOn, t.instances()...)
				continue
			}
			name = a.String()
		}
		r.DependsOn = append(r.DependsOn, name)
		p.deps = append(p.deps, pendingDep{owner: owner, pos: p.pos(e), name: name, secret: secret})
	}
}

func (p *parser) ignoreChanges(r *Resource, t *schema.Type, owner string, n *yaml.Node, path string) {
	elems, _ := p.sequence(n, path, "list of property names")
	for i, e := range elems {
		d, name, ok := p.strNode(e, path+"["+strconv.Itoa(i)+"]")
		if !ok {
			continue
		}
		if t.Props[name] == nil {
			p.diags.Add(p.pos(e), "%s: ignoreChanges: %s has no property %s%s", owner, t.Name, p.quoted(d, name), p.hintFor(d, propHint(name, t)))
			continue
		}
		r.IgnoreChanges = append(r.IgnoreChanges, name)
	}
}

// propHint suggests a property name of t, or lists them all.
func propHint(name string, t *schema.Type) string {
	if h := didYouMean(name, t.PropNames()); h != "" {
		return h
	}
	return " (it has: " + strings.Join(t.PropNames(), ", ") + ")"
}

// properties checks the properties mapping against t, applies defaults and
// reports missing required properties.
func (p *parser) properties(r *Resource, t *schema.Type, owner string, n *yaml.Node) {
	path := "resources." + value.BaseName(r.Name) + ".properties"
	given := map[string]bool{}
	if n != nil {
		if d := p.deref(n, path); d != nil && !(d.Kind == yaml.ScalarNode && d.ShortTag() == "!!null") && !p.refuseSecret(d, owner, "properties", "its keys would be property names shown in clear") {
			pairs, _ := p.mapping(d, path, "mapping of properties")
			for _, kv := range pairs {
				name := kv.key.Value
				sp := t.Props[name]
				if sp == nil {
					p.diags.Add(p.pos(kv.key), "%s: unknown property %q%s", owner, name, propHint(name, t))
					continue
				}
				r.PropPos.Set(name, p.pos(kv.key))
				if isNull(kv.val) {
					continue // "size:" with no value means unset
				}
				given[name] = true
				p.scope.sensitive = false
				p.propPos = &r.PropPos
				v, ok := p.prop(kv.val, sp, path+"."+name, owner, name)
				p.propPos = nil
				if ok {
					r.Properties[name] = v
				}
				if p.scope.sensitive && !slices.Contains(r.Sensitive, name) {
					r.Sensitive = append(r.Sensitive, name)
				}
			}
		}
	}
	for _, name := range t.SortedProps() {
		sp := t.Props[name]
		switch {
		case given[name]:
		case sp.Required:
			pos := r.Pos
			if pp, ok := r.PropPos.Get(name); ok {
				pos = pp
			}
			p.diags.Add(pos, "%s: missing required property %q", owner, name)
		case sp.Default != nil:
			r.Properties[name] = value.Copy(sp.Default)
		}
	}
}

// notePos records where the part path of the current resource's
// properties (a list element "ingress[2]", a field "ingress[2].cidr", a
// map key "tags.env") is written, so that a provider's refusal of it is
// positioned there (Resource.PropPos).
func (p *parser) notePos(path string, n *yaml.Node) {
	if p.propPos != nil {
		p.propPos.Set(path, p.pos(n))
	}
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// prop converts n to a canonical value of schema prop s. prop is the
// property path used in reference messages ("ingress[0].cidr").
func (p *parser) prop(n *yaml.Node, s *schema.Prop, path, owner, prop string) (any, bool) {
	orig := n
	if n = p.deref(n, path); n == nil {
		return nil, false
	}
	p.enter(orig, n)
	defer p.leave(orig, n)
	if x := p.exprs[n]; x != nil {
		return p.exprProp(n, x, s, owner, prop)
	}
	switch s.Kind {
	case schema.String:
		v, ok := p.str(n, path)
		if !ok {
			return nil, false
		}
		if !p.checkString(n, v, owner, prop) {
			return nil, false
		}
		if len(s.Enum) > 0 && !strings.Contains(v, "${") && !slices.Contains(s.Enum, v) {
			hint := didYouMean(v, s.Enum)
			if p.secret[n] != nil {
				hint = ""
			}
			p.diags.Add(p.pos(n), "%s: %s is not one of %s%s", path, p.quoted(n, v), strings.Join(s.Enum, ", "), hint)
			return nil, false
		}
		return p.textValue(n, v), true
	case schema.Int:
		return p.integer(n, path)
	case schema.Bool:
		return p.boolean(n, path)
	case schema.Ref:
		v, ok := p.str(n, path)
		if !ok {
			return nil, false
		}
		tv := p.textValue(n, v)
		p.refs = append(p.refs, pendingRef{owner: owner, prop: prop, pos: p.pos(n), s: v, v: tv, refType: s.RefType, secret: p.secret[n] != nil, at: p.readsAt(n)})
		return tv, true
	case schema.Map:
		pairs, ok := p.mapping(n, path, "mapping of strings")
		out := make(map[string]any, len(pairs))
		for _, kv := range pairs {
			key := p.shown(kv.key) // a sensitive map's keys are not shown
			p.notePos(prop+"."+key, kv.key)
			d, v, vok := p.strNode(kv.val, path+"."+key)
			if x := p.exprs[d]; x != nil {
				xv, xok := p.exprProp(d, x, nil, owner, prop+"."+key)
				ok = ok && xok
				out[kv.key.Value] = xv
				continue
			}
			if vok {
				vok = p.checkString(d, v, owner, prop+"."+key)
			}
			ok = ok && vok
			out[kv.key.Value] = p.textValue(d, v)
		}
		return out, ok
	case schema.List:
		elems, ok := p.sequence(n, path, "list")
		out := make([]any, len(elems))
		for i, e := range elems {
			idx := "[" + strconv.Itoa(i) + "]"
			p.notePos(prop+idx, e)
			v, eok := p.prop(e, s.Elem, path+idx, owner, prop+idx)
			ok = ok && eok
			out[i] = v
		}
		return out, ok
	case schema.Object:
		return p.object(n, s, path, owner, prop)
	}
	p.diags.Add(p.pos(n), "%s: unsupported schema kind %s", path, s.Kind)
	return nil, false
}

func (p *parser) object(n *yaml.Node, s *schema.Prop, path, owner, prop string) (any, bool) {
	pairs, ok := p.mapping(n, path, "mapping")
	if !ok {
		return nil, false
	}
	names := make([]string, 0, len(s.Fields))
	for f := range s.Fields {
		names = append(names, f)
	}
	slices.Sort(names)
	out := make(map[string]any, len(s.Fields))
	given := map[string]bool{}
	for _, kv := range pairs {
		f := kv.key.Value
		fs := s.Fields[f]
		if fs == nil {
			hint := p.hintFor(kv.key, didYouMean(f, names))
			if hint == "" {
				hint = " (expected one of: " + strings.Join(names, ", ") + ")"
			}
			p.diags.Add(p.pos(kv.key), "%s: unknown field %s%s", path, p.quoted(kv.key, f), hint)
			ok = false
			continue
		}
		if isNull(kv.val) {
			continue
		}
		given[f] = true
		p.notePos(prop+"."+f, kv.key)
		v, fok := p.prop(kv.val, fs, path+"."+f, owner, prop+"."+f)
		ok = ok && fok
		out[f] = v
	}
	for _, f := range names {
		fs := s.Fields[f]
		switch {
		case given[f]:
		case fs.Required:
			p.diags.Add(p.pos(n), "%s: missing required field %q", path, f)
			ok = false
		case fs.Default != nil:
			out[f] = value.Copy(fs.Default)
		}
	}
	return out, ok
}

// checkString records the references in s for checking in finish, and
// reports a "${" that is not a well-formed reference.
func (p *parser) checkString(n *yaml.Node, s, owner, prop string) bool {
	if !strings.Contains(s, "${") {
		return true
	}
	var stripped any = s // what is left of s without its references
	if tp, ok := value.ParseTemplate(s); ok {
		stripped, _ = value.Resolve(tp, func(value.Ref) (any, bool) { return "", true })
	}
	if str, _ := stripped.(string); strings.Contains(str, "${") {
		where := owner
		if prop != "" {
			where += fmt.Sprintf(": property %q", prop)
		}
		p.diags = append(p.diags, diag.Diagnostic{Pos: p.pos(n), Message: fmt.Sprintf("%s: malformed reference in %s: expected ${name} or ${name.output}", where, p.quoted(n, s)), Source: p.parseSource(n)})
		return false
	}
	p.refs = append(p.refs, pendingRef{owner: owner, prop: prop, pos: p.pos(n), s: s, secret: p.secret[n] != nil, at: p.readsAt(n)})
	return true
}

// exprProp is property prop's value when a template the engine evaluates
// gives it: its references are checked as any; a property that names a
// resource (schema.Ref) takes a reference, not a value computed.
func (p *parser) exprProp(n *yaml.Node, x *Expr, s *schema.Prop, owner, prop string) (any, bool) {
	if s != nil && s.Kind == schema.Ref {
		p.diags.Add(p.pos(n), "%s: property %q: expected a reference to a %s like \"${name}\", got an expression computed from resources", owner, prop, s.RefType)
		return nil, false
	}
	p.refs = append(p.refs, pendingRef{owner: owner, prop: prop, pos: p.pos(n), s: x.refText(), secret: p.secret[n] != nil, at: x.at})
	return x, true
}

// parseSource is the source line of the first reason the template in n
// does not parse, marked where it fails ("" when it parses).
func (p *parser) parseSource(n *yaml.Node) string {
	for _, d := range p.malformed[n] {
		if d.Severity == hcl.DiagError && d.Subject != nil {
			if src := p.sources[d.Subject.Filename]; src != nil {
				return hcldiag.Snippet(src, *d.Subject)
			}
		}
	}
	return ""
}
