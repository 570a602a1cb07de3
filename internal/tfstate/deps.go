package tfstate

import (
	"slices"
	"strings"
)

// configDeps are Kyku's dependencies (resource instances) as OpenTofu
// writes an instance's dependencies: the resources they belong to, with
// no instance key on the resource or its modules (OpenTofu refuses a
// state whose dependencies hold one), each once, sorted.
func configDeps(deps []string) []string {
	if deps == nil {
		return nil
	}
	out := make([]string, 0, len(deps))
	for _, d := range deps {
		out = append(out, configAddr(d))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// configAddr is the resource an instance address is of
// (module.a["k"].x.y[0]: module.a.x.y); an address that does not parse is
// kept as it is.
func configAddr(s string) string {
	steps, err := parseSteps(s)
	if err != nil {
		return s
	}
	names := make([]string, len(steps))
	for i, st := range steps {
		names[i] = st.name
	}
	return strings.Join(names, ".")
}
