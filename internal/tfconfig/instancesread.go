package tfconfig

import (
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// instancesRead says which instances of module call name the traversals
// travs read: nil when one of them reads the call whole (no index, an
// index not known before evaluation, a splat); otherwise the indexes
// they name, literally (module.site["a"], module.net[0]). Only those
// instances' outputs need evaluating: the expression cannot reach the
// others, which callValue leaves unknown. As outputsRead does for the
// outputs of an instance, this spares an output that reads one instance
// of a call with many from evaluating them all.
func instancesRead(travs []hcl.Traversal, name string) []cty.Value {
	var out []cty.Value
	for _, t := range travs {
		if t.RootName() != "module" {
			continue
		}
		if n, ok := stepName(t, 1); !ok || n != name {
			continue
		}
		if len(t) < 3 {
			return nil
		}
		idx, ok := t[2].(hcl.TraverseIndex)
		if !ok || !idx.Key.IsKnown() || idx.Key.IsNull() {
			return nil
		}
		out = append(out, idx.Key)
	}
	return out
}

// readsInstance reports whether an expression reading the indexes read
// (instancesRead; nil: every instance) reads instance k of a call
// repeated as rep.
func readsInstance(read []cty.Value, rep repetition, k instKey) bool {
	if read == nil || rep == single {
		return true
	}
	for _, idx := range read {
		switch {
		case rep == counted && idx.Type() == cty.Number:
			if n, acc := idx.AsBigFloat().Int64(); acc == big.Exact && int(n) == k.index {
				return true
			}
		case rep == eached && idx.Type() == cty.String:
			if idx.AsString() == k.key {
				return true
			}
		default:
			return true // an index HCL converts first ("0" of a count): kept
		}
	}
	return false
}
