package cli

import (
	"context"
	"errors"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// readOnlyState is a backend migrate check plans through: it reads, takes
// no lock (as tofu plan -lock=false, so that a check never stands in the
// way of a team's applies) and writes nothing, by construction.
type readOnlyState struct{ statemgr.Backend }

var _ statemgr.Backend = readOnlyState{}

// errReadOnly is what a write through readOnlyState returns.
var errReadOnly = errors.New("migrate check reads the state only: nothing is written")

func (readOnlyState) Lock(_ context.Context, info statemgr.LockInfo) (statemgr.Lock, error) {
	return noLock{info}, nil
}
func (readOnlyState) ForceUnlock(context.Context, string) error { return errReadOnly }
func (readOnlyState) Write(context.Context, *state.File, statemgr.WriteOptions) error {
	return errReadOnly
}
func (readOnlyState) Append(context.Context, state.Entry) error { return errReadOnly }
func (readOnlyState) ClearJournal(context.Context) error        { return errReadOnly }
func (readOnlyState) Backup(context.Context, *state.File) (string, error) {
	return "", errReadOnly
}
func (readOnlyState) PutObject(context.Context, string, []byte) error { return errReadOnly }

// noLock is the lock readOnlyState hands out: none is held.
type noLock struct{ info statemgr.LockInfo }

func (l noLock) Info() statemgr.LockInfo    { return l.info }
func (noLock) Unlock(context.Context) error { return nil }
