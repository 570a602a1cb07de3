package tfprovider_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/plan"
	"github.com/kyku/action/internal/progress"
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

// hookFunc is a progress.Hook of a func.
type hookFunc func(progress.Event)

func (f hookFunc) Event(ev progress.Event) { f(ev) }

// TestSavedPlanHoldsTheNotesItClosed: a saved plan's apply closes b's
// intent (noted, never asked) in memory and removes no note: it holds
// b's note locked until it ends, so that a journal keeper of the killed
// apply about to make b's create waits, then finds the note gone (the
// apply noted b anew), and does not make it a second time.
func TestSavedPlanHoldsTheNotesItClosed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, tfplugintest.Framework)
	w.tune = keeper
	cfg := interrupt(t, w)
	b := w.answer("b")
	if err := os.Remove(filepath.Join(w.cloud, w.idOf("b")+".json")); err != nil {
		t.Fatal(err)
	}
	name := state.AnswerName("b")
	w.keep(name, state.Answer{Address: "b", Type: b.Type})
	saved, err := w.engine(cfg).Plan(t.Context(), cfg)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	note, err := os.Open(filepath.Join(w.answersDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	defer note.Close()
	var mu sync.Mutex
	var heldAtCreate []bool
	hook := hookFunc(func(ev progress.Event) {
		if ev.Name != "b" || ev.Kind != progress.Started {
			return
		}
		free := unix.Flock(int(note.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
		if free {
			_ = unix.Flock(int(note.Fd()), unix.LOCK_UN)
		}
		mu.Lock()
		heldAtCreate = append(heldAtCreate, !free)
		mu.Unlock()
	})
	w.engine(cfg) // starts the router
	e := engine.New(w.router, w.stateBackend(), engine.Options{DeployPrefix: "t", Answers: w.answers(), Hook: hook})
	if _, err := e.Apply(t.Context(), cfg, engine.ApplyOptions{AutoApprove: true}, saved); err != nil {
		t.Fatalf("apply of the saved plan: %v", err)
	}
	if diff := cmp.Diff([]bool{true}, heldAtCreate); diff != "" {
		t.Errorf("b's old note locked as b's create started (-want +got):\n%s", diff)
	}
	if err := unix.Flock(int(note.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Errorf("b's old note still locked after the apply: %v", err)
	}
	if st := w.state(); st.Resources["b"] == nil || len(st.Interrupted) != 0 {
		t.Errorf("after the apply: b %+v, interrupted %v", st.Resources["b"], st.Interrupted)
	}
	if diff := cmp.Diff([]string{"a", "b"}, w.items()); diff != "" {
		t.Errorf("cloud (-want +got):\n%s", diff)
	}
}
