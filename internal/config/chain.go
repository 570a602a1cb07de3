package config

import (
	"math/big"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kyku/action/internal/value"
)

// A chain is one read of a resource in a template, as far as Kyku's
// reference form can say it: the resource's name, its instance (web[0],
// edge["a"], web[*] for every one), the attribute read and a path into
// it (`${cert[0].subject[0].common_name}`). A chain without an
// attribute reads the provider ID.
type chain struct {
	node     hclsyntax.Expression          // the expression that is the chain
	root     *hclsyntax.ScopeTraversalExpr // where its name is written
	name     string
	inst     value.Address // Name set when an instance is read (Kind AllIndex: all)
	attr     string
	path     strings.Builder
	hasSplat bool
}

func (c *chain) address() value.Address {
	if c.inst.Name == "" {
		return value.Address{Name: c.name}
	}
	return c.inst
}

// ref is the chain in Kyku's reference form.
func (c *chain) ref() value.Ref {
	return value.Ref{Resource: c.address().String(), Attr: c.attr, Path: c.path.String()}
}

// splat reports whether the chain reads a list of values ([*]).
func (c *chain) splat() bool { return c.inst.Kind == value.AllIndex || c.hasSplat }

// index applies an index step.
func (c *chain) index(k cty.Value) bool {
	if !k.IsKnown() || k.IsNull() {
		return false
	}
	if c.attr != "" {
		c.path.WriteString(indexStep(k))
		return true
	}
	if c.inst.Name != "" {
		return false
	}
	switch k.Type() {
	case cty.Number:
		bf := k.AsBigFloat()
		i, acc := bf.Int64()
		if !bf.IsInt() || acc != big.Exact || i < 0 || i >= MaxInstances {
			return false
		}
		c.inst = value.Address{Name: c.name, Kind: value.IntIndex, Index: int(i)}
	case cty.String:
		if !value.ValidKey(k.AsString()) {
			return false
		}
		c.inst = value.Address{Name: c.name, Kind: value.KeyIndex, Key: k.AsString()}
	default:
		return false
	}
	return true
}

// attribute applies an attribute step.
func (c *chain) attribute(name string) {
	if c.attr == "" {
		c.attr = name
		return
	}
	c.path.WriteString(keyStep(name))
}

// splatStep applies [*].
func (c *chain) splatStep() bool {
	switch {
	case c.attr != "":
		c.path.WriteString("[*]")
		c.hasSplat = true
	case c.inst.Name != "":
		return false
	default:
		c.inst = value.Address{Name: c.name, Kind: value.AllIndex}
	}
	return true
}

// steps applies a traversal's steps.
func (c *chain) steps(tr hcl.Traversal) bool {
	for _, st := range tr {
		switch s := st.(type) {
		case hcl.TraverseAttr:
			c.attribute(s.Name)
		case hcl.TraverseIndex:
			if !c.index(s.Key) {
				return false
			}
		case hcl.TraverseSplat:
			if !c.splatStep() {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// chainWalker finds a template's chains: the largest expressions that
// are one, each read once.
type chainWalker struct {
	t     *tmpl
	skip  hclsyntax.Node // inside a chain found
	iters []string       // the for expressions' names in scope
}

func (w *chainWalker) Enter(n hclsyntax.Node) hcl.Diagnostics {
	if w.skip != nil {
		return nil
	}
	if f, ok := n.(*hclsyntax.ForExpr); ok {
		w.iters = append(w.iters, f.KeyVar, f.ValVar)
	}
	e, ok := n.(hclsyntax.Expression)
	if !ok {
		return nil
	}
	if c := w.build(e); c != nil {
		w.t.chains = append(w.t.chains, c)
		w.skip = n
	}
	return nil
}

func (w *chainWalker) Exit(n hclsyntax.Node) hcl.Diagnostics {
	if w.skip == n {
		w.skip = nil
	}
	if _, ok := n.(*hclsyntax.ForExpr); ok && w.skip == nil {
		w.iters = w.iters[:len(w.iters)-2]
	}
	return nil
}

// resource reports whether a root name names a resource.
func (w *chainWalker) resource(name string) bool {
	return name != "" && !slices.Contains(reserved, name) && !slices.Contains(w.iters, name)
}

// build is the chain e is, or nil.
func (w *chainWalker) build(e hclsyntax.Expression) *chain {
	var c *chain
	switch x := e.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		if !w.resource(x.Traversal.RootName()) {
			return nil
		}
		c = &chain{root: x, name: x.Traversal.RootName()}
		if !c.steps(x.Traversal[1:]) {
			return nil
		}
	case *hclsyntax.RelativeTraversalExpr:
		if c = w.build(x.Source); c == nil || !c.steps(x.Traversal) {
			return nil
		}
	case *hclsyntax.IndexExpr:
		if c = w.build(x.Collection); c == nil {
			return nil
		}
		k, ok := w.key(c, x)
		if !ok || !c.index(k) {
			return nil
		}
	case *hclsyntax.SplatExpr:
		if c = w.build(x.Source); c == nil || !c.splatStep() || !each(c, x.Each, x.Item) {
			return nil
		}
	default:
		return nil
	}
	c.node = e
	return c
}

// each applies the steps a splat reads from each element (e, starting
// at the element, item).
func each(c *chain, e hclsyntax.Expression, item *hclsyntax.AnonSymbolExpr) bool {
	switch x := e.(type) {
	case *hclsyntax.AnonSymbolExpr:
		return x == item
	case *hclsyntax.RelativeTraversalExpr:
		return each(c, x.Source, item) && c.steps(x.Traversal)
	case *hclsyntax.IndexExpr:
		lit, ok := x.Key.(*hclsyntax.LiteralValueExpr)
		return ok && each(c, x.Collection, item) && c.index(lit.Val)
	case *hclsyntax.SplatExpr:
		return each(c, x.Source, item) && c.splatStep() && each(c, x.Each, x.Item)
	}
	return false
}

// key is the key of index expression x applied to chain c, known when
// the configuration is read: a value (count.index, a variable's, a
// literal), or in an instance's place a bare word (edge[a], Kyku's
// unquoted key). x's key becomes that literal, for the evaluation.
func (w *chainWalker) key(c *chain, x *hclsyntax.IndexExpr) (cty.Value, bool) {
	var k cty.Value
	if st, ok := x.Key.(*hclsyntax.ScopeTraversalExpr); ok && len(st.Traversal) == 1 && c.inst.Name == "" && c.attr == "" &&
		w.resource(st.Traversal.RootName()) && w.t.p.templates[st.Traversal.RootName()] == nil {
		k = cty.StringVal(st.Traversal.RootName())
	} else {
		for _, tr := range x.Key.Variables() {
			if !slices.Contains(reserved, tr.RootName()) || slices.Contains(w.iters, tr.RootName()) {
				return cty.NilVal, false
			}
		}
		v, ds := x.Key.Value(w.t.context())
		if ds.HasErrors() || !v.IsWhollyKnown() {
			return cty.NilVal, false
		}
		k = v
	}
	x.Key = &hclsyntax.LiteralValueExpr{Val: k, SrcRange: x.Key.Range()}
	return k, true
}
