package gcs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"

	"github.com/kyku/action/internal/statemgr"
)

var (
	_ statemgr.Backend        = (*Backend)(nil)
	_ statemgr.BackupRewriter = (*Backend)(nil)
)

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
	// RetryBudget bounds each read, write, list or delete, retries included
	// (default 2m).
	RetryBudget time.Duration
	// Codec seals what is stored (nil: clear).
	Codec    statemgr.Codec
	Now      func() time.Time // default time.Now
	Hostname string           // default os.Hostname
	PID      int              // default os.Getpid
}

func (o Options) withDefaults() Options {
	if o.LockTimeout == 0 {
		o.LockTimeout = 30 * time.Second
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = 5 * time.Minute
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 60 * time.Second
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.RetryBudget <= 0 {
		o.RetryBudget = 2 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Hostname == "" {
		o.Hostname, _ = os.Hostname()
	}
	if o.PID == 0 {
		o.PID = os.Getpid()
	}
	return o
}

// Backend keeps one environment's state in a GCS bucket.
type Backend struct {
	client *storage.Client
	bucket *storage.BucketHandle
	cfg    Config
	env    string
	opts   Options

	storeMu sync.Mutex
	seen    seenState

	backupMu sync.Mutex
}

// New builds the client from Application Default Credentials (or, when
// STORAGE_EMULATOR_HOST is set, the client library's emulator mode).
func New(ctx context.Context, cfg Config, env string, opts Options, clientOpts ...option.ClientOption) (*Backend, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	client, err := storage.NewClient(ctx, clientOpts...)
	if err != nil {
		return nil, fmt.Errorf("gcs backend: no usable Google credentials for bucket %q (Application Default Credentials: run gcloud auth application-default login, set GOOGLE_APPLICATION_CREDENTIALS, or use workload identity federation in CI): %w", cfg.Bucket, err)
	}
	return NewWithClient(client, cfg, env, opts)
}

// NewWithClient uses the given client.
func NewWithClient(client *storage.Client, cfg Config, env string, opts Options) (*Backend, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("gcs backend: nil client")
	}
	cfg.Prefix = strings.Trim(cfg.Prefix, "/")
	return &Backend{client: client, bucket: client.Bucket(cfg.Bucket), cfg: cfg, env: env, opts: opts.withDefaults()}, nil
}

func (c Config) validate() error {
	if c.Bucket == "" {
		return errors.New("gcs backend: bucket is required")
	}
	if strings.ContainsAny(c.Bucket, "/ ") {
		return fmt.Errorf("gcs backend: bucket %q is not a bucket name", c.Bucket)
	}
	return nil
}

// Describe names the backend and its state object.
func (b *Backend) Describe() string { return "gcs " + b.url(b.stateKey()) }

func (b *Backend) key(rel string) string {
	if b.cfg.Prefix == "" {
		return rel
	}
	return b.cfg.Prefix + "/" + rel
}

func (b *Backend) rel(full string) string {
	if b.cfg.Prefix == "" {
		return full
	}
	return strings.TrimPrefix(full, b.cfg.Prefix+"/")
}

func (b *Backend) stem() string {
	if b.env == "" {
		return "state"
	}
	return "state." + b.env
}

func (b *Backend) stateKey() string      { return b.key(b.stem() + ".json") }
func (b *Backend) lockKey() string       { return b.stateKey() + ".lock" }
func (b *Backend) journalPrefix() string { return b.stateKey() + ".journal/" }
func (b *Backend) backupPrefix() string  { return b.key("backups/" + b.stem() + ".") }
func (b *Backend) url(key string) string { return "gs://" + b.cfg.Bucket + "/" + key }
