package tfcorpus

import (
	"sort"
)

// Plan is a plan in the shape both sides are compared in.
type Plan struct {
	Changes []Change          // sorted by address, a deposed object after the current one
	Outputs map[string]Output // the root module's outputs, by name
}

// Change is the planned change of one resource instance (or of one of its
// deposed objects).
type Change struct {
	Address         string
	Deposed         bool     // the change is to a deposed object of Address (its key is not compared)
	PreviousAddress string   // a moved object: the address state knew it by
	Importing       string   // an import: the ID it imports by
	Actions         []string // OpenTofu's: ["create"], ["delete", "create"], ["create", "delete"], …
	// After is the planned value: Unknown where known only after apply,
	// Masked where a side hides a sensitive value, nil for a delete or
	// forget. Object attributes that are null are left out.
	After any
	// Sensitive are the paths of After's sensitive values (Path syntax),
	// sorted; a path covers everything under it.
	Sensitive []string
}

// Output is the planned change of a root module output.
type Output struct {
	Action    string // "create", "update", "delete" or "no-op"
	Value     any    // as Change.After
	Sensitive bool
}

// Marker stands for a value a plan does not show.
type Marker string

const (
	// Unknown is a value known only after apply.
	Unknown Marker = "(known after apply)"
	// Masked is a sensitive value a plan does not show in clear (Kyku's
	// plan --json never does).
	Masked Marker = "(sensitive)"
)

// Number is a JSON number in canonical form (see canonicalNumber), so
// that 1, 1.0 and 1e0 compare equal.
type Number string

// sortChanges orders changes by address, the current object first.
func sortChanges(cs []Change) {
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Address != cs[j].Address {
			return cs[i].Address < cs[j].Address
		}
		return !cs[i].Deposed && cs[j].Deposed
	})
}
