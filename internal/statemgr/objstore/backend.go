package objstore

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

var (
	_ statemgr.Backend        = (*Backend)(nil)
	_ statemgr.BackupRewriter = (*Backend)(nil)
)

// Config says where the state lives and how the provider speaks of it.
type Config struct {
	// Name starts every message ("s3" → "s3 backend: …").
	Name string
	// Root is the bucket's URL with a trailing slash ("s3://acme-infra/"):
	// messages name objects by Root + key.
	Root string
	// Prefix is "" or a path without leading/trailing slash ("prod/network").
	Prefix string
	// Detail follows the state's URL in Describe (" (region …)").
	Detail string
	// BackupRetention is how many backups to keep; 0 (or less) keeps all.
	BackupRetention int
	// Unlocked is for stores that do not enforce conditional writes: no
	// lock object is written and Lock returns at once. The Bucket then
	// ignores preconditions too. Only safe when runs are serialized some
	// other way.
	Unlocked bool
	// Explain turns an error of Get, Put or Delete on key, made to do
	// action ("read state"), into one a user can act on (default
	// "<name> backend: <action> <url>: <err>").
	Explain func(action, key string, err error) error
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
	// Codec seals the state, journal entries, backups and objects before
	// they are written (nil: clear; sealed data then fails to read).
	Codec statemgr.Codec
	// Now is the clock for lock timestamps and backup names (default time.Now).
	Now func() time.Time
	// Hostname and PID are recorded in the lock when the caller's LockInfo
	// leaves them empty (default os.Hostname, os.Getpid).
	Hostname string
	PID      int
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

// Backend keeps one environment's state in a bucket. Build it with New.
type Backend struct {
	bucket Bucket
	cfg    Config
	env    string
	opts   Options

	storeMu sync.Mutex // serializes Read/Write, guards seen
	seen    seenState  // what the last Read or Write saw

	backupMu sync.Mutex // serializes Backup's write + retention
}

// New returns the backend of environment env ("" for the default) on bucket.
func New(bucket Bucket, cfg Config, env string, opts Options) *Backend {
	cfg.Prefix = strings.Trim(cfg.Prefix, "/")
	return &Backend{bucket: bucket, cfg: cfg, env: env, opts: opts.withDefaults()}
}

// CheckBucket refuses a bucket name that is empty or could not be one;
// name is the backend's ("s3").
func CheckBucket(name, bucket string) error {
	if bucket == "" {
		return fmt.Errorf("%s backend: bucket is required", name)
	}
	if strings.ContainsAny(bucket, "/ ") {
		return fmt.Errorf("%s backend: bucket %q is not a bucket name", name, bucket)
	}
	return nil
}

// Describe names the backend and its state object.
func (b *Backend) Describe() string {
	return b.cfg.Name + " " + b.url(b.stateKey()) + b.cfg.Detail
}

// errorf formats an error that names the backend ("s3 backend: …").
func (b *Backend) errorf(format string, args ...any) error {
	return fmt.Errorf("%s backend: %w", b.cfg.Name, fmt.Errorf(format, args...))
}

// wrap explains an error of the bucket on key, made to do action.
func (b *Backend) wrap(action, key string, err error) error {
	if b.cfg.Explain != nil {
		return b.cfg.Explain(action, key, err)
	}
	return b.errorf("%s %s: %w", action, b.url(key), err)
}

// key joins the prefix and a relative key.
func (b *Backend) key(rel string) string {
	if b.cfg.Prefix == "" {
		return rel
	}
	return b.cfg.Prefix + "/" + rel
}

// rel strips the prefix from a full key.
func (b *Backend) rel(full string) string {
	if b.cfg.Prefix == "" {
		return full
	}
	return strings.TrimPrefix(full, b.cfg.Prefix+"/")
}

// stem is "state.<env>" or "state" when env is empty.
func (b *Backend) stem() string {
	if b.env == "" {
		return "state"
	}
	return "state." + b.env
}

func (b *Backend) stateKey() string      { return b.key(b.stem() + ".json") }
func (b *Backend) lockKey() string       { return b.stateKey() + ".lock" }
func (b *Backend) journalPrefix() string { return b.stateKey() + ".journal/" }
func (b *Backend) backupDir() string     { return b.key("backups/") }
func (b *Backend) backupPrefix() string  { return b.backupDir() + b.stem() + "." }
func (b *Backend) url(key string) string { return b.cfg.Root + key }
