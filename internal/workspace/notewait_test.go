package workspace_test

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/engine"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/workspace"
)

// TestNoteWaitIsTheLockTimeout: an apply's fold waits for a journal keeper
// holding a note as long as for a held state lock: --lock-timeout 0
// (LockTimeout -1) refuses at once, naming the address, without waiting.
func TestNoteWaitIsTheLockTimeout(t *testing.T) {
	ctx := t.Context()
	env := map[string]string{"KYKU_SIM_DIR": t.TempDir()}
	cfg := mustParse(t, fmt.Sprintf("provider: sim\nbackend: { type: local, path: %q, leases: false }\nresources: {}\n", t.TempDir()))
	ws, err := workspace.Open(ctx, cfg, workspace.Settings{Env: "prod", Getenv: func(k string) string { return env[k] }, LockTimeout: -1},
		provider.Registry{"sim": sim.Factory})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil); err != nil {
		t.Fatal(err)
	}
	// An apply killed as its create of x was noted, and x's keeper about
	// to mark the note asked (holding it).
	st, err := ws.Backend.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Interrupted = map[string]string{"x": "sim_thing"}
	st.Metadata.Serial++
	if err := ws.Backend.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	box := ws.Backend.(statemgr.AnswerKeeper).AnswerBox()
	if err := box.Note(ctx, state.Answer{Address: "x", Type: "sim_thing"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = box.ReleaseNotes(ctx) })
	note, err := os.Open(box.AnswerPath("x"))
	if err != nil {
		t.Fatal(err)
	}
	defer note.Close()
	if err := unix.Flock(int(note.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	waited := false
	ctx = statemgr.WithLockWaiting(ctx, func(statemgr.LockInfo, time.Duration) {
		waited = true
		_ = note.Close() // not to wait long where the apply waits
	})
	_, err = ws.Engine.Apply(ctx, cfg, engine.ApplyOptions{AutoApprove: true}, nil)
	var kb *engine.KeeperBusyError
	if !errors.As(err, &kb) || kb.Address != "x" {
		t.Errorf("apply: %v, want x's keeper named busy", err)
	}
	if waited {
		t.Error("the apply waited for the keeper with --lock-timeout 0")
	}
}
