package local_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/tfstate"
)

// recordedState is a state OpenTofu 1.12.6 wrote to terraform.tfstate
// (package tfstate's recordings).
func recordedState(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "tfstate", "testdata", "recorded", name+".tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

var tfClock = time.Date(2026, 12, 6, 10, 48, 56, 414445984, time.UTC)

func newTF(t testing.TB, dir, workspace string) *tflayout.Backend {
	t.Helper()
	b, err := local.NewTerraform(local.TerraformConfig{Dir: dir}, workspace,
		tflayout.Options{LockTimeout: -1, PollInterval: 5 * time.Millisecond, Now: func() time.Time { return tfClock }, Hostname: "runner", PID: 4242},
		local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func put(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestTerraformPaths: where each workspace's state is, as OpenTofu's local
// backend has it.
func TestTerraformPaths(t *testing.T) {
	tests := []struct {
		cfg       local.TerraformConfig
		workspace string
		want      string
	}{
		{local.TerraformConfig{Dir: "root"}, "", "root/terraform.tfstate"},
		{local.TerraformConfig{Dir: "root"}, "default", "root/terraform.tfstate"},
		{local.TerraformConfig{Dir: "root"}, "staging", "root/terraform.tfstate.d/staging/terraform.tfstate"},
		{local.TerraformConfig{Dir: "root", Path: "state/prod.tfstate", WorkspaceDir: "ws"}, "", "root/state/prod.tfstate"},
		{local.TerraformConfig{Dir: "root", Path: "state/prod.tfstate", WorkspaceDir: "ws"}, "dev", "root/ws/dev/terraform.tfstate"},
	}
	for _, tt := range tests {
		if got := tt.cfg.StatePath(tt.workspace); got != tt.want {
			t.Errorf("StatePath(%q) with %+v = %s, want %s", tt.workspace, tt.cfg, got, tt.want)
		}
	}
	if _, err := local.NewTerraform(local.TerraformConfig{Dir: t.TempDir()}, "../x", tflayout.Options{}, local.Options{}); err == nil {
		t.Error("a workspace name with a path in it was accepted")
	}
}

// TestTerraformReadChangesNothing: reading a state and writing it back
// unchanged (Kyku's serial raised) writes nothing: the file keeps its
// bytes and its serial, no backup is made, no lock is left behind.
func TestTerraformReadChangesNothing(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	orig := recordedState(t, "lifecycle")
	put(t, filepath.Join(dir, "terraform.tfstate"), orig)
	b := newTF(t, dir, "")
	lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "ci@runner"})
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
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(orig), string(get(t, filepath.Join(dir, "terraform.tfstate")))); d != "" {
		t.Errorf("the state changed (-before +after):\n%s", d)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if d := cmp.Diff([]string{"terraform.tfstate"}, names); d != "" {
		t.Errorf("files beside the state (-want +got):\n%s", d)
	}
	again, err := newTF(t, dir, "").Read(ctx)
	// The stored serial stays, and the writer's follows it, so that its
	// next write raises it by one.
	if err != nil || again.Metadata.Serial != st.Metadata.Serial {
		t.Errorf("serial after the no-op write: stored %v (%v), the writer's %v", again.Metadata.Serial, err, st.Metadata.Serial)
	}
}

// TestTerraformWrite: a change is written in place in OpenTofu's indented
// form with the serial Kyku gave it, the lineage kept; what it replaced
// is in terraform.tfstate.backup in OpenTofu's compact form; a workspace's
// state is under terraform.tfstate.d.
func TestTerraformWrite(t *testing.T) {
	for _, ws := range []string{"", "staging"} {
		t.Run("workspace "+ws, func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			cfg := local.TerraformConfig{Dir: dir}
			orig := recordedState(t, "counts")
			put(t, cfg.StatePath(ws), orig)
			b := newTF(t, dir, ws)
			st, err := b.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.Metadata.Environment != ws {
				t.Errorf("environment %q", st.Metadata.Environment)
			}
			delete(st.Resources, "random_id.c[2]")
			st.Metadata.Serial++
			if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			was, err := tfstate.Decode("orig", orig)
			if err != nil {
				t.Fatal(err)
			}
			now, err := tfstate.Decode("written", get(t, cfg.StatePath(ws)))
			if err != nil {
				t.Fatal(err)
			}
			if now.Serial != was.Serial+1 || now.Lineage != was.Lineage {
				t.Errorf("serial %d lineage %s, want %d %s", now.Serial, now.Lineage, was.Serial+1, was.Lineage)
			}
			want, _ := tfstate.Encode(now, tfstate.Indented)
			if string(want) != string(get(t, cfg.StatePath(ws))) {
				t.Error("the state is not in OpenTofu's indented form")
			}
			backup, _ := tfstate.Encode(was, tfstate.Compact)
			if d := cmp.Diff(string(backup), string(get(t, cfg.StatePath(ws)+".backup"))); d != "" {
				t.Errorf("backup (-want +got):\n%s", d)
			}
		})
	}
}

// TestTerraformWriteConflict: a state OpenTofu changed after Kyku read it
// is not overwritten.
func TestTerraformWriteConflict(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "terraform.tfstate")
	put(t, path, recordedState(t, "counts"))
	b := newTF(t, dir, "")
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	put(t, path, recordedState(t, "lifecycle")) // tofu wrote meanwhile
	delete(st.Resources, "random_id.c[2]")
	st.Metadata.Serial++
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); !errors.Is(err, statemgr.ErrConflict) {
		t.Errorf("got %v, want a conflict", err)
	}
	if string(get(t, path)) != string(recordedState(t, "lifecycle")) {
		t.Error("the state OpenTofu wrote was overwritten")
	}
}

// TestTerraformLockBody: the lock body reads and writes back byte for byte
// as tofu 1.12.6 wrote it (testdata/tofu.lock.info, taken during a tofu
// apply), and Kyku's lock body has its fields, in its order, Path the
// state's path as OpenTofu names it.
func TestTerraformLockBody(t *testing.T) {
	tofu := get(t, "testdata/tofu.lock.info")
	l, ok := tflayout.ParseLockInfo(tofu)
	if !ok {
		t.Fatal("not lock info")
	}
	if d := cmp.Diff(string(tofu), string(l.Marshal())); d != "" {
		t.Errorf("(-tofu +kyku):\n%s", d)
	}
	h := l.Holder()
	if h.Who != "root@vm" || h.Operation != "OperationTypeApply (tofu 1.12.6)" || !h.Created.Equal(l.Created) {
		t.Errorf("holder: %+v", h)
	}

	ctx := t.Context()
	dir := t.TempDir()
	b := newTF(t, dir, "")
	lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "ci@runner", RunURL: "https://ci/run/1"})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock(ctx)
	body := get(t, filepath.Join(dir, ".terraform.tfstate.lock.info"))
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		t.Fatal(err)
	}
	keys := strings.Split(strings.TrimSuffix(strings.TrimPrefix(string(body), "{"), "}"), ",\"")
	if len(fields) != 7 || !strings.HasPrefix(keys[0], `"ID":`) {
		t.Errorf("body: %s", body)
	}
	got, _ := tflayout.ParseLockInfo(body)
	want := tflayout.LockInfo{ID: lock.Info().ID, Operation: "apply", Info: got.Info, Who: "ci@runner", Version: "kyku", Created: tfClock, Path: "terraform.tfstate"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	if st, _ := os.Stat(filepath.Join(dir, ".terraform.tfstate.lock.info")); st.Mode().Perm() != 0o600 {
		t.Errorf("lock info mode %v", st.Mode())
	}
}

// TestTerraformLockExcludes: while one Backend holds the lock (as a tofu
// process would: the fcntl lock on the state file), another refuses with
// the holder's info: who, the operation, since when; once released, the
// lock's body and the empty state file the lock created are gone.
func TestTerraformLockExcludes(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	a, b := newTF(t, dir, ""), newTF(t, dir, "")
	lock, err := a.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "alice@laptop"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan", Who: "bob@ci"})
	var le *statemgr.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a LockedError", err)
	}
	if le.Holder.Who != "alice@laptop" || le.Holder.Operation != "apply" || !le.Holder.Created.Equal(tfClock) || le.Holder.ID != lock.Info().ID {
		t.Errorf("holder: %+v", le.Holder)
	}
	if !strings.Contains(err.Error(), "state is locked by alice@laptop (operation \"apply\"") {
		t.Errorf("message: %v", err)
	}
	if err := b.ForceUnlock(ctx, lock.Info().ID); err == nil || !strings.Contains(err.Error(), "it is released when that process ends") {
		t.Errorf("force-unlock of a live lock: %v", err)
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	lock2, err := b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	_ = lock2.Unlock(ctx)
}

// TestTerraformLockLeftBehind: a lock body a dead process left (its fcntl
// lock went with it) does not hold the state, and force-unlock removes it.
func TestTerraformLockLeftBehind(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	put(t, filepath.Join(dir, "terraform.tfstate"), recordedState(t, "empty"))
	put(t, filepath.Join(dir, ".terraform.tfstate.lock.info"), get(t, "testdata/tofu.lock.info"))
	b := newTF(t, dir, "")
	if err := b.ForceUnlock(ctx, "another"); !errors.Is(err, statemgr.ErrWrongToken) {
		t.Errorf("force-unlock with another ID: %v", err)
	}
	if err := b.ForceUnlock(ctx, "e2311bd6-d578-47fb-4205-4470c211590f"); err != nil {
		t.Errorf("force-unlock: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".terraform.tfstate.lock.info")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the body is still there: %v", err)
	}
	put(t, filepath.Join(dir, ".terraform.tfstate.lock.info"), get(t, "testdata/tofu.lock.info"))
	lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatalf("a lock body alone held the state: %v", err)
	}
	_ = lock.Unlock(ctx)
}

// TestTerraformExtra: what Kyku's model holds beyond the Terraform state
// (the deploy prefix, a resource's config) is kept in <state>.kyku and
// comes back with the state it was written with; once OpenTofu wrote the
// state again (same serial, other bytes: tofu state push -force), it does
// not.
func TestTerraformExtra(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "terraform.tfstate")
	put(t, path, recordedState(t, "lifecycle"))
	b := newTF(t, dir, "")
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Metadata.Prefix = "kyku-7f3a"
	st.Resources["random_pet.base"].Config = map[string]any{"length": 2.0}
	st.Metadata.Serial++
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if string(get(t, path)) != string(recordedState(t, "lifecycle")) {
		t.Error("the Terraform state was written, though nothing in it changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "terraform.tfstate.kyku", tflayout.ExtraKey)); err != nil {
		t.Errorf("nothing kept beside the state: %v", err)
	}
	got, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Metadata.Prefix != "kyku-7f3a" || got.Resources["random_pet.base"].Config["length"] != 2.0 {
		t.Errorf("read back: %+v %+v", got.Metadata, got.Resources["random_pet.base"])
	}
	pushed := strings.Replace(string(recordedState(t, "lifecycle")), `"separator": "-"`, `"separator": "+"`, 1)
	put(t, path, []byte(pushed))
	got, err = newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Metadata.Prefix != "" || got.Resources["random_pet.base"].Config != nil {
		t.Errorf("kept for another state: %+v %+v", got.Metadata, got.Resources["random_pet.base"])
	}
}

// nopCodec is a Codec that seals nothing (only its presence matters).
type nopCodec struct{}

func (nopCodec) Seal(_ context.Context, _ string, p []byte) ([]byte, error) { return p, nil }
func (nopCodec) Open(_ context.Context, _ string, p []byte) ([]byte, error) { return p, nil }

// TestTerraformEncryption: Kyku's state encryption is refused on a
// Terraform state (OpenTofu could not read it), and a state OpenTofu's own
// encryption sealed is refused, with one line each.
func TestTerraformEncryption(t *testing.T) {
	dir := t.TempDir()
	_, err := local.NewTerraform(local.TerraformConfig{Dir: dir}, "", tflayout.Options{}, local.Options{Codec: nopCodec{}})
	want := `local backend ` + filepath.Join(dir, "terraform.tfstate") + `: kyku's state encryption is not for a Terraform state (OpenTofu could not read it); remove "encryption:"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	put(t, filepath.Join(dir, "terraform.tfstate"), []byte(`{"meta":{"key_provider.pbkdf2.main":"eyJzYWx0IjoiIn0="},"encrypted_data":"c2VhbGVk","encryption_version":"v0"}`))
	_, err = newTF(t, dir, "").Read(t.Context())
	if !errors.Is(err, tfstate.ErrEncrypted) || strings.Contains(err.Error(), "\n") {
		t.Errorf("OpenTofu's encryption: %v", err)
	}
}

// TestTerraformLockWaits: with a lock timeout, Lock waits for the holder,
// telling the waiting hook once who holds it, and takes the lock once it
// is released.
func TestTerraformLockWaits(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	lock, err := newTF(t, dir, "").Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "alice@laptop"})
	if err != nil {
		t.Fatal(err)
	}
	patient, err := local.NewTerraform(local.TerraformConfig{Dir: dir}, "", tflayout.Options{LockTimeout: 10 * time.Second, PollInterval: 10 * time.Millisecond}, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var told []string
	waiting := statemgr.WithLockWaiting(ctx, func(h statemgr.LockInfo, timeout time.Duration) {
		told = append(told, fmt.Sprintf("%s %s %v", h.Who, h.Operation, timeout))
		go func() { _ = lock.Unlock(ctx) }()
	})
	got, err := patient.Lock(waiting, statemgr.LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Unlock(ctx)
	if d := cmp.Diff([]string{"alice@laptop apply 10s"}, told); d != "" {
		t.Errorf("told (-want +got):\n%s", d)
	}
}

// TestTerraformNewState: where there is no state yet, Kyku's first write
// makes one as OpenTofu would: version 4 by OpenTofu 1.12.6's format, the
// lineage Kyku chose, each resource with the provider its type implies.
func TestTerraformNewState(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	b := newTF(t, dir, "")
	st, err := b.Read(ctx)
	if err != nil || st != nil {
		t.Fatalf("no state yet: %v %v", st, err)
	}
	next := state.New("kyku-1", "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "")
	next.Metadata.Serial = 1
	next.Resources["random_pet.p"] = &state.Resource{Name: "random_pet.p", Type: "random_pet", ProviderID: "able-fox",
		Outputs: map[string]any{"id": "able-fox", "length": 2.0, "separator": "-"}}
	if err := b.Write(ctx, next, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 4,
  "terraform_version": "1.12.6",
  "serial": 1,
  "lineage": "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
  "outputs": {},
  "resources": [
    {
      "mode": "managed",
      "type": "random_pet",
      "name": "p",
      "provider": "provider[\"registry.opentofu.org/hashicorp/random\"]",
      "instances": [
        {
          "schema_version": 0,
          "attributes": {
            "id": "able-fox",
            "length": 2,
            "separator": "-"
          },
          "sensitive_attributes": []
        }
      ]
    }
  ],
  "check_results": null
}

`
	if d := cmp.Diff(want, string(get(t, filepath.Join(dir, "terraform.tfstate")))); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	got, err := newTF(t, dir, "").Read(ctx)
	if err != nil || got.Metadata.Prefix != "kyku-1" || got.Resources["random_pet.p"].ProviderID != "able-fox" {
		t.Errorf("read back: %+v %v", got, err)
	}
}
