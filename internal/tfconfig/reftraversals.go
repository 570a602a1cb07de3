package tfconfig

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// refTraversals are the traversals of expr that say which resources it
// reads, for its references (refsOf): expr.Variables(), except that a
// resource read through an index computed at plan (fwtest_item.public[each.key].id,
// HCL's traversal stops at the index) or through a for's value
// ({ for k, s in fwtest_item.public : k => s.id }) is read as the
// attribute the expression takes of it, not as every attribute of it: as
// OpenTofu reads references, what the expression does not read (a
// sensitive attribute beside it) does not make it sensitive. An unknown
// index in a traversal stands for the instances it may pick (pick).
func refTraversals(expr hcl.Expression) []hcl.Traversal {
	native, ok := expr.(hclsyntax.Expression)
	if !ok {
		return expr.Variables()
	}
	w := &refWalker{}
	hclsyntax.Walk(native, w)
	return w.out
}

// refWalker collects refTraversals' traversals, knowing each node's
// parents.
type refWalker struct {
	stack []hclsyntax.Node
	out   []hcl.Traversal
}

func (w *refWalker) Enter(n hclsyntax.Node) hcl.Diagnostics {
	if t, ok := n.(*hclsyntax.ScopeTraversalExpr); ok {
		w.out = append(w.out, w.traversal(t)...)
	}
	w.stack = append(w.stack, n)
	return nil
}

func (w *refWalker) Exit(hclsyntax.Node) hcl.Diagnostics {
	w.stack = w.stack[:len(w.stack)-1]
	return nil
}

// parent is the node n levels above the one being entered (0: its parent).
func (w *refWalker) parent(n int) hclsyntax.Node {
	if i := len(w.stack) - 1 - n; i >= 0 {
		return w.stack[i]
	}
	return nil
}

// anyIndex is an index step known only at plan.
var anyIndex = hcl.TraverseIndex{Key: cty.DynamicVal}

// countIndex and eachKey are the index steps count.index and each.key:
// known for each instance of the resource whose expression reads them
// (scope.instanceTraversal puts its own in), so that x[count.index] reads
// the one instance it names, not every instance of x.
var (
	countIndex = hcl.TraverseIndex{Key: cty.UnknownVal(cty.Number)}
	eachKey    = hcl.TraverseIndex{Key: cty.UnknownVal(cty.String)}
)

// instanceIndex is the index step of key: countIndex for count.index,
// eachKey for each.key (own true), else anyIndex.
func instanceIndex(key hclsyntax.Expression) (hcl.TraverseIndex, bool) {
	st, ok := key.(*hclsyntax.ScopeTraversalExpr)
	if !ok || len(st.Traversal) != 2 {
		return anyIndex, false
	}
	attr, ok := st.Traversal[1].(hcl.TraverseAttr)
	switch {
	case !ok:
	case st.Traversal.RootName() == "count" && attr.Name == "index":
		return countIndex, true
	case st.Traversal.RootName() == "each" && attr.Name == "key":
		return eachKey, true
	}
	return anyIndex, false
}

// traversal is what t reads: t, or t with the index and attribute the
// expression around it takes (t[key].attr), or with the attributes a
// for takes of its values (for k, v in t : … v.attr …).
func (w *refWalker) traversal(t *hclsyntax.ScopeTraversalExpr) []hcl.Traversal {
	whole := []hcl.Traversal{t.Traversal}
	switch p := w.parent(0).(type) {
	case *hclsyntax.IndexExpr:
		if p.Collection != hclsyntax.Expression(t) {
			return whole
		}
		idx, own := instanceIndex(p.Key)
		rel, ok := w.parent(1).(*hclsyntax.RelativeTraversalExpr)
		if !ok || rel.Source != hclsyntax.Expression(p) || len(rel.Traversal) == 0 {
			if own {
				return []hcl.Traversal{extend(t.Traversal, idx)} // t[count.index]: that instance, whole
			}
			return whole
		}
		attr, ok := rel.Traversal[0].(hcl.TraverseAttr)
		if !ok {
			if own {
				return []hcl.Traversal{extend(t.Traversal, idx)}
			}
			return whole
		}
		return []hcl.Traversal{extend(t.Traversal, idx, attr)}
	case *hclsyntax.ForExpr:
		if p.CollExpr != hclsyntax.Expression(t) {
			return whole
		}
		attrs, ok := forAttrs(p)
		if !ok {
			return whole
		}
		out := make([]hcl.Traversal, 0, len(attrs))
		for _, a := range attrs {
			out = append(out, extend(t.Traversal, anyIndex, a))
		}
		return out
	}
	return whole
}

// forAttrs are the attributes the body of f reads of its value variable,
// when it reads nothing else of it (ok false otherwise, or when it has
// none).
func forAttrs(f *hclsyntax.ForExpr) ([]hcl.TraverseAttr, bool) {
	var attrs []hcl.TraverseAttr
	ok := true
	for _, e := range []hclsyntax.Expression{f.KeyExpr, f.ValExpr, f.CondExpr} {
		if e == nil {
			continue
		}
		for _, t := range e.Variables() {
			if t.RootName() != f.ValVar {
				continue
			}
			a, isAttr := stepAt(t, 1).(hcl.TraverseAttr)
			if !isAttr {
				ok = false
				continue
			}
			attrs = append(attrs, a)
		}
	}
	return attrs, ok && len(attrs) > 0
}

// stepAt is t's step i, nil past its end.
func stepAt(t hcl.Traversal, i int) hcl.Traverser {
	if i < len(t) {
		return t[i]
	}
	return nil
}

// extend is t followed by steps, in a slice of its own.
func extend(t hcl.Traversal, steps ...hcl.Traverser) hcl.Traversal {
	out := make(hcl.Traversal, 0, len(t)+len(steps))
	return append(append(out, t...), steps...)
}
