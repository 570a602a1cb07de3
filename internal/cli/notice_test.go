package cli_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kyku/action/internal/cli"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/sim"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestLockWaitNotice: a command that finds the state locked says so once,
// when it starts waiting — who holds it, since when, and how long it
// waits (--lock-timeout) — however often it looks again; then gives up
// naming the holder, or goes on when the holder releases. The waits are
// on synctest's clock.
func TestLockWaitNotice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newKyku(t, cfg)
		k.env["KYKU_LOCK_POLL"] = "5ms"
		since := time.Now().UTC().Truncate(time.Second) // a fresh lock: an old one is broken as stale
		holder := local.New(filepath.Join(k.dir, ".kyku"), "", local.Options{Now: func() time.Time { return since }, Hostname: "ci-7", PID: 77})
		l, err := holder.Lock(t.Context(), statemgr.LockInfo{Operation: "apply", Who: "alice@ci-7"})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Unlock(t.Context()) // its heartbeat ends before the bubble does, also on a failure
		want := `kyku: the state is locked by alice@ci-7, operation "apply", pid 77 on ci-7, since ` + since.Format(time.RFC3339) + `; waiting up to 200ms for it (--lock-timeout)…` + "\n"
		code, out, errOut := k.run("", "plan", "--lock-timeout", "200ms")
		if code != 1 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "waiting up to") != 1 {
			t.Fatalf("plan against a held lock: exit %d\nstdout %s\nstderr %s\nwant the notice once, first:\n%s", code, out, errOut, want)
		}
		if !strings.Contains(errOut, "kyku force-unlock "+l.Info().ID) {
			t.Errorf("the error does not say how to remove the lock:\n%s", errOut)
		}
		// Released while kyku waits: it goes on.
		time.AfterFunc(100*time.Millisecond, func() { _ = l.Unlock(t.Context()) })
		code, out, errOut = k.run("", "plan", "--lock-timeout", "20s")
		if code != 0 || strings.Count(errOut, "waiting up to 20s for it (--lock-timeout)…") != 1 || !strings.Contains(out, "Plan: 3 to create") {
			t.Errorf("plan while the lock is released: exit %d\nstdout %s\nstderr %s", code, out, errOut)
		}
		// A free lock: not a word.
		if code, _, errOut := k.run("", "plan"); code != 0 || errOut != "" {
			t.Errorf("plan on a free lock: exit %d, stderr %q", code, errOut)
		}
	})
}

// syncBuffer is a bytes.Buffer safe to read while the CLI writes it.
type syncBuffer struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{mu: make(chan struct{}, 1)} }

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu <- struct{}{}
	defer func() { <-b.mu }()
	return b.buf.String()
}

// TestInterruptNoticeGoesThroughTheView: on the first interrupt during an
// apply on a terminal, the notice is printed by the live progress view (on
// stdout, as a permanent line above its live region; the progress
// package's pty test shows it stays on screen), not on stderr beside it,
// and exactly once; the apply then stops starting changes. The apply runs
// in a synctest bubble: the sim's 300ms per call and the view's redraws
// pass on its clock, and the interrupt comes once the first frame is out.
func TestInterruptNoticeGoesThroughTheView(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := newKyku(t, cfg)
		k.env["KYKU_SIM_LATENCY"] = "300ms"
		interrupted := make(chan struct{})
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		out, errOut := newSyncBuffer(), newSyncBuffer()
		go func() {
			for !strings.Contains(out.String(), "Applying:") {
				time.Sleep(time.Millisecond)
			}
			close(interrupted) // as cmd/kyku does on the first SIGINT
			cancel()
		}()
		code := cli.Run(ctx, []string{"apply", "--auto-approve", "-c", filepath.Join(k.dir, "kyku.yaml"), "--state-dir", filepath.Join(k.dir, ".kyku")}, cli.Env{
			Stdout: out, Stderr: errOut, StdoutIsTerminal: true, Interrupted: interrupted,
			Getenv:    func(name string) string { return k.env[name] },
			Providers: provider.Registry{"sim": sim.Factory},
		})
		const notice = "kyku: interrupted: finishing running changes and saving state (press Ctrl-C again to exit now)"
		if code != 1 || strings.Count(out.String(), notice+"\n") != 1 || strings.Contains(errOut.String(), notice) {
			t.Fatalf("exit %d; want 1 and the notice once on stdout through the view\nstdout %q\nstderr %q", code, out.String(), errOut.String())
		}
		if !strings.Contains(out.String(), "Interrupted: changes that had started finished and were saved") {
			t.Errorf("no interruption summary:\n%s", out.String())
		}
	})
}
