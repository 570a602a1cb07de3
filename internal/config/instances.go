package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/value"
	"go.yaml.in/yaml/v3"
)

// Instances: count and forEach are evaluated first for every resource
// (declareTemplates), then each resource is walked once per instance
// (expandResources).

// declareTemplates is the first pass over the resources: names, and the
// instances count and forEach give each, so that references to instances
// (${web[*]}) can be expanded whatever the order resources are written in.
func (p *parser) declareTemplates() {
	p.templates = make(map[string]*template, len(p.rawResources))
	p.order = make([]*template, 0, len(p.rawResources))
	all := make([]template, len(p.rawResources)) // one allocation for all
	for i, raw := range p.rawResources {
		p.file = raw.file
		k, v := raw.key, raw.val
		name, pos := k.Value, p.pos(k)
		if !validName(name) {
			p.diags.Add(pos, "resource name %q is invalid: use letters, digits, _ and - (not first)", name)
			continue
		}
		if slices.Contains(reserved, name) {
			p.diags.Add(pos, "resource name %q is reserved (it starts the references ${%s…}); rename the resource", name, name)
			continue
		}
		if first, dup := p.templates[name]; dup {
			what := "resource"
			if raw.data || first.data {
				what = "name" // resources and data sources share names: ${name.attr} reads either
			}
			p.diags.Add(pos, "duplicate %s %q (first defined at %s)", what, name, diag.Pos{File: first.file, Line: first.key.Line, Col: first.key.Column})
			continue
		}
		t := &all[i]
		*t = template{name: name, file: raw.file, key: k, val: v, data: raw.data}
		p.rawResources[i] = rawNode{} // the template holds the nodes now (release)
		p.templates[name] = t
		p.order = append(p.order, t)
		d := p.deref(v, "resources") // the walk of each instance reports with the full path
		if d == nil || d.Kind != yaml.MappingNode {
			continue // reported by the instance walk
		}
		var countN, eachN *yaml.Node
		for i := 0; i+1 < len(d.Content); i += 2 {
			switch d.Content[i].Value {
			case "count":
				countN = d.Content[i+1]
			case "forEach":
				eachN = d.Content[i+1]
			}
		}
		if countN == nil && eachN == nil {
			continue
		}
		owner := "resource " + strconv.Quote(name)
		switch {
		case countN != nil && eachN != nil:
			p.diags.Add(p.pos(eachN), "%s: count and forEach cannot be used together", owner)
			t.bad = true
		case countN != nil:
			t.kind = countScope
			p.evalCount(t, countN, owner)
		case eachN != nil:
			t.kind = eachScope
			p.evalForEach(t, eachN, owner)
		}
	}
	p.file = ""
}

func (p *parser) evalCount(t *template, n *yaml.Node, owner string) {
	path := "resources." + t.name + ".count"
	p.scope = &scope{kind: exprScope, what: "count", owner: owner}
	defer func() { p.scope = nil }()
	d := p.deref(n, path)
	if d == nil {
		t.bad = true
		return
	}
	if p.sensitiveExpr(d, owner) {
		t.bad = true
		return
	}
	if isString(d) && strings.Contains(d.Value, "${") {
		p.diags.Add(p.pos(d), "%s: count takes a whole number or a variable (\"${var.name}\"), got %s", owner, p.quoted(d, d.Value))
		t.bad = true
		return
	}
	f, ok := p.integer(d, path)
	if !ok {
		t.bad = true
		return
	}
	switch {
	case f < 0:
		p.diags.Add(p.pos(d), "%s: count must not be negative, got %s", owner, value.Text(f))
		t.bad = true
	case f > MaxInstances:
		p.diags.Add(p.pos(d), "%s: count %s is more than %d instances", owner, value.Text(f), MaxInstances)
		t.bad = true
	default:
		t.count = int(f)
	}
}

func (p *parser) evalForEach(t *template, n *yaml.Node, owner string) {
	path := "resources." + t.name + ".forEach"
	p.scope = &scope{kind: exprScope, what: "forEach", owner: owner}
	defer func() { p.scope = nil }()
	d := p.deref(n, path)
	if d == nil {
		t.bad = true
		return
	}
	if p.sensitiveExpr(d, owner) { // a sensitive variable as the whole forEach
		t.bad = true
		return
	}
	t.values = map[string]any{}
	addKey := func(kn *yaml.Node, k string, v any) bool {
		switch {
		case !value.ValidKey(k):
			p.diags.Add(p.pos(kn), "%s: forEach key %s is invalid: use at most %d letters, digits, _ and - (keys name instances and become part of cloud names)", owner, p.quoted(kn, k), value.MaxKeyLen)
		case t.values[k] != nil || slices.Contains(t.keys, k):
			p.diags.Add(p.pos(kn), "%s: forEach key %s appears twice", owner, p.quoted(kn, k))
		default:
			t.keys = append(t.keys, k)
			t.values[k] = v
			return true
		}
		return false
	}
	switch d.Kind {
	case yaml.SequenceNode:
		for _, e := range d.Content {
			e2 := p.deref(e, path)
			if e2 == nil {
				t.bad = true
				continue
			}
			if !isString(e2) {
				p.diags.Add(p.pos(e2), "%s: a forEach list holds strings (the keys), got %s", owner, kindName(e2))
				t.bad = true
				continue
			}
			if !addKey(e2, e2.Value, e2.Value) {
				t.bad = true
			}
		}
	case yaml.MappingNode:
		pairs, _ := p.mapping(d, path, "mapping")
		for _, kv := range pairs {
			v, ok := p.generic(kv.val, path+"."+kv.key.Value, nil)
			if !ok || !addKey(kv.key, kv.key.Value, v) {
				t.bad = true
			}
		}
	default:
		if isString(d) && strings.Contains(d.Value, "${") {
			p.diags.Add(p.pos(d), "%s: forEach takes a list, a map or a variable (\"${var.name}\"), got %s", owner, p.quoted(d, d.Value))
		} else {
			p.typeErr(d, path, "list or map (or a variable holding one)")
		}
		t.bad = true
	}
	if len(t.keys) > MaxInstances {
		p.diags.Add(p.pos(d), "%s: forEach has %d keys, more than %d instances", owner, len(t.keys), MaxInstances)
		t.bad = true
	}
	if p.sensitiveExpr(d, owner) { // sensitive elements or values
		t.bad, t.keys, t.values = true, nil, nil
	}
}

// sensitiveExpr reports (at n, the count or forEach as written) that the
// expression being evaluated used a sensitive value, as Terraform refuses
// sensitive values in count and for_each: which instances exist is shown
// everywhere — addresses, cloud names, comments, summaries, state — so a
// sensitive value there would be shown in clear. The value is not quoted.
func (p *parser) sensitiveExpr(n *yaml.Node, owner string) bool {
	sc := p.scope
	if !sc.sensitive {
		return false
	}
	shown := "instances would show it"
	if sc.what == "forEach" {
		shown = "its keys would name instances and cloud names in clear"
	}
	why := "a sensitive value"
	if v := sc.secretVar; v != nil {
		why = fmt.Sprintf("variable %q, which is sensitive (%s)", v.Name, v.sensitiveWhy())
	}
	p.diags.Add(p.pos(n), "%s: %s cannot use %s: %s; use a value that is not sensitive", owner, sc.what, why, shown)
	return true
}

// expandResources walks every template once per instance.
func (p *parser) expandResources() {
	var plain scope // reused: most resources have no count or forEach
	for _, t := range p.order {
		if t.bad {
			continue
		}
		p.file = t.file
		if t.kind == plainScope {
			plain = scope{kind: plainScope, owner: "resource " + strconv.Quote(t.name)}
			p.scope = &plain
			p.resource(t, t.name)
			p.scope = nil
			t.release()
			continue
		}
		var seen map[string]bool
		for i, addr := range t.instances() {
			sc := &scope{kind: t.kind, owner: "resource " + value.QuoteName(addr), index: i}
			if t.kind == eachScope {
				sc.key, sc.each = t.keys[i], t.values[t.keys[i]]
			}
			before := len(p.diags)
			p.scope = sc
			p.resource(t, addr)
			p.scope = nil
			if len(p.diags) == before {
				continue
			}
			// The same problem in every instance is reported once.
			if seen == nil {
				seen = map[string]bool{}
			}
			kept := p.diags[:before]
			for _, d := range p.diags[before:] {
				key := d.Pos.String() + "\x00" + strings.ReplaceAll(d.Message, value.QuoteName(addr), strconv.Quote(t.name))
				if !seen[key] {
					seen[key] = true
					kept = append(kept, d)
				}
			}
			p.diags = kept
		}
		t.release()
	}
	p.file = ""
}

// release drops t's YAML nodes once its instances are walked: the node
// tree of a large configuration weighs about twice the resources made
// from it, and it need not outlive the walk (a plan's peak memory).
func (t *template) release() { t.key, t.val = nil, nil }

// validName is nameRE.MatchString without the regexp machinery (it runs
// for every resource).
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case c == '-' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}
