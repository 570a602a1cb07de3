package s3_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// sdkEnv points the SDK's default chain at the test server's credentials
// only (no profiles, no instance metadata). t.Setenv: not parallel.
func sdkEnv(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": server.access, "AWS_SECRET_ACCESS_KEY": server.secret, "AWS_SESSION_TOKEN": "",
		"AWS_REGION": "", "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "",
		"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none, "AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}

// New takes credentials from the SDK's chain (here env vars), the region
// from the config or the chain, and the endpoint from the config or
// AWS_ENDPOINT_URL_S3.
func TestNewUsesSDKChain(t *testing.T) {
	ctx := t.Context()
	needServer(t)
	bucket := newBucket(t)
	tests := []struct {
		name string
		cfg  s3b.Config
		env  map[string]string
	}{
		{"endpoint and region in config", s3b.Config{Endpoint: server.endpoint, Region: server.region, UsePathStyle: true}, nil},
		{"endpoint and region from the environment", s3b.Config{UsePathStyle: true},
			map[string]string{"AWS_ENDPOINT_URL_S3": server.endpoint, "AWS_REGION": server.region}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sdkEnv(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			tc.cfg.Bucket, tc.cfg.Prefix = bucket, tc.name
			b, err := s3b.New(ctx, tc.cfg, "prod", s3b.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.Describe(), server.endpoint) || !strings.Contains(b.Describe(), "s3://"+bucket+"/"+tc.name+"/state.prod.json") {
				t.Errorf("Describe() = %q, want the state URL and endpoint %s", b.Describe(), server.endpoint)
			}
			want := statemgrtest.NewState("lin", int64(i+1), "vpc")
			must(t, b.Write(ctx, want, statemgr.WriteOptions{}))
			got, err := b.Read(ctx)
			must(t, err)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("round trip (-want +got):\n%s", d)
			}
		})
	}
	t.Run("no region anywhere", func(t *testing.T) {
		sdkEnv(t)
		_, err := s3b.New(ctx, s3b.Config{Bucket: bucket}, "prod", s3b.Options{})
		if err == nil || !strings.Contains(err.Error(), "no region") {
			t.Errorf("New without a region = %v, want an error saying so", err)
		}
	})
	t.Run("no bucket", func(t *testing.T) {
		if _, err := s3b.New(ctx, s3b.Config{}, "prod", s3b.Options{}); err == nil {
			t.Error("New without a bucket succeeded")
		}
	})
}
