package gcs_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func TestMain(m *testing.M) { os.Exit(gcstest.Main(m)) }

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// emulatorClient is Kyku's client for the emulator, as New makes it from
// STORAGE_EMULATOR_HOST.
func emulatorClient(t *testing.T, srv *gcstest.Server) *gcs.Client {
	t.Helper()
	c, err := gcs.NewClient(t.Context(), func(k string) string {
		if k == "STORAGE_EMULATOR_HOST" {
			return srv.Host
		}
		return ""
	}, nil)
	if err != nil {
		t.Fatal(err) // the emulator needs no credentials
	}
	return c
}

func newBackend(t *testing.T, srv *gcstest.Server, cfg gcs.Config, env string, opts gcs.Options) *gcs.Backend {
	t.Helper()
	b, err := gcs.NewWithClient(emulatorClient(t, srv), cfg, env, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestConformance runs the shared backend suite against the emulator.
func TestConformance(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	statemgrtest.Run(t, statemgrtest.SharedStore(
		func(t *testing.T) string { return "conf/" + randHex(6) },
		func(t *testing.T, prefix string) statemgr.Backend {
			return newBackend(t, srv, gcs.Config{Bucket: bucket, Prefix: prefix, BackupRetention: statemgrtest.BackupRetention}, "test",
				gcs.Options{LockTimeout: statemgrtest.LockTimeout, PollInterval: 20 * time.Millisecond})
		}))
}

// TestConformanceEncrypted: the suite through a codec, and no property value
// in clear in any object of the bucket.
func TestConformanceEncrypted(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	statemgrtest.RunEncrypted(t, statemgrtest.SharedSealedStore(
		func(t *testing.T) string { return "sealed/" + randHex(6) },
		func(t *testing.T, prefix string, c statemgr.Codec) statemgr.Backend {
			return newBackend(t, srv, gcs.Config{Bucket: bucket, Prefix: prefix, BackupRetention: statemgrtest.BackupRetention}, "test",
				gcs.Options{LockTimeout: statemgrtest.LockTimeout, PollInterval: 20 * time.Millisecond, Codec: c})
		},
		func(t *testing.T, prefix string) map[string][]byte {
			out := srv.Objects(t, bucket, prefix+"/")
			for k := range out {
				if strings.HasSuffix(k, ".lock") {
					delete(out, k)
				}
			}
			return out
		}))
}

// TestStale: heartbeat and breaking of abandoned locks on the emulator.
func TestStale(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	statemgrtest.RunStale(t, func() statemgrtest.TimedFactory {
		prefixes := map[*testing.T]string{}
		return func(t *testing.T, tm statemgrtest.LockTiming) statemgr.Backend {
			p, ok := prefixes[t]
			if !ok {
				p = "stale/" + randHex(6)
				prefixes[t] = p
			}
			return newBackend(t, srv, gcs.Config{Bucket: bucket, Prefix: p}, "test", gcs.Options{
				LockTimeout: tm.LockTimeout, StaleAfter: tm.StaleAfter, Heartbeat: tm.Heartbeat, PollInterval: 20 * time.Millisecond})
		}
	}())
}
