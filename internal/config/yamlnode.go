package config

import (
	"math"
	"strconv"
	"strings"

	"github.com/kyku/action/internal/diag"
	"go.yaml.in/yaml/v3"
)

// maxAliasNodes bounds how many YAML nodes one Parse visits through aliases,
// so that a small file with nested aliases ("billion laughs") cannot exhaust
// memory or time. Nodes outside aliases are bounded by the file size.
const maxAliasNodes = 1_000_000

func (p *parser) pos(n *yaml.Node) diag.Pos {
	return diag.Pos{File: p.file, Line: n.Line, Col: n.Column}
}

// deref follows an alias to its anchored node. It returns nil (after
// reporting) when the alias contains itself or the node budget is spent.
func (p *parser) deref(n *yaml.Node, path string) *yaml.Node {
	if p.aliasDepth > 0 || n.Kind == yaml.AliasNode {
		p.aliasNodes++
	}
	if p.aliasNodes > maxAliasNodes {
		if !p.tooBig {
			p.tooBig = true
			p.diags.Add(p.pos(n), "%s: document too large after expanding aliases", path)
		}
		return nil
	}
	if n.Kind == yaml.AliasNode {
		if p.expanding[n.Alias] {
			p.diags.Add(p.pos(n), "%s: alias *%s contains itself", path, n.Value)
			return nil
		}
		n = n.Alias
	}
	if p.scope != nil && n.Kind == yaml.ScalarNode && isTemplate(n.Value) && isString(n) && !p.substituted[n] {
		return p.subst(n, path)
	}
	return n
}

// enter and leave bracket the walk of a node that has an anchor or was
// reached through an alias, to detect an alias that contains itself.
func (p *parser) enter(orig, target *yaml.Node) {
	if target.Anchor != "" || orig.Kind == yaml.AliasNode {
		p.expanding[target] = true
	}
	if orig.Kind == yaml.AliasNode {
		p.aliasDepth++
	}
}

func (p *parser) leave(orig, target *yaml.Node) {
	if target.Anchor != "" || orig.Kind == yaml.AliasNode {
		delete(p.expanding, target)
	}
	if orig.Kind == yaml.AliasNode {
		p.aliasDepth--
	}
}

// kindName names what the user wrote, for "expected X, got Y" messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str", "!!timestamp", "!!binary":
			return "string"
		case "!!int":
			return "integer"
		case "!!float":
			return "number"
		case "!!bool":
			return "boolean"
		case "!!null":
			return "null"
		}
		return "value tagged " + n.Tag
	}
	return "alias"
}

// isString reports whether n is a scalar the user meant as text.
func isString(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	switch n.ShortTag() {
	case "!!str", "!!timestamp", "!!binary":
		return true
	}
	return false
}

// quoteHint suggests quoting a scalar YAML read as another type.
func quoteHint(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		return " (quote it: " + strconv.Quote(n.Value) + ")"
	}
	return ""
}

// typeErr reports "path: expected X, got Y".
func (p *parser) typeErr(n *yaml.Node, path, expected string) {
	got := kindName(n)
	switch {
	case p.secret[n] != nil:
		got += " (sensitive)"
	case got == "string" && len(n.Value) <= 40:
		got += " " + strconv.Quote(n.Value)
	case n.Kind == yaml.ScalarNode && got != "null" && got != "string":
		got += " " + n.Value
	}
	hint := ""
	if expected == "string" && p.secret[n] == nil {
		hint = quoteHint(n)
	}
	p.diags.Add(p.pos(n), "%s: expected %s, got %s%s", path, expected, got, hint)
}

// str returns a string scalar, reporting anything else.
func (p *parser) str(n *yaml.Node, path string) (string, bool) {
	_, s, ok := p.strNode(n, path)
	return s, ok
}

// strNode is str that also returns the node read (n, the node its alias
// names, or the one substitution made of it): p.secret of that node says
// whether the string holds a sensitive value.
func (p *parser) strNode(n *yaml.Node, path string) (*yaml.Node, string, bool) {
	if n = p.deref(n, path); n == nil {
		return nil, "", false
	}
	if !isString(n) {
		if p.substituted[n] && n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
			// A number or bool a reference put where text belongs
			// (tags: { index: "${count.index}" }) is that text.
			return n, n.Value, true
		}
		p.typeErr(n, path, "string")
		return n, "", false
	}
	return n, n.Value, true
}

// boolean returns a boolean scalar, reporting anything else.
func (p *parser) boolean(n *yaml.Node, path string) (bool, bool) {
	if n = p.deref(n, path); n == nil {
		return false, false
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		p.typeErr(n, path, "boolean (true or false)")
		return false, false
	}
	b, err := strconv.ParseBool(strings.ToLower(n.Value))
	if err != nil {
		p.typeErr(n, path, "boolean (true or false)")
		return false, false
	}
	return b, true
}

// integer returns a whole number as a canonical float64. A float with a
// fractional part (1.5) is an error; 2.0 is accepted as 2.
func (p *parser) integer(n *yaml.Node, path string) (float64, bool) {
	if n = p.deref(n, path); n == nil {
		return 0, false
	}
	if n.Kind == yaml.ScalarNode {
		switch n.ShortTag() {
		case "!!int":
			var i int64
			if err := n.Decode(&i); err != nil {
				p.diags.Add(p.pos(n), "%s: integer %s out of range", path, p.shown(n))
				return 0, false
			}
			return float64(i), true
		case "!!float":
			f, ok := p.float(n)
			if ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
				return f, true
			}
		}
	}
	p.typeErr(n, path, "integer")
	return 0, false
}

// float decodes a finite !!float scalar.
func (p *parser) float(n *yaml.Node) (float64, bool) {
	var f float64
	if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// mapping checks that n is a mapping and returns its key/value pairs,
// reporting duplicate keys and keys that are not strings. The caller
// handles unknown keys.
func (p *parser) mapping(n *yaml.Node, path, expected string) ([]pair, bool) {
	if n = p.deref(n, path); n == nil {
		return nil, false
	}
	if n.Kind != yaml.MappingNode {
		p.typeErr(n, path, expected)
		return nil, false
	}
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	pairs := make([]pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!null" {
			p.diags.Add(p.pos(k), "%s: keys must be plain names, got %s", path, kindName(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			p.diags.Add(p.pos(k), "%s: merge keys (<<) are not supported; repeat the keys or use an alias for the whole value", path)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.diags.Add(p.pos(k), "%s: duplicate key %q (first at line %d)", path, k.Value, first.Line)
			continue
		}
		seen[k.Value] = k
		pairs = append(pairs, pair{k, v})
	}
	return pairs, true
}

type pair struct{ key, val *yaml.Node }

// sequence checks that n is a list and returns its elements.
func (p *parser) sequence(n *yaml.Node, path, expected string) ([]*yaml.Node, bool) {
	if n = p.deref(n, path); n == nil {
		return nil, false
	}
	if n.Kind != yaml.SequenceNode {
		p.typeErr(n, path, expected)
		return nil, false
	}
	return n.Content, true
}

// generic converts any YAML value to a canonical value (package value):
// used for outputs, which have no schema. With visit non-nil, each string
// is handed to it (for reference checks) and becomes the value it returns.
func (p *parser) generic(n *yaml.Node, path string, visit func(n *yaml.Node, s, path string) any) (any, bool) {
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
			v, vok := p.generic(kv.val, path+"."+p.shown(kv.key), visit)
			ok = ok && vok
			out[kv.key.Value] = v
		}
		return out, ok
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		ok := true
		for i, e := range n.Content {
			v, eok := p.generic(e, path+"["+strconv.Itoa(i)+"]", visit)
			ok = ok && eok
			out[i] = v
		}
		return out, ok
	}
	switch {
	case p.exprs[n] != nil:
		if visit != nil {
			visit(n, p.exprs[n].refText(), path)
		}
		return p.exprs[n], true
	case isString(n):
		if visit != nil {
			return visit(n, n.Value, path), true
		}
		return n.Value, true
	case n.ShortTag() == "!!null":
		return nil, true
	case n.ShortTag() == "!!bool":
		return p.boolean(n, path)
	case n.ShortTag() == "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return float64(i), true
		}
		fallthrough
	case n.ShortTag() == "!!float":
		if f, ok := p.float(n); ok {
			return f, true
		}
		p.diags.Add(p.pos(n), "%s: number %s is not a finite 64-bit number", path, n.Value)
		return nil, false
	}
	p.diags.Add(p.pos(n), "%s: unsupported YAML tag %s", path, n.Tag)
	return nil, false
}
