package local_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/statemgr/tflayout/tofutest"
)

// TestTofuHonoursKykuLock: while Kyku holds a root's lock, tofu plan
// refuses, naming Kyku's lock: its ID and who holds it.
func TestTofuHonoursKykuLock(t *testing.T) {
	r := tofutest.New(t, `resource "terraform_data" "x" {}`)
	ctx := t.Context()
	lock, err := newTF(t, r.Dir, "").Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "ci@runner"})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Run(1, "plan", "-lock-timeout=0s", "-input=false")
	for _, want := range []string{"Error acquiring the state lock", "ID:        " + lock.Info().ID, "Who:       ci@runner", "Operation: apply", "Version:   kyku"} {
		if !strings.Contains(out, want) {
			t.Errorf("tofu's refusal lacks %q:\n%s", want, out)
		}
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	r.Run(0, "plan", "-lock-timeout=0s", "-input=false")
}

// TestKykuWaitsForTofuLock: while tofu applies, Kyku refuses at once with
// tofu's lock info (who, operation, since, its pid), or waits for it and
// takes the lock once tofu is done.
func TestKykuWaitsForTofuLock(t *testing.T) {
	r := tofutest.New(t, `resource "time_sleep" "w" {
  create_duration = "4s"
}`)
	apply := r.Cmd("apply", "-auto-approve", "-input=false")
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- apply.Wait() }()
	info := filepath.Join(r.Dir, ".terraform.tfstate.lock.info")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(info); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("tofu took no lock")
		}
	}
	ctx := t.Context()
	_, err := newTF(t, r.Dir, "").Lock(ctx, statemgr.LockInfo{Operation: "plan"})
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
	b := newTF(t, r.Dir, "")
	patient, err := local.NewTerraform(local.TerraformConfig{Dir: r.Dir}, "", tflayout.Options{LockTimeout: time.Minute, PollInterval: 50 * time.Millisecond}, local.Options{})
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
	r := tofutest.New(t, string(config))
	r.Run(0, "apply", "-auto-approve", "-input=false")
	ctx := t.Context()
	b := newTF(t, r.Dir, "")
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lineage, serial := st.Metadata.Lineage, st.Metadata.Serial
	gone := st.Resources["random_id.c[2]"].Clone()
	delete(st.Resources, "random_id.c[2]")
	st.Metadata.Serial++
	write(t, b, st)
	out := r.Run(2, "plan", "-detailed-exitcode", "-input=false", "-refresh=false")
	// (null_resource.m["b"], which reads it, is replaced with it.)
	if !strings.Contains(out, "random_id.c[2] will be created") || !strings.Contains(out, "2 to add, 0 to change, 1 to destroy") {
		t.Errorf("tofu's plan after kyku removed an instance:\n%s", out)
	}
	st.Resources[gone.Name] = gone
	st.Metadata.Serial++
	write(t, b, st)
	r.Run(0, "plan", "-detailed-exitcode", "-input=false")
	r.Run(0, "apply", "-auto-approve", "-input=false", "-replace=random_id.c[0]")
	after, err := newTF(t, r.Dir, "").Read(ctx)
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
