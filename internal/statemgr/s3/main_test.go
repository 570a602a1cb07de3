package s3_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	s3b "github.com/kyku/action/internal/statemgr/s3"
)

// server is the S3-compatible server the integration tests talk to.
var server struct {
	endpoint, access, secret, region string
	skip                             string // why integration tests skip, when they do
	client                           *awss3.Client
}

// TestMain finds the S3 server: KYKU_TEST_S3_* (set by .ci/s3-server.sh), or
// a versitygw binary (PATH or the CI cache) started for this run. Without
// either the integration tests skip, unless CI=true, where that is a failure.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	server.endpoint = os.Getenv("KYKU_TEST_S3_ENDPOINT")
	server.access = os.Getenv("KYKU_TEST_S3_ACCESS_KEY")
	server.secret = os.Getenv("KYKU_TEST_S3_SECRET_KEY")
	server.region = os.Getenv("KYKU_TEST_S3_REGION")
	if server.region == "" {
		server.region = "us-east-1"
	}
	if server.endpoint == "" {
		bin := findVersitygw()
		if bin == "" {
			server.skip = "no S3 server: set KYKU_TEST_S3_ENDPOINT/ACCESS_KEY/SECRET_KEY (source .ci/s3-server.sh) or put versitygw on PATH or in $KYKU_CI_CACHE/bin"
			if os.Getenv("CI") == "true" {
				fmt.Fprintln(os.Stderr, "FAIL: CI=true but", server.skip)
				return 1
			}
		} else {
			stop, err := startVersitygw(bin)
			if err != nil {
				fmt.Fprintln(os.Stderr, "FAIL: start versitygw:", err)
				return 1
			}
			defer stop()
		}
	}
	if server.skip == "" {
		server.client = newClient(server.access, server.secret, server.region)
	}
	return m.Run()
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

// startVersitygw runs versitygw on a free 127.0.0.1 port with a temp posix
// root and waits (30 s at most) until it answers.
func startVersitygw(bin string) (stop func(), err error) {
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
	server.access, server.secret = "kykutest"+randHex(4), "kykutest-secret-"+randHex(8)
	server.endpoint = "http://" + addr
	logPath := filepath.Join(dir, "server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", addr, "--quiet", "--access", server.access, "--secret", server.secret,
		"--region", server.region, "posix", "--versioning-dir", filepath.Join(dir, "versions"), filepath.Join(dir, "data"))
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
		resp, err := http.Get(server.endpoint + "/")
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
			return nil, fmt.Errorf("versitygw did not answer at %s within 30s; its log:\n%s", server.endpoint, log)
		}
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func newClient(access, secret, region string) *awss3.Client {
	return awss3.New(awss3.Options{
		Region:       region,
		BaseEndpoint: aws.String(server.endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(access, secret, ""),
	})
}

// needServer skips (or, with no server, fails under CI=true via TestMain)
// a test that needs the real server.
func needServer(tb testing.TB) {
	tb.Helper()
	if server.skip != "" {
		tb.Skip(server.skip)
	}
}

var notBucketChar = regexp.MustCompile(`[^a-z0-9]+`)

// newBucket creates a bucket of its own for tb.
func newBucket(tb testing.TB) string {
	tb.Helper()
	needServer(tb)
	name := strings.Trim(notBucketChar.ReplaceAllString(strings.ToLower(tb.Name()), "-"), "-")
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	name = strings.Trim("kyku-"+name+"-"+randHex(4), "-")
	name = strings.ReplaceAll(name, "--", "-")
	if _, err := server.client.CreateBucket(context.Background(), &awss3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		tb.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// newBackend returns a Backend on bucket (a fresh Backend value: as another
// process would see the store).
func newBackend(tb testing.TB, cfg s3b.Config, env string, opts s3b.Options) *s3b.Backend {
	tb.Helper()
	needServer(tb)
	cfg.Region, cfg.Endpoint, cfg.UsePathStyle = server.region, server.endpoint, true
	b, err := s3b.NewWithClient(server.client, cfg, env, opts)
	if err != nil {
		tb.Fatalf("NewWithClient: %v", err)
	}
	return b
}

// rawGet returns the bytes stored at key, or nil when it is missing.
func rawGet(tb testing.TB, bucket, key string) []byte {
	tb.Helper()
	out, err := server.client.GetObject(context.Background(), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil
	}
	defer out.Body.Close()
	data, err := io.ReadAll(out.Body)
	if err != nil {
		tb.Fatalf("read %s: %v", key, err)
	}
	return data
}

func rawPut(tb testing.TB, bucket, key string, data []byte) {
	tb.Helper()
	_, err := server.client.PutObject(context.Background(), &awss3.PutObjectInput{
		Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(string(data)),
	})
	if err != nil {
		tb.Fatalf("put %s: %v", key, err)
	}
}

// rawKeys lists every key in bucket, sorted.
func rawKeys(tb testing.TB, bucket string) []string {
	tb.Helper()
	var keys []string
	p := awss3.NewListObjectsV2Paginator(server.client, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket)})
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
