package engine

import (
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// impliedMoves are the moves OpenTofu makes without a moved block in a
// Terraform configuration, each a pair of from and to: a resource that
// gained count keeps its no-key object as [0] (a → a[0]), and one that
// lost count and for_each keeps [0] as its one object (a[0] → a). Only
// when the destination is configured and not in state, and no moved
// entry names the resource (the user chose another instance to keep).
func impliedMoves(cfg *config.Config, st *state.File) [][2]string {
	if !cfg.Terraform || st == nil {
		return nil
	}
	var out [][2]string
	for name := range st.Resources {
		if _, deposed := plan.DeposedOf(name); deposed || isDataAddr(name) {
			continue
		}
		base, to, ok := impliedTarget(name)
		if !ok || cfg.Resource(to) == nil || st.Resources[to] != nil || movedNames(cfg.Moved, base) {
			continue
		}
		out = append(out, [2]string{name, to})
	}
	slices.SortFunc(out, func(a, b [2]string) int { return value.CompareNames(a[0], b[0]) })
	return out
}

// impliedTarget is where OpenTofu would move state name (of resource
// base) were count added (a → a[0]) or removed (a[0] → a); ok is false
// for another instance.
func impliedTarget(name string) (base, to string, ok bool) {
	switch {
	case strings.HasSuffix(name, "[0]") && !strings.HasSuffix(name[:len(name)-3], "]"):
		return name[:len(name)-3], name[:len(name)-3], true
	case !strings.HasSuffix(name, "]"):
		return name, value.InstanceName(name, 0), true
	}
	return "", "", false
}

// isDataAddr reports whether a Terraform address is a data source's.
func isDataAddr(addr string) bool {
	return strings.HasPrefix(addr, "data.") || strings.Contains(addr, ".data.")
}

// movedNames reports whether a moved entry names resource base, one of
// its instances, or a module holding it.
func movedNames(moves []*config.Moved, base string) bool {
	names := func(end string) bool {
		return end == base || strings.HasPrefix(end, base+"[") || strings.HasPrefix(base, end+".") || strings.HasPrefix(base, end+"[")
	}
	return slices.ContainsFunc(moves, func(m *config.Moved) bool { return names(m.From) || names(m.To) })
}
