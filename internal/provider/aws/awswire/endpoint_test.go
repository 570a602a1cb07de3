package awswire_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/kyku/action/internal/provider/aws/awswire"
)

func TestConfiguredEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "none", want: ""},
		{name: "every service", env: map[string]string{"AWS_ENDPOINT_URL": "http://all.test"}, want: "http://all.test"},
		{name: "the service's own wins", env: map[string]string{"AWS_ENDPOINT_URL": "http://all.test", "AWS_ENDPOINT_URL_EC2": "http://ec2.test"}, want: "http://ec2.test"},
		{name: "another service's is not ours", env: map[string]string{"AWS_ENDPOINT_URL_RDS": "http://rds.test"}, want: ""},
		{name: "ignored", env: map[string]string{"AWS_ENDPOINT_URL": "http://all.test", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"}, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_EC2", "AWS_ENDPOINT_URL_RDS", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"} {
				t.Setenv(k, tc.env[k])
			}
			t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
			cfg, err := config.LoadDefaultConfig(t.Context(), config.WithRegion("eu-west-1"))
			if err != nil {
				t.Fatal(err)
			}
			if got := awswire.ConfiguredEndpoint(t.Context(), cfg, "EC2"); got != tc.want {
				t.Errorf("ConfiguredEndpoint = %q, want %q", got, tc.want)
			}
		})
	}
}
