package hetzner

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/provider/kinds"
	"github.com/kyku/action/internal/provider/retry"
)

// Options tunes retries and waits. Zero fields take the defaults below;
// tests shrink the durations and inject the clock.
type Options struct {
	Location    string        // Hetzner location for servers and load balancers (default "fsn1")
	MaxAttempts int           // per request, including the first (default 8)
	Backoff     time.Duration // first retry delay, doubled each time (default 1s)
	MaxBackoff  time.Duration // cap on one retry delay (default 30s)
	// PollInterval is the first wait before polling an action or a
	// server again (default 1s); it doubles after each poll up to
	// MaxPollInterval (default 10s), so a long action costs few requests.
	PollInterval    time.Duration
	MaxPollInterval time.Duration
	MaxPolls        int // bound on the polls of one wait (default 120: about 19 minutes at the defaults)
	Now             func() time.Time
	// Sleep waits (retries, polls); nil sleeps on the real clock. Tests
	// inject a fake clock; the action waiter then spaces its polls with it.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (o Options) withDefaults() Options {
	if o.Location == "" {
		o.Location = "fsn1"
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 8
	}
	if o.Backoff <= 0 {
		o.Backoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.MaxPollInterval <= 0 {
		o.MaxPollInterval = 10 * time.Second
	}
	o.MaxPollInterval = max(o.MaxPollInterval, o.PollInterval)
	if o.MaxPolls <= 0 {
		o.MaxPolls = 120
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = retry.Sleep
	}
	return o
}

// Provider is Kyku on Hetzner Cloud. It is safe for concurrent use.
type Provider struct {
	c       *hcloud.Client
	opts    Options
	clocked bool // Options.Sleep was given: waits go through it
	pace    pacer
	retry   retry.Policy // counts into retries
	retries atomic.Int64
	kinds   *kinds.Set

	zoneMu sync.Mutex
	zone   string // the location's network zone, once known

	catMu sync.Mutex
	cat   *catalog // the server types, once read

	locks sync.Map // "labels/<kind>/<id>", "subnets/network/<id>" → *sync.Mutex
}

var _ provider.Provider = (*Provider)(nil)

// settings the provider block may carry.
var knownSettings = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"location": true, "endpoint": true}
})

// New is the provider.Factory for "hetzner". Settings: "location" (default
// fsn1) and "endpoint" (a base URL for the API, for tests and local fakes;
// only a loopback address is accepted, so a config change in a pull
// request cannot send the token elsewhere). The API token comes from
// HCLOUD_TOKEN through getenv and is never read from the config.
func New(ctx context.Context, settings map[string]string, getenv func(string) string) (provider.Provider, error) {
	var unknown []string
	for k := range settings {
		if !knownSettings()[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("unknown provider setting %s (hetzner takes location and endpoint)", strings.Join(unknown, ", "))
	}
	token := ""
	if getenv != nil {
		token = getenv("HCLOUD_TOKEN")
	}
	if token == "" {
		return nil, fmt.Errorf("HCLOUD_TOKEN is not set: create an API token (read & write) in the Hetzner Cloud console and export it")
	}
	endpoint := hcloud.Endpoint
	if e := settings["endpoint"]; e != "" {
		if err := loopback(e); err != nil {
			return nil, err
		}
		endpoint = e
	}
	// A request that hangs is cut off and retried (a timeout is a network
	// error); a context without a deadline cannot hang the run.
	hc := &http.Client{Timeout: 90 * time.Second}
	return NewWithClient(NewClient(endpoint, token, hc), Options{Location: settings["location"]}), nil
}

// loopback accepts only http(s) URLs on a loopback host.
func loopback(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("endpoint %q is not an http(s) URL", endpoint)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
		return nil
	}
	return fmt.Errorf("endpoint %q: only a loopback address is accepted (the API token is sent to it)", endpoint)
}

// NewClient builds the hcloud-go client Kyku uses: its own retries are
// disabled (the provider's retry policy is the only one, so each retry is
// counted once and honours the rate-limit headers).
func NewClient(endpoint, token string, hc *http.Client) *hcloud.Client {
	opts := []hcloud.ClientOption{
		hcloud.WithEndpoint(endpoint),
		hcloud.WithToken(token),
		hcloud.WithApplication("kyku", ""),
		hcloud.WithRetryOpts(hcloud.RetryOpts{MaxRetries: 0}),
	}
	if hc != nil {
		opts = append(opts, hcloud.WithHTTPClient(hc))
	}
	return hcloud.NewClient(opts...)
}

// NewWithClient builds the provider on a client (tests use this). The
// provider owns the client's poll backoff: hcloud-go's action waiter
// (ActionClient.WaitForFunc) polls at the intervals pollBackoff gives.
func NewWithClient(c *hcloud.Client, opts Options) *Provider {
	p := &Provider{c: c, opts: opts.withDefaults(), clocked: opts.Sleep != nil}
	hcloud.WithPollOpts(hcloud.PollOpts{BackoffFunc: p.pollBackoff})(c)
	p.retry = retry.Policy{
		MaxAttempts: p.opts.MaxAttempts, Backoff: p.opts.Backoff, MaxBackoff: p.opts.MaxBackoff,
		Sleep: p.opts.Sleep, Retries: &p.retries,
	}
	p.kinds = kinds.New("hetzner", map[string]kinds.Kind{
		"Vpc":           vpcKind{p},
		"Subnet":        subnetKind{p},
		"SecurityGroup": firewallKind{p},
		"SshKey":        keyKind{p},
		"Vm":            serverKind{p},
		"TargetGroup":   tgKind{p},
		"LoadBalancer":  lbKind{p},
	})
	p.kinds.Refused = map[string]string{"Database": "hetzner has no managed databases"}
	p.kinds.Fixed = fixed()
	return p
}

// Retries reports how many requests were retried so far.
func (p *Provider) Retries() int64 { return p.retries.Load() }

// Name implements provider.Provider.
func (p *Provider) Name() string { return "hetzner" }

// mutex returns the process-wide mutex for key.
func (p *Provider) mutex(key string) *sync.Mutex {
	mu, _ := p.locks.LoadOrStore(key, &sync.Mutex{})
	return mu.(*sync.Mutex)
}

// Zones returns the network zone of the configured location (e.g.
// "eu-central"): Hetzner subnets belong to a network zone, not to a
// location, so auto-subnets all land in it.
func (p *Provider) Zones(ctx context.Context) ([]string, error) {
	zone, err := p.networkZone(ctx)
	if err != nil {
		return nil, err
	}
	return []string{zone}, nil
}

func (p *Provider) networkZone(ctx context.Context) (string, error) {
	p.zoneMu.Lock()
	defer p.zoneMu.Unlock()
	if p.zone != "" {
		return p.zone, nil
	}
	var loc *hcloud.Location
	err := p.call(ctx, "get location "+p.opts.Location, func(ctx context.Context) (r *hcloud.Response, err error) {
		loc, r, err = p.c.Location.GetByName(ctx, p.opts.Location)
		return r, err
	})
	if err != nil {
		return "", err
	}
	if loc == nil {
		return "", fmt.Errorf("hetzner location %q does not exist (try fsn1, nbg1, hel1, ash, hil or sin)", p.opts.Location)
	}
	p.zone = string(loc.NetworkZone)
	return p.zone, nil
}

// Create creates r or returns the Kyku-managed object already named
// r.CloudName.
func (p *Provider) Create(ctx context.Context, r provider.Resource) (provider.Object, error) {
	return p.kinds.Create(ctx, r)
}

// Read returns the object; provider.ErrNotFound when it is gone (or when
// id is not a Hetzner ID at all, e.g. a stale Kyku name: an idempotent
// create by name then finds the object again).
func (p *Provider) Read(ctx context.Context, typ, id string) (provider.Object, error) {
	return p.kinds.Read(ctx, typ, id)
}

// Update changes mutable properties in place. It refuses a change to an
// immutable property (the engine replaces those).
func (p *Provider) Update(ctx context.Context, id string, r provider.Resource) (provider.Object, error) {
	return p.kinds.Update(ctx, id, r)
}

// Delete removes the object; provider.ErrNotFound when it is already gone.
func (p *Provider) Delete(ctx context.Context, typ, id string) error {
	return p.kinds.Delete(ctx, typ, id)
}

// Lookup finds a Kyku-managed object by cloud name (never someone else's
// object that happens to share the name).
func (p *Provider) Lookup(ctx context.Context, typ, cloudName string) (provider.Object, error) {
	return p.kinds.Lookup(ctx, typ, cloudName)
}

// ValidID: Hetzner IDs are numbers,
// except the two Kyku defines — a subnet is "<network ID>/<cidr>" and a
// target group "kyku-tg/<cloud name>". Anything else (a Kyku name left in
// state by an early version) is stale and resolved by name before a
// destroy.
func (p *Provider) ValidID(typ, id string) bool {
	switch typ {
	case "Subnet":
		_, _, err := parseSubnetID(id)
		return err == nil
	case "TargetGroup":
		_, err := parseTGID(id)
		return err == nil
	}
	_, err := parseID(id)
	return err == nil
}
