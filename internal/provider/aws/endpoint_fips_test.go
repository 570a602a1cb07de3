package aws_test

import (
	"strings"
	"testing"

	"github.com/kyku/action/internal/provider/aws"
)

// TestFIPSAskedIsRefusedWithoutAnEndpoint: with FIPS endpoints asked for
// and no endpoint given, the provider refuses to start, naming the way
// out, rather than calling the standard endpoints the SDK's clients would
// not have called; with the endpoint setting it starts.
func TestFIPSAskedIsRefusedWithoutAnEndpoint(t *testing.T) {
	t.Setenv("AWS_USE_FIPS_ENDPOINT", "true")
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	_, err := aws.New(t.Context(), map[string]string{"region": "us-east-1"}, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "FIPS") {
		t.Errorf("New with FIPS asked: %v, want a refusal naming FIPS", err)
	}
	if _, err := aws.New(t.Context(), map[string]string{"region": "us-east-1", "endpoint": "https://ec2-fips.us-east-1.amazonaws.com"}, func(string) string { return "" }); err != nil {
		t.Errorf("New with an endpoint: %v", err)
	}
}
