package tfinstall

import (
	"fmt"
	"sort"

	version "github.com/hashicorp/go-version"
)

// Constraints is a version constraint as Terraform writes it: "3.3.1",
// "~> 6.0", ">= 1.2, < 2.0", "!= 1.4.0". Empty allows any version. A
// pre-release matches only a constraint naming it exactly.
type Constraints struct {
	text string
	c    version.Constraints
}

// ParseConstraints reads a constraint.
func ParseConstraints(s string) (Constraints, error) {
	if s == "" {
		return Constraints{}, nil
	}
	c, err := version.NewConstraint(s)
	if err != nil {
		return Constraints{}, fmt.Errorf("version constraint %q: %w", s, err)
	}
	return Constraints{text: s, c: c}, nil
}

func (c Constraints) String() string { return c.text }

// Allows reports whether v satisfies the constraint.
func (c Constraints) Allows(v *version.Version) bool {
	if c.c == nil {
		return v.Prerelease() == ""
	}
	return c.c.Check(v)
}

// newest returns the newest of vs that c allows, or nil.
func (c Constraints) newest(vs []*version.Version) *version.Version {
	sorted := append([]*version.Version(nil), vs...)
	sort.Sort(sort.Reverse(version.Collection(sorted)))
	for _, v := range sorted {
		if c.Allows(v) {
			return v
		}
	}
	return nil
}

// parseVersions parses the versions a mirror or registry lists, skipping
// what is no version.
func parseVersions(ss []string) []*version.Version {
	out := make([]*version.Version, 0, len(ss))
	for _, s := range ss {
		if v, err := version.NewVersion(s); err == nil {
			out = append(out, v)
		}
	}
	return out
}

func parseVersion(s string) (*version.Version, error) { return version.NewVersion(s) }
