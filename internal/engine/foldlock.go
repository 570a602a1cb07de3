package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// A journal keeper outlives the apply that launched it: killed, that
// apply may leave one opening a note to make its create while the next
// apply folds. The keeper locks the note before it marks it asked, and
// holds the lock until the answer is kept; an apply's fold locks the notes
// it may close or remove (lockFolded) and decides on what they say then,
// so it never closes, as never asked, an intent whose create a keeper is
// making (docs/terraform-state.md, "journal keeper").

// lockFolded locks the notes of kept the fold may close or remove (all
// but those it leaves as they are: of an intent of another type, or asked
// and not answered), waiting up to Options.NoteWait for a keeper that
// holds one, and returns kept with them as read under the locks, and the
// func that lets go. A note still held then refuses the apply, naming its
// address.
func (e *Engine) lockFolded(ctx context.Context, box statemgr.AnswerBox, st *state.File, kept map[string][]byte) (map[string][]byte, func(), error) {
	var names []string
	address := map[string]string{}
	for name, data := range kept {
		a, err := state.DecodeAnswer(name, data)
		if err != nil {
			continue // trusted for nothing, and left
		}
		if typ, open := st.Interrupted[a.Address]; open && (typ != a.Type || a.Asked && a.Response == nil) {
			continue
		}
		names = append(names, name)
		address[name] = a.Address
	}
	if len(names) == 0 {
		return kept, func() {}, nil
	}
	slices.Sort(names)
	locked, unlock, err := box.LockNotes(ctx, names, e.opts.NoteWait)
	var held *statemgr.NoteHeldError
	switch {
	case errors.As(err, &held):
		return nil, nil, &KeeperBusyError{Address: address[held.Name], err: held}
	case err != nil:
		return nil, nil, fmt.Errorf("lock the kept answers to fold: %w", err)
	}
	for _, name := range names {
		if data, ok := locked[name]; ok {
			kept[name] = data
		} else {
			delete(kept, name) // removed since
		}
	}
	return kept, unlock, nil
}

// KeeperBusyError refuses an apply whose fold would close the intent of
// Address while a journal keeper of an earlier apply makes its create
// (its note locked past Options.NoteWait): the next apply folds what it
// answers.
type KeeperBusyError struct {
	Address string
	err     error
}

func (e *KeeperBusyError) Error() string {
	return e.Address + ": a journal keeper of an earlier apply is still making its create; apply again once it is done"
}

func (e *KeeperBusyError) Unwrap() error { return e.err }
