package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// A Terraform provider's create whose intent is journaled (intent.go) is
// made through the provider's journal keeper (package tfplugin), which
// writes the provider's answer to the state's answer box (answerBox:
// beside a local state, this machine's for a remote one) before the
// engine has it: an apply killed then (a SIGKILL of its process group)
// leaves the intent open and the answer kept. The next plan and apply
// fold the answer into the state before planning (the apply writes the
// state so), so the create is neither refused nor made again. An answer
// is trusted for nothing the state's own intent does not name: its
// address must hold an open intent of its type, and state must not hold
// the object under another name. Where the keeper died too (the whole
// machine), the intent stays open, refused until imported or forgotten.

// answerBox is the backend's box of kept answers (a local state's, beside
// it), or else the one this machine keeps for the state (Options.Answers:
// a remote state's); nil when neither is.
func (e *Engine) answerBox() statemgr.AnswerBox {
	if k, ok := e.backend.(statemgr.AnswerKeeper); ok {
		if box := k.AnswerBox(); box != nil {
			return box
		}
	}
	return e.opts.Answers
}

// noteCreate, before the intent of the create of name (of type typ) is
// journaled, notes it in the answer box when its provider's keeper will
// keep the answer: it returns where and the note's Note, which the call
// to the keeper names ("": nowhere, the create is not kept).
func (e *Engine) noteCreate(ctx context.Context, name, typ string) (path, note string, err error) {
	box := e.answerBox()
	if box == nil || !e.provider.KeepsAnswers(typ) {
		return "", "", nil
	}
	note = state.NewNote()
	if err := box.Note(ctx, state.Answer{Address: name, Type: typ, Note: note}); err != nil {
		return "", "", err
	}
	return box.AnswerPath(name), note, nil
}

// dropAnswer removes the answer kept of name's create once what it made
// is recorded; one left behind (the apply killed before) is removed by
// the next fold, its intent closed.
func (e *Engine) dropAnswer(ctx context.Context, name string) error {
	if box := e.answerBox(); box != nil {
		return box.RemoveAnswer(ctx, state.AnswerName(name))
	}
	return nil
}

// releaseNotes, once no change is in flight, lets go of the files the
// answer box reused for this apply's notes. Failing that leaves them,
// named as half-written notes, for the next apply's fold to remove: not
// the apply's failure.
func (e *Engine) releaseNotes(ctx context.Context) {
	if box := e.answerBox(); box != nil {
		_ = box.ReleaseNotes(ctx)
	}
}

// foldAnswers folds the kept answers into st for cfg: each answered
// object is recorded at its address, as an import records it, and its
// intent closed; an answer without an object closes its intent. With
// write (an apply, under the whole state's lock) the state is written,
// then the answers folded and those no intent names are removed;
// without, the state returned is st's copy with them folded (a plan).
func (e *Engine) foldAnswers(ctx context.Context, cfg *config.Config, st *state.File, write bool) (*state.File, error) {
	next, unlock, err := e.fold(ctx, cfg, st, write, write)
	unlock()
	return next, err
}

// fold is foldAnswers; with locked (an apply, under the whole state's
// lock) it first locks the notes it may close or remove against a
// journal keeper of an earlier apply still making their creates
// (lockFolded), and decides on them as read under those locks, held
// until unlock.
func (e *Engine) fold(ctx context.Context, cfg *config.Config, st *state.File, write, locked bool) (_ *state.File, unlock func(), _ error) {
	unlock = func() {}
	box := e.answerBox()
	if box == nil || st == nil || cfg == nil || e.opts.Leases != nil {
		return st, unlock, nil // a leased apply folds none: its plan neither
	}
	if !write && len(st.Interrupted) == 0 {
		// Only an open intent takes an answer: a plan of a state with
		// none has nothing to fold, and need not read the box (the
		// keepers' logs an apply's renewed processes left, a megabyte
		// each, until the next apply clears them).
		return st, unlock, nil
	}
	if write {
		if err := box.ClearNotes(ctx); err != nil {
			return nil, unlock, err
		}
	}
	kept, err := box.Answers(ctx)
	if err != nil || len(kept) == 0 {
		return st, unlock, err
	}
	if locked {
		if kept, unlock, err = e.lockFolded(ctx, box, st, kept); err != nil {
			return nil, func() {}, err
		}
	}
	next, err := e.foldKept(ctx, cfg, st, kept, box, write)
	if err != nil {
		unlock()
		return nil, func() {}, err
	}
	return next, unlock, nil
}

// foldKept folds kept (the box's answers) into st, as foldAnswers.
func (e *Engine) foldKept(ctx context.Context, cfg *config.Config, st *state.File, kept map[string][]byte, box statemgr.AnswerBox, write bool) (*state.File, error) {
	next := st.Clone()
	changed := false
	var done []string // answers used up: folded, or naming no open intent
	for _, name := range slices.Sorted(maps.Keys(kept)) {
		a, err := state.DecodeAnswer(name, kept[name])
		if err != nil {
			continue // not one the keeper wrote: kept, trusted for nothing
		}
		typ, open := next.Interrupted[a.Address]
		switch {
		case !open:
			done = append(done, name) // recorded, or forgotten, already
			continue
		case typ != a.Type:
			continue
		}
		folded, err := e.foldAnswer(ctx, cfg, next, a)
		if err != nil {
			return nil, err
		}
		if folded {
			changed = true
			done = append(done, name)
		}
	}
	if !write {
		return next, nil
	}
	if changed {
		if _, err := e.rewrite(ctx, st, func(f *state.File) ([]string, error) {
			*f = *next
			return nil, nil
		}); err != nil {
			return nil, fmt.Errorf("fold the kept answers: %w", err)
		}
		next.Metadata.Serial = st.Metadata.Serial + 1
	}
	for _, name := range done {
		if err := box.RemoveAnswer(ctx, name); err != nil {
			return nil, err
		}
	}
	if len(done) > 0 {
		// What the keepers logged of the answers removed is needed no
		// more either.
		if err := box.ClearNotes(ctx); err != nil {
			return nil, err
		}
	}
	return next, nil
}

// foldAnswer folds a, whose address holds an open intent of its type,
// into st; it reports whether it did (an answer it cannot use leaves the
// intent open, and refused).
func (e *Engine) foldAnswer(ctx context.Context, cfg *config.Config, st *state.File, a state.Answer) (bool, error) {
	switch {
	case !a.Asked:
		// Noted before the intent, never asked for: no object.
		delete(st.Interrupted, a.Address)
		return true, nil
	case a.Response == nil:
		return false, nil // asked, and the keeper died too: refused
	}
	o, err := e.provider.Answered(ctx, a.Type, a.Response)
	switch {
	case errors.Is(err, provider.ErrNoObject):
		delete(st.Interrupted, a.Address)
		return true, nil
	case errors.Is(err, provider.ErrUnusableAnswer), errors.Is(err, provider.ErrNotSupported):
		return false, nil // not an answer this provider keeps
	}
	cr := cfg.Resource(a.Address)
	switch {
	case cr == nil || cr.Type != a.Type:
		// Not in the configuration as its type (removed, or its type
		// renamed by a newer provider, which then cannot read it): the
		// intent stays refused, with its way out, and no run fails on it.
		return false, nil
	case err != nil:
		// The provider did not start, or could not say its schema: the
		// run's failure, said as such, not the answer's refusal.
		return false, fmt.Errorf("fold the kept answer of %s: %w", a.Address, err)
	}
	for _, sr := range st.Resources {
		if sr.Type == a.Type && sr.ProviderID == o.ID {
			return false, nil // the state holds that object already
		}
	}
	// The address holds the object a create-before-destroy replace was
	// replacing: the answer's object takes the address and the old one
	// is deposed, as an import of it does (intentreplace.go), and the
	// apply destroys it.
	depose, err := replacedByInterrupted(st, a.Address)
	if err != nil || depose && st.Resources[a.Address].Type != a.Type {
		return false, nil
	}
	g, _, err := e.Graph(ctx, cfg)
	if err != nil {
		return false, err
	}
	if depose {
		deposeFor(st, a.Address)
	}
	st.Resources[a.Address] = importedResource(cr, importedObject(o), g.Deps(a.Address), nil)
	delete(st.Interrupted, a.Address)
	return true, nil
}

// markLeased marks in ie, err's, the names whose create's answer box
// holds: an answer (Response set) that a leased apply does not fold.
func (e *Engine) markLeased(ctx context.Context, box statemgr.AnswerBox, ie *InterruptedError, err error) error {
	kept, rerr := box.Answers(ctx)
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	for _, n := range ie.Names {
		name := state.AnswerName(n)
		if a, derr := state.DecodeAnswer(name, kept[name]); derr != nil || a.Address != n || a.Response == nil {
			continue
		}
		if ie.Leased == nil {
			ie.Leased = map[string]bool{}
		}
		ie.Leased[n] = true
	}
	return err
}

// markUnkept marks, in err (refuseInterrupted's), the names of a remote
// state (its box this machine's: Options.Answers) whose create's answer a
// journal keeper would have kept in the box and none is there
// (InterruptedError.Unkept): the apply that was interrupted ran on
// another machine, or without a keeper. What the box holds otherwise (a
// note asked and never answered) says the keeper died too. Under leases,
// it marks the names whose answer is there instead
// (InterruptedError.Leased): a leased apply folds none.
func (e *Engine) markUnkept(ctx context.Context, st *state.File, err error) error {
	var ie *InterruptedError
	box := e.answerBox()
	if !errors.As(err, &ie) || box == nil || box != e.opts.Answers {
		return err
	}
	if e.opts.Leases != nil {
		return e.markLeased(ctx, box, ie, err)
	}
	kept, rerr := box.Answers(ctx)
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	for _, n := range ie.Names {
		if _, here := kept[state.AnswerName(n)]; here || !e.provider.KeepsAnswers(st.Interrupted[n]) {
			continue
		}
		if ie.Unkept == nil {
			ie.Unkept = map[string]bool{}
		}
		ie.Unkept[n] = true
	}
	return err
}
