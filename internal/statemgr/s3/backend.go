package s3

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/objstore"
)

var (
	_ statemgr.Backend        = (*Backend)(nil)
	_ statemgr.BackupRewriter = (*Backend)(nil)
	_ objstore.Bucket         = (*bucket)(nil)
)

// API is the part of the S3 client this package uses (*s3.Client has it).
type API interface {
	PutObject(ctx context.Context, in *awss3.PutObjectInput, optFns ...func(*awss3.Options)) (*awss3.PutObjectOutput, error)
	GetObject(ctx context.Context, in *awss3.GetObjectInput, optFns ...func(*awss3.Options)) (*awss3.GetObjectOutput, error)
	DeleteObject(ctx context.Context, in *awss3.DeleteObjectInput, optFns ...func(*awss3.Options)) (*awss3.DeleteObjectOutput, error)
	DeleteObjects(ctx context.Context, in *awss3.DeleteObjectsInput, optFns ...func(*awss3.Options)) (*awss3.DeleteObjectsOutput, error)
	ListObjectsV2(ctx context.Context, in *awss3.ListObjectsV2Input, optFns ...func(*awss3.Options)) (*awss3.ListObjectsV2Output, error)
}

// Config is the backend section of kyku.yaml. It never holds credentials:
// those come from the SDK's default chain.
type Config struct {
	Bucket       string
	Prefix       string // "" or a path without leading/trailing slash ("prod/network")
	Region       string // "" takes the region from the SDK's chain
	Endpoint     string // "" uses AWS, or AWS_ENDPOINT_URL_S3 when set
	UsePathStyle bool
	KMSKeyID     string // when set, objects are written with SSE-KMS under this key
	// BackupRetention is how many backups to keep; 0 (or less) keeps all.
	BackupRetention int
	// Unlocked is for stores that do not enforce conditional writes
	// (backend "lock: false"): no lock object is written, Lock returns at
	// once, and writes carry no If-Match / If-None-Match. Only safe when
	// runs are serialized some other way.
	Unlocked bool
}

// Options tune a Backend. Zero values get the defaults named on each field.
type Options struct {
	// LockTimeout is how long Lock waits for a held lock (default 30s). A
	// negative value means try once and do not wait.
	LockTimeout time.Duration
	// StaleAfter is the age of a lock's heartbeat past which the lock is
	// considered abandoned and broken (default 5m).
	StaleAfter time.Duration
	// Heartbeat is how often a held lock refreshes its heartbeat (default 60s).
	Heartbeat time.Duration
	// PollInterval is how often a waiting Lock looks at the lock again
	// (default 1s; a random ±50% jitter is applied).
	PollInterval time.Duration
	// RetryBudget is how long one read, write, list or delete keeps
	// retrying transient errors (default DefaultRetryBudget). Lock waits
	// retry within LockTimeout instead.
	RetryBudget time.Duration
	// AttemptTimeout bounds one attempt, so a stalled connection is
	// abandoned and retried (default DefaultAttemptTimeout).
	AttemptTimeout time.Duration
	// RetryBase is the first backoff between attempts (default 100ms; full
	// jitter, doubling, capped at 5s).
	RetryBase time.Duration
	// OnRetry, when set, is told of every transient error that is retried.
	OnRetry func(op string, err error)
	// Codec seals the state, journal entries, backups and objects before
	// they are written (nil: clear; sealed data then fails to read).
	Codec statemgr.Codec
	// Now is the clock for lock timestamps and backup names (default time.Now).
	Now func() time.Time
	// Getenv reads the environment, only to name the endpoint in messages
	// (default os.Getenv). The SDK reads its own settings itself.
	Getenv func(string) string
	// Hostname and PID are recorded in the lock when the caller's LockInfo
	// leaves them empty (default os.Hostname, os.Getpid).
	Hostname string
	PID      int
	// Credentials, when set, are what the client New and NewTerraform
	// build signs with, instead of the SDK's default chain (the bot passes
	// the role its policy grants a repository's bucket).
	Credentials aws.CredentialsProvider
}

// Backend keeps one environment's state in S3: package objstore's backend
// on an S3 bucket. Build it with New or NewWithClient.
type Backend struct {
	*objstore.Backend
}

// New builds the S3 client from the SDK's default configuration chain
// (credentials from env vars, profiles, web identity; never from cfg),
// with the region from cfg or the chain and the endpoint from cfg or the
// SDK's own AWS_ENDPOINT_URL_S3 handling.
func New(ctx context.Context, cfg Config, env string, opts Options) (*Backend, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	client, region, err := newClient(ctx, cfg, opts.Credentials)
	if err != nil {
		return nil, err
	}
	cfg.Region = region
	return NewWithClient(client, cfg, env, opts)
}

// newClient builds the client New and NewTerraform use, signing with creds
// (nil: the default chain's), and says its region.
func newClient(ctx context.Context, cfg Config, creds aws.CredentialsProvider) (*awss3.Client, string, error) {
	var load []func(*config.LoadOptions) error
	if cfg.Region != "" {
		load = append(load, config.WithRegion(cfg.Region))
	}
	if creds != nil {
		load = append(load, config.WithCredentialsProvider(creds))
	}
	if cfg.Endpoint != "" {
		// S3-compatible stores often reject the SDK's optional checksums.
		load = append(load, config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, "", fmt.Errorf("s3 backend: load AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		return nil, "", fmt.Errorf("s3 backend: no region for bucket %q: set backend.region in kyku.yaml or AWS_REGION", cfg.Bucket)
	}
	client := awss3.NewFromConfig(awsCfg, func(o *awss3.Options) {
		o.Retryer = aws.NopRetryer{} // Kyku retries within its own budgets (retry.go)
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.UsePathStyle = cfg.UsePathStyle
	})
	return client, awsCfg.Region, nil
}

// NewWithClient uses the given client (tests, or callers that build their own).
func NewWithClient(api API, cfg Config, env string, opts Options) (*Backend, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if api == nil {
		return nil, fmt.Errorf("s3 backend: nil client")
	}
	bkt := newBucket(api, cfg, opts)
	return &Backend{objstore.New(bkt, objstore.Config{
		Name: "s3", Root: bkt.url(""), Prefix: strings.Trim(cfg.Prefix, "/"),
		Detail:          fmt.Sprintf(" (region %s, endpoint %s)", bkt.region, bkt.where),
		BackupRetention: cfg.BackupRetention, Unlocked: cfg.Unlocked, Explain: bkt.explain,
	}, env, objstore.Options{
		LockTimeout: opts.LockTimeout, StaleAfter: opts.StaleAfter, Heartbeat: opts.Heartbeat, PollInterval: opts.PollInterval,
		Codec: opts.Codec, Now: opts.Now, Hostname: opts.Hostname, PID: opts.PID,
	})}, nil
}

// newBucket is objstore's Bucket on cfg's bucket through api.
func newBucket(api API, cfg Config, opts Options) *bucket {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	bkt := &bucket{
		api: api, name: cfg.Bucket, kmsKeyID: cfg.KMSKeyID, unlocked: cfg.Unlocked, region: cfg.Region,
		retry: objstore.Retry{Budget: opts.RetryBudget, AttemptTimeout: opts.AttemptTimeout, Base: opts.RetryBase, OnRetry: opts.OnRetry, Transient: isTransient, Service: "S3"}.WithDefaults(),
	}
	bkt.where = cfg.Endpoint
	if bkt.where == "" {
		bkt.where = getenv("AWS_ENDPOINT_URL_S3")
	}
	if bkt.where == "" {
		bkt.where = getenv("AWS_ENDPOINT_URL")
	}
	if bkt.where == "" {
		bkt.where = "AWS default"
	}
	if bkt.region == "" {
		bkt.region = "unknown"
	}
	return bkt
}

func (c Config) validate() error { return objstore.CheckBucket("s3", c.Bucket) }
