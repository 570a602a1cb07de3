package lease_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/lease/leasesuite"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// TestTerraformStateKeepsTheWholeStateLock: a state OpenTofu may also
// write (an s3 backend block's key, package tflayout) gets no leases: its
// applies take OpenTofu's whole-state lock, which OpenTofu honours; Kyku's
// own layout on the same bucket gets them.
func TestTerraformStateKeepsTheWholeStateLock(t *testing.T) {
	srv := s3test.Require(t)
	bucket := srv.NewBucket(t)
	tf, err := s3b.NewTerraformWithClient(srv.Client, s3b.TerraformConfig{Bucket: bucket, Key: "net/terraform.tfstate", Region: srv.Region, Endpoint: srv.Endpoint, UsePathStyle: true, UseLockfile: true}, "", tflayout.Options{}, s3b.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := lease.For(t.Context(), tf, "", lease.Options{}); m != nil || err != nil {
		t.Errorf("lease.For(OpenTofu's layout) = %v, %v; want none: it keeps OpenTofu's lock", m, err)
	}
	own, err := s3b.NewWithClient(srv.Client, s3b.Config{Bucket: bucket, Region: srv.Region, Endpoint: srv.Endpoint, UsePathStyle: true}, "", s3b.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := lease.For(t.Context(), own, "", lease.Options{Timeout: time.Second}); m == nil || err != nil {
		t.Errorf("lease.For(Kyku's layout) = %v, %v; want a manager", m, err)
	}
	unlocked, err := s3b.NewWithClient(srv.Client, s3b.Config{Bucket: bucket, Region: srv.Region, Endpoint: srv.Endpoint, UsePathStyle: true, Unlocked: true}, "", s3b.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := lease.For(t.Context(), unlocked, "", lease.Options{}); m != nil || err != nil {
		t.Errorf("lease.For(lock: false) = %v, %v; want none", m, err)
	}
}

// TestSuiteOnS3 runs the lease suite on the S3 server (If-None-Match,
// If-Match).
func TestSuiteOnS3(t *testing.T) {
	srv := s3test.Require(t)
	bucket := srv.NewBucket(t)
	leasesuite.Run(t, func(t *testing.T) string { return fmt.Sprintf("suite/%d", time.Now().UnixNano()) },
		func(t *testing.T, loc string) lease.Store {
			b, err := s3b.NewWithClient(srv.Client, s3b.Config{Bucket: bucket, Prefix: loc, Region: srv.Region, Endpoint: srv.Endpoint, UsePathStyle: true}, "", s3b.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return b
		})
}
