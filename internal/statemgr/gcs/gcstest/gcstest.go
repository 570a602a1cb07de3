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
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
)

// Server is a running emulator.
type Server struct {
	Host   string // host:port, what STORAGE_EMULATOR_HOST holds
	Client *storage.Client
}

var (
	current *Server
	skip    string
	buckets atomic.Int64
)

// Main finds or starts the emulator, runs the tests and stops what it started.
func Main(m *testing.M) int {
	stop, err := Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer stop()
	return m.Run()
}

// Setup finds or starts the emulator (for a TestMain that needs more than
// one service) and sets STORAGE_EMULATOR_HOST; stop stops what it started.
// Without an emulator, Require skips, and under CI=true Setup fails.
func Setup() (stop func(), err error) {
	stop = func() {}
	s := &Server{Host: os.Getenv("KYKU_TEST_GCS_HOST")}
	if s.Host == "" {
		bin := findBinary()
		if bin == "" {
			skip = "no GCS emulator: source .ci/gcs-server.sh (KYKU_TEST_GCS_HOST) or put fake-gcs-server on PATH or in $KYKU_CI_CACHE/bin"
			if os.Getenv("CI") == "true" {
				return stop, fmt.Errorf("CI=true but %s", skip)
			}
			return stop, nil
		}
		if stop, err = start(bin, s); err != nil {
			return func() {}, fmt.Errorf("start fake-gcs-server: %w", err)
		}
	}
	os.Setenv("STORAGE_EMULATOR_HOST", s.Host)
	client, err := storage.NewClient(context.Background())
	if err != nil {
		stop()
		return func() {}, fmt.Errorf("storage client for the emulator: %w", err)
	}
	s.Client = client
	current = s
	return stop, nil
}

// Require returns the server, or skips tb when there is none.
func Require(tb testing.TB) *Server {
	tb.Helper()
	if current == nil {
		if skip == "" {
			skip = "gcstest.Main was not called from TestMain"
		}
		tb.Skip(skip)
	}
	return current
}

var notBucketChar = regexp.MustCompile(`[^a-z0-9]+`)

// NewBucket creates a bucket of tb's own.
func (s *Server) NewBucket(tb testing.TB) string {
	tb.Helper()
	name := strings.Trim(notBucketChar.ReplaceAllString(strings.ToLower(tb.Name()), "-"), "-")
	if len(name) > 30 {
		name = name[len(name)-30:]
	}
	name = strings.ReplaceAll(fmt.Sprintf("kyku-%s-%d-%s", strings.Trim(name, "-"), buckets.Add(1), randHex(3)), "--", "-")
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
		if err == iterator.Done {
			return out
		}
		if err != nil {
			tb.Fatalf("list %s: %v", bucket, err)
		}
		r, err := s.Client.Bucket(bucket).Object(a.Name).NewReader(ctx)
		if err != nil {
			tb.Fatalf("read %s: %v", a.Name, err)
		}
		data := make([]byte, 0, a.Size)
		buf := make([]byte, 32*1024)
		for {
			n, rerr := r.Read(buf)
			data = append(data, buf[:n]...)
			if rerr != nil {
				break
			}
		}
		r.Close()
		out[a.Name] = data
	}
}

func findBinary() string {
	if p, err := exec.LookPath("fake-gcs-server"); err == nil {
		return p
	}
	cache := os.Getenv("KYKU_CI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "kyku-ci")
	}
	p := filepath.Join(cache, "bin", "fake-gcs-server")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

// start runs the emulator (memory backend) on a free 127.0.0.1 port and
// waits (30 s at most) until it answers.
func start(bin string, s *Server) (stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().(*net.TCPAddr)
	l.Close()
	s.Host = addr.String()
	logf, err := os.CreateTemp("", "kyku-gcs-test-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(addr.Port),
		"-backend", "memory", "-public-host", s.Host, "-external-url", "http://"+s.Host, "-log-level", "error")
	cmd.Stdout, cmd.Stderr = logf, logf
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = cmd.Process.Kill()
		<-exited
		logf.Close()
		os.Remove(logf.Name())
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + s.Host + "/storage/v1/b?project=test-project")
		if err == nil {
			resp.Body.Close()
			return stop, nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logf.Name())
			stop()
			return nil, fmt.Errorf("fake-gcs-server exited early; its log:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logf.Name())
			stop()
			return nil, fmt.Errorf("fake-gcs-server did not answer at %s within 30s; its log:\n%s", s.Host, log)
		}
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
