package local_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// tofuRoot is a root in a directory of its own that a real tofu works on:
// KYKU_TEST_TOFU names the binary (1.12.x), KYKU_TEST_TOFU_MIRROR a
// filesystem mirror of the providers config uses. Without them the test
// is skipped: CI has no tofu.
type tofuRoot struct {
	t        *testing.T
	bin, dir string
	env      []string
}

func newTofuRoot(t *testing.T, config string) *tofuRoot {
	t.Helper()
	bin, mirror := os.Getenv("KYKU_TEST_TOFU"), os.Getenv("KYKU_TEST_TOFU_MIRROR")
	if bin == "" || mirror == "" {
		t.Skip("no tofu: set KYKU_TEST_TOFU (a tofu 1.12 binary) and KYKU_TEST_TOFU_MIRROR (its providers' filesystem mirror)")
	}
	dir := t.TempDir()
	rc := filepath.Join(dir, ".tofurc")
	put(t, rc, []byte(fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path = %q\n  }\n}\n", mirror)))
	put(t, filepath.Join(dir, "main.tf"), []byte(config))
	r := &tofuRoot{t: t, bin: bin, dir: dir, env: append(os.Environ(), "TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")}
	r.run(0, "init", "-input=false")
	return r
}

func (r *tofuRoot) cmd(args ...string) *exec.Cmd {
	c := exec.Command(r.bin, append(args, "-no-color")...)
	c.Dir, c.Env = r.dir, r.env
	return c
}

// run runs tofu and wants exit code want; it returns the output.
func (r *tofuRoot) run(want int, args ...string) string {
	r.t.Helper()
	out, err := r.cmd(args...).CombinedOutput()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("tofu %v: %v", args, err)
	}
	if code != want {
		r.t.Fatalf("tofu %v: exit %d, want %d:\n%s", args, code, want, out)
	}
	return string(out)
}

// TestTofuHonoursKykuLock: while Kyku holds a root's lock, tofu plan
// refuses, naming Kyku's lock: its ID and who holds it.
func TestTofuHonoursKykuLock(t *testing.T) {
	r := newTofuRoot(t, `resource "terraform_data" "x" {}`)
	ctx := context.Background()
	lock, err := newTF(t, r.dir, "").Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "ci@runner"})
	if err != nil {
		t.Fatal(err)
	}
	out := r.run(1, "plan", "-lock-timeout=0s", "-input=false")
	for _, want := range []string{"Error acquiring the state lock", "ID:        " + lock.Info().ID, "Who:       ci@runner", "Operation: apply", "Version:   kyku"} {
		if !strings.Contains(out, want) {
			t.Errorf("tofu's refusal lacks %q:\n%s", want, out)
		}
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	r.run(0, "plan", "-lock-timeout=0s", "-input=false")
}

// TestKykuWaitsForTofuLock: while tofu applies, Kyku refuses at once with
// tofu's lock info (who, operation, since, its pid), or waits for it and
// takes the lock once tofu is done.
func TestKykuWaitsForTofuLock(t *testing.T) {
	r := newTofuRoot(t, `resource "time_sleep" "w" {
  create_duration = "4s"
}`)
	apply := r.cmd("apply", "-auto-approve", "-input=false")
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- apply.Wait() }()
	info := filepath.Join(r.dir, ".terraform.tfstate.lock.info")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(info); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("tofu took no lock")
		}
	}
	ctx := context.Background()
	_, err := newTF(t, r.dir, "").Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	var le *statemgr.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a LockedError", err)
	}
	h := le.Holder
	if h.Operation != "OperationTypeApply (tofu 1.12.6)" || !strings.Contains(h.Who, "@") || h.Created.IsZero() || h.PID != apply.Process.Pid || h.Path != "terraform.tfstate" {
		t.Errorf("tofu's lock as kyku tells it: %+v (tofu's pid %d)", h, apply.Process.Pid)
	}

	var told atomic.Int32
	waiting := statemgr.WithLockWaiting(ctx, func(holder statemgr.LockInfo, _ time.Duration) {
		if holder.ID == h.ID {
			told.Add(1)
		}
	})
	b := newTF(t, r.dir, "")
	patient, err := local.NewTerraform(local.TerraformConfig{Dir: r.dir}, "", tflayout.Options{LockTimeout: time.Minute, PollInterval: 50 * time.Millisecond}, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lock, err := patient.Lock(waiting, statemgr.LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatalf("waited, then: %v", err)
	}
	if err := <-done; err != nil {
		t.Errorf("tofu apply: %v", err)
	}
	if told.Load() != 1 {
		t.Errorf("the waiting hook was told %d times", told.Load())
	}
	st, err := b.Read(ctx)
	if err != nil || st == nil || st.Resources["time_sleep.w"] == nil {
		t.Errorf("the state tofu wrote: %v, %v", st, err)
	}
	_ = lock.Unlock(ctx)
}

// TestTofuReadsKykuWrites: tofu plans on what Kyku wrote as Kyku meant it:
// an instance Kyku removed is one tofu would create again; written back
// as Kyku's model holds it (a new instance: its attributes without the
// null ones), tofu sees no change; and Kyku reads what tofu applies after.
func TestTofuReadsKykuWrites(t *testing.T) {
	config, err := os.ReadFile(filepath.Join("..", "..", "tfstate", "testdata", "tofu", "counts", "main.tf"))
	if err != nil {
		t.Fatal(err)
	}
	r := newTofuRoot(t, string(config))
	r.run(0, "apply", "-auto-approve", "-input=false")
	ctx := context.Background()
	b := newTF(t, r.dir, "")
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lineage, serial := st.Metadata.Lineage, st.Metadata.Serial
	gone := st.Resources["random_id.c[2]"].Clone()
	delete(st.Resources, "random_id.c[2]")
	st.Metadata.Serial++
	write(t, b, st)
	out := r.run(2, "plan", "-detailed-exitcode", "-input=false", "-refresh=false")
	// (null_resource.m["b"], which reads it, is replaced with it.)
	if !strings.Contains(out, "random_id.c[2] will be created") || !strings.Contains(out, "2 to add, 0 to change, 1 to destroy") {
		t.Errorf("tofu's plan after kyku removed an instance:\n%s", out)
	}
	st.Resources[gone.Name] = gone
	st.Metadata.Serial++
	write(t, b, st)
	r.run(0, "plan", "-detailed-exitcode", "-input=false")
	r.run(0, "apply", "-auto-approve", "-input=false", "-replace=random_id.c[0]")
	after, err := newTF(t, r.dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Metadata.Lineage != lineage || after.Metadata.Serial != serial+3 {
		t.Errorf("lineage %s serial %d, want %s %d", after.Metadata.Lineage, after.Metadata.Serial, lineage, serial+3)
	}
}

func write(t *testing.T, b *tflayout.Backend, st *state.File) {
	t.Helper()
	ctx := context.Background()
	lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock(ctx)
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}
