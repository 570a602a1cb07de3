package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrashDuringApplyConverges kills the real binary with SIGKILL at
// several points of an apply of 300 resources with sim latency, then
// re-runs apply: the cloud holds exactly one object per config entry, the
// state matches the cloud, and a final plan is all no-op.
func TestCrashDuringApplyConverges(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	const n = 300
	p := newProject(t, layered(n))
	p.env = append(p.env,
		"KYKU_SIM_LATENCY=2ms-20ms",
		// A killed holder leaves its lock; the next run breaks it once the
		// heartbeat is older than this (a live holder beats every 100ms).
		"KYKU_LOCK_STALE_AFTER=700ms", "KYKU_LOCK_HEARTBEAT=100ms", "KYKU_LOCK_POLL=50ms",
	)
	kills := 0
	for _, after := range []time.Duration{150 * time.Millisecond, 400 * time.Millisecond, 250 * time.Millisecond, 600 * time.Millisecond, 50 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		c := p.cmd(ctx, "apply", "--auto-approve")
		if err := c.Start(); err != nil {
			cancel()
			t.Fatal(err)
		}
		time.Sleep(after)
		if err := c.Process.Signal(syscall.SIGKILL); err == nil {
			kills++
		}
		_ = c.Wait()
		cancel()
	}
	if kills == 0 {
		t.Fatal("no apply was killed")
	}
	if code, out := p.run("apply", "--auto-approve"); code != 0 {
		t.Fatalf("apply after crashes: exit %d\n%s", code, tail(out))
	}
	names, ids := p.cloud()
	if len(names) != n {
		t.Errorf("cloud holds %d distinct objects, want %d", len(names), n)
	}
	for name, count := range names {
		if count != 1 {
			t.Errorf("cloud holds %d objects named %s", count, name)
		}
	}
	st := p.state()
	if len(st) != n {
		t.Errorf("state holds %d resources, want %d", len(st), n)
	}
	for name, r := range st {
		if !ids[r.ProviderID] {
			t.Errorf("state resource %s has provider ID %s, not in the cloud", name, r.ProviderID)
		}
	}
	if len(ids) != len(st) {
		t.Errorf("cloud has %d objects, state %d: orphans", len(ids), len(st))
	}
	code, out := p.run("plan", "--detailed-exitcode")
	if code != 0 {
		t.Fatalf("final plan: exit %d (want 0, all no-op)\n%s", code, tail(out))
	}
	if !strings.Contains(out, "0 to create, 0 to update, 0 to replace, 0 to destroy") {
		t.Errorf("final plan not all no-op:\n%s", tail(out))
	}
	t.Logf("%d applies killed with SIGKILL; converged to %d objects", kills, len(ids))
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}
