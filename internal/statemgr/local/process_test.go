package local

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// TestHelperProcess is not a test: it is the other process of the tests
// below, run by re-executing the test binary with KYKU_LOCAL_HELPER set.
//   - hold: take the lock (operation "apply"), print "locked", hold it until
//     stdin closes, then release it.
//   - write-loop: write ever higher serials of a large state until killed.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("KYKU_LOCAL_HELPER")
	if mode == "" {
		t.Skip("helper process only")
	}
	ctx := t.Context()
	dir := os.Getenv("KYKU_LOCAL_DIR")
	heartbeat, _ := time.ParseDuration(os.Getenv("KYKU_LOCAL_HEARTBEAT"))
	b := New(dir, "prod", Options{Heartbeat: heartbeat, LockTimeout: 5 * time.Second, PollInterval: 5 * time.Millisecond})
	switch mode {
	case "hold":
		l, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "child@test"})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("locked", l.Info().ID)
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := l.Unlock(ctx); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		os.Exit(0)
	case "write-loop":
		f, err := b.Read(ctx)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		next := bigState(300)
		if f != nil {
			next.Metadata.Serial = f.Metadata.Serial
		}
		for i := 0; ; i++ {
			next.Metadata.Serial++
			if err := b.Write(ctx, next, statemgr.WriteOptions{}); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
			if i == 0 {
				fmt.Println("writing")
			}
		}
	}
	os.Exit(2)
}

type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *bufio.Scanner
}

func startHelper(t *testing.T, mode, dir string, heartbeat time.Duration) *helper {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), "KYKU_LOCAL_HELPER="+mode, "KYKU_LOCAL_DIR="+dir, "KYKU_LOCAL_HEARTBEAT="+heartbeat.String())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &helper{cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout)}
}

// expect waits for the helper's next line and checks its first word.
func (h *helper) expect(t *testing.T, word string) string {
	t.Helper()
	if !h.lines.Scan() {
		t.Fatalf("helper exited before saying %q: %v", word, h.lines.Err())
	}
	line := h.lines.Text()
	if !strings.HasPrefix(line, word) {
		t.Fatalf("helper said %q, want %q", line, word)
	}
	return line
}

func TestLockContentionBetweenProcesses(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	child := startHelper(t, "hold", dir, 20*time.Millisecond)
	child.expect(t, "locked")

	// The child's heartbeat runs, so even a short StaleAfter never breaks it.
	parent := New(dir, "prod", Options{LockTimeout: time.Second, StaleAfter: 400 * time.Millisecond, PollInterval: 10 * time.Millisecond})
	_, err := parent.Lock(ctx, statemgrtest.NewLockInfo("plan"))
	var le *statemgr.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("parent Lock = %v; want *LockedError", err)
	}
	for _, want := range []string{fmt.Sprintf("pid %d", child.cmd.Process.Pid), `operation "apply"`, "child@test", "kyku force-unlock " + le.Holder.ID} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lock error %q does not say %q", err, want)
		}
	}

	// Once the child releases, the parent gets in.
	if err := child.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	parent = New(dir, "prod", Options{LockTimeout: 5 * time.Second, PollInterval: 10 * time.Millisecond})
	l, err := parent.Lock(ctx, statemgrtest.NewLockInfo("plan"))
	if err != nil {
		t.Fatalf("parent Lock after the child released: %v", err)
	}
	defer l.Unlock(ctx)
	if err := child.cmd.Wait(); err != nil {
		t.Errorf("child: %v", err)
	}
}

func TestKilledHolderIsBrokenWhenStale(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	child := startHelper(t, "hold", dir, 20*time.Millisecond)
	child.expect(t, "locked")
	if err := child.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.cmd.Wait()
	if got := lockOnDisk(t, dir); got.PID != child.cmd.Process.Pid {
		t.Fatalf("lock on disk names pid %d, want the killed child %d", got.PID, child.cmd.Process.Pid)
	}
	const staleAfter = 300 * time.Millisecond
	// No /proc for the parent: it cannot tell the child is gone (as on
	// another host), so only staleness breaks the lock.
	parent := New(dir, "prod", Options{LockTimeout: 5 * time.Second, StaleAfter: staleAfter, PollInterval: 10 * time.Millisecond, Proc: fstest.MapFS{}})
	start := time.Now()
	l, err := parent.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatalf("stale lock of a killed holder not broken: %v", err)
	}
	defer l.Unlock(ctx)
	if el := time.Since(start); el > staleAfter+time.Second {
		t.Errorf("took %s to break a lock stale after %s", el, staleAfter)
	}
	if got := lockOnDisk(t, dir); got.ID != l.Info().ID {
		t.Errorf("lock on disk is %s, want ours %s", got.ID, l.Info().ID)
	}
}

// A writer killed at arbitrary points never leaves a partial state file.
func TestWriteSurvivesKill(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "state.prod.json")
	var lastSerial int64
	for round := range 3 {
		child := startHelper(t, "write-loop", dir, 0)
		child.expect(t, "writing")
		time.Sleep(time.Duration(3+7*round) * time.Millisecond)
		if err := child.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = child.cmd.Wait()
		f, err := state.Decode(path, readFile(t, path))
		if err != nil {
			t.Fatalf("round %d: state after kill -9: %v", round, err)
		}
		if f.Metadata.Serial <= lastSerial || len(f.Resources) != 300 {
			t.Errorf("round %d: serial %d (last %d), %d resources", round, f.Metadata.Serial, lastSerial, len(f.Resources))
		}
		lastSerial = f.Metadata.Serial
	}
}
