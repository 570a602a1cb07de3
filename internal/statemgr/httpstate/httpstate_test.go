package httpstate_test

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/httpstate"
	"github.com/kyku/action/internal/statemgr/httpstate/httpstatetest"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func open(t *testing.T, srv *httpstatetest.Server, name string, c statemgr.Codec, mod ...func(*httpstate.Config)) *httpstate.Backend {
	t.Helper()
	cfg := httpstate.Config{
		Address: srv.URL + name, LockAddress: srv.URL + name, UnlockAddress: srv.URL + name,
		Username: srv.Username, Password: srv.Password,
		RetryMax: 3, RetryWaitMin: time.Millisecond, RetryWaitMax: 5 * time.Millisecond,
		BackupRetention: statemgrtest.BackupRetention,
	}
	for _, m := range mod {
		m(&cfg)
	}
	b, err := httpstate.New(cfg, "", httpstate.Options{LockTimeout: statemgrtest.LockTimeout, PollInterval: 20 * time.Millisecond, Codec: c})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConformance runs the shared suite against the protocol server, with
// basic auth on.
func TestConformance(t *testing.T) {
	srv := httpstatetest.New(t)
	srv.Username, srv.Password = "ci", "s3cret-pass"
	statemgrtest.Run(t, statemgrtest.SharedStore(
		func(t *testing.T) string { return "conf-" + randHex(6) },
		func(t *testing.T, name string) statemgr.Backend { return open(t, srv, name, nil) }))
}

// TestConformanceEncrypted: the suite through a codec; no property value in
// clear in any document on the server.
func TestConformanceEncrypted(t *testing.T) {
	srv := httpstatetest.New(t)
	statemgrtest.RunEncrypted(t, statemgrtest.SharedSealedStore(
		func(t *testing.T) string { return "sealed-" + randHex(6) },
		func(t *testing.T, name string, c statemgr.Codec) statemgr.Backend { return open(t, srv, name, c) },
		func(t *testing.T, name string) map[string][]byte {
			return map[string][]byte{name: srv.Document(name)}
		}))
}

// GitLab's managed state: lock by POST to …/lock, unlock by DELETE to
// …/lock; an update while another run holds the lock is refused by the
// server (409), and Kyku reports a conflict.
func TestGitLabStyleMethods(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	gitlab := func(c *httpstate.Config) {
		c.LockAddress, c.UnlockAddress = c.Address+"/lock", c.Address+"/lock"
		c.LockMethod, c.UnlockMethod = "POST", "DELETE"
	}
	a, b := open(t, srv, "prod", nil, gitlab), open(t, srv, "prod", nil, gitlab)
	l, err := a.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Lock(ctx, statemgrtest.NewLockInfo("plan")); err == nil || !strings.Contains(err.Error(), l.Info().ID) {
		t.Fatalf("second Lock = %v; want a LockedError naming %s", err, l.Info().ID)
	}
	if err := a.Write(ctx, statemgrtest.NewState("lin", 1, "web"), statemgr.WriteOptions{}); err != nil {
		t.Fatalf("write under our lock: %v", err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if srv.Requests("DELETE") != 1 || srv.Requests("LOCK") != 0 {
		t.Errorf("requests: %d DELETE, %d LOCK; want the configured methods", srv.Requests("DELETE"), srv.Requests("LOCK"))
	}
}

// Transient failures are retried; a LOCK or UNLOCK whose answer was lost
// after it worked is recognised as ours; a document that is not Kyku's is
// never overwritten; a named environment needs {env} in the address.
func TestRetriesAndLostAnswers(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	b := open(t, srv, "prod", nil)
	srv.Fail(2)
	if _, err := b.Read(ctx); err != nil {
		t.Fatalf("Read after two 502s: %v", err)
	}
	srv.Lose(1)
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatalf("Lock whose answer was lost: %v", err)
	}
	srv.Lose(1)
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("Unlock whose answer was lost: %v", err)
	}
	mustLock := open(t, srv, "prod", nil)
	l2, err := mustLock.Lock(ctx, statemgrtest.NewLockInfo("plan"))
	if err != nil {
		t.Fatalf("the lock was left behind: %v", err)
	}
	_ = l2.Unlock(ctx)

	srv.Fail(10)
	if _, err := b.Read(ctx); err == nil || !strings.Contains(err.Error(), "gave up after 4 attempts") {
		t.Errorf("Read through 10 failures = %v; want a clear give-up after retryMax", err)
	}
	srv.Fail(0)

	tf := open(t, srv, "terraform", nil)
	srvPost(t, tf)
	if err := tf.Write(ctx, statemgrtest.NewState("lin", 1), statemgr.WriteOptions{Force: true}); err == nil {
		t.Error("Write over a Terraform state succeeded")
	}

	if _, err := httpstate.New(httpstate.Config{Address: srv.URL + "state"}, "prod", httpstate.Options{}); err == nil || !strings.Contains(err.Error(), "{env}") {
		t.Errorf("named environment without {env}: %v", err)
	}
	e, err := httpstate.New(httpstate.Config{Address: srv.URL + "app-{env}", RetryWaitMin: time.Millisecond}, "staging", httpstate.Options{})
	if err != nil || !strings.HasSuffix(e.Describe(), "app-staging") {
		t.Errorf("{env} = %v, %v; want the address of app-staging", e, err)
	}
}

// srvPost puts a Terraform state at the backend's address behind its back.
func srvPost(t *testing.T, b *httpstate.Backend) {
	t.Helper()
	ctx := t.Context()
	if err := httpstate.PutRaw(ctx, b, []byte(`{"version":4,"serial":3,"lineage":"x","resources":[]}`)); err != nil {
		t.Fatal(err)
	}
}

// Without credentials the server's 401 becomes a message naming what to set.
func TestBasicAuthMissing(t *testing.T) {
	ctx := t.Context()
	srv := httpstatetest.New(t)
	srv.Username, srv.Password = "ci", "s3cret-pass"
	b := open(t, srv, "prod", nil, func(c *httpstate.Config) { c.Username, c.Password = "", "" })
	_, err := b.Read(ctx)
	var se *httpstate.StatusError
	if !errors.As(err, &se) || se.Status != 401 || !strings.Contains(err.Error(), "KYKU_HTTP_PASSWORD") {
		t.Errorf("Read without credentials = %v; want a 401 naming KYKU_HTTP_PASSWORD", err)
	}
}
