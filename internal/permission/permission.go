// Package permission owns the one table of a person's permission levels
// on a GitHub repository, weakest first: none < read < triage < write <
// maintain < admin. Review rules require a level (who may plan, apply,
// approve); the GitHub client reads one. It is pure and safe for
// concurrent use.
package permission

import (
	"slices"
	"strings"
)

// Level is a permission level on a repository.
type Level string

// The levels, weakest first.
const (
	None     Level = "none"
	Read     Level = "read"
	Triage   Level = "triage"
	Write    Level = "write"
	Maintain Level = "maintain"
	Admin    Level = "admin"
)

// table is every level, weakest first.
var table = [...]Level{None, Read, Triage, Write, Maintain, Admin}

func (l Level) String() string { return string(l) }

// rank is l's place in the table, -1 for an unknown level; case does not
// matter.
func rank(l Level) int {
	return slices.Index(table[:], Level(strings.ToLower(string(l))))
}

// AtLeast reports whether l is min or stronger. An unknown level on
// either side fails closed.
func (l Level) AtLeast(min Level) bool {
	have, want := rank(l), rank(min)
	return have >= 0 && want >= 0 && have >= want
}

// Parse reads a level (any case); ok is false for anything else.
func Parse(s string) (l Level, ok bool) {
	if i := rank(Level(s)); i >= 0 {
		return table[i], true
	}
	return "", false
}

// Required reads a level a rule may require: any but none. ok is false
// for anything else.
func Required(s string) (Level, bool) {
	l, ok := Parse(s)
	return l, ok && l != None
}

// Names are the levels a rule may require, weakest first ("read",
// "triage", "write", "maintain", "admin"), for messages and inputs.
func Names() []string {
	out := make([]string, 0, len(table)-1)
	for _, l := range table[1:] {
		out = append(out, string(l))
	}
	return out
}
