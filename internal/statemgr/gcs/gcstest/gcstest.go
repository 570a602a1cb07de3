// Package gcstest gives tests of any package a real GCS emulator
// (fsouza/fake-gcs-server): the one .ci/gcs-server.sh started
// (KYKU_TEST_GCS_HOST in the environment), or else a fake-gcs-server binary
// (PATH or $KYKU_CI_CACHE/bin) started on 127.0.0.1 for the test binary's
// lifetime. Without either, tests that need it skip — except under CI=true,
// where that is a failure. Call Main from TestMain: it also sets
// STORAGE_EMULATOR_HOST, which the client library reads itself.
package gcstest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"

	"github.com/kyku/action/internal/statemgr/objstore/objstoretest"
)

// Server is a running emulator.
type Server struct {
	Host   string // host:port, what STORAGE_EMULATOR_HOST holds
	Client *storage.Client
}

var gate = objstoretest.Gate[Server]{
	Pkg: "gcstest", Binary: "fake-gcs-server",
	Hint: "no GCS emulator: source .ci/gcs-server.sh (KYKU_TEST_GCS_HOST) or put fake-gcs-server on PATH or in $KYKU_CI_CACHE/bin",
}

// Main finds or starts the emulator, runs the tests and stops what it started.
func Main(m *testing.M) int { return objstoretest.Main(m, Setup) }

// Setup finds or starts the emulator (for a TestMain that needs more than
// one service) and sets STORAGE_EMULATOR_HOST; stop stops what it started.
// Without an emulator, Require skips, and under CI=true Setup fails.
func Setup() (stop func(), err error) {
	s := &Server{Host: os.Getenv("KYKU_TEST_GCS_HOST")}
	stop, ok, err := gate.Start(s.Host != "", func(bin string) (func(), error) { return start(bin, s) })
	if !ok {
		return stop, err
	}
	os.Setenv("STORAGE_EMULATOR_HOST", s.Host)
	client, err := storage.NewClient(context.Background())
	if err != nil {
		stop()
		return func() {}, fmt.Errorf("storage client for the emulator: %w", err)
	}
	s.Client = client
	gate.Ready(s)
	return stop, nil
}

// Require returns the server, or skips tb when there is none.
func Require(tb testing.TB) *Server {
	tb.Helper()
	return gate.Require(tb)
}

// NewBucket creates a bucket of tb's own.
func (s *Server) NewBucket(tb testing.TB) string {
	tb.Helper()
	name := objstoretest.BucketName(tb)
	if err := s.Client.Bucket(name).Create(context.Background(), "test-project", nil); err != nil {
		tb.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// Objects returns every object in bucket under prefix, by name.
func (s *Server) Objects(tb testing.TB, bucket, prefix string) map[string][]byte {
	tb.Helper()
	ctx := context.Background()
	out := map[string][]byte{}
	it := s.Client.Bucket(bucket).Objects(ctx, &storage.Query{Prefix: prefix})
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return out
		}
		if err != nil {
			tb.Fatalf("list %s: %v", bucket, err)
		}
		r, err := s.Client.Bucket(bucket).Object(a.Name).NewReader(ctx)
		if err != nil {
			tb.Fatalf("read %s: %v", a.Name, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			tb.Fatalf("read %s: %v", a.Name, err)
		}
		out[a.Name] = data
	}
}

// start runs the emulator (memory backend) on a free 127.0.0.1 port until
// the test binary ends.
func start(bin string, s *Server) (stop func(), err error) {
	addr, err := objstoretest.FreeAddr()
	if err != nil {
		return nil, err
	}
	s.Host = addr.String()
	logf, err := os.CreateTemp("", "kyku-gcs-test-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(addr.Port),
		"-backend", "memory", "-public-host", s.Host, "-external-url", "http://"+s.Host, "-log-level", "error")
	return objstoretest.Start(objstoretest.Process{
		Name: "fake-gcs-server", Cmd: cmd, Log: logf,
		Probe:   "http://" + s.Host + "/storage/v1/b?project=test-project",
		Cleanup: func() { os.Remove(logf.Name()) },
	})
}
