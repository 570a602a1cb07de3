package aws

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/aws/awswire"
	"github.com/kyku/action/internal/provider/aws/ec2api"
	elb "github.com/kyku/action/internal/provider/aws/elbapi"
	rds "github.com/kyku/action/internal/provider/aws/rdsapi"
	ssm "github.com/kyku/action/internal/provider/aws/ssmapi"
	"github.com/kyku/action/internal/provider/kinds"
	"github.com/kyku/action/internal/provider/retry"
)

// Options tunes retries and waits. Zero fields take the defaults below;
// tests shrink the durations so waits take microseconds.
type Options struct {
	MaxAttempts  int           // per request, including the first (default 8)
	Backoff      time.Duration // first retry delay, doubled each time (default 500ms)
	MaxBackoff   time.Duration // cap on one retry delay (default 20s)
	PollInterval time.Duration // between state checks while waiting (default 5s)
	MaxPolls     int           // bound on one wait (default 360, i.e. 30 min at 5s: RDS is slow)
	// Now is the clock that planning judges AWS's time rules by (the
	// hours between RDS storage changes); tests inject one.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 8
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 20 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 5 * time.Second
	}
	if o.MaxPolls <= 0 {
		o.MaxPolls = 360
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Clients are the AWS service clients the provider uses.
type Clients struct {
	EC2 *ec2api.Client
	ELB *elb.Client
	RDS *rds.Client
	SSM *ssm.Client
}

// Provider is Kyku on AWS. It is safe for concurrent use.
type Provider struct {
	ec2     *ec2api.Client
	elb     *elb.Client
	rds     *rds.Client
	ssm     *ssm.Client
	opts    Options
	retry   retry.Policy // counts into retries
	retries atomic.Int64
	kinds   *kinds.Set
}

var _ provider.Provider = (*Provider)(nil)

// New is the provider.Factory for "aws". Settings: "region" (else
// AWS_REGION / AWS_DEFAULT_REGION from getenv, else the SDK's default
// chain), "profile" (a shared-config profile) and "endpoint" (a base URL
// for every service, e.g. a test fake or a LocalStack; without it the
// SDK's own AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_<SERVICE> and the
// profile's endpoint_url apply). Credentials come from the SDK's default
// chain.
func New(ctx context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
	var opts []func(*config.LoadOptions) error
	region := settings["region"]
	if region == "" && getenv != nil {
		region = getenv("AWS_REGION")
		if region == "" {
			region = getenv("AWS_DEFAULT_REGION")
		}
	}
	if region != "" {
		opts = append(opts, config.WithRegion(region))
	}
	if profile := settings["profile"]; profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(profile))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("load aws config: %w", err)
	}
	if cfg.Region == "" {
		return nil, fmt.Errorf("no aws region: set region in the provider block or AWS_REGION")
	}
	clients, err := ClientsFromConfig(ctx, cfg, settings["endpoint"])
	if err != nil {
		return nil, err
	}
	return NewWithClients(clients, Options{}), nil
}

// ResponseTimeout bounds how long a request waits for AWS to start
// answering; a request that times out is retried like a reset connection.
const ResponseTimeout = time.Minute

// ClientsFromConfig builds Kyku's service clients (awswire's, which never
// retry: Kyku's retry policy in call is the only one, so every retry is
// counted once) from cfg's credentials, region and HTTP client, given one
// that gives up on an answer after ResponseTimeout unless cfg brings its
// own, and, when endpoint is set, every client pointed at it. Without
// endpoint each client takes the endpoint cfg configures for its service
// as the SDK's own clients would (wireClient): AWS_ENDPOINT_URL_<SERVICE>,
// AWS_ENDPOINT_URL, a profile's endpoint_url, else AWS's own.
func ClientsFromConfig(ctx context.Context, cfg aws.Config, endpoint string) (Clients, error) {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
			t.ResponseHeaderTimeout = ResponseTimeout
		})
	}
	var bases [4]awswire.Client
	skew := new(awswire.Skew) // one clock: what one service's answer taught, the others use
	for i, id := range []string{ec2api.SDKID, elb.SDKID, rds.SDKID, ssm.SDKID} {
		w, err := wireClient(ctx, cfg, endpoint, id)
		if err != nil {
			return Clients{}, err
		}
		w.Skew = skew
		bases[i] = w
	}
	return Clients{EC2: ec2api.New(bases[0]), ELB: elb.New(bases[1]), RDS: rds.New(bases[2]), SSM: ssm.New(bases[3])}, nil
}

// NewWithClients builds the provider on given clients (tests use this).
func NewWithClients(c Clients, opts Options) *Provider {
	p := &Provider{ec2: c.EC2, elb: c.ELB, rds: c.RDS, ssm: c.SSM, opts: opts.withDefaults()}
	p.retry = retry.Policy{MaxAttempts: p.opts.MaxAttempts, Backoff: p.opts.Backoff, MaxBackoff: p.opts.MaxBackoff, Retries: &p.retries}
	p.kinds = kinds.New("aws", map[string]kinds.Kind{
		"Vpc":           vpcKind{p},
		"Subnet":        subnetKind{p},
		"SecurityGroup": sgKind{p},
		"SshKey":        keyKind{p},
		"Vm":            vmKind{p},
		"Database":      dbKind{p},
		"TargetGroup":   tgKind{p},
		"LoadBalancer":  lbKind{p},
	})
	p.kinds.CheckName = p.CheckName
	p.kinds.Fixed = fixed()
	return p
}

// Retries reports how many requests were retried so far.
func (p *Provider) Retries() int64 { return p.retries.Load() }

// Name implements provider.Provider.
func (p *Provider) Name() string { return "aws" }

// Zones lists the region's available availability zones, sorted: no
// Local or Wavelength Zone (they need an opt-in, and t3 instances, RDS or
// a second zone for a load balancer may not be there), so auto-subnets
// land in zones every resource type can use.
func (p *Provider) Zones(ctx context.Context) ([]string, error) {
	var out *ec2api.DescribeAvailabilityZonesOutput
	err := p.call(ctx, "describe availability zones", plain, func(ctx context.Context) (err error) {
		out, err = p.ec2.DescribeAvailabilityZones(ctx, &ec2api.DescribeAvailabilityZonesInput{
			Filters: []ec2api.Filter{
				filter("state", "available"), filter("zone-type", "availability-zone"),
				filter("opt-in-status", "opt-in-not-required"),
			},
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	var zones []string
	for _, z := range out.AvailabilityZones {
		if aws.ToString(z.ZoneType) == "availability-zone" || z.ZoneType == nil {
			zones = append(zones, aws.ToString(z.ZoneName))
		}
	}
	sort.Strings(zones)
	return zones, nil
}

// Create creates r or returns the object already named r.CloudName; a
// name AWS would refuse (CheckName) fails before any request.
func (p *Provider) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	return p.kinds.Create(ctx, r)
}

// Read returns the object; provider.ErrNotFound when it is gone.
func (p *Provider) Read(ctx context.Context, typ, id string) (provider.Object, error) {
	return p.kinds.Read(ctx, typ, id)
}

// Update changes mutable properties in place. It refuses a change to an
// immutable property (the engine replaces those).
func (p *Provider) Update(ctx context.Context, id string, r provider.Resource) (provider.Object, error) {
	return p.kinds.Update(ctx, id, r)
}

// Delete removes the object and what AWS requires gone first.
func (p *Provider) Delete(ctx context.Context, typ, id string) error {
	return p.kinds.Delete(ctx, typ, id)
}

// Lookup finds a Kyku-managed object by cloud name.
func (p *Provider) Lookup(ctx context.Context, typ, cloudName string) (provider.Object, error) {
	return p.kinds.Lookup(ctx, typ, cloudName)
}
