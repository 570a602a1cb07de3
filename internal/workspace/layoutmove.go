package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/durable"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// A configuration whose local state is still in .kyku (the old layout) has
// it moved to .kyku-state on its next run, with one notice. The move:
//
//   - holds .kyku's state lock, as an older kyku's run did: a running one
//     is not moved under (the move waits up to LockTimeout, then refuses);
//   - moves only the names Kyku wrote there (legacyOwner) for the owners
//     left at their default place; settings and a user's files stay;
//   - renames each into a staging directory inside .kyku, then renames
//     that to .kyku-state in one step (or, when .kyku-state exists, each
//     entry into it). Every step is an atomic rename on one file system,
//     so a move cut short loses nothing: each file is in .kyku, the
//     staging directory or .kyku-state, and the next run finishes it;
//   - refuses, moving nothing, when .kyku-state already holds state of
//     the same owners (both places in use: which is current is the
//     user's call).

// stagingName is the directory inside .kyku that files move through.
const stagingName = ".kyku-state.moving"

// LayoutMove is what one move did.
type LayoutMove struct {
	Old, New string   // the directories, as the user would type them
	Moved    []string // the names moved, sorted; directories end in "/"
}

// mover moves one configuration's files from .kyku to .kyku-state.
type mover struct {
	base   string // the configuration's directory
	owners owner  // whose files move
	// rename is os.Rename; tests cut the move short with it.
	rename func(oldpath, newpath string) error
}

// MoveLayout moves what an older kyku kept in baseDir/.kyku (local state,
// the sim's cloud, fetched providers) to baseDir/.kyku-state, as
// OpenConfigBackend does for a configuration at its default places: for
// callers that open a backend themselves (the Go API). It returns nil
// when nothing was moved.
func MoveLayout(ctx context.Context, baseDir string, s Settings) (*LayoutMove, error) {
	m := mover{base: baseDir, owners: ownsState | ownsSimCloud | ownsProviders, rename: os.Rename}
	return m.move(ctx, s)
}

// moveLayout moves cfg's files from the old layout, telling s.Notify.
// Nothing happens without a BaseDir, or for what reads no state
// (NoFormerCheck).
func (s Settings) moveLayout(ctx context.Context, cfg *config.Config) error {
	if s.BaseDir == "" || s.NoFormerCheck {
		return nil
	}
	m := mover{base: s.BaseDir, owners: s.defaultOwners(cfg), rename: os.Rename}
	moved, err := m.move(ctx, s)
	if err != nil {
		return err
	}
	if moved != nil && s.Notify != nil {
		s.Notify(moved.Notice())
	}
	return nil
}

func (m *mover) oldDir() string   { return filepath.Join(m.base, SettingsDirName) }
func (m *mover) newDir() string   { return filepath.Join(m.base, StateDirName) }
func (m *mover) stageDir() string { return filepath.Join(m.oldDir(), stagingName) }

// move moves what there is to move; nil when nothing was.
func (m *mover) move(ctx context.Context, s Settings) (*LayoutMove, error) {
	if m.owners == 0 {
		return nil, nil
	}
	names, staged, err := m.scan()
	if err != nil || (len(names) == 0 && !staged) {
		return nil, err
	}
	unlock, err := m.lock(ctx, s)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// Again, under the lock: another run may have moved them meanwhile.
	if names, staged, err = m.scan(); err != nil || (len(names) == 0 && !staged) {
		return nil, err
	}
	if !staged {
		clash, err := m.held(m.newDir())
		if err != nil {
			return nil, err
		}
		if len(clash) > 0 {
			return nil, &LayoutConflictError{Old: shown(m.oldDir()), New: shown(m.newDir()), InOld: names, InNew: clash}
		}
	}
	if err := os.Mkdir(m.stageDir(), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("move local state to %s: %w", StateDirName, err)
	}
	for _, n := range names {
		if err := m.rename(filepath.Join(m.oldDir(), n), filepath.Join(m.stageDir(), n)); err != nil {
			return nil, fmt.Errorf("move local state to %s: %w", StateDirName, err)
		}
	}
	if err := durable.SyncDir(m.oldDir(), m.stageDir()); err != nil {
		return nil, err
	}
	moved, err := m.unstage()
	if err != nil {
		return nil, err
	}
	return &LayoutMove{Old: shown(m.oldDir()), New: shown(m.newDir()), Moved: moved}, nil
}

// unstage moves the staging directory's entries to .kyku-state, with its
// .gitignore, and returns their names.
func (m *mover) unstage() ([]string, error) {
	entries, err := os.ReadDir(m.stageDir())
	if err != nil {
		return nil, fmt.Errorf("move local state to %s: %w", StateDirName, err)
	}
	var moved []string
	for _, e := range entries {
		if e.Name() == local.GitIgnoreName {
			continue
		}
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		moved = append(moved, n)
	}
	slices.Sort(moved)
	fail := func(err error) ([]string, error) {
		return nil, fmt.Errorf("move local state to %s: %w", StateDirName, err)
	}
	if _, err := os.Lstat(m.newDir()); errors.Is(err, fs.ErrNotExist) {
		// All at once: .kyku-state appears whole, .gitignore included.
		if err := local.WriteGitIgnore(m.stageDir()); err != nil {
			return fail(err)
		}
		if err := m.rename(m.stageDir(), m.newDir()); err != nil {
			return fail(err)
		}
		return moved, durable.SyncDir(m.base)
	}
	if err := local.WriteGitIgnore(m.newDir()); err != nil {
		return fail(err)
	}
	for _, e := range entries {
		from, to := filepath.Join(m.stageDir(), e.Name()), filepath.Join(m.newDir(), e.Name())
		if e.Name() == local.GitIgnoreName {
			if err := os.Remove(from); err != nil {
				return fail(err)
			}
			continue
		}
		if _, err := os.Lstat(to); err == nil {
			// Written there while the move was cut short.
			return nil, &LayoutConflictError{Old: shown(m.stageDir()), New: shown(m.newDir()), InOld: []string{e.Name()}, InNew: []string{e.Name()}}
		}
		if err := m.rename(from, to); err != nil {
			return fail(err)
		}
	}
	if err := os.Remove(m.stageDir()); err != nil {
		return fail(err)
	}
	return moved, durable.SyncDir(m.newDir(), m.oldDir())
}

// scan lists the names in .kyku that move, and whether a staging
// directory (a move cut short) is there.
func (m *mover) scan() (names []string, staged bool, err error) {
	names, err = m.held(m.oldDir())
	if err != nil {
		return nil, false, err
	}
	_, err = os.Lstat(m.stageDir())
	return names, err == nil, nil
}

// held lists the names in dir that the mover's owners wrote, sorted
// (none when dir is missing or not a directory).
func (m *mover) held(dir string) ([]string, error) {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("look for local state in %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("look for local state in %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		if o, ok := legacyOwner(e.Name()); ok && m.owners&o != 0 {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

// lock takes .kyku's state lock, the one an older kyku's run holds.
func (m *mover) lock(ctx context.Context, s Settings) (unlock func(), err error) {
	b := local.New(m.oldDir(), "", local.Options{
		LockTimeout: s.LockTimeout, StaleAfter: s.StaleAfter, Heartbeat: s.Heartbeat, PollInterval: s.PollInterval,
	})
	info := s.Engine.Lock
	info.Operation = "move local state to " + StateDirName
	l, err := b.Lock(ctx, info)
	var locked *statemgr.LockedError
	if errors.As(err, &locked) {
		return nil, &LayoutLockedError{Old: shown(m.oldDir()), New: shown(m.newDir()), Holder: locked.Holder, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("move local state to %s: %w", StateDirName, err)
	}
	return func() {
		_ = l.Unlock(context.WithoutCancel(ctx))
		_ = os.Remove(m.oldDir()) // when nothing is left in it
	}, nil
}
