package tfprovider_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// TestFoldLeavesNoteAKeeperHolds: b's create was noted and never asked,
// and a journal keeper of the killed apply holds its note locked (about
// to mark it asked and ask the provider). The next apply does not close
// b's intent as never made: past its wait it refuses, naming b and the
// keeper; waiting, it decides on what the note says once the keeper lets
// go (asked: b's create refused, not made again). Either way b's intent
// stays open and the cloud holds no second b.
func TestFoldLeavesNoteAKeeperHolds(t *testing.T) {
	t.Parallel()
	const busy = "b: a journal keeper of an earlier apply is still making its create; apply again once it is done"
	for _, c := range []struct {
		name  string
		wait  time.Duration
		saved bool // the apply of a plan saved before
		want  string
	}{
		{"past the wait", -1, false, busy},
		{"waiting for the keeper", time.Minute, false, refusalOfB},
		{"saved plan past the wait", -1, true, busy},
		{"saved plan waiting for the keeper", time.Minute, true, "plan the saved plan's configuration again: " + refusalOfB},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, tfplugintest.Framework)
			w.tune = keeper
			cfg := interrupt(t, w)
			b := w.answer("b")
			err := os.Remove(filepath.Join(w.cloud, w.idOf("b")+".json"))
			if err != nil {
				t.Fatal(err)
			}
			name := state.AnswerName("b")
			w.keep(name, state.Answer{Address: "b", Type: b.Type})
			var saved *plan.Plan
			if c.saved {
				// Planned as never asked: b's create is planned again.
				if saved, err = w.engine(cfg).Plan(t.Context(), cfg); err != nil {
					t.Fatalf("plan: %v", err)
				}
			}
			note, err := os.Open(filepath.Join(w.answersDir(), name))
			if err != nil {
				t.Fatal(err)
			}
			defer note.Close()
			if err := unix.Flock(int(note.Fd()), unix.LOCK_EX); err != nil {
				t.Fatal(err)
			}
			// The keeper, once the apply waits for it, marks the note
			// asked and lets go.
			waited := false
			ctx := statemgr.WithLockWaiting(t.Context(), func(statemgr.LockInfo, time.Duration) {
				waited = true
				w.keep(name, state.Answer{Address: "b", Type: b.Type, Asked: true})
				_ = note.Close()
			})
			w.engine(cfg) // starts the router
			e := engine.New(w.router, w.stateBackend(), engine.Options{DeployPrefix: "t", Answers: w.answers(), NoteWait: c.wait})
			_, err = e.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, saved)
			if err == nil || err.Error() != c.want {
				t.Fatalf("apply: %v, want\n%s", err, c.want)
			}
			var kb *engine.KeeperBusyError
			if errors.As(err, &kb) != (c.want == busy) {
				t.Errorf("apply: %T, a *engine.KeeperBusyError: %v", err, c.want == busy)
			}
			if waited != (c.wait > 0) {
				t.Errorf("the apply waited for the keeper: %v, want %v", waited, c.wait > 0)
			}
			if st := w.state(); st.Interrupted["b"] == "" || st.Resources["b"] != nil {
				t.Errorf("after the apply: b %+v, interrupted %v: want b's intent open", st.Resources["b"], st.Interrupted)
			}
			if diff := cmp.Diff([]string{"a"}, w.items()); diff != "" {
				t.Errorf("cloud (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(filepath.Join(w.answersDir(), name)); err != nil {
				t.Errorf("b's note: %v", err)
			}
		})
	}
}
