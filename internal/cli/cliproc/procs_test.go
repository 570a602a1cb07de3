package cliproc

import (
	"runtime"
	"testing"
)

// TestExecutingOnOneP: a run that started a Terraform provider runs its
// apply's changes on one P and gets its Ps back after them; a run of
// Kyku's own types, and GOMAXPROCS in the environment, keep every P.
func TestExecutingOnOneP(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	t.Cleanup(func() {
		runtime.GOMAXPROCS(prev)
		terraformRun.Store(false)
		procsByEnv.Store(false)
	})

	terraformRun.Store(false)
	done := executing()
	if got := runtime.GOMAXPROCS(0); got != 4 {
		t.Errorf("no Terraform provider: GOMAXPROCS %d during the changes, want 4", got)
	}
	done()

	providerStarted(1234)
	done = executing()
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("a Terraform provider started: GOMAXPROCS %d during the changes, want 1", got)
	}
	done()
	if got := runtime.GOMAXPROCS(0); got != 4 {
		t.Errorf("after the changes: GOMAXPROCS %d, want 4 again", got)
	}

	procsByEnv.Store(true)
	done = executing()
	if got := runtime.GOMAXPROCS(0); got != 4 {
		t.Errorf("GOMAXPROCS set in the environment: %d during the changes, want 4 (the environment's)", got)
	}
	done()
}
