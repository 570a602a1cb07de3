package action

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/command"
	"github.com/kyku/action/internal/config"
)

// A runner is thrown away after its job, and local state with it: the
// state, the lock, and the saved plan that a merge applies. The next run
// finds no state and plans everything as new. So the Action refuses every
// configuration it loads whose backend is local (configured, or by
// default) unless the workflow accepts that (input local-state: allow).
// Every configuration is checked, wherever it comes from: the checkout,
// the default branch, and a pull request's head. A pull request that moves
// the state to a local backend is therefore refused when it is planned, as
// its merge would be when applied.

// LocalState is input local-state.
type LocalState int

// The values of input local-state.
const (
	RefuseLocalState LocalState = iota // the default
	AllowLocalState
)

// String is the input's spelling.
func (l LocalState) String() string {
	if l == AllowLocalState {
		return "allow"
	}
	return "refuse"
}

// LocalStateError says that a configuration keeps its state in a local
// backend on a runner, and how to fix it. Nothing was opened.
type LocalStateError struct {
	File  string // the configuration file, repository-relative
	Line  int    // the backend's line; 0 when there is no backend key
	Where string // the ref or "the checkout"
}

func (e *LocalStateError) Error() string {
	what := fmt.Sprintf("%s (at %s) has no backend, so its state is local", e.File, e.Where)
	if e.Line > 0 {
		what = fmt.Sprintf("%s:%d (at %s): the backend is local", e.File, e.Line, e.Where)
	}
	return what + ": on a runner, state and saved plans vanish with the runner. " +
		"Configure an s3, gcs, spaces or http backend (its credentials from the workflow), " +
		"or set input local-state: allow to accept that"
}

// IsLocalState reports whether err is a *LocalStateError.
func IsLocalState(err error) bool {
	var l *LocalStateError
	return errors.As(err, &l)
}

// checkLocalState refuses cfg, loaded at where, when its state is local
// and input local-state does not allow it.
func (r *run) checkLocalState(cfg *config.Config, where string) error {
	if cfg == nil || r.in.LocalState == AllowLocalState {
		return nil
	}
	b := cfg.Backend
	if b != nil && b.Type != "" && b.Type != "local" {
		return nil
	}
	e := &LocalStateError{Where: where}
	if len(cfg.Files) > 0 {
		e.File = cfg.Files[0]
	}
	if b != nil && b.Pos.File != "" {
		e.File, e.Line = b.Pos.File, b.Pos.Line
	}
	return e
}

// localStateRefusal is the refusal of a run whose backend would come from
// a configuration that keeps its state locally: checked first, before the
// run reads or writes anything else. Any other error loading that
// configuration is left to the use case, which says it in its own terms.
// A comment that holds no /kyku command is let through unread: it is
// ignored anyway, and reading the default branch's archive on every
// comment would cost every repository a download.
func (r *run) localStateRefusal(ctx context.Context) error {
	if r.in.LocalState == AllowLocalState {
		return nil
	}
	if c := r.ev.Comment; r.ghctx.EventName == "issue_comment" && c != nil {
		if _, ok := command.Parse(c.Body); !ok || r.ev.Action != "created" {
			return nil
		}
	}
	if _, err := r.deps.Trusted(ctx); IsLocalState(err) {
		return err
	}
	return nil
}
