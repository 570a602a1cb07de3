// Package s3test gives tests of any package a real S3-compatible server:
// the one .ci/s3-server.sh started (KYKU_TEST_S3_* in the environment), or
// else a versitygw binary (PATH or $KYKU_CI_CACHE/bin) started for the test
// binary's lifetime. Without either, tests that need it skip — except under
// CI=true, where that is a failure. Call Main from TestMain.
package s3test

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

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
)

// Server is a running S3-compatible server.
type Server struct {
	Endpoint, Access, Secret, Region string
	Client                           *awss3.Client
}

var (
	current *Server
	skip    string
	buckets atomic.Int64
)

// Main finds or starts the server, runs the tests and stops what it started.
func Main(m *testing.M) int {
	stop, err := Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer stop()
	return m.Run()
}

// Setup finds or starts the server (for a TestMain that needs more than
// one service); stop stops what it started. Without a server, Require
// skips, and under CI=true Setup fails.
func Setup() (stop func(), err error) {
	stop = func() {}
	s := &Server{
		Endpoint: os.Getenv("KYKU_TEST_S3_ENDPOINT"), Access: os.Getenv("KYKU_TEST_S3_ACCESS_KEY"),
		Secret: os.Getenv("KYKU_TEST_S3_SECRET_KEY"), Region: os.Getenv("KYKU_TEST_S3_REGION"),
	}
	if s.Region == "" {
		s.Region = "us-east-1"
	}
	if s.Endpoint == "" {
		bin := findVersitygw()
		if bin == "" {
			skip = "no S3 server: source .ci/s3-server.sh (KYKU_TEST_S3_*) or put versitygw on PATH or in $KYKU_CI_CACHE/bin"
			if os.Getenv("CI") == "true" {
				return stop, fmt.Errorf("CI=true but %s", skip)
			}
			return stop, nil
		}
		if stop, err = start(bin, s); err != nil {
			return func() {}, fmt.Errorf("start versitygw: %w", err)
		}
	}
	s.Client = awss3.New(awss3.Options{
		Region: s.Region, BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(s.Access, s.Secret, ""),
	})
	current = s
	return stop, nil
}

// Require returns the server, or skips tb when there is none.
func Require(tb testing.TB) *Server {
	tb.Helper()
	if current == nil {
		if skip == "" {
			skip = "s3test.Main was not called from TestMain"
		}
		tb.Skip(skip)
	}
	return current
}

// Env returns the environment a child process needs to reach the server
// through the SDK's default chain.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.Access, "AWS_SECRET_ACCESS_KEY=" + s.Secret,
		"AWS_REGION=" + s.Region, "AWS_EC2_METADATA_DISABLED=true",
	}
}

var notBucketChar = regexp.MustCompile(`[^a-z0-9]+`)

// NewBucket creates a bucket of tb's own.
func (s *Server) NewBucket(tb testing.TB) string {
	tb.Helper()
	name := strings.Trim(notBucketChar.ReplaceAllString(strings.ToLower(tb.Name()), "-"), "-")
	if len(name) > 30 {
		name = name[len(name)-30:]
	}
	name = fmt.Sprintf("kyku-%s-%d-%s", strings.Trim(name, "-"), buckets.Add(1), randHex(3))
	name = strings.ReplaceAll(name, "--", "-")
	if _, err := s.Client.CreateBucket(context.Background(), &awss3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		tb.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// Keys lists every key in bucket under prefix, sorted.
func (s *Server) Keys(tb testing.TB, bucket, prefix string) []string {
	tb.Helper()
	var keys []string
	p := awss3.NewListObjectsV2Paginator(s.Client, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			tb.Fatalf("list %s: %v", bucket, err)
		}
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

func findVersitygw() string {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	cache := os.Getenv("KYKU_CI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "kyku-ci")
	}
	p := filepath.Join(cache, "bin", "versitygw")
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

// start runs versitygw on a free 127.0.0.1 port with a temp posix root and
// waits (30 s at most) until it answers. It dies with the test binary.
func start(bin string, s *Server) (stop func(), err error) {
	dir, err := os.MkdirTemp("", "kyku-s3-test-")
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"data", "versions"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	s.Access, s.Secret = "kykutest"+randHex(4), "kykutest-secret-"+randHex(8)
	s.Endpoint = "http://" + addr
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", addr, "--quiet", "--access", s.Access, "--secret", s.Secret,
		"--region", s.Region, "posix", "--versioning-dir", filepath.Join(dir, "versions"), filepath.Join(dir, "data"))
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
		os.RemoveAll(dir)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return stop, nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logPath)
			stop()
			return nil, fmt.Errorf("versitygw exited early; its log:\n%s", log)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			stop()
			return nil, fmt.Errorf("versitygw did not answer at %s within 30s; its log:\n%s", s.Endpoint, log)
		}
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
