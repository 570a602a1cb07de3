package tfmodule

import (
	"strings"

	version "github.com/hashicorp/go-version"
)

// selection is the outcome of choosing a registry module's version.
type selection struct {
	match  *version.Version // the newest version allowed, or nil
	newest *version.Version // the newest version listed (that may be chosen), or nil
	bad    []string         // listed versions that are no versions
}

// choose picks from listed, as OpenTofu does, the newest version that
// constraint (go-version's syntax, "" for any) allows. A pre-release is
// considered only when the constraint names exactly it ("1.3.0-beta1",
// "= 1.3.0-beta1"; OpenTofu's npm-style check, so nothing combined with
// another clause).
func choose(listed []string, constraint version.Constraints, raw string) selection {
	var s selection
	for _, l := range listed {
		v, err := version.NewVersion(l)
		if err != nil {
			s.bad = append(s.bad, l)
			continue
		}
		if v.Prerelease() != "" && !exactlyRequested(raw, v) {
			continue
		}
		if s.newest == nil || v.GreaterThan(s.newest) {
			s.newest = v
		}
		if constraint.Check(v) && (s.match == nil || v.GreaterThan(s.match)) {
			s.match = v
		}
	}
	return s
}

// exactlyRequested: raw is one exact selection of v (an optional "=",
// spaces and a "v" prefix allowed), as apparentlymart/go-versions'
// MeetingConstraintsString, which OpenTofu asks about pre-releases,
// has it.
func exactlyRequested(raw string, v *version.Version) bool {
	s := strings.TrimSpace(raw)
	s = strings.TrimPrefix(s, "=")
	s = strings.TrimLeft(s, " \tv")
	if s == "" || strings.ContainsAny(s, " \t,|<>~!^*") {
		return false
	}
	want, err := version.NewVersion(s)
	return err == nil && want.Equal(v) && want.Prerelease() == v.Prerelease()
}
