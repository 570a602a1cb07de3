package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMStopsCleanly: SIGTERM during an apply stops starting new
// changes, lets the running ones finish, saves the state and releases the
// lock; the next run starts at once (no stale lock to wait for) and
// converges.
func TestSIGTERMStopsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p := newProject(t, layered(200))
	p.env = append(p.env, "KYKU_SIM_LATENCY=20ms-40ms")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var out syncBuffer
	c := p.cmd(ctx, "apply", "--auto-approve", "--parallelism", "4")
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until some changes finished, then ask it to stop.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "done in") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if err := c.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := c.Wait()
	if code := c.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit %d (%v), want 1 after SIGTERM\n%s", code, err, tail(out.String()))
	}
	text := out.String()
	if !strings.Contains(text, "Interrupted") || !strings.Contains(text, "Apply incomplete") {
		t.Errorf("no interruption summary:\n%s", tail(text))
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".kyku-state", ".kyku.lock")); !os.IsNotExist(err) {
		t.Errorf("lock left behind after SIGTERM: %v", err)
	}
	saved := len(p.state())
	if saved == 0 || saved == 200 {
		t.Errorf("state holds %d resources after an interrupted apply of 200", saved)
	}
	start := time.Now()
	if code, out := p.run("apply", "--auto-approve", "--lock-timeout", "5s"); code != 0 {
		t.Fatalf("apply after SIGTERM: exit %d\n%s", code, tail(out))
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("the next apply took %v", time.Since(start))
	}
	names, _ := p.cloud()
	if len(names) != 200 || len(p.state()) != 200 {
		t.Errorf("after the re-run: %d in the cloud, %d in state, want 200", len(names), len(p.state()))
	}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestInterruptStopsProviders: Ctrl-C during a provider's long create asks
// the provider to stop (as Terraform does); the create answers with the
// object it made, which state keeps; kyku exits soon, its provider
// process with it; the next plan starts from what was made.
func TestInterruptStopsProviders(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	p, mirror := pluginProject(t, `  slow: { type: fwtest_slow, properties: { name: slow } }
`)
	if code, out := p.run("init"); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var out syncBuffer
	c := p.cmd(ctx, "apply", "--auto-approve")
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if left, _ := filepath.Glob(filepath.Join(p.dir, "items", "slow-*.json")); len(left) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slow create never started:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	if err := c.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	_ = c.Wait()
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("kyku took %v to stop after Ctrl-C", took)
	}
	if code := c.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit %d after Ctrl-C, want 1\n%s", code, tail(out.String()))
	}
	if st := p.state(); st["slow"].ProviderID != "slow-1" {
		t.Errorf("the object created before the interrupt is not in state: %+v\n%s", st, tail(out.String()))
	}
	noProviderLeft(t, mirror)
}
