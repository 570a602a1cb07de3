package tfconfig

import (
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// constRoots keeps, per module instance, the var and local objects built
// for an expression's context when every value they hold is constant (it
// reads no resource): the same for every instance of a resource in the
// module instance and for every evaluation, so built once rather than
// once per count or for_each instance.
type constRoots struct {
	mu   sync.Mutex
	objs map[constRootKey]cty.Value
}

// constRootKey is an expression's traversals (the travCache's slice, by
// its first element) and a root, "var" or "local".
type constRootKey struct {
	travs *hcl.Traversal
	root  string
}

func (c *constRoots) get(travs []hcl.Traversal, root string) (cty.Value, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.objs[constRootKey{&travs[0], root}]
	return v, ok
}

func (c *constRoots) put(travs []hcl.Traversal, root string, v cty.Value) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.objs == nil {
		c.objs = map[constRootKey]cty.Value{}
	}
	c.objs[constRootKey{&travs[0], root}] = v
}
