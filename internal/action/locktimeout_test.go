package action_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// TestRunsWaitForTheStateLock: a run that finds the state lock held (by
// another run of the environment, outside its concurrency group) says so
// and waits up to input lock-timeout: it plans once the lock is given
// back, and gives up after the timeout while it is not.
func TestRunsWaitForTheStateLock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout string
		release time.Duration // 0: held throughout
		code    int
	}{
		{"released within the timeout", "1m", 1500 * time.Millisecond, 0},
		{"held past the timeout", "1s", 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.addPR(2, shaA)
			f.setRef(shaA, f.config("web", "worker"))
			f.setCheckout(f.config("web"))
			f.setRef(defaultRef, f.config("web"))
			lock, err := f.backendStore().Lock(t.Context(), statemgr.LockInfo{Who: "another-run", Operation: "apply", RunURL: "https://github.com/" + repoName + "/actions/runs/1"})
			must(t, err)
			if tc.release > 0 {
				time.AfterFunc(tc.release, func() { _ = lock.Unlock(t.Context()) })
			} else {
				defer lock.Unlock(t.Context())
			}
			start := time.Now()
			r := f.run("pull_request", prEvent(t, "pull_request.opened.json", 2, shaA), map[string]string{"INPUT_LOCK-TIMEOUT": tc.timeout})
			took := time.Since(start)
			wantCode(t, r, tc.code)
			if !strings.Contains(r.stdout, "kyku: the state lock is held (apply by another-run https://github.com/"+repoName+"/actions/runs/1); waiting up to "+tc.timeout) {
				t.Errorf("the log does not say the run waits for the lock:\n%s", r.stdout)
			}
			if tc.code != 0 && took > 15*time.Second {
				t.Errorf("the run gave up after %s, want about its lock-timeout %s", took, tc.timeout)
			}
		})
	}
}
