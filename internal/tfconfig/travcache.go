package tfconfig

import (
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// travCache holds what the traversals of an expression are, found once
// per expression of the configuration rather than once per instance of
// its block (a count of 100 in a module called 50 times walks the same
// syntax 5,000 times otherwise). The traversals are shared: read only.
type travCache struct {
	mu   sync.Mutex
	vars map[hclsyntax.Expression][]hcl.Traversal // Variables
	refs map[hclsyntax.Expression][]hcl.Traversal // refTraversals
}

// variables is expr.Variables().
func (c *travCache) variables(expr hcl.Expression) []hcl.Traversal {
	return c.get(&c.vars, expr, hcl.Expression.Variables)
}

// references is refTraversals(expr).
func (c *travCache) references(expr hcl.Expression) []hcl.Traversal {
	return c.get(&c.refs, expr, refTraversals)
}

// variablesOnce is variables(expr), not kept when once says expr is
// evaluated once.
func (c *travCache) variablesOnce(expr hcl.Expression, once bool) []hcl.Traversal {
	if once {
		return found(expr, hcl.Expression.Variables)
	}
	return c.variables(expr)
}

// referencesOnce is references(expr), not kept when once says expr is
// evaluated once.
func (c *travCache) referencesOnce(expr hcl.Expression, once bool) []hcl.Traversal {
	if once {
		return found(expr, refTraversals)
	}
	return c.references(expr)
}

// found is what get finds of expr with find (hcl.Expression.Variables or
// refTraversals), without keeping it. Of a bare traversal
// (fwtest_latent.r0.id, most arguments that read something) both find
// the traversal itself: it is taken without a walk.
func found(expr hcl.Expression, find func(hcl.Expression) []hcl.Traversal) []hcl.Traversal {
	switch native := expr.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		return []hcl.Traversal{native.Traversal}
	case hclsyntax.Expression:
		if readsNothing(native) {
			return nil
		}
	}
	return find(expr)
}

func (c *travCache) get(m *map[hclsyntax.Expression][]hcl.Traversal, expr hcl.Expression, find func(hcl.Expression) []hcl.Traversal) []hcl.Traversal {
	native, ok := expr.(hclsyntax.Expression)
	if !ok { // a JSON body's: not kept
		return find(expr)
	}
	if readsNothing(native) {
		return nil
	}
	c.mu.Lock()
	travs, ok := (*m)[native]
	c.mu.Unlock()
	if ok {
		return travs
	}
	travs = find(expr)
	c.mu.Lock()
	if *m == nil {
		*m = map[hclsyntax.Expression][]hcl.Traversal{}
	}
	(*m)[native] = travs
	c.mu.Unlock()
	return travs
}

// readsNothing reports whether expr is a literal value, or a string of literal
// text only ("r1"): it reads nothing, so it has no traversals, and it is
// not kept. Most arguments of a large configuration are such (two of the
// three of each of .ci/bench-reads' resources): keeping them took 500
// bytes a resource.
func readsNothing(expr hclsyntax.Expression) bool {
	switch e := expr.(type) {
	case *hclsyntax.LiteralValueExpr:
		return true
	case *hclsyntax.TemplateExpr:
		for _, p := range e.Parts {
			if _, ok := p.(*hclsyntax.LiteralValueExpr); !ok {
				return false
			}
		}
		return true
	}
	return false
}
