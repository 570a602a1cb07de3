package config

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/value"
	"go.yaml.in/yaml/v3"
)

// Expansion. Variables, ${environment}, ${count.index}, ${each.key} and
// ${each.value} are substituted in the YAML nodes themselves, as the walk
// of a resource or output meets them (deref calls subst): a whole-string
// reference becomes a node of the value's own type (a number, a list, …),
// positioned where the reference was written, and is then checked against
// the schema like anything written out; inside a longer string it is
// interpolated as text. ${web[*]} becomes the list of web's instance
// references. A resource with count or forEach is walked once per
// instance, named web[0] or edge["a"]; the engine sees the instances as
// ordinary resources.

// MaxInstances bounds count and the size of forEach (a hostile
// configuration must not make millions of resources).
const MaxInstances = 10000

// reserved names cannot name resources: they are the first word of the
// references expansion substitutes.
var reserved = []string{"count", "each", "environment", "var"}

// scopeKind says which instance references a walk may substitute.
type scopeKind int

const (
	plainScope scopeKind = iota // a resource without count/forEach, or an output
	countScope
	eachScope
	exprScope // count or forEach itself: variables only, no resources
)

// scope is what substitution knows during the walk of one resource
// instance or output.
type scope struct {
	kind      scopeKind
	what      string // "count", "forEach": for exprScope messages
	owner     string // `resource "web[0]"`, for messages
	index     int
	key       string
	each      any
	sensitive bool      // a sensitive variable was substituted
	secretVar *Variable // the first sensitive variable substituted (for messages)
}

// tookSecret records that the walk substituted v, a sensitive variable.
func (sc *scope) tookSecret(v *Variable) {
	sc.sensitive = true
	if sc.secretVar == nil {
		sc.secretVar = v
	}
}

// template is one resource as written: its instances are expanded from it.
type template struct {
	name     string
	file     string
	key, val *yaml.Node
	kind     scopeKind // plainScope, countScope or eachScope
	count    int
	keys     []string       // forEach keys, in order
	values   map[string]any // forEach values by key
	bad      bool           // count/forEach could not be evaluated (reported)
	data     bool           // a data source (the data: section)
}

// instances returns the addresses of t's instances.
func (t *template) instances() []string {
	switch t.kind {
	case countScope:
		out := make([]string, t.count)
		for i := range out {
			out[i] = value.InstanceName(t.name, i)
		}
		return out
	case eachScope:
		out := make([]string, len(t.keys))
		for i, k := range t.keys {
			out[i] = value.KeyName(t.name, k)
		}
		return out
	}
	return []string{t.name}
}

// describe says how many instances t has, for messages.
func (t *template) describe() string {
	switch t.kind {
	case countScope:
		switch t.count {
		case 0:
			return "count 0: no instances"
		case 1:
			return "count 1: only " + value.InstanceName(t.name, 0)
		}
		return fmt.Sprintf("count %d: %s to %s", t.count, value.InstanceName(t.name, 0), value.InstanceName(t.name, t.count-1))
	case eachScope:
		if len(t.keys) == 0 {
			return "forEach with no keys"
		}
		qs := make([]string, len(t.keys))
		for i, k := range t.keys {
			qs[i] = strconv.Quote(k)
		}
		return "forEach keys " + strings.Join(qs, ", ")
	}
	return "no count or forEach"
}

// where is the owner and property path for messages.
func (p *parser) where(path string) string {
	if p.scope != nil && p.scope.owner != "" {
		return p.scope.owner
	}
	return path
}

// quoted is s quoted for a message, or "(sensitive)" when n holds a
// sensitive value.
func (p *parser) quoted(n *yaml.Node, s string) string {
	if p.secret[n] != nil {
		return masked
	}
	return strconv.Quote(s)
}

// done records that out (made from in) needs no more substitution, and
// carries over whether it holds a sensitive value.
func (p *parser) done(out, in *yaml.Node) {
	p.substituted[out] = true
	if in != nil && p.secret[in] != nil {
		p.secret[out] = p.secret[in]
	}
}

// wholeResourceOK reports (and returns false for) a reference to a
// resource with count or forEach by its name alone.
func (p *parser) wholeResourceOK(n *yaml.Node, a value.Address, path string) bool {
	if a.Kind != value.NoIndex {
		return true
	}
	t := p.templates[a.Name]
	if t == nil || t.kind == plainScope || t.bad {
		return true
	}
	p.diags.Add(p.pos(n), "%s: %s", p.where(path), p.instanceHint(a.Name))
	return false
}

func (p *parser) exprRefErr(n *yaml.Node, r value.Ref) {
	p.diags.Add(p.pos(n), "%s: %s cannot use %s: write a literal or a variable (\"${var.name}\"); it must be known when planning, before anything is created", p.scope.owner, p.scope.what, r.String())
}

// variableRef resolves ${var.name}; ok false after reporting (or when the
// variable's own problem was reported already).
func (p *parser) variableRef(n *yaml.Node, r value.Ref, path string) (*Variable, bool) {
	if r.Attr == "" {
		p.diags.Add(p.pos(n), "%s: ${var} names no variable; write ${var.name}", p.where(path))
		return nil, false
	}
	v := p.vars[r.Attr]
	if v == nil {
		p.diags.Add(p.pos(n), "%s: unknown variable %q in %s%s", p.where(path), r.Attr, r.String(), p.varHint(r.Attr))
		return nil, false
	}
	if !v.resolved {
		return nil, false // its declaration or value was reported
	}
	return v, true
}

// readPath reads r's path into v, a value known when the configuration
// is read (a variable's, each.value); ok false after reporting a path
// that does not apply to it. The message for a sensitive v says which
// step does not apply and why, never v's text or keys.
func (p *parser) readPath(n *yaml.Node, r value.Ref, path string, v any, sensitive bool) (any, bool) {
	if r.Path == "" {
		return v, true
	}
	got, _, err := value.Walk(v, r.Steps())
	if err != nil {
		msg := err.Error()
		if sensitive {
			msg = "the path does not apply to the value (sensitive)"
			if pe := (*value.PathError)(nil); errors.As(err, &pe) {
				msg = pe.Masked()
			}
		}
		p.diags.Add(p.pos(n), "%s: %s: %s", p.where(path), r.String(), msg)
		return nil, false
	}
	return value.Copy(got), true
}

// instanceRef resolves ${count.index}, ${each.key} and ${each.value} (and
// a path into each.value).
func (p *parser) instanceRef(n *yaml.Node, r value.Ref, path string) (any, bool) {
	sc := p.scope
	switch {
	case r.Resource == "count" && r.Attr == "index":
		if sc.kind == countScope {
			return p.readPath(n, r, path, float64(sc.index), false)
		}
		p.diags.Add(p.pos(n), "%s: ${count.index} is only for a resource with count", p.where(path))
	case r.Resource == "each" && (r.Attr == "key" || r.Attr == "value"):
		if sc.kind == eachScope {
			if r.Attr == "key" {
				return p.readPath(n, r, path, sc.key, false)
			}
			return p.readPath(n, r, path, value.Copy(sc.each), false)
		}
		p.diags.Add(p.pos(n), "%s: %s is only for a resource with forEach", p.where(path), r.String())
	case r.Resource == "count":
		p.diags.Add(p.pos(n), "%s: %s: count has only ${count.index}", p.where(path), r.String())
	default:
		p.diags.Add(p.pos(n), "%s: %s: each has only ${each.key} and ${each.value}", p.where(path), r.String())
	}
	return nil, false
}

func (p *parser) markDone(n *yaml.Node) {
	p.substituted[n] = true
	for _, c := range n.Content {
		p.markDone(c)
	}
}

// markSecret records that n, and every node inside it, holds the value
// of v, a sensitive variable.
func (p *parser) markSecret(n *yaml.Node, v *Variable) {
	p.secret[n] = v
	for _, c := range n.Content {
		p.markSecret(c, v)
	}
}

// nodeOf builds the YAML node of a canonical value, positioned at at.
func nodeOf(v any, at *yaml.Node) *yaml.Node {
	n := &yaml.Node{Line: at.Line, Column: at.Column}
	switch x := v.(type) {
	case nil:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!null", "null"
	case string:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!str", x
	case bool:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!bool", strconv.FormatBool(x)
	case float64:
		n.Kind = yaml.ScalarNode
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			n.Tag, n.Value = "!!int", strconv.FormatInt(int64(x), 10)
		} else {
			n.Tag, n.Value = "!!float", strconv.FormatFloat(x, 'g', -1, 64)
		}
	case []any:
		n.Kind, n.Tag = yaml.SequenceNode, "!!seq"
		for _, e := range x {
			n.Content = append(n.Content, nodeOf(e, at))
		}
	case map[string]any:
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: at.Line, Column: at.Column}, nodeOf(x[k], at))
		}
	default:
		n.Kind, n.Tag, n.Value = yaml.ScalarNode, "!!str", fmt.Sprint(x)
	}
	return n
}

func (p *parser) templateNames() []string {
	names := make([]string, 0, len(p.templates))
	for n := range p.templates {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
