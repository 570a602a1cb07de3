package s3_test

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

// server is the S3-compatible server the integration tests talk to (see
// package s3test: CI's, or a versitygw started for this test binary).
var server struct {
	endpoint, access, secret, region string
	client                           *awss3.Client
}

var serverOnce sync.Once

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// needServer skips a test that needs the real server when there is none
// (under CI=true, s3test.Main fails the run instead).
func needServer(tb testing.TB) {
	tb.Helper()
	s := s3test.Require(tb)
	serverOnce.Do(func() {
		server.endpoint, server.access, server.secret, server.region = s.Endpoint, s.Access, s.Secret, s.Region
		server.client = s.Client
	})
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
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
	if _, err := server.client.CreateBucket(tb.Context(), &awss3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
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
	out, err := server.client.GetObject(tb.Context(), &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
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
	_, err := server.client.PutObject(tb.Context(), &awss3.PutObjectInput{
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
		out, err := p.NextPage(tb.Context())
		if err != nil {
			tb.Fatalf("list %s: %v", bucket, err)
		}
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// newClient is an S3 client on the test server with other credentials or
// region (to provoke errors).
func newClient(access, secret, region string) *awss3.Client {
	return awss3.New(awss3.Options{
		Region: region, BaseEndpoint: aws.String(server.endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(access, secret, ""),
	})
}
