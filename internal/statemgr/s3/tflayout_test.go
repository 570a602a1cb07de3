package s3_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/statemgr/tflayout/tofutest"
	"github.com/kyku/action/internal/tfstate"
)

func ptr[T any](v T) *T { return &v }

// TestTerraformKeys: where each workspace's state is, as OpenTofu's s3
// backend has it.
func TestTerraformKeys(t *testing.T) {
	tests := []struct {
		cfg       s3b.TerraformConfig
		workspace string
		want      string
	}{
		{s3b.TerraformConfig{Key: "net/terraform.tfstate"}, "", "net/terraform.tfstate"},
		{s3b.TerraformConfig{Key: "net/terraform.tfstate"}, "default", "net/terraform.tfstate"},
		{s3b.TerraformConfig{Key: "net/terraform.tfstate"}, "staging", "env:/staging/net/terraform.tfstate"},
		{s3b.TerraformConfig{Key: "net/terraform.tfstate", WorkspaceKeyPrefix: ptr("workspaces")}, "staging", "workspaces/staging/net/terraform.tfstate"},
		{s3b.TerraformConfig{Key: "terraform.tfstate", WorkspaceKeyPrefix: ptr("")}, "staging", "staging/terraform.tfstate"},
	}
	for _, tt := range tests {
		if got := tt.cfg.StateKey(tt.workspace); got != tt.want {
			t.Errorf("StateKey(%q) with %+v = %s, want %s", tt.workspace, tt.cfg, got, tt.want)
		}
	}
}

// TestTerraformRefusals: DynamoDB locking is refused with one line saying
// what to use instead, as are keys OpenTofu refuses.
func TestTerraformRefusals(t *testing.T) {
	tests := []struct {
		cfg  s3b.TerraformConfig
		want string
	}{
		{s3b.TerraformConfig{Bucket: "b", Key: "k", DynamoDBTable: "locks"}, `s3 backend: DynamoDB locking (dynamodb_table) is not supported: lock with the lock file instead: use_lockfile = true, without dynamodb_table`},
		{s3b.TerraformConfig{Bucket: "b", Key: "k", DynamoDBTable: "locks", UseLockfile: true}, `s3 backend: dynamodb_table is not supported: OpenTofu keeps the state's digest in the table, which kyku does not update; remove dynamodb_table and keep use_lockfile = true`},
		{s3b.TerraformConfig{Bucket: "b"}, `s3 backend: key is required`},
		{s3b.TerraformConfig{Bucket: "b", Key: "/k"}, `s3 backend: key "/k" must not start or end with a slash`},
	}
	for _, tt := range tests {
		_, err := s3b.NewTerraformWithClient(nil, tt.cfg, "", tflayout.Options{}, s3b.Options{})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%+v: got %v, want %s", tt.cfg, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("not one line: %q", err)
		}
	}
}

func newTerraform(t *testing.T, bucket, workspace string) *tflayout.Backend {
	t.Helper()
	needServer(t)
	b, err := s3b.NewTerraformWithClient(server.client, s3b.TerraformConfig{Bucket: bucket, Key: "net/terraform.tfstate", UseLockfile: true},
		workspace, tflayout.Options{LockTimeout: -1, Hostname: "runner", PID: 7}, s3b.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "tfstate", "testdata", "recorded", name+".remote.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestTerraformS3: a state OpenTofu wrote to S3 is read, a write that
// changes nothing is not made, a change is written in OpenTofu's compact
// form with the serial raised, Kyku's additions go under <key>.kyku/,
// and nothing else is written.
func TestTerraformS3(t *testing.T) {
	ctx := t.Context()
	bucket := newBucket(t)
	key := "env:/staging/net/terraform.tfstate"
	orig := recorded(t, "counts")
	rawPut(t, bucket, key, orig)
	b := newTerraform(t, bucket, "staging")
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
	if string(rawGet(t, bucket, key)) != string(orig) {
		t.Error("the state was written, though nothing changed")
	}
	delete(st.Resources, "random_id.c[1]")
	st.Metadata.Serial++ // the write that changed nothing left it at the stored serial
	st.Metadata.Prefix = "kyku-51de"
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Backup(ctx, st); err != nil {
		t.Fatal(err)
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := tfstate.Decode(key, rawGet(t, bucket, key))
	if err != nil {
		t.Fatal(err)
	}
	was, _ := tfstate.Decode("orig", orig)
	if got.Serial != was.Serial+1 || got.Lineage != was.Lineage {
		t.Errorf("serial %d lineage %s", got.Serial, got.Lineage)
	}
	compact, _ := tfstate.Encode(got, tfstate.Compact)
	if string(compact) != string(rawGet(t, bucket, key)) {
		t.Error("not OpenTofu's compact form")
	}
	var keys []string
	raw := 0
	for _, k := range rawKeys(t, bucket) {
		switch {
		case strings.HasPrefix(k, key+".kyku/tfstate-backups/"):
			raw++ // the Terraform state backed up, beside Kyku's backup
		case !strings.HasPrefix(k, key+".kyku/backups/"):
			keys = append(keys, k)
		}
	}
	if d := cmp.Diff([]string{key, key + ".kyku/" + tflayout.ExtraKey}, keys); d != "" || raw != 1 {
		t.Errorf("objects (-want +got):\n%s; %d Terraform state backups, want 1", d, raw)
	}
}

// TestTerraformS3Lock: Kyku's lock is the object <key>.tflock holding
// OpenTofu's lock body (Path bucket/key); while OpenTofu's lock object is
// there, Kyku refuses with its info, and force-unlock with its ID removes
// it.
func TestTerraformS3Lock(t *testing.T) {
	ctx := t.Context()
	bucket := newBucket(t)
	a, b := newTerraform(t, bucket, ""), newTerraform(t, bucket, "")
	lock, err := a.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "alice@laptop"})
	if err != nil {
		t.Fatal(err)
	}
	body, ok := tflayout.ParseLockInfo(rawGet(t, bucket, "net/terraform.tfstate.tflock"))
	if !ok || body.ID != lock.Info().ID || body.Path != bucket+"/net/terraform.tfstate" || body.Who != "alice@laptop" || body.Operation != "apply" {
		t.Errorf("lock object: %+v", body)
	}
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	var le *statemgr.LockedError
	if !errors.As(err, &le) || le.Holder.Who != "alice@laptop" || le.Holder.ID != lock.Info().ID {
		t.Fatalf("got %v", err)
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if rawGet(t, bucket, "net/terraform.tfstate.tflock") != nil {
		t.Error("the lock object is still there")
	}

	tofu := fmt.Sprintf(`{"ID":"4d1e2c1a-0b6c-2d7e-8f90-a1b2c3d4e5f6","Operation":"OperationTypeApply","Info":"","Who":"bob@laptop","Version":"1.12.6","Created":"2026-12-06T11:00:00.123456789Z","Path":"%s/net/terraform.tfstate"}`, bucket)
	rawPut(t, bucket, "net/terraform.tfstate.tflock", []byte(tofu))
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	if !errors.As(err, &le) || le.Holder.Who != "bob@laptop" || le.Holder.Operation != "OperationTypeApply (tofu 1.12.6)" ||
		!le.Holder.Created.Equal(time.Date(2026, 12, 6, 11, 0, 0, 123456789, time.UTC)) {
		t.Fatalf("got %v", err)
	}
	if err := b.ForceUnlock(ctx, "another"); !errors.Is(err, statemgr.ErrWrongToken) {
		t.Errorf("force-unlock with another ID: %v", err)
	}
	if err := b.ForceUnlock(ctx, "4d1e2c1a-0b6c-2d7e-8f90-a1b2c3d4e5f6"); err != nil {
		t.Fatal(err)
	}
	lock, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	_ = lock.Unlock(ctx)
}

// TestTofuS3Interop: with a real tofu on the same bucket: tofu's state is
// read and left as it is; while Kyku holds the lock tofu plan refuses,
// naming it; while tofu applies, Kyku refuses, naming tofu's.
func TestTofuS3Interop(t *testing.T) {
	needServer(t)
	bucket := newBucket(t)
	config := fmt.Sprintf(`terraform {
  backend "s3" {
    bucket                      = %q
    key                         = "net/terraform.tfstate"
    region                      = %q
    endpoints                   = { s3 = %q }
    use_path_style              = true
    skip_credentials_validation = true
    skip_region_validation      = true
    skip_requesting_account_id  = true
    skip_metadata_api_check     = true
    skip_s3_checksum            = true
    use_lockfile                = true
  }
}

variable "wait" {
  default = "0s"
}

resource "random_pet" "p" {}

resource "time_sleep" "w" {
  create_duration = var.wait
}
`, bucket, server.region, server.endpoint)
	env := []string{"AWS_ACCESS_KEY_ID=" + server.access, "AWS_SECRET_ACCESS_KEY=" + server.secret, "AWS_REGION=" + server.region, "AWS_EC2_METADATA_DISABLED=true"}
	r := tofutest.New(t, config, env...)
	r.Run(0, "apply", "-auto-approve", "-input=false")
	stored := rawGet(t, bucket, "net/terraform.tfstate")
	ctx := t.Context()
	b := newTerraform(t, bucket, "")
	st, err := b.Read(ctx)
	if err != nil || st.Resources["random_pet.p"] == nil {
		t.Fatalf("read tofu's state: %v %v", st, err)
	}
	if f, _ := tfstate.Decode("s3", stored); f != nil {
		if again, _ := tfstate.Encode(f, tfstate.Compact); string(again) != string(stored) {
			t.Error("tofu's state in S3 does not round-trip")
		}
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
	_ = lock.Unlock(ctx)
	r.Run(0, "plan", "-lock-timeout=0s", "-input=false")

	apply := r.Cmd("apply", "-auto-approve", "-input=false", "-var", "wait=3s", "-replace=time_sleep.w")
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); rawGet(t, bucket, "net/terraform.tfstate.tflock") == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("tofu took no lock")
		}
	}
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	var le *statemgr.LockedError
	if !errors.As(err, &le) || le.Holder.Operation != "OperationTypeApply (tofu 1.12.6)" || le.Holder.Path != bucket+"/net/terraform.tfstate" {
		t.Errorf("while tofu applies: %v", err)
	}
	if err := apply.Wait(); err != nil {
		t.Errorf("tofu apply: %v", err)
	}
}

// TestTerraformS3ReadAhead: a state on S3 read ahead of the lock (a plan
// expanding its configuration meanwhile) and written by OpenTofu before
// the lock is taken is read under the lock as OpenTofu left it; one left
// alone reads as a plain read does.
func TestTerraformS3ReadAhead(t *testing.T) {
	ctx := t.Context()
	bucket := newBucket(t)
	key := "net/terraform.tfstate"
	rawPut(t, bucket, key, recorded(t, "counts"))
	plain, err := newTerraform(t, bucket, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}

	ahead := newTerraform(t, bucket, "")
	ahead.ReadAhead(ctx)
	time.Sleep(300 * time.Millisecond) // the read ahead of a small state on a local server is done by now
	st, err := ahead.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(plain, st); d != "" {
		t.Errorf("read after a read ahead (-plain +after):\n%s", d)
	}

	changed := newTerraform(t, bucket, "")
	changed.ReadAhead(ctx)
	time.Sleep(300 * time.Millisecond)
	rawPut(t, bucket, key, recorded(t, "basic")) // OpenTofu's write before the lock
	lock, err := changed.Lock(ctx, statemgr.LockInfo{Operation: "plan", Who: "ci@runner"})
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock(ctx)
	st, err = changed.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := newTerraform(t, bucket, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, st); d != "" || d == "" && cmp.Equal(plain, st) {
		t.Errorf("a state written after the read ahead read as (-written +read):\n%s", d)
	}
}
