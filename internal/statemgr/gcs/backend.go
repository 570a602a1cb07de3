package gcs

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/objstore"
)

var (
	_ statemgr.Backend        = (*Backend)(nil)
	_ statemgr.BackupRewriter = (*Backend)(nil)
	_ objstore.Bucket         = (*bucket)(nil)
)

// ErrLockLost is wrapped by Unlock when the lock was broken as stale or
// force-unlocked while held. It is statemgr.ErrLockLost.
var ErrLockLost = statemgr.ErrLockLost

// Config is the backend section of kyku.yaml (type gcs).
type Config struct {
	Bucket string
	Prefix string // "" or a path without leading/trailing slash
	// BackupRetention is how many backups to keep; 0 keeps all.
	BackupRetention int
}

// Options tune a Backend. Zero values get the defaults named on each field.
type Options struct {
	LockTimeout  time.Duration // default 30s; negative: try once
	StaleAfter   time.Duration // default 5m
	Heartbeat    time.Duration // default 60s
	PollInterval time.Duration // default 1s (±50% jitter)
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
	// Codec seals what is stored (nil: clear).
	Codec statemgr.Codec
	// Getenv reads STORAGE_EMULATOR_HOST for New (nil: no emulator).
	Getenv func(string) string
	// Credentials reach a real bucket (nil: only an emulator's).
	Credentials Credentials
	// Endpoint is the Cloud Storage JSON API's URL, as OpenTofu's
	// storage_custom_endpoint gives it (https://HOST/storage/v1/b or
	// https://HOST/storage/v1/); "": DefaultEndpoint, or the emulator's.
	Endpoint string
	// AccessToken, when set, is the OAuth 2.0 bearer token of every
	// request (OpenTofu's access_token), in place of Credentials. It is
	// never logged nor put in an error.
	AccessToken string
	Now         func() time.Time // default time.Now
	Hostname    string           // default os.Hostname
	PID         int              // default os.Getpid
}

// Backend keeps one environment's state in a GCS bucket: package
// objstore's backend on a GCS bucket.
type Backend struct {
	*objstore.Backend
}

// New builds the client from Application Default Credentials (or, when
// STORAGE_EMULATOR_HOST is set, for that emulator; NewClient).
func New(ctx context.Context, cfg Config, env string, opts Options) (*Backend, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	client, err := newClient(ctx, cfg.Bucket, opts)
	if err != nil {
		return nil, err
	}
	return NewWithClient(client, cfg, env, opts)
}

// newClient is NewClient with opts' emulator and credentials, its error
// saying how to give credentials for bucket (ErrNoCredentials wrapped
// when opts has none).
func newClient(ctx context.Context, bucket string, opts Options) (*Client, error) {
	root, err := APIRoot(opts.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("gcs backend: %w", err)
	}
	if opts.AccessToken != "" {
		if root == "" {
			root = cmp.Or(emulator(opts.Getenv), DefaultEndpoint)
		}
		return &Client{Endpoint: root, HTTP: &http.Client{Transport: bearer(opts.AccessToken)}}, nil
	}
	client, err := NewClient(ctx, opts.Getenv, opts.Credentials)
	if err != nil {
		return nil, fmt.Errorf("gcs backend: no usable Google credentials for bucket %q (Application Default Credentials: run gcloud auth application-default login, set GOOGLE_APPLICATION_CREDENTIALS, or use workload identity federation in CI; or an access_token): %w", bucket, err)
	}
	if root != "" {
		client.Endpoint = root
	}
	return client, nil
}

// NewWithClient uses the given client.
func NewWithClient(client *Client, cfg Config, env string, opts Options) (*Backend, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("gcs backend: nil client")
	}
	bkt := newBucket(client, cfg.Bucket, opts)
	return &Backend{objstore.New(bkt, objstore.Config{
		Name: "gcs", Root: bkt.url(""), Prefix: strings.Trim(cfg.Prefix, "/"),
		BackupRetention: cfg.BackupRetention, Explain: bkt.explain,
	}, env, objstore.Options{
		LockTimeout: opts.LockTimeout, StaleAfter: opts.StaleAfter, Heartbeat: opts.Heartbeat, PollInterval: opts.PollInterval,
		Codec: opts.Codec, Now: opts.Now, Hostname: opts.Hostname, PID: opts.PID,
	})}, nil
}

// newBucket is objstore's Bucket on bucket name through client.
func newBucket(client *Client, name string, opts Options) *bucket {
	return &bucket{
		// Kyku retries every call itself (retry.go).
		c:    client,
		name: name,
		retry: objstore.Retry{
			Budget: opts.RetryBudget, AttemptTimeout: opts.AttemptTimeout, Base: opts.RetryBase, OnRetry: opts.OnRetry,
			Transient: isTransient, Service: "GCS",
		}.WithDefaults(),
	}
}

func (c Config) validate() error { return objstore.CheckBucket("gcs", c.Bucket) }
