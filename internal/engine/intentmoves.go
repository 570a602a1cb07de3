package engine

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/diag"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// A move carries an interrupted create's open intent with the name: the
// object that create may have made belongs to the new name, which a plan
// then refuses to create again as it would the old (intent.go). A moved
// entry whose from holds only an intent (the create never answered, so
// no object is in state to move) is refused, naming the way: kyku state
// mv carries the intent, and the new name is then imported or forgotten.

// carryIntents moves, in view (a copy of a state whose Resources the
// moves in do already renamed), the intents of the names moved.
func carryIntents(view *state.File, do [][2]string) error {
	var carried bool
	for _, pair := range do {
		if _, ok := view.Interrupted[pair[0]]; !ok {
			continue
		}
		if !carried {
			view.Interrupted, carried = maps.Clone(view.Interrupted), true
		}
		if err := view.MoveIntent(pair[0], pair[1]); err != nil {
			return err
		}
	}
	return nil
}

// refuseIntentMove refuses m when a name it moves is in st only as the
// open intent of an interrupted create: the move would leave the intent
// behind and the new name would be created again, a second object.
func refuseIntentMove(diags *diag.Diagnostics, m *config.Moved, st *state.File) {
	for _, n := range slices.Sorted(maps.Keys(st.Interrupted)) {
		if st.Resources[n] != nil {
			continue // the resource moves, and its intent with it (carryIntents)
		}
		to := m.To
		switch {
		case n == m.From:
		case m.Whole() && value.BaseName(n) == m.From:
			to += n[len(m.From):]
		default:
			continue
		}
		diags.Add(m.Pos, "moved %s → %s: an apply was interrupted while creating %s and the object it may have made is in no state, so the move would leave it behind: "+
			"carry its intent with kyku state mv %s %s, then import it there or drop the intent (kyku apply --forget-interrupted %s)",
			m.From, m.To, n, shellWord(n), shellWord(to), shellWord(to))
	}
}

// refuseImpliedIntentMoves refuses, in a Terraform configuration, an
// intent alone at a name OpenTofu would move without a moved block (count
// added: a → a[0]; removed: a[0] → a): the new name would be created
// again beside the object the interrupted create may have made.
func refuseImpliedIntentMoves(cfg *config.Config, st *state.File) error {
	if !cfg.Terraform || st == nil || len(st.Interrupted) == 0 {
		return nil
	}
	var lines []string
	for _, n := range slices.SortedFunc(maps.Keys(st.Interrupted), value.CompareNames) {
		if st.Resources[n] != nil {
			continue // the resource moves, and its intent with it
		}
		to, ok := impliedMove(cfg, st, n)
		if !ok {
			continue
		}
		if _, open := st.Interrupted[to]; open {
			continue // refused as to's own
		}
		lines = append(lines, fmt.Sprintf("%s: an apply was interrupted while creating it and the object it may have made is in no state; the configuration now names it %s (count added or removed), which would be created again: "+
			"carry its intent with kyku state mv %s %s, then import it there or drop the intent (kyku apply --forget-interrupted %s)",
			n, to, shellWord(n), shellWord(to), shellWord(to)))
	}
	if len(lines) == 0 {
		return nil
	}
	return errors.New(strings.Join(lines, "\n"))
}
