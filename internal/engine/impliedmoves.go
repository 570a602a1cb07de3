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
// Terraform configuration, each a pair of from and to (impliedMove): a
// resource that gained count keeps its no-key object as [0] (a → a[0]),
// and one that lost count and for_each keeps [0] as its one object
// (a[0] → a); not when a moved entry names the resource (the user chose
// another instance to keep).
func impliedMoves(cfg *config.Config, st *state.File) [][2]string {
	if !cfg.Terraform || st == nil {
		return nil
	}
	var out [][2]string
	for name := range st.Resources {
		if to, ok := impliedMove(cfg, st, name); ok {
			out = append(out, [2]string{name, to})
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return value.CompareNames(a[0], b[0]) })
	return out
}

// impliedMove is where OpenTofu moves name, a managed object's name in
// state st, without a moved block in Terraform configuration cfg: were
// count added (a → a[0]) or removed (a[0] → a), when the configuration
// names the destination and not name, the destination is not in state,
// and no moved entry names the resource. ok is false when it stays.
func impliedMove(cfg *config.Config, st *state.File, name string) (to string, ok bool) {
	if _, deposed := plan.DeposedOf(name); deposed || isDataAddr(name) {
		return "", false
	}
	var base string
	switch {
	case strings.HasSuffix(name, "[0]") && !strings.HasSuffix(name[:len(name)-3], "]"):
		base, to = name[:len(name)-3], name[:len(name)-3]
	case !strings.HasSuffix(name, "]"):
		base, to = name, value.InstanceName(name, 0)
	default:
		return "", false
	}
	if cfg.Resource(name) != nil || cfg.Resource(to) == nil || st.Resources[to] != nil || movedNames(cfg.Moved, base) {
		return "", false
	}
	return to, true
}

// isDataAddr reports whether a Terraform address is a data source's.
func isDataAddr(addr string) bool {
	return strings.HasPrefix(addr, "data.") || strings.Contains(addr, ".data.")
}

// movedNames reports whether a moved entry names resource base, one of
// its instances, or a module holding it.
func movedNames(moves []*config.Moved, base string) bool {
	names := func(end string) bool {
		// base is a resource's: nothing is inside it but its instances.
		return value.Within(end, base) || value.Within(base, end)
	}
	return slices.ContainsFunc(moves, func(m *config.Moved) bool { return names(m.From) || names(m.To) })
}
