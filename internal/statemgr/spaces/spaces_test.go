package spaces_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
	"github.com/kyku/action/internal/statemgr/spaces"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// env is what a runner with Spaces keys has (here, the test server's).
func env(srv *s3test.Server) func(string) string {
	m := map[string]string{"SPACES_ACCESS_KEY_ID": srv.Access, "SPACES_SECRET_ACCESS_KEY": srv.Secret}
	return func(k string) string { return m[k] }
}

// TestConformance runs the whole suite on the real S3 server through the
// spaces backend (endpoint overridden; the conditional-write probe passes
// there, so the backend runs locked).
func TestConformance(t *testing.T) {
	ctx := t.Context()
	srv := s3test.Require(t)
	bucket := srv.NewBucket(t)
	statemgrtest.Run(t, statemgrtest.SharedStore(
		func(t *testing.T) string { return "conf/" + randHex(6) },
		func(t *testing.T, prefix string) statemgr.Backend {
			b, err := spaces.New(ctx, spaces.Config{Bucket: bucket, Region: "fra1", Prefix: prefix, Endpoint: srv.Endpoint, UsePathStyle: true,
				Lock: true, BackupRetention: statemgrtest.BackupRetention}, "test", env(srv),
				s3.Options{LockTimeout: statemgrtest.LockTimeout, PollInterval: 20 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			return b
		}))
}

// TestConformanceEncrypted: the suite through a codec, nothing in clear.
func TestConformanceEncrypted(t *testing.T) {
	ctx := t.Context()
	srv := s3test.Require(t)
	bucket := srv.NewBucket(t)
	statemgrtest.RunEncrypted(t, statemgrtest.SharedSealedStore(
		func(t *testing.T) string { return "sealed/" + randHex(6) },
		func(t *testing.T, prefix string, c statemgr.Codec) statemgr.Backend {
			b, err := spaces.New(ctx, spaces.Config{Bucket: bucket, Region: "fra1", Prefix: prefix, Endpoint: srv.Endpoint, UsePathStyle: true,
				Lock: true, BackupRetention: statemgrtest.BackupRetention}, "test", env(srv),
				s3.Options{LockTimeout: statemgrtest.LockTimeout, PollInterval: 20 * time.Millisecond, Codec: c})
			if err != nil {
				t.Fatal(err)
			}
			return b
		},
		func(t *testing.T, prefix string) map[string][]byte {
			out := map[string][]byte{}
			for _, k := range srv.Keys(t, bucket, prefix+"/") {
				if strings.HasSuffix(k, ".lock") {
					continue
				}
				o, err := srv.Client.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)})
				if err != nil {
					t.Fatal(err)
				}
				out[k], _ = io.ReadAll(o.Body)
				o.Body.Close()
			}
			return out
		}))
}

// The region names the endpoint; keys come from the SPACES_ variables or
// the AWS ones, and their absence is named.
func TestEndpointAndKeys(t *testing.T) {
	ctx := t.Context()
	b, err := spaces.New(ctx, spaces.Config{Bucket: "acme", Region: "fra1", Lock: false}, "prod",
		func(k string) string {
			return map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret"}[k]
		}, s3.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := b.Describe(); !strings.Contains(d, "https://fra1.digitaloceanspaces.com") {
		t.Errorf("Describe() = %q, want the fra1 endpoint", d)
	}
	_, err = spaces.New(ctx, spaces.Config{Bucket: "acme", Region: "fra1"}, "prod", func(string) string { return "" }, s3.Options{})
	if err == nil || !strings.Contains(err.Error(), "SPACES_ACCESS_KEY_ID") {
		t.Errorf("New without keys = %v; want an error naming SPACES_ACCESS_KEY_ID", err)
	}
}

// ignoringAPI is an S3 that stores everything and ignores If-None-Match and
// If-Match, as a store without conditional writes would.
type ignoringAPI struct {
	mu      sync.Mutex
	objects map[string][]byte
}

func (a *ignoringAPI) PutObject(_ context.Context, in *awss3.PutObjectInput, _ ...func(*awss3.Options)) (*awss3.PutObjectOutput, error) {
	data, _ := io.ReadAll(in.Body)
	a.mu.Lock()
	a.objects[aws.ToString(in.Key)] = data
	a.mu.Unlock()
	return &awss3.PutObjectOutput{ETag: aws.String(`"e"`)}, nil
}
func (a *ignoringAPI) GetObject(context.Context, *awss3.GetObjectInput, ...func(*awss3.Options)) (*awss3.GetObjectOutput, error) {
	return nil, errors.New("not used")
}
func (a *ignoringAPI) DeleteObject(context.Context, *awss3.DeleteObjectInput, ...func(*awss3.Options)) (*awss3.DeleteObjectOutput, error) {
	return &awss3.DeleteObjectOutput{}, nil
}
func (a *ignoringAPI) DeleteObjects(context.Context, *awss3.DeleteObjectsInput, ...func(*awss3.Options)) (*awss3.DeleteObjectsOutput, error) {
	return &awss3.DeleteObjectsOutput{}, nil
}
func (a *ignoringAPI) ListObjectsV2(context.Context, *awss3.ListObjectsV2Input, ...func(*awss3.Options)) (*awss3.ListObjectsV2Output, error) {
	return &awss3.ListObjectsV2Output{}, nil
}

// A store that does not enforce conditional writes is refused, naming the
// way out; with lock: false it opens, takes no lock and sends no
// conditions.
func TestRefusesUnlockedUnlessConfigured(t *testing.T) {
	ctx := t.Context()
	api := &ignoringAPI{objects: map[string][]byte{}}
	_, err := spaces.NewWithClient(ctx, api, spaces.Config{Bucket: "acme", Region: "nyc3", Lock: true}, spaces.Endpoint("nyc3"), "prod", s3.Options{})
	if !errors.Is(err, spaces.ErrNoConditionalWrites) || !strings.Contains(err.Error(), "lock: false") {
		t.Fatalf("New on a store without conditional writes = %v; want ErrNoConditionalWrites naming lock: false", err)
	}
	b, err := spaces.NewWithClient(ctx, api, spaces.Config{Bucket: "acme", Region: "nyc3", Lock: false}, spaces.Endpoint("nyc3"), "prod", s3.Options{})
	if err != nil {
		t.Fatalf("New with lock: false = %v", err)
	}
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatalf("Lock with lock: false = %v", err)
	}
	if _, ok := api.objects["state.prod.json.lock"]; ok {
		t.Error("a lock object was written with lock: false")
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
}
