package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/value"
)

// Dropping an interrupted create's intent (ApplyOptions.ForgetInterrupted)
// is part of what an apply or destroy plans and does: the plan is made
// against the state without those intents and lists them
// (plan.Plan.ForgetInterrupted); the state keeps them until the confirmed
// apply journals their drop, first of its changes (journalForgets). A
// plan declined or refused leaves them open.

// forgetting is st as an apply that drops the intents of names plans
// against: a copy without them (st itself is not changed), and the names
// as state holds them, sorted. A name st holds no intent for is refused.
func (e *Engine) forgetting(ctx context.Context, st *state.File, names []string) (*state.File, []string, error) {
	if len(names) == 0 {
		return st, nil, nil
	}
	if st == nil {
		return nil, nil, fmt.Errorf("--forget-interrupted %s: there is no state in %s", shellWord(names[0]), e.backend.Describe())
	}
	var norm []string
	for _, n := range names {
		if a, ok := value.ParseAddress(n); ok {
			n = a.String()
		}
		if _, ok := st.Interrupted[n]; !ok {
			return nil, nil, fmt.Errorf("--forget-interrupted %s: no create of it was interrupted", shellWord(n))
		}
		if !slices.Contains(norm, n) {
			norm = append(norm, n)
		}
	}
	slices.Sort(norm)
	if err := e.refuseForgettingAnAnswer(ctx, norm); err != nil {
		return nil, nil, err
	}
	view := *st
	view.Interrupted = maps.Clone(st.Interrupted)
	for _, n := range norm {
		delete(view.Interrupted, n)
	}
	if len(view.Interrupted) == 0 {
		view.Interrupted = nil
	}
	return &view, norm, nil
}

// journalForgets drops from state, durably (an OpNoObject entry each),
// the intents p forgets, before any other change runs; it returns the
// state the rest of the apply starts from and the last journal sequence
// number used.
func (e *Engine) journalForgets(ctx context.Context, st *state.File, p *plan.Plan) (*state.File, int64, error) {
	if len(p.ForgetInterrupted) == 0 {
		return st, 0, nil
	}
	next := st.Clone()
	var seq int64
	for _, n := range p.ForgetInterrupted {
		if _, ok := next.Interrupted[n]; !ok {
			return nil, 0, fmt.Errorf("apply: --forget-interrupted %s: no create of it was interrupted", shellWord(n))
		}
		seq++
		entry := state.Entry{
			Seq: seq, BaseSerial: st.Metadata.Serial, Lineage: st.Metadata.Lineage,
			Op: state.OpNoObject, Name: n,
		}
		if err := journalOf(ctx, e.backend).Append(ctx, entry); err != nil {
			return nil, 0, fmt.Errorf("journal the drop of %q's intent: %w", n, err)
		}
		delete(next.Interrupted, n)
	}
	if len(next.Interrupted) == 0 {
		next.Interrupted = nil
	}
	return next, seq, nil
}

// refuseInterruptedDestroy refuses to destroy what st holds while it
// holds an open intent: the object that create may have made would be
// left, unmanaged, by a destroy that reports everything destroyed.
func refuseInterruptedDestroy(st *state.File) error {
	if len(st.Interrupted) == 0 {
		return nil
	}
	return &InterruptedError{Names: slices.Sorted(maps.Keys(st.Interrupted)), Destroy: true}
}

// refuseForgettingAnAnswer refuses to forget the intent of a name whose
// create's answer its journal keeper kept (answers.go): the answer may
// name the object the create made, and forgetting would lose its only
// record. An apply's fold records it, when it can (a plan folds in
// memory only); else the user imports the object the answer names.
func (e *Engine) refuseForgettingAnAnswer(ctx context.Context, names []string) error {
	box := e.answerBox()
	if box == nil {
		return nil
	}
	kept, err := box.Answers(ctx)
	if err != nil {
		return err
	}
	for _, n := range names {
		name := state.AnswerName(n)
		a, err := state.DecodeAnswer(name, kept[name])
		if err != nil || a.Address != n || a.Response == nil {
			continue
		}
		run := "run kyku apply without --forget-interrupted, which records it"
		if e.opts.Leases != nil {
			run = "run kyku apply without --forget-interrupted and with leases: false in the backend block (an apply that leases folds no answer), which records it"
		}
		return fmt.Errorf("--forget-interrupted %s: the provider's answer to its create is kept in %s and may name the object it made: %s, or import that object (kyku import %s ID)", shellWord(n), box.AnswerPath(n), run, shellWord(n))
	}
	return nil
}
