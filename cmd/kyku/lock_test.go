package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledHolderLockIsTakenOverAtOnce: kyku killed with SIGKILL while it
// holds the local state lock leaves the lock behind, its heartbeat fresh.
// The next run on this host sees that the process it names is gone and
// takes the lock over at once, saying so, instead of waiting out
// --lock-timeout and then asking for force-unlock.
func TestKilledHolderLockIsTakenOverAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p := newProject(t, layered(8))
	lockPath := filepath.Join(p.dir, ".kyku-state", ".kyku.lock")
	slow := append(append([]string{}, p.env...), "KYKU_SIM_LATENCY=5s") // still mid-apply when killed
	quick := p.env

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	p.env = slow
	holder := p.cmd(ctx, "apply", "--auto-approve")
	p.env = quick
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	var left struct {
		PID     int `json:"pid"`
		Process struct {
			Start uint64 `json:"start"`
		} `json:"process"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, err := os.ReadFile(lockPath)
		if err == nil && json.Unmarshal(data, &left) == nil && left.PID != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the apply never took the lock (%v)", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	if left.PID != holder.Process.Pid || left.Process.Start == 0 {
		t.Fatalf("the lock names pid %d (start %d), want the killed apply %d with its start time", left.PID, left.Process.Start, holder.Process.Pid)
	}
	if _, err := os.Stat(lockPath); err != nil {
		t.Fatalf("the killed apply's lock is gone: %v", err)
	}

	started := time.Now()
	code, out := p.run("plan", "--lock-timeout", "10s")
	took := time.Since(started)
	if code != 0 {
		t.Fatalf("plan after the holder was killed: exit %d\n%s", code, tail(out))
	}
	if took > 5*time.Second {
		t.Errorf("plan took %s: it waited for the dead holder's lock", took)
	}
	if !strings.Contains(out, "kyku: took over the state lock of ") || !strings.Contains(out, fmt.Sprintf("pid %d on ", left.PID)) ||
		!strings.Contains(out, "its process is no longer running on this host.") {
		t.Errorf("plan did not say it took over the dead holder's lock:\n%s", tail(out))
	}
	if _, err := os.Stat(lockPath); !os.IsNotExist(err) {
		t.Errorf("the lock is still there after the plan: %v", err)
	}
}
