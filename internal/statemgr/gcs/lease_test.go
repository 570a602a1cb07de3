package gcs_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/lease/leasesuite"
	"github.com/kyku/action/internal/statemgr/gcs"
	"github.com/kyku/action/internal/statemgr/gcs/gcstest"
)

// TestLeases runs the per-object lease suite on the emulator (GCS's
// generation preconditions).
func TestLeases(t *testing.T) {
	srv := gcstest.Require(t)
	bucket := srv.NewBucket(t)
	leasesuite.Run(t, func(t *testing.T) string { return fmt.Sprintf("leases/%d", time.Now().UnixNano()) },
		func(t *testing.T, loc string) lease.Store {
			return newBackend(t, srv, gcs.Config{Bucket: bucket, Prefix: loc}, "", gcs.Options{})
		})
}
