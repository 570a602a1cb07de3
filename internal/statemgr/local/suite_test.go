package local

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	statemgrtest.Run(t, statemgrtest.SharedStore(
		func(t *testing.T) string { return t.TempDir() },
		func(t *testing.T, dir string) statemgr.Backend {
			return New(dir, "prod", Options{
				LockTimeout:     statemgrtest.LockTimeout,
				PollInterval:    10 * time.Millisecond,
				BackupRetention: statemgrtest.BackupRetention,
			})
		}))
}
