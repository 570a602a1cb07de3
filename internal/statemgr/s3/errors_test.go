package s3_test

import (
	"errors"
	"strings"
	"testing"

	s3b "github.com/kyku/action/internal/statemgr/s3"
)

// Misconfiguration is reported in words a user can act on, and classified
// (errors.Is) for callers.
func TestBackendErrorsAgainstServer(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	needServer(t)
	bucket := newBucket(t)
	tests := []struct {
		name        string
		bucket      string
		access, sec string
		region      string
		want        error
		wantInMsg   []string
	}{
		{"missing bucket", "kyku-no-such-bucket-" + randHex(3), server.access, server.secret, server.region,
			s3b.ErrBucketNotFound, []string{`bucket "kyku-no-such-bucket-`, "does not exist", "region " + server.region, server.endpoint}},
		{"wrong secret", bucket, server.access, "not-the-secret", server.region,
			s3b.ErrAccessDenied, []string{"access denied", "read state", "s3://" + bucket + "/p/state.prod.json"}},
		{"unknown access key", bucket, "AKIANOBODY", server.secret, server.region,
			s3b.ErrAccessDenied, []string{"access denied", "credentials were rejected"}},
		{"wrong region", bucket, server.access, server.secret, "eu-central-1",
			s3b.ErrWrongRegion, []string{"another region", "eu-central-1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			client := newClient(tc.access, tc.sec, tc.region)
			b, err := s3b.NewWithClient(client, s3b.Config{Bucket: tc.bucket, Prefix: "p", Region: tc.region, Endpoint: server.endpoint}, "prod", s3b.Options{})
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Read(ctx)
			t.Logf("Read: %v", err)
			if !errors.Is(err, tc.want) {
				t.Errorf("Read error = %v, want one wrapping %v", err, tc.want)
			}
			for _, w := range tc.wantInMsg {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not contain %q", err, w)
				}
			}
		})
	}
}
