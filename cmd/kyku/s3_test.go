package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// s3Project is a project whose state lives in a bucket of its own on the
// real S3 server; the sim's cloud is shared by every process.
func s3Project(t *testing.T, srv *s3test.Server) (*project, string) {
	t.Helper()
	bucket := srv.NewBucket(t)
	p := newProject(t, "")
	p.env = append(p.env, srv.Env()...)
	p.env = append(p.env, "KYKU_LOCK_POLL=100ms")
	return p, bucket
}

func s3Config(srv *s3test.Server, bucket, resources string) string {
	return fmt.Sprintf("provider: sim\nbackend: { type: s3, bucket: %s, prefix: team/net, region: %s, endpoint: %q, usePathStyle: true }\nresources:\n%s",
		bucket, srv.Region, srv.Endpoint, resources)
}

var serialRE = regexp.MustCompile(`state serial (\d+) → (\d+)`)

// TestConcurrentAppliesOnS3 runs 20 kyku apply processes at once on one
// S3 state, each with a change of its own (its own SshKey beside a shared
// Vpc): applies are serialized by the lock, each succeeds or fails with the
// lock message, the serial rises with every write, the final state holds
// exactly what the last successful apply reported, the cloud holds nothing
// that state forgot, and no update is lost. With leases: false: this is
// the whole-state lock's test (internal/engine/leasetest has the leases').
func TestConcurrentAppliesOnS3(t *testing.T) {
	t.Parallel()
	srv := s3test.Require(t)
	p, bucket := s3Project(t, srv)
	const n = 20
	base := "  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n"
	for i := 0; i < n; i++ {
		cfg := s3Config(srv, bucket, base+fmt.Sprintf("  key-%d:\n    type: SshKey\n    properties: { publicKey: \"ssh-ed25519 AAAA key-%d\" }\n", i, i))
		// The whole-state lock as such (leases are the default: leases
		// serialize only applies touching the same objects).
		cfg = strings.Replace(cfg, "usePathStyle: true }", "usePathStyle: true, leases: false }", 1)
		if err := os.WriteFile(filepath.Join(p.dir, fmt.Sprintf("kyku-%d.yaml", i)), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type outcome struct {
		i, code       int
		out           string
		before, after int
	}
	results := make([]outcome, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			code, out := p.run("apply", "--auto-approve", "-c", fmt.Sprintf("kyku-%d.yaml", i), "--lock-timeout", "2m")
			results[i] = outcome{i: i, code: code, out: out, before: -1, after: -1}
			if m := serialRE.FindStringSubmatch(out); m != nil {
				results[i].before, _ = strconv.Atoi(m[1])
				results[i].after, _ = strconv.Atoi(m[2])
			}
		}()
	}
	close(start)
	wg.Wait()

	var ok []outcome
	for _, r := range results {
		switch {
		case r.code == 0 && r.after > 0:
			ok = append(ok, r)
		case strings.Contains(r.out, "state is locked by"):
			t.Logf("apply %d timed out on the lock (allowed)", r.i)
		default:
			t.Errorf("apply %d: exit %d, neither success nor the lock message:\n%s", r.i, r.code, tail(r.out))
		}
	}
	if len(ok) == 0 {
		t.Fatal("no apply succeeded")
	}
	// Serialized, and no update lost: every successful apply started from
	// the serial the previous one wrote.
	sort.Slice(ok, func(a, b int) bool { return ok[a].after < ok[b].after })
	for k := 1; k < len(ok); k++ {
		if ok[k].before != ok[k-1].after {
			t.Errorf("apply %d started from serial %d, but the previous successful apply wrote %d (lost update or overlap)",
				ok[k].i, ok[k].before, ok[k-1].after)
		}
		if ok[k].after <= ok[k].before {
			t.Errorf("apply %d: serial did not rise (%d → %d)", ok[k].i, ok[k].before, ok[k].after)
		}
	}
	last := ok[len(ok)-1]

	// The final state holds exactly what the last successful apply reported.
	st := readS3State(t, srv, bucket)
	var names []string
	for name := range st.Resources {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{fmt.Sprintf("key-%d", last.i), "net"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("final state holds %v, want %v (the config of the last apply, %d)", names, want, last.i)
	}
	if st.Metadata.Serial != int64(last.after) {
		t.Errorf("final serial %d, last apply reported %d", st.Metadata.Serial, last.after)
	}
	// The cloud holds no object that state forgot.
	_, ids := p.cloud()
	for _, r := range st.Resources {
		delete(ids, r.ProviderID)
	}
	if len(ids) != 0 {
		t.Errorf("cloud holds %d objects that state forgot: %v", len(ids), ids)
	}
	// A backup was written before every apply that changed something.
	backups := srv.Keys(t, bucket, "team/net/backups/")
	if len(backups) < len(ok)-1 {
		t.Errorf("%d backups for %d applies", len(backups), len(ok))
	}
	t.Logf("%d applies succeeded in series, serial %d → %d, %d backups", len(ok), ok[0].before, last.after, len(backups))
}

type s3State struct {
	Metadata  struct{ Serial int64 }
	Resources map[string]struct{ ProviderID string }
}

func readS3State(t *testing.T, srv *s3test.Server, bucket string) s3State {
	t.Helper()
	var st s3State
	if err := json.Unmarshal(srv.Object(t, bucket, "team/net/state.json"), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestKilledHolderLockIsBrokenOnS3: a holder killed with SIGKILL leaves its
// lock; the next run waits, breaks it once its heartbeat is older than the
// (shortened) threshold, and proceeds. A live holder, beating, is never
// broken: a contender with a short timeout fails with the lock message.
func TestKilledHolderLockIsBrokenOnS3(t *testing.T) {
	srv := s3test.Require(t)
	p, bucket := s3Project(t, srv)
	cfg := s3Config(srv, bucket, "  net:\n    type: Vpc\n    properties: { cidr: 10.0.0.0/16 }\n  key:\n    type: SshKey\n    properties: { publicKey: k }\n")
	if err := os.WriteFile(filepath.Join(p.dir, "kyku.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	p.env = append(p.env, "KYKU_LOCK_STALE_AFTER=2s", "KYKU_LOCK_HEARTBEAT=200ms")
	slow := append([]string{}, p.env...)
	// Slow enough that the holder is still mid-apply when it is killed.
	p.env = append(p.env, "KYKU_SIM_LATENCY=5s")

	// A live holder: a contender with a 1s timeout sees the lock, names it.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	holder := p.cmd(ctx, "apply", "--auto-approve")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	waitForKey(t, srv, bucket, "team/net/state.json.lock")
	p.env = slow
	code, out := p.run("plan", "--lock-timeout", "3s")
	if code == 0 || !strings.Contains(out, "state is locked by") || !strings.Contains(out, "force-unlock") {
		t.Errorf("contender of a live holder: exit %d, want the lock message:\n%s", code, tail(out))
	}
	// Kill the holder mid-apply: its lock stays behind.
	if err := holder.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = holder.Wait()
	started := time.Now()
	code, out = p.run("apply", "--auto-approve", "--lock-timeout", "30s")
	if code != 0 {
		t.Fatalf("apply after the holder died: exit %d\n%s", code, tail(out))
	}
	if waited := time.Since(started); waited < 1500*time.Millisecond {
		t.Errorf("the stale lock was broken after %v, before its threshold", waited)
	}
	if code, out := p.run("plan", "--detailed-exitcode"); code != 0 {
		t.Errorf("plan after recovery: exit %d\n%s", code, tail(out))
	}
}

func waitForKey(t *testing.T, srv *s3test.Server, bucket, key string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, k := range srv.Keys(t, bucket, key) {
			if k == key {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", key)
}
