// Package s3test gives tests of any package a real S3-compatible server:
// the one .ci/s3-server.sh started (KYKU_TEST_S3_* in the environment), or
// else a versitygw binary (PATH or $KYKU_CI_CACHE/bin) started for the test
// binary's lifetime. Without either, tests that need it skip — except under
// CI=true, where that is a failure. Call Main from TestMain.
package s3test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/statemgr/objstore/objstoretest"
)

// Server is a running S3-compatible server.
type Server struct {
	Endpoint, Access, Secret, Region string
	Client                           *awss3.Client
}

var gate = objstoretest.Gate[Server]{
	Pkg: "s3test", Binary: "versitygw",
	Hint: "no S3 server: source .ci/s3-server.sh (KYKU_TEST_S3_*) or put versitygw on PATH or in $KYKU_CI_CACHE/bin",
}

// Main finds or starts the server, runs the tests and stops what it started.
func Main(m *testing.M) int { return objstoretest.Main(m, Setup) }

// Setup finds or starts the server (for a TestMain that needs more than
// one service); stop stops what it started. Without a server, Require
// skips, and under CI=true Setup fails.
func Setup() (stop func(), err error) {
	s := &Server{
		Endpoint: os.Getenv("KYKU_TEST_S3_ENDPOINT"), Access: os.Getenv("KYKU_TEST_S3_ACCESS_KEY"),
		Secret: os.Getenv("KYKU_TEST_S3_SECRET_KEY"), Region: os.Getenv("KYKU_TEST_S3_REGION"),
	}
	if s.Region == "" {
		s.Region = "us-east-1"
	}
	stop, ok, err := gate.Start(s.Endpoint != "", func(bin string) (func(), error) { return start(bin, s) })
	if !ok {
		return stop, err
	}
	s.Client = awss3.New(awss3.Options{
		Region: s.Region, BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(s.Access, s.Secret, ""),
	})
	gate.Ready(s)
	return stop, nil
}

// Require returns the server, or skips tb when there is none.
func Require(tb testing.TB) *Server {
	tb.Helper()
	return gate.Require(tb)
}

// Env returns the environment a child process needs to reach the server
// through the SDK's default chain.
func (s *Server) Env() []string {
	return []string{
		"AWS_ACCESS_KEY_ID=" + s.Access, "AWS_SECRET_ACCESS_KEY=" + s.Secret,
		"AWS_REGION=" + s.Region, "AWS_EC2_METADATA_DISABLED=true",
	}
}

// NewBucket creates a bucket of tb's own.
func (s *Server) NewBucket(tb testing.TB) string {
	tb.Helper()
	name := objstoretest.BucketName(tb)
	if _, err := s.Client.CreateBucket(context.Background(), &awss3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		tb.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// KeepDir puts a directory object at prefix (a key ending in "/") in
// bucket, for a test whose jobs write beside each other under prefix at
// once. versitygw's posix backend keeps keys as files: a delete removes
// every parent directory left empty, up to the bucket, while a put makes
// the parents it needs, one after the other; when the two meet on one
// directory the put fails with a 409 ExistingObjectIsDirectory (its
// mkdir of the next level finds the parent gone), which S3 itself never
// answers. A directory put as an object is one that delete leaves.
func (s *Server) KeepDir(tb testing.TB, bucket, prefix string) {
	tb.Helper()
	if !strings.HasSuffix(prefix, "/") {
		tb.Fatalf("KeepDir %q: a directory's key ends in /", prefix)
	}
	if _, err := s.Client.PutObject(context.Background(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(prefix)}); err != nil {
		tb.Fatalf("put %s/%s: %v", bucket, prefix, err)
	}
}

// Object is the content of key in bucket, read through the S3 API.
func (s *Server) Object(tb testing.TB, bucket, key string) []byte {
	tb.Helper()
	out, err := s.Client.GetObject(context.Background(), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		tb.Fatalf("get %s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		tb.Fatalf("read %s/%s: %v", bucket, key, err)
	}
	return data
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

// start runs versitygw on a free 127.0.0.1 port with a temp posix root,
// under fresh credentials, until the test binary ends.
func start(bin string, s *Server) (stop func(), err error) {
	dir, err := os.MkdirTemp("", "kyku-s3-test-")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	for _, d := range []string{"data", "versions"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			cleanup()
			return nil, err
		}
	}
	addr, err := objstoretest.FreeAddr()
	if err != nil {
		cleanup()
		return nil, err
	}
	s.Access, s.Secret = "kykutest"+objstoretest.RandHex(4), "kykutest-secret-"+objstoretest.RandHex(8)
	s.Endpoint = "http://" + addr.String()
	logf, err := os.Create(filepath.Join(dir, "server.log"))
	if err != nil {
		cleanup()
		return nil, err
	}
	cmd := exec.Command(bin, "--port", addr.String(), "--quiet", "--access", s.Access, "--secret", s.Secret,
		"--region", s.Region, "posix", "--versioning-dir", filepath.Join(dir, "versions"), filepath.Join(dir, "data"))
	return objstoretest.Start(objstoretest.Process{Name: "versitygw", Cmd: cmd, Log: logf, Probe: s.Endpoint + "/", Cleanup: cleanup})
}
