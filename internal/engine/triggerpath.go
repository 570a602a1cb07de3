package engine

import (
	"strconv"
	"strings"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/value"
)

// pathChanged reports whether a change's properties (diff paths:
// "input.note", "rule[0].port") change the value at attribute attr,
// then steps into it, as OpenTofu judges a replace_triggered_by entry
// naming a path: a change at or inside the path changes it; a change of
// a value holding the path changes it when the value there differs (or
// is not known yet).
func pathChanged(props []plan.PropChange, attr string, steps []value.Step) bool {
	paths := make([]string, len(steps)+1) // paths[k]: attr, then steps[:k]
	paths[0] = attr
	for i, st := range steps {
		if st.Splat() {
			steps, paths = steps[:i], paths[:i+1]
			break
		}
		if st.ByKey() {
			paths[i+1] = paths[i] + "." + st.Key
		} else {
			paths[i+1] = paths[i] + "[" + strconv.Itoa(st.Index) + "]"
		}
	}
	whole := paths[len(paths)-1]
	for _, pc := range props {
		if pc.Path == whole || strings.HasPrefix(pc.Path, whole+".") || strings.HasPrefix(pc.Path, whole+"[") {
			return true
		}
		for k, p := range paths[:len(paths)-1] {
			if pc.Path != p {
				continue
			}
			before, bKnown, bErr := value.Walk(pc.Old, steps[k:])
			after, aKnown, aErr := value.Walk(pc.New, steps[k:])
			if !bKnown || !aKnown || (bErr == nil) != (aErr == nil) || !value.Equal(before, after) {
				return true
			}
		}
	}
	return false
}
