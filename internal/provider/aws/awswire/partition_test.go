package awswire_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

// TestCheckDefaultEndpoint: AWS's own endpoint is built only where it is
// the one the SDK's clients would have called: a FIPS or dual-stack
// endpoint asked for, a partition of another domain or a region that is
// not a host label is refused, naming the way out; the standard
// partitions pass.
func TestCheckDefaultEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name, region string
		env          map[string]string
		want         string // "" passes
	}{
		{name: "aws", region: "eu-west-1"},
		{name: "china", region: "cn-north-1"},
		{name: "govcloud", region: "us-gov-west-1"},
		{name: "FIPS", region: "us-east-1", env: map[string]string{"AWS_USE_FIPS_ENDPOINT": "true"}, want: "AWS_ENDPOINT_URL_EC2"},
		{name: "dual-stack", region: "us-east-1", env: map[string]string{"AWS_USE_DUALSTACK_ENDPOINT": "true"}, want: "dual-stack"},
		{name: "ISO", region: "us-iso-east-1", want: "does not know that partition"},
		{name: "sovereign cloud", region: "eusc-de-east-1", want: "does not know that partition"},
		{name: "a host in the region", region: "evil.example#", want: "not a region name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"AWS_USE_FIPS_ENDPOINT", "AWS_USE_DUALSTACK_ENDPOINT"} {
				t.Setenv(k, tc.env[k])
			}
			t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
			cfg, err := config.LoadDefaultConfig(t.Context(), config.WithRegion("us-east-1"))
			if err != nil {
				t.Fatal(err)
			}
			cfg.Region = tc.region
			err = awswire.CheckDefaultEndpoint(t.Context(), cfg, "EC2")
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
	if err := awswire.CheckDefaultEndpoint(t.Context(), aws.Config{Region: "eu-west-1"}, "EC2"); err != nil {
		t.Errorf("a config without sources: %v", err)
	}
}
