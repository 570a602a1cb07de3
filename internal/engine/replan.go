package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// A saved plan is a promise about what apply does, and a file anyone who
// can write it may have edited (its digest is a checksum, not a signature).
// So apply keeps the promise itself: under the lock it plans the saved
// plan's own configuration again against the current state, and applies
// only when that plan makes exactly the changes the file lists
// (plan.ChangesDigest, the one definition of "the same plan" the PR review
// compares with too). What was shown is then what is applied.

// MismatchError refuses a saved plan whose changes are not what its own
// configuration plans against the current state: the file was edited, or
// the cloud changed since it was planned. Nothing was changed; plan again.
type MismatchError struct {
	Reason string // the first difference, for people
	Saved  string // the saved plan's changes digest
	Fresh  string // the fresh plan's
}

func (e *MismatchError) Error() string {
	return "saved plan refused: planning its configuration again against the current state gives other changes than it lists (" +
		e.Reason + "): it was edited, or the cloud changed since it was planned; nothing was changed, plan again"
}

// IsMismatch reports whether err is a *MismatchError.
func IsMismatch(err error) bool {
	var m *MismatchError
	return errors.As(err, &m)
}

// replan plans saved's configuration again against st (locked; nil when
// there is no state) and returns that plan when its changes are the saved
// plan's, else a *MismatchError. A first plan is planned again against the
// stand-in state it was planned against: no state, the prefix it chose.
func (e *Engine) replan(ctx context.Context, saved *plan.Plan, st *state.File) (*plan.Plan, error) {
	var (
		fresh *plan.Plan
		err   error
	)
	if saved.Destroy {
		if st == nil {
			return nil, &StaleError{Reason: "the state it was planned against no longer exists"}
		}
		if fresh, err = e.planDestroy(ctx, st); err == nil {
			fresh.CreatedAt = saved.CreatedAt
		}
	} else {
		d := st
		if d == nil || d.Metadata.Prefix == "" {
			d = draftWith(st, saved.Prefix, e.opts.Env)
		}
		fresh, err = e.plan(ctx, saved.Config.Clone(), d, st != nil, savedPlanOptions(saved, saved.Targets))
	}
	if err != nil {
		return nil, fmt.Errorf("plan the saved plan's configuration again: %w", err)
	}
	want, err := plan.ChangesDigest(saved)
	if err != nil {
		return nil, err
	}
	got, err := plan.ChangesDigest(fresh)
	if err != nil {
		return nil, err
	}
	if got != want {
		return nil, &MismatchError{Reason: difference(saved, fresh), Saved: want, Fresh: got}
	}
	// A provider's own plan is applied as it is: the bytes it planned now
	// must be the saved plan's (the digest shows their values, not them).
	for i := range saved.Changes {
		s, f := &saved.Changes[i], &fresh.Changes[i]
		if s.Action != plan.NoOp && !s.Planned.Same(f.Planned) {
			return nil, &MismatchError{Reason: fmt.Sprintf("%s %s: its provider's planned state or private data differ", s.Action, value.QuoteName(s.ResourceID)), Saved: want, Fresh: got}
		}
	}
	return fresh, nil
}

// draftWith is draft with the prefix a saved first plan chose.
func draftWith(st *state.File, prefix, env string) *state.File {
	if st == nil {
		return state.New(prefix, "", env)
	}
	d := *st
	d.Metadata.Prefix = prefix
	return &d
}

// difference names the first way fresh differs from saved, for people.
func difference(saved, fresh *plan.Plan) string {
	fc := make(map[string]*plan.Change, len(fresh.Changes))
	for i := range fresh.Changes {
		fc[fresh.Changes[i].ResourceID] = &fresh.Changes[i]
	}
	seen := make(map[string]bool, len(saved.Changes))
	for i := range saved.Changes {
		s := &saved.Changes[i]
		seen[s.ResourceID] = true
		f := fc[s.ResourceID]
		name := value.QuoteName(s.ResourceID)
		switch {
		case f == nil:
			return fmt.Sprintf("the file lists %s %s, planning again does not touch it", s.Action, name)
		case f.Action != s.Action:
			return fmt.Sprintf("the file says %s %s, planning again says %s", s.Action, name, f.Action)
		case len(f.Properties) != len(s.Properties):
			return fmt.Sprintf("%s %s: the file lists %d property changes, planning again %d", s.Action, name, len(s.Properties), len(f.Properties))
		}
		for j := range s.Properties {
			sp, fp := s.Properties[j], f.Properties[j]
			if sp.Path != fp.Path || sp.ForcesReplace != fp.ForcesReplace || sp.Unknown != fp.Unknown ||
				(!sp.Sensitive && !fp.Sensitive && (!value.Equal(sp.Old, fp.Old) || !value.Equal(sp.New, fp.New))) {
				return fmt.Sprintf("%s %s: the file shows %s, planning again %s", s.Action, name, propText(sp), propText(fp))
			}
		}
	}
	for _, f := range fresh.Changes {
		if !seen[f.ResourceID] {
			return fmt.Sprintf("planning again says %s %s, the file does not list it", f.Action, value.QuoteName(f.ResourceID))
		}
	}
	return "the changes' details differ"
}

func propText(pc plan.PropChange) string {
	if pc.Sensitive {
		return pc.Path + " (sensitive)"
	}
	s := pc.Path + ": " + oneLine(value.Text(pc.Old)) + " → " + oneLine(value.Text(pc.New))
	if len(s) > 120 {
		s = s[:117] + "…"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// savedPlanOptions are the options a saved plan is planned again with at
// apply (whole, or limited to targets): its own replaces, refresh mode and
// time; whether it destroys everything was judged when it was made.
func savedPlanOptions(saved *plan.Plan, targets []string) PlanOptions {
	return PlanOptions{Targets: targets, Exclude: saved.Exclude, Replace: saved.Replace, AllowDestroyAll: true, createdAt: saved.CreatedAt, Refresh: savedRefresh(saved)}
}
