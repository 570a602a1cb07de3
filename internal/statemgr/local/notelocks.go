package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/statemgr"
)

// A journal keeper locks a note (flock) from before it marks it asked
// until the create's answer is kept (package tfplugin), and refuses the
// create, unasked, when the note's path no longer names the file it
// locked. The next apply's fold locks each note it may close or remove
// (LockNotes) and decides on what it reads under the lock: a keeper of
// the killed apply either finished (the note says asked, and answered)
// or finds its note gone, and never makes an object no state records.

// notePoll is how often LockNotes looks again at a note a keeper holds.
const notePoll = 50 * time.Millisecond

// LockNotes locks the notes named, waiting up to wait for a keeper that
// holds one, and returns them as read under the locks (Answers, for those
// names); release closes the locks.
func (d AnswerDir) LockNotes(ctx context.Context, names []string, wait time.Duration) (map[string][]byte, func(), error) {
	var held []*os.File
	release := func() {
		for _, f := range held {
			_ = f.Close()
		}
	}
	w := statemgr.NewLockWait(wait, notePoll, true)
	defer w.Stop()
	for _, name := range names {
		if name != filepath.Base(name) || strings.HasPrefix(name, ".") {
			release()
			return nil, nil, fmt.Errorf("lock kept answer: %q is not an answer's name", name)
		}
		f, err := d.lockNote(ctx, name, w)
		if err != nil {
			release()
			return nil, nil, err
		}
		if f != nil {
			held = append(held, f)
		}
	}
	all, err := d.Answers(ctx)
	if err != nil {
		release()
		return nil, nil, err
	}
	out := make(map[string][]byte, len(names))
	for _, name := range names {
		if data, ok := all[name]; ok {
			out[name] = data
		}
	}
	return out, release, nil
}

// lockNote locks the note name, waiting on w while a keeper holds it; nil
// when there is none.
func (d AnswerDir) lockNote(ctx context.Context, name string, w *statemgr.LockWait) (*os.File, error) {
	path := filepath.Join(string(d), name)
	for {
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("lock kept answer: %w", err)
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			same, err := namesFile(path, f)
			switch {
			case err != nil:
				_ = f.Close()
				return nil, fmt.Errorf("lock kept answer: %w", err)
			case same:
				return f, nil
			}
			_ = f.Close()
			continue // removed or renamed over since it was opened
		}
		_ = f.Close()
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock kept answer: %w", err)
		}
		holder := statemgr.LockInfo{Operation: "create", Who: "journal keeper", Path: path}
		again, cause := w.Wait(ctx, &holder)
		if cause != nil {
			return nil, fmt.Errorf("lock kept answer: %w", cause)
		}
		if !again {
			return nil, &statemgr.NoteHeldError{Name: name}
		}
	}
}

// namesFile reports whether path names f's file (false: none, or
// another).
func namesFile(path string, f *os.File) (bool, error) {
	at, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	return os.SameFile(at, fi), nil
}
