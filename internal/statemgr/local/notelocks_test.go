package local_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// keeperLock locks the note at path as a journal keeper does while it
// makes the create; closing the file lets go.
func keeperLock(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return f
}

// locked reports whether a keeper would find the note at path locked.
func locked(t *testing.T, path string) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil
}

// TestLockNotesExcludesKeepers: a note a journal keeper holds is not
// locked for the fold: not waiting, LockNotes refuses with a
// *statemgr.NoteHeldError naming it, and holds none of the others;
// waiting, it returns the note as the keeper left it, a note gone
// absent, and holds each until released.
func TestLockNotesExcludesKeepers(t *testing.T) {
	ctx := t.Context()
	box := local.AnswerDir(t.TempDir())
	for _, address := range []string{"a", "b"} {
		data, _ := state.EncodeAnswer(state.Answer{Address: address, Type: "t"})
		if err := os.WriteFile(box.AnswerPath(address), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{state.AnswerName("a"), state.AnswerName("b"), state.AnswerName("gone")}

	keeper := keeperLock(t, box.AnswerPath("a"))
	_, _, err := box.LockNotes(ctx, names, -1)
	var held *statemgr.NoteHeldError
	if !errors.As(err, &held) || held.Name != names[0] {
		t.Fatalf("LockNotes of a note a keeper holds, not waiting: %v, want a *statemgr.NoteHeldError naming %s", err, names[0])
	}
	if locked(t, box.AnswerPath("b")) {
		t.Error("b's note stays locked after the refusal")
	}

	asked, _ := state.EncodeAnswer(state.Answer{Address: "a", Type: "t", Asked: true})
	ctx = statemgr.WithLockWaiting(ctx, func(statemgr.LockInfo, time.Duration) {
		// The keeper marks the note asked, makes the create and lets go.
		if _, err := keeper.WriteAt(asked, 0); err != nil {
			t.Error(err)
		}
		_ = keeper.Close()
	})
	got, release, err := box.LockNotes(ctx, names, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(box.AnswerPath("b"))
	if diff := cmp.Diff(map[string][]byte{names[0]: asked, names[1]: b}, got); diff != "" {
		t.Errorf("the notes read under the locks (-want +got):\n%s", diff)
	}
	for _, address := range []string{"a", "b"} {
		if !locked(t, box.AnswerPath(address)) {
			t.Errorf("%s's note is not locked while the fold holds it", address)
		}
	}
	release()
	for _, address := range []string{"a", "b"} {
		if locked(t, box.AnswerPath(address)) {
			t.Errorf("%s's note is still locked once released", address)
		}
	}
}
