package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
)

// TestForceUnlockOfALeaseRunToken: the run token a lease message names is
// not a lock's: force-unlock of it says so, naming the holder, instead of
// "no lock is held", and leaves the lease alone.
func TestForceUnlockOfALeaseRunToken(t *testing.T) {
	k := newKyku(t, cfg)
	b := local.New(filepath.Join(k.dir, ".kyku"), "", local.Options{})
	m, err := lease.For(t.Context(), b, "", lease.Options{Timeout: time.Second})
	if err != nil || m == nil {
		t.Fatalf("lease.For(local) = %v, %v", m, err)
	}
	set, err := m.Acquire(t.Context(), []string{"web"}, lease.Holder{Lock: statemgr.LockInfo{Who: "alice@ci-7", Operation: "apply"}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Release(t.Context())
	live, err := m.Live(t.Context())
	if err != nil || len(live) != 1 {
		t.Fatalf("live leases %v, %v", live, err)
	}
	var run string
	for r := range live {
		run = r
	}
	code, _, errOut := k.run("", "force-unlock", "--force", run)
	if code != 1 || !strings.Contains(errOut, "that is the run token of an apply holding leases") || !strings.Contains(errOut, "alice@ci-7") {
		t.Errorf("force-unlock of a lease's run token: exit %d, stderr %q; want a refusal saying it is a lease's, naming the holder", code, errOut)
	}
	if live, err := m.Live(t.Context()); err != nil || len(live) != 1 {
		t.Errorf("after force-unlock: live leases %v, %v; want the lease still held", live, err)
	}
	if code, _, errOut := k.run("", "force-unlock", "--force", statemgr.NewLockID()); code != 1 || !strings.Contains(errOut, "no lock is held") {
		t.Errorf("force-unlock of another token: exit %d, stderr %q; want no lock is held", code, errOut)
	}
}
