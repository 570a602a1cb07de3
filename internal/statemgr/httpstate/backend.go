package httpstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
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

// Config is the backend section of kyku.yaml (type http) with the password.
type Config struct {
	Address       string
	LockAddress   string // "": no locking
	UnlockAddress string // "": LockAddress
	Username      string
	Password      string // from KYKU_HTTP_PASSWORD, never from the file
	UpdateMethod  string // default POST
	LockMethod    string // default LOCK
	UnlockMethod  string // default UNLOCK
	// RetryMax is how many times a failed request (network error, 429,
	// 5xx) is retried (default 2, as Terraform's); waits grow from
	// RetryWaitMin (1s) to RetryWaitMax (30s). Past that, LOCK tries
	// again every poll interval until Options.LockTimeout, and UNLOCK for
	// up to 30 s (unlockBudget); a state POST whose attempts all failed in
	// transit is read back and counts as done when it landed.
	RetryMax                   int
	RetryWaitMin, RetryWaitMax time.Duration
	BackupRetention            int // 0 keeps all
}

// Options tune a Backend.
type Options struct {
	LockTimeout  time.Duration // default 30s; negative: try once
	PollInterval time.Duration // default 1s (±50% jitter)
	Codec        statemgr.Codec
	HTTPClient   *http.Client     // default: http.Client with a 60s timeout
	Now          func() time.Time // default time.Now
	Hostname     string
	PID          int
}

// Backend keeps one environment's state in one document of an HTTP
// backend server.
type Backend struct {
	cfg   Config
	env   string
	opts  Options
	httpc *http.Client

	mu     sync.Mutex // serializes changes to the document; guards the fields below
	seen   seenState
	lockID string // our lock's ID while we hold it (sent as ?ID= with updates)
}

// New checks cfg and returns a Backend for environment env.
func New(cfg Config, env string, opts Options) (*Backend, error) {
	envName := env
	if envName == "" {
		envName = "default"
	}
	if cfg.UnlockAddress == "" {
		cfg.UnlockAddress = cfg.LockAddress
	}
	for _, a := range []*string{&cfg.Address, &cfg.LockAddress, &cfg.UnlockAddress} {
		if env != "" && *a != "" && !strings.Contains(*a, "{env}") {
			return nil, fmt.Errorf("http backend: %s has no {env} placeholder, so environment %q has no document of its own; put {env} in address, lockAddress and unlockAddress", redact(*a), env)
		}
		*a = strings.ReplaceAll(*a, "{env}", url.PathEscape(envName))
	}
	if u, err := url.Parse(cfg.Address); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("http backend: address %q is not an http:// or https:// URL", redact(cfg.Address))
	}
	if cfg.Username != "" && cfg.Password == "" {
		return nil, errors.New("http backend: username is set but KYKU_HTTP_PASSWORD is empty")
	}
	if cfg.UpdateMethod == "" {
		cfg.UpdateMethod = http.MethodPost
	}
	if cfg.LockMethod == "" {
		cfg.LockMethod = "LOCK"
	}
	if cfg.UnlockMethod == "" {
		cfg.UnlockMethod = "UNLOCK"
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = 2
	}
	if cfg.RetryWaitMin <= 0 {
		cfg.RetryWaitMin = time.Second
	}
	if cfg.RetryWaitMax < cfg.RetryWaitMin {
		cfg.RetryWaitMax = max(30*time.Second, cfg.RetryWaitMin)
	}
	if opts.LockTimeout == 0 {
		opts.LockTimeout = 30 * time.Second
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Hostname == "" {
		opts.Hostname, _ = os.Hostname()
	}
	if opts.PID == 0 {
		opts.PID = os.Getpid()
	}
	httpc := opts.HTTPClient
	if httpc == nil {
		httpc = &http.Client{Timeout: 60 * time.Second}
	}
	return &Backend{cfg: cfg, env: env, opts: opts, httpc: httpc}, nil
}

// Describe names the backend and the document's address (no credentials).
func (b *Backend) Describe() string { return "http " + redact(b.cfg.Address) }

// Identity names the document wholly, for a hash that is never shown
// (a journal keeper's answer box): Describe's redaction makes
// ?name=app1 and ?name=app2 one address.
func (b *Backend) Identity() string { return "http " + identity(b.cfg.Address) }

// identity is the address without its password: a query string or a
// user name may be what tells two documents apart.
func identity(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = url.User(u.User.Username())
	return u.String()
}

// redact is a URL as messages may show it: without user information
// (user:password@), every query value replaced by "REDACTED" (keys kept:
// ?access_token=REDACTED says what was sent), no fragment. Text that is
// not a URL with a host loses everything from its first '?' or '#', and
// everything between its scheme and an '@'.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.Host == "" {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
		if i := strings.LastIndex(s, "@"); i >= 0 {
			scheme, _, found := strings.Cut(s, "://")
			if !found {
				scheme = "?"
			}
			s = scheme + "://" + s[i+1:]
		}
		return s
	}
	u.User, u.Fragment, u.RawFragment = nil, "", ""
	if u.RawQuery != "" {
		q := u.Query()
		for _, vs := range q {
			for i := range vs {
				vs[i] = "REDACTED"
			}
		}
		if len(q) == 0 {
			u.RawQuery = "REDACTED"
		} else {
			u.RawQuery = q.Encode()
		}
	}
	return u.String()
}

// redactErr redacts the URL the HTTP client names in err (a *url.Error
// quotes the request's URL, query string and all).
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redact(ue.URL)
	}
	return err
}

// document is what the address holds.
type document struct {
	Kyku    int               `json:"kyku"`
	Lineage string            `json:"lineage,omitempty"`
	Serial  int64             `json:"serial,omitempty"`
	State   json.RawMessage   `json:"state,omitempty"`
	Journal []json.RawMessage `json:"journal,omitempty"`
	Backups []backup          `json:"backups,omitempty"`
	Objects map[string][]byte `json:"objects,omitempty"`
}

type backup struct {
	Key     string          `json:"key"`
	Serial  int64           `json:"serial"`
	Created time.Time       `json:"created"`
	State   json.RawMessage `json:"state"`
}

// fetch GETs the document; a missing one (404, 204, empty body) is an
// empty document.
func (b *Backend) fetch(ctx context.Context) (*document, error) {
	resp, _, err := b.do(ctx, http.MethodGet, b.cfg.Address, nil)
	if err != nil {
		return nil, fmt.Errorf("http backend: read %s: %w", redact(b.cfg.Address), err)
	}
	switch {
	case resp.status == http.StatusNotFound || resp.status == http.StatusNoContent ||
		(resp.status == http.StatusOK && len(strings.TrimSpace(string(resp.body))) == 0):
		return &document{Kyku: 1}, nil
	case resp.status != http.StatusOK:
		return nil, fmt.Errorf("http backend: read: %w", &StatusError{Method: "GET", URL: redact(b.cfg.Address), Status: resp.status, Body: snippet(resp.body)})
	}
	var d document
	if err := json.Unmarshal(resp.body, &d); err != nil || d.Kyku != 1 {
		return nil, fmt.Errorf("http backend: %s does not hold a Kyku document (a Terraform state, or another program's?); it is left untouched", redact(b.cfg.Address))
	}
	return &d, nil
}

// store POSTs (UpdateMethod) the document, with ?ID= while we hold the lock.
func (b *Backend) store(ctx context.Context, d *document) error {
	d.Kyku = 1
	body, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("http backend: encode document: %w", err)
	}
	target := b.cfg.Address
	if b.lockID != "" {
		u, _ := url.Parse(target)
		q := u.Query()
		q.Set("ID", b.lockID)
		u.RawQuery = q.Encode()
		target = u.String()
	}
	// Storing the same document twice is harmless: a retry after a lost
	// answer needs no check. When every attempt failed in transit, one of
	// them may still have landed: the document is read back, and if it
	// holds exactly what we sent, the write is done.
	resp, ambiguous, err := b.do(ctx, b.cfg.UpdateMethod, target, body)
	if err != nil && ambiguous && ctx.Err() == nil && b.holds(ctx, body) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("http backend: write %s: %w", redact(b.cfg.Address), err)
	}
	switch resp.status {
	case http.StatusOK, http.StatusCreated, http.StatusNoContent:
		return nil
	case http.StatusConflict, http.StatusLocked:
		return fmt.Errorf("http backend: write %s: the server refused the update because the state is locked by another run (HTTP %d): %w",
			redact(b.cfg.Address), resp.status, statemgr.ErrConflict)
	}
	return fmt.Errorf("http backend: write: %w", &StatusError{Method: b.cfg.UpdateMethod, URL: redact(b.cfg.Address), Status: resp.status, Body: snippet(resp.body)})
}

// holds reports whether the document at the address is body (compared as
// compacted JSON).
func (b *Backend) holds(ctx context.Context, body []byte) bool {
	resp, _, err := b.do(ctx, http.MethodGet, b.cfg.Address, nil)
	return err == nil && resp.status == http.StatusOK && sumOf(resp.body) == sumOf(body)
}

// mutate applies fn to a fresh copy of the document and stores it, under
// the lock: ours if held, else one taken for this change alone (when there
// is a lock address). b.mu is held throughout.
func (b *Backend) mutate(ctx context.Context, op string, fn func(d *document) (changed bool, err error)) (err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lockID == "" && b.cfg.LockAddress != "" {
		info := statemgr.LockInfo{Operation: op, Who: "kyku@" + b.opts.Hostname}
		l, err := b.lockLocked(ctx, info)
		if err != nil {
			return err
		}
		b.lockID = l.ID
		defer func() {
			b.lockID = ""
			// A lock left behind stops every later run: say so.
			uerr := b.unlockLocked(context.WithoutCancel(ctx), l.ID)
			switch {
			case uerr != nil && err == nil:
				err = fmt.Errorf("http backend: %s: done, but its lock was not released: %w", op, uerr)
			case uerr != nil:
				err = fmt.Errorf("%w (and its lock was not released: %v)", err, uerr)
			}
		}()
	}
	d, err := b.fetch(ctx)
	if err != nil {
		return err
	}
	changed, err := fn(d)
	if err != nil || !changed {
		return err
	}
	return b.store(ctx, d)
}
