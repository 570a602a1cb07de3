package bot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kyku/action/internal/bot/tenancy"
)

// Environment variables the bot reads.
const (
	EnvAppID          = "GITHUB_APP_ID"
	EnvPrivateKey     = "GITHUB_APP_PRIVATE_KEY"
	EnvPrivateKeyFile = "GITHUB_APP_PRIVATE_KEY_FILE"
	EnvWebhookSecret  = "GITHUB_WEBHOOK_SECRET"
	EnvAPIURL         = "GITHUB_API_URL"
	EnvAppSlug        = "GITHUB_APP_SLUG"
	EnvAddr           = "KYKU_BOT_ADDR"
	EnvWorkers        = "KYKU_BOT_WORKERS"
	EnvQueue          = "KYKU_BOT_QUEUE"
	EnvDrainTimeout   = "KYKU_BOT_DRAIN_TIMEOUT"
	EnvDriftInterval  = "KYKU_BOT_DRIFT_INTERVAL"
	EnvPolicy         = "KYKU_BOT_POLICY"
	EnvStore          = "KYKU_BOT_STORE"
	EnvDedupeWindow   = "KYKU_BOT_DEDUPE_WINDOW"
	EnvLease          = "KYKU_BOT_LEASE"
)

// ErrNoWebhookSecret: the bot refuses to start without a webhook secret
// (go-github's ValidatePayload accepts an empty one, which would accept
// unsigned webhooks).
var ErrNoWebhookSecret = errors.New(EnvWebhookSecret + " is required: the bot never accepts unsigned webhooks")

// ErrNoPolicy: the bot refuses to start without an operator policy. Without
// one it would refuse every plan (every provider acts with the bot's own
// credentials or disk) while looking deployed.
var ErrNoPolicy = errors.New(EnvPolicy + " is required: without an operator policy the bot refuses every plan; " +
	"point it at a YAML file such as " + tenancy.Minimal + " (docs/bot.md: \"Tenancy and the operator's policy\")")

// Config is the bot's configuration, from the environment.
type Config struct {
	AppID         int64
	PrivateKey    []byte // PEM; never logged
	WebhookSecret []byte // never logged
	APIURL        string // default https://api.github.com/
	AppSlug       string // optional: comments by "<slug>[bot]" are ignored (any Bot user is anyway)
	Addr          string // default :8080
	Workers       int    // default 4
	QueueCapacity int    // default 1000
	// DrainTimeout bounds the wait for running jobs at SIGTERM (default 5
	// minutes; give the container at least as long to stop).
	DrainTimeout time.Duration
	// DriftInterval is the time between scheduled drift rounds over every
	// repository the App is installed on (ConfigFromEnv's default 24h; 0,
	// the zero Config's, disables them). Each wait adds up to a tenth of it
	// at random, and the first round comes at a random time within one
	// interval, so replicas started together spread out.
	DriftInterval time.Duration
	// Policy is the operator's policy (the YAML file KYKU_BOT_POLICY
	// names): which repositories may use which buckets, roles and
	// providers. ConfigFromEnv requires one; nil (a Config built in code)
	// fails closed: every provider (aws and hetzner would act with the
	// bot's own credentials) and every endpoint/profile override is refused.
	Policy *tenancy.Policy
	// Store is where the replicas share what must happen once (the
	// deliveries taken): KYKU_BOT_STORE, a bucket and prefix. nil: in
	// memory, per replica.
	Store *StoreConfig
	// DedupeWindow is how long a delivery's ID and body are remembered
	// (KYKU_BOT_DEDUPE_WINDOW, default DefaultDedupeWindow).
	DedupeWindow time.Duration
	// Lease is how long a job's lease, and the drift schedule's, lasts
	// unrenewed (KYKU_BOT_LEASE, default DefaultLease): the longest a job
	// whose worker died, or a schedule whose leader died, waits for
	// another replica. Only with a Store.
	Lease time.Duration
}

// ConfigFromEnv reads the configuration; readFile reads
// GITHUB_APP_PRIVATE_KEY_FILE and KYKU_BOT_POLICY, which is required (a
// policy that grants nothing is refused too). Every problem is reported
// at once.
func ConfigFromEnv(getenv func(string) string, readFile func(string) ([]byte, error)) (Config, error) {
	c := Config{
		APIURL:        "https://api.github.com/",
		Addr:          ":8080",
		Workers:       4,
		QueueCapacity: 1000,
		DrainTimeout:  5 * time.Minute,
		DriftInterval: 24 * time.Hour,
		AppSlug:       getenv(EnvAppSlug),
	}
	var errs []error
	if s := getenv(EnvWebhookSecret); s == "" {
		errs = append(errs, ErrNoWebhookSecret)
	} else {
		c.WebhookSecret = []byte(s)
	}
	id, err := strconv.ParseInt(strings.TrimSpace(getenv(EnvAppID)), 10, 64)
	if err != nil || id <= 0 {
		errs = append(errs, fmt.Errorf("%s must be the App's numeric ID", EnvAppID))
	}
	c.AppID = id
	switch key, file := getenv(EnvPrivateKey), getenv(EnvPrivateKeyFile); {
	case key != "" && file != "":
		errs = append(errs, fmt.Errorf("set %s or %s, not both", EnvPrivateKey, EnvPrivateKeyFile))
	case key != "":
		c.PrivateKey = []byte(key)
	case file != "":
		data, err := readFile(file)
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", EnvPrivateKeyFile, err))
		}
		c.PrivateKey = data
	default:
		errs = append(errs, fmt.Errorf("%s (PEM) or %s is required", EnvPrivateKey, EnvPrivateKeyFile))
	}
	if u := getenv(EnvAPIURL); u != "" {
		c.APIURL = u
	}
	if a := getenv(EnvAddr); a != "" {
		c.Addr = a
	}
	for _, v := range []struct {
		name string
		dst  *int
	}{{EnvWorkers, &c.Workers}, {EnvQueue, &c.QueueCapacity}} {
		if s := getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("%s must be a positive number, not %q", v.name, s))
				continue
			}
			*v.dst = n
		}
	}
	if s := getenv(EnvDrainTimeout); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s must be a duration such as 5m, not %q", EnvDrainTimeout, s))
		}
		c.DrainTimeout = d
	}
	if s := getenv(EnvDriftInterval); s != "" {
		d, err := time.ParseDuration(s)
		if s == "0" {
			d, err = 0, nil
		}
		if err != nil || d < 0 || (d > 0 && d < time.Minute) {
			errs = append(errs, fmt.Errorf("%s must be a duration of at least 1m such as 24h, or 0 to disable drift checks, not %q", EnvDriftInterval, s))
		}
		c.DriftInterval = d
	}
	if file := getenv(EnvPolicy); file == "" {
		errs = append(errs, ErrNoPolicy)
	} else {
		data, err := readFile(file)
		if err != nil {
			errs = append(errs, fmt.Errorf("read %s: %w", EnvPolicy, err))
		} else if c.Policy, err = tenancy.Parse(file, data); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvPolicy, err))
		}
	}
	if u := getenv(EnvStore); u != "" {
		sc, err := ParseStore(u)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvStore, err))
		}
		c.Store = sc
	}
	if s := getenv(EnvDedupeWindow); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < time.Minute {
			errs = append(errs, fmt.Errorf("%s must be a duration of at least 1m such as 72h, not %q", EnvDedupeWindow, s))
		}
		c.DedupeWindow = d
	}
	if s := getenv(EnvLease); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < time.Second || d > time.Hour {
			errs = append(errs, fmt.Errorf("%s must be a duration from 1s to 1h such as 1m, not %q", EnvLease, s))
		}
		c.Lease = d
	}
	if err := errors.Join(errs...); err != nil {
		return Config{}, fmt.Errorf("bot configuration: %w", err)
	}
	return c, nil
}
