package aws_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
)

// AWS_ENDPOINT_URL_EC2 sends EC2's requests to its endpoint, over
// AWS_ENDPOINT_URL, as the SDK's own EC2 client did; the endpoint setting
// still wins over both.
func TestEC2EndpointFromItsOwnVariable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setting bool // the provider's endpoint setting names the third server
		want    int  // which server answers: 0 AWS_ENDPOINT_URL_EC2's, 1 AWS_ENDPOINT_URL's, 2 the setting's
	}{
		{name: "the service's own over every service's", want: 0},
		{name: "the setting over both", setting: true, want: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srvs := []*awstest.Server{awstest.New(), awstest.New(), awstest.New()}
			for _, s := range srvs {
				t.Cleanup(s.Close)
			}
			t.Setenv("AWS_ENDPOINT_URL_EC2", srvs[0].URL())
			t.Setenv("AWS_ENDPOINT_URL", srvs[1].URL())
			settings := map[string]string{"region": "eu-west-1"}
			if tc.setting {
				settings["endpoint"] = srvs[2].URL()
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			p, err := aws.New(ctx, settings, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Zones(ctx); err != nil {
				t.Fatal(err)
			}
			for i, s := range srvs {
				want := 0
				if i == tc.want {
					want = 1
				}
				if got := s.Calls("DescribeAvailabilityZones"); got != want {
					t.Errorf("server %d answered %d requests, want %d", i, got, want)
				}
			}
		})
	}
}
