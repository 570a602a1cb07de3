package aws_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyku/action/internal/provider/aws"
	"github.com/kyku/action/internal/provider/aws/awstest"
)

// leaks records every request this test binary tried to send to a host
// that is not a loopback address: the SDK's transport sends them through
// the proxy TestMain sets (Go never proxies loopback), which refuses
// them. Nothing in these tests may reach AWS itself.
var leaks struct {
	mu    sync.Mutex
	hosts []string
}

func takeLeaks() []string {
	leaks.mu.Lock()
	defer leaks.mu.Unlock()
	out := leaks.hosts
	leaks.hosts = nil
	return out
}

func TestMain(m *testing.M) {
	guard := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaks.mu.Lock()
		leaks.hosts = append(leaks.hosts, r.Host)
		leaks.mu.Unlock()
		http.Error(w, "kyku tests never reach AWS", http.StatusForbidden)
	}))
	// The proxy settings are read once per process: set them before any
	// client exists. No credentials, config files or endpoints of the
	// machine running the tests take part.
	for k, v := range map[string]string{
		"HTTPS_PROXY": guard.URL, "HTTP_PROXY": guard.URL, "NO_PROXY": "", "https_proxy": "", "http_proxy": "", "no_proxy": "",
		"AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_EC2": "", "AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2": "", "AWS_ENDPOINT_URL_RDS": "",
		"AWS_ENDPOINT_URL_SSM": "", "AWS_PROFILE": "", "AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret",
	} {
		os.Setenv(k, v)
	}
	code := m.Run()
	guard.Close()
	if hosts := takeLeaks(); code == 0 && len(hosts) > 0 {
		fmt.Fprintf(os.Stderr, "requests left for AWS itself: %s\n", strings.Join(hosts, ", "))
		code = 1
	}
	os.Exit(code)
}

// AWS_ENDPOINT_URL alone, with no endpoint in the config, is where every
// request goes (the SDK reads it; the provider used to wipe it, and a
// plan went to AWS).
func TestEndpointFromEnvironment(t *testing.T) {
	srv := awstest.New()
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ENDPOINT_URL", srv.URL())
	// A request stopped by the guard is retried as a network error: the
	// deadline keeps a failure short.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, err := aws.New(ctx, map[string]string{"region": "eu-west-1"}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	zones, err := p.Zones(ctx)
	if err != nil {
		t.Fatalf("zones through AWS_ENDPOINT_URL: %v", err)
	}
	if !slices.Equal(zones, []string{"eu-west-1a", "eu-west-1b", "eu-west-1c"}) || srv.Calls("DescribeAvailabilityZones") != 1 {
		t.Errorf("zones %v, %d requests to the endpoint; want the fake's three zones from one request", zones, srv.Calls("DescribeAvailabilityZones"))
	}
	if l := takeLeaks(); len(l) > 0 {
		t.Errorf("requests left for %v", l)
	}
}

// A profile's endpoint_url is honoured too.
func TestEndpointFromProfile(t *testing.T) {
	srv := awstest.New()
	t.Cleanup(srv.Close)
	cfgFile := filepath.Join(t.TempDir(), "config")
	body := "[profile fake]\nregion = eu-west-1\nendpoint_url = " + srv.URL() + "\naws_access_key_id = AKIDTEST\naws_secret_access_key = secret\n"
	if err := os.WriteFile(cfgFile, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_CONFIG_FILE", cfgFile)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, err := aws.New(ctx, map[string]string{"profile": "fake"}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Zones(ctx); err != nil {
		t.Fatalf("zones through the profile's endpoint_url: %v", err)
	}
	if srv.Calls("DescribeAvailabilityZones") != 1 {
		t.Errorf("%d requests reached the profile's endpoint, want 1", srv.Calls("DescribeAvailabilityZones"))
	}
	if l := takeLeaks(); len(l) > 0 {
		t.Errorf("requests left for %v", l)
	}
}

// The endpoint setting wins over the environment.
func TestEndpointSettingWins(t *testing.T) {
	srv, other := awstest.New(), awstest.New()
	t.Cleanup(srv.Close)
	t.Cleanup(other.Close)
	t.Setenv("AWS_ENDPOINT_URL", other.URL())
	ctx := t.Context()
	p, err := aws.New(ctx, map[string]string{"region": "eu-west-1", "endpoint": srv.URL()}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Zones(ctx); err != nil {
		t.Fatal(err)
	}
	if srv.Calls("DescribeAvailabilityZones") != 1 || other.Calls("DescribeAvailabilityZones") != 0 {
		t.Errorf("setting's endpoint %d, environment's %d requests; want 1 and 0", srv.Calls("DescribeAvailabilityZones"), other.Calls("DescribeAvailabilityZones"))
	}
}

// With neither, the request is for AWS itself: in tests it is stopped
// before it leaves (the guard of TestMain), which this proves.
func TestWithoutEndpointNothingLeavesInTests(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	p, err := aws.New(ctx, map[string]string{"region": "eu-west-1"}, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Zones(ctx); err == nil {
		t.Fatal("a request to AWS itself answered")
	}
	if l := takeLeaks(); !slices.Contains(l, "ec2.eu-west-1.amazonaws.com:443") {
		t.Errorf("the guard saw %v; want the request for ec2.eu-west-1.amazonaws.com:443 stopped there", l)
	}
}
