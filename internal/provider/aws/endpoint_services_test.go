package aws_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
)

// serviceCalls each make the provider call one of the services it speaks
// through its own clients; host is AWS's endpoint of it in eu-west-1.
var serviceCalls = []struct {
	env, action, host string
	call              func(ctx context.Context, p provider.Provider) error
}{
	{env: "AWS_ENDPOINT_URL_RDS", action: "DescribeDBInstances", host: "rds.eu-west-1.amazonaws.com:443", call: func(ctx context.Context, p provider.Provider) error {
		_, err := p.Read(ctx, "Database", "demo-db")
		return err
	}},
	{env: "AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2", action: "DescribeTargetGroups", host: "elasticloadbalancing.eu-west-1.amazonaws.com:443", call: func(ctx context.Context, p provider.Provider) error {
		_, err := p.Lookup(ctx, "TargetGroup", "demo-tg")
		return err
	}},
	{env: "AWS_ENDPOINT_URL_SSM", action: "GetParameter", host: "ssm.eu-west-1.amazonaws.com:443", call: func(ctx context.Context, p provider.Provider) error {
		// Its instance lookup (EC2) goes to AWS_ENDPOINT_URL first.
		_, err := p.Create(ctx, res("Vm", "vm", map[string]any{"image": "debian-12"}))
		return err
	}},
}

// A service's own endpoint variable (AWS_ENDPOINT_URL_<SERVICE>) wins
// over AWS_ENDPOINT_URL for the ELBv2, RDS and SSM clients, as it did
// with the SDK's generated clients.
func TestServiceEndpointFromEnvironment(t *testing.T) {
	for _, tc := range serviceCalls {
		t.Run(tc.env, func(t *testing.T) {
			own, every := awstest.New(), awstest.New()
			t.Cleanup(own.Close)
			t.Cleanup(every.Close)
			t.Setenv("AWS_ENDPOINT_URL", every.URL())
			t.Setenv(tc.env, own.URL())
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			p, err := aws.New(ctx, map[string]string{"region": "eu-west-1"}, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			_ = tc.call(ctx, p) // not found or refused: only where it asked matters
			if own.Calls(tc.action) == 0 || every.Calls(tc.action) != 0 {
				t.Errorf("%s: %d requests to %s's endpoint, %d to AWS_ENDPOINT_URL's; want them all at the first", tc.action, own.Calls(tc.action), tc.env, every.Calls(tc.action))
			}
			if l := takeLeaks(); len(l) > 0 {
				t.Errorf("requests left for %v", l)
			}
		})
	}
}

// Without any endpoint each service is called at AWS's own endpoint for
// the region (stopped in tests by TestMain's guard, which sees the host).
func TestServiceDefaultEndpoint(t *testing.T) {
	for _, tc := range serviceCalls {
		t.Run(tc.action, func(t *testing.T) {
			every := awstest.New() // EC2's calls before the service's
			t.Cleanup(every.Close)
			t.Setenv("AWS_ENDPOINT_URL", "")
			t.Setenv("AWS_ENDPOINT_URL_EC2", every.URL())
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			defer cancel()
			p, err := aws.New(ctx, map[string]string{"region": "eu-west-1"}, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.call(ctx, p); err == nil {
				t.Fatal("a request to AWS itself answered")
			}
			if l := takeLeaks(); !slices.Contains(l, tc.host) {
				t.Errorf("the guard saw %v; want the request for %s", l, tc.host)
			}
		})
	}
}
