package s3_test

import (
	"strings"
	"sync"
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

// TestConformanceEncrypted runs the suite through a codec and checks that
// no object in the bucket holds a property value in clear.
func TestConformanceEncrypted(t *testing.T) {
	t.Parallel()
	bucket := newBucket(t)
	statemgrtest.RunEncrypted(t, statemgrtest.SharedSealedStore(
		func(t *testing.T) string { return "sealed/" + randHex(6) },
		func(t *testing.T, prefix string, c statemgr.Codec) statemgr.Backend {
			return newBackend(t, s3b.Config{Bucket: bucket, Prefix: prefix, BackupRetention: statemgrtest.BackupRetention}, "test", s3b.Options{
				LockTimeout: statemgrtest.LockTimeout, PollInterval: 20 * time.Millisecond, Codec: c,
			})
		},
		func(t *testing.T, prefix string) map[string][]byte {
			out := map[string][]byte{}
			for _, k := range rawKeys(t, bucket) {
				if strings.HasPrefix(k, prefix+"/") && !strings.HasSuffix(k, ".lock") {
					out[k] = rawGet(t, bucket, k)
				}
			}
			return out
		}))
}

// TestStale: heartbeat and breaking of abandoned locks on the real server.
func TestStale(t *testing.T) {
	t.Parallel()
	bucket := newBucket(t)
	prefixes := map[*testing.T]string{}
	var mu sync.Mutex
	statemgrtest.RunStale(t, func(t *testing.T, tm statemgrtest.LockTiming) statemgr.Backend {
		mu.Lock()
		p, ok := prefixes[t]
		if !ok {
			p = "stale/" + randHex(6)
			prefixes[t] = p
		}
		mu.Unlock()
		return newBackend(t, s3b.Config{Bucket: bucket, Prefix: p}, "test", s3b.Options{
			LockTimeout: tm.LockTimeout, StaleAfter: tm.StaleAfter, Heartbeat: tm.Heartbeat, PollInterval: 20 * time.Millisecond})
	})
}
