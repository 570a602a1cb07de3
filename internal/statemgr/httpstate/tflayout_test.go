package httpstate_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/statemgr/tflayout/tofutest"
	"github.com/kyku/action/internal/tfstate"
)

func newTerraform(t *testing.T, srv *httpstatetest.Server, name string) *tflayout.Backend {
	t.Helper()
	b, err := httpstate.NewTerraform(httpstate.Config{
		Address: srv.URL + name, LockAddress: srv.URL + name, UnlockAddress: srv.URL + name,
		RetryMax: 2, RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond,
	}, "", local.New(t.TempDir(), "", local.Options{}), tflayout.Options{LockTimeout: -1}, httpstate.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func post(t *testing.T, url string, method string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestTerraformHTTP: the document is the Terraform state: read as OpenTofu
// wrote it, not written when nothing changed, written in the compact form
// with ?ID= of the lock held when something did.
func TestTerraformHTTP(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	orig, err := os.ReadFile(filepath.Join("..", "..", "tfstate", "testdata", "recorded", "checks.remote.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	post(t, srv.URL+"net", http.MethodPost, orig)
	b := newTerraform(t, srv, "net")
	lock, err := b.Lock(ctx, statemgr.LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	posts := srv.Requests(http.MethodPost)
	st.Metadata.Serial++
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if srv.Requests(http.MethodPost) != posts || string(srv.Document("net")) != string(orig) {
		t.Error("the state was written, though nothing changed")
	}
	st.Outputs["first"] = 11.0
	st.Metadata.Serial++ // the write that changed nothing left it at the stored serial
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err) // the server refuses a POST without the lock's ID
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := tfstate.Decode("http", srv.Document("net"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Outputs["first"].Value) != "11" || got.Serial != 2 {
		t.Errorf("written: %s serial %d", got.Outputs["first"].Value, got.Serial)
	}
	if _, err := httpstate.NewTerraform(httpstate.Config{Address: srv.URL + "x"}, "staging", local.New(t.TempDir(), "", local.Options{}), tflayout.Options{}, httpstate.Options{}); err == nil {
		t.Error("a workspace other than default was accepted")
	}
}

// TestTerraformHTTPLock: Kyku's LOCK carries OpenTofu's lock body; while
// OpenTofu's lock is held, Kyku refuses with its info, and force-unlock
// with another ID is refused.
func TestTerraformHTTPLock(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	a, b := newTerraform(t, srv, "net"), newTerraform(t, srv, "net")
	lock, err := a.Lock(ctx, statemgr.LockInfo{Operation: "apply", Who: "alice@laptop"})
	if err != nil {
		t.Fatal(err)
	}
	body, ok := tflayout.ParseLockInfo(srv.Lock("net"))
	if !ok || body.ID != lock.Info().ID || body.Who != "alice@laptop" || body.Operation != "apply" {
		t.Errorf("lock body: %s", srv.Lock("net"))
	}
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	var le *statemgr.LockedError
	if !errors.As(err, &le) || le.Holder.Who != "alice@laptop" {
		t.Fatalf("got %v", err)
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	tofu := []byte(`{"ID":"4d1e2c1a-0b6c-2d7e-8f90-a1b2c3d4e5f6","Operation":"OperationTypeApply","Info":"","Who":"bob@laptop","Version":"1.12.6","Created":"2026-12-06T11:00:00Z","Path":""}`)
	if code := post(t, srv.URL+"net", "LOCK", tofu); code != http.StatusOK {
		t.Fatalf("LOCK: %d", code)
	}
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	if !errors.As(err, &le) || le.Holder.Who != "bob@laptop" || le.Holder.Operation != "OperationTypeApply (tofu 1.12.6)" {
		t.Fatalf("got %v", err)
	}
	if err := b.ForceUnlock(ctx, "another"); !errors.Is(err, statemgr.ErrWrongToken) {
		t.Errorf("force-unlock with another ID: %v", err)
	}
	if err := b.ForceUnlock(ctx, "4d1e2c1a-0b6c-2d7e-8f90-a1b2c3d4e5f6"); err != nil {
		t.Fatal(err)
	}
	if srv.Lock("net") != nil {
		t.Error("still locked")
	}
}

// TestTofuHTTPInterop: with a real tofu on the same server: Kyku reads
// tofu's state; while Kyku holds the lock tofu plan refuses naming it;
// while tofu applies, Kyku refuses naming tofu's lock.
func TestTofuHTTPInterop(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	config := fmt.Sprintf(`terraform {
  backend "http" {
    address        = "%[1]snet"
    lock_address   = "%[1]snet"
    unlock_address = "%[1]snet"
  }
}

variable "wait" {
  default = "0s"
}

resource "time_sleep" "w" {
  create_duration = var.wait
}
`, srv.URL)
	r := tofutest.New(t, config)
	r.Run(0, "apply", "-auto-approve", "-input=false")
	b := newTerraform(t, srv, "net")
	st, err := b.Read(ctx)
	if err != nil || st.Resources["time_sleep.w"] == nil {
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
	_ = lock.Unlock(ctx)
	apply := r.Cmd("apply", "-auto-approve", "-input=false", "-var", "wait=3s", "-replace=time_sleep.w")
	if err := apply.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); srv.Lock("net") == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("tofu took no lock")
		}
	}
	_, err = b.Lock(ctx, statemgr.LockInfo{Operation: "plan"})
	var le *statemgr.LockedError
	if !errors.As(err, &le) || le.Holder.Operation != "OperationTypeApply (tofu 1.12.6)" {
		t.Errorf("while tofu applies: %v", err)
	}
	if err := apply.Wait(); err != nil {
		t.Errorf("tofu apply: %v", err)
	}
}
