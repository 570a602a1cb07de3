package gcs_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/statemgr/tflayout/tofutest"
	"github.com/kyku/action/internal/tfstate"
)

// TestTerraformObjects: where each workspace's state and lock are, as
// OpenTofu's gcs backend has them.
func TestTerraformObjects(t *testing.T) {
	tests := []struct {
		prefix, workspace, state, lock string
	}{
		{"", "", "default.tfstate", "default.tflock"},
		{"net", "default", "net/default.tfstate", "net/default.tflock"},
		{"/net/", "staging", "net/staging.tfstate", "net/staging.tflock"},
	}
	for _, tt := range tests {
		cfg := gcs.TerraformConfig{Prefix: tt.prefix}
		if got := cfg.StateObject(tt.workspace); got != tt.state {
			t.Errorf("StateObject(%q) with prefix %q = %s, want %s", tt.workspace, tt.prefix, got, tt.state)
		}
		if got := cfg.LockObject(tt.workspace); got != tt.lock {
			t.Errorf("LockObject(%q) with prefix %q = %s, want %s", tt.workspace, tt.prefix, got, tt.lock)
		}
	}
}

func newTerraform(t *testing.T, srv *gcstest.Server, bucket, workspace string) *tflayout.Backend {
	t.Helper()
	b, err := gcs.NewTerraformWithClient(emulatorClient(t, srv), gcs.TerraformConfig{Bucket: bucket, Prefix: "net"}, workspace,
		tflayout.Options{LockTimeout: -1, Hostname: "runner", PID: 7}, gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestTerraformGCS: a state OpenTofu wrote is read, a write that changes
// nothing is not made, a change is written in the compact form with the
// serial raised, Kyku's additions go under <state object>.kyku/ only.
func TestTerraformGCS(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	ctx := t.Context()
	orig, err := os.ReadFile(filepath.Join("..", "..", "tfstate", "testdata", "recorded", "modules.remote.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Put(ctx, bucket, "net/staging.tfstate", orig, nil); err != nil {
		t.Fatal(err)
	}
	b := newTerraform(t, srv, bucket, "staging")
	lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Metadata.Serial++
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := srv.Get(ctx, bucket, "net/staging.tfstate"); string(data) != string(orig) {
		t.Error("the state was written, though nothing changed")
	}
	delete(st.Resources, "module.plain.random_pet.p")
	st.Metadata.Serial++ // the write that changed nothing left it at the stored serial
	st.Metadata.Prefix = "kyku-51de"
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	data, _, err := srv.Get(ctx, bucket, "net/staging.tfstate")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tfstate.Decode("gcs", data)
	if err != nil {
		t.Fatal(err)
	}
	was, _ := tfstate.Decode("orig", orig)
	if got.Serial != was.Serial+1 || got.Lineage != was.Lineage {
		t.Errorf("serial %d lineage %s", got.Serial, got.Lineage)
	}
	var names []string
	for n := range srv.Objects(t, bucket, "") {
		names = append(names, n)
	}
	slices.Sort(names)
	if d := cmp.Diff([]string{"net/staging.tfstate", "net/staging.tfstate.kyku/" + tflayout.ExtraKey}, names); d != "" {
		t.Errorf("objects (-want +got):\n%s", d)
	}
}

// TestTerraformGCSLock: Kyku's lock is the object <workspace>.tflock with
// OpenTofu's lock body, its ID its generation; OpenTofu's lock object
// holds Kyku off with its info, and force-unlock with its generation
// removes it.
func TestTerraformGCSLock(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	ctx := t.Context()
	a, b := newTerraform(t, srv, bucket, ""), newTerraform(t, srv, bucket, "")
	lock, err := a.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "alice@laptop"})
	if err != nil {
		t.Fatal(err)
	}
	data, gen, err := srv.Get(ctx, bucket, "net/default.tflock")
	if err != nil {
		t.Fatal(err)
	}
	body, ok := tflayout.ParseLockInfo(data)
	if !ok || lock.Info().ID != strconv.FormatInt(gen, 10) || body.Path != "gs://"+bucket+"/net/default.tflock" || body.Who != "alice@laptop" {
		t.Errorf("lock object %s (generation %d), lock ID %s", data, gen, lock.Info().ID)
	}
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	var le *statemgr.LockedError
	if !errors.As(err, &le) || le.Holder.Who != "alice@laptop" || le.Holder.ID != lock.Info().ID {
		t.Fatalf("got %v", err)
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := srv.Get(ctx, bucket, "net/default.tflock"); !gcstest.IsStatus(err, 404) {
		t.Errorf("the lock object is still there: %v", err)
	}

	tofu := fmt.Sprintf(`{"ID":"4d1e2c1a-0b6c-2d7e-8f90-a1b2c3d4e5f6","Operation":"OperationTypePlan","Info":"","Who":"bob@laptop","Version":"1.12.6","Created":"2026-12-06T11:00:00Z","Path":"gs://%s/net/default.tflock"}`, bucket)
	gen, err = srv.Put(ctx, bucket, "net/default.tflock", []byte(tofu), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	if !errors.As(err, &le) || le.Holder.Who != "bob@laptop" || le.Holder.ID != strconv.FormatInt(gen, 10) || !le.Holder.Created.Equal(time.Date(2026, 12, 6, 11, 0, 0, 0, time.UTC)) {
		t.Fatalf("got %v", err)
	}
	if err := b.ForceUnlock(ctx, "4d1e2c1a-0b6c-2d7e-8f90-a1b2c3d4e5f6"); !errors.Is(err, statemgr.ErrWrongToken) {
		t.Errorf("force-unlock with the body's ID, not the generation: %v", err)
	}
	if err := b.ForceUnlock(ctx, strconv.FormatInt(gen, 10)); err != nil {
		t.Fatal(err)
	}
}

// TestTofuGCSInterop: with a real tofu on the emulator: while Kyku holds
// the lock tofu plan refuses naming it, and tofu force-unlock takes Kyku's
// ID; Kyku reads tofu's state.
func TestTofuGCSInterop(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	config := fmt.Sprintf(`terraform {
  backend "gcs" {
    bucket                  = %q
    prefix                  = "net"
    access_token            = "fake"
    storage_custom_endpoint = "http://%s/storage/v1/"
  }
}

resource "random_pet" "p" {}
`, bucket, srv.Host)
	r := tofutest.New(t, config, "STORAGE_EMULATOR_HOST="+srv.Host)
	r.Run(0, "apply", "-auto-approve", "-input=false")
	ctx := t.Context()
	b := newTerraform(t, srv, bucket, "")
	st, err := b.Read(ctx)
	if err != nil || st.Resources["random_pet.p"] == nil {
		t.Fatalf("read tofu's state: %v %v", st, err)
	}
	lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "ci@runner"})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Run(1, "plan", "-lock-timeout=0s", "-input=false")
	for _, want := range []string{"Error acquiring the state lock", "ID:        " + lock.Info().ID, "Who:       ci@runner"} {
		if !strings.Contains(out, want) {
			t.Errorf("tofu's refusal lacks %q:\n%s", want, out)
		}
	}
	r.Run(0, "force-unlock", "-force", lock.Info().ID)
	r.Run(0, "plan", "-lock-timeout=0s", "-input=false")
	if err := lock.Unlock(ctx); !errors.Is(err, statemgr.ErrLockLost) {
		t.Errorf("unlock after tofu force-unlocked it: %v", err)
	}
}
