package s3_test

import (
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// TestConformance runs the shared backend suite against the real server:
// one bucket for the run, a fresh prefix per test.
func TestConformance(t *testing.T) {
	t.Parallel()
	bucket := newBucket(t)
	statemgrtest.Run(t, statemgrtest.SharedStore(
		func(t *testing.T) string { return "conf/" + randHex(6) },
		func(t *testing.T, prefix string) statemgr.Backend {
			return newBackend(t, s3b.Config{Bucket: bucket, Prefix: prefix, BackupRetention: statemgrtest.BackupRetention}, "test", s3b.Options{
				LockTimeout:  statemgrtest.LockTimeout,
				PollInterval: 20 * time.Millisecond,
			})
		}))
}
