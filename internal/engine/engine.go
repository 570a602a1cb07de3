package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyku/action/internal/envname"
	"github.com/kyku/action/internal/lease"
	"github.com/kyku/action/internal/progress"
	"github.com/kyku/action/internal/provider"
	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// Options tune an Engine. Zero values get the documented defaults.
type Options struct {
	Env          string // environment workspace ("" → state.json)
	Parallelism  int    // max concurrent provider operations (default 10)
	DeployPrefix string // prefix for new cloud names (default: random 8 hex, kept in state)

	// Retry of transient provider errors: Attempts tries in all, the n-th
	// wait is RetryBase × 2^n with full jitter, capped at RetryMax.
	RetryAttempts int           // default 5
	RetryBase     time.Duration // default 1s
	RetryMax      time.Duration // default 30s

	// Destroy, as the seed says: 5 attempts waiting 2^n × DestroyBase, then
	// verify deletion by polling VerifyAttempts × VerifyInterval.
	DestroyAttempts int           // default 5
	DestroyBase     time.Duration // default 2s
	VerifyAttempts  int           // default 10
	VerifyInterval  time.Duration // default 2s

	// LevelBarrier makes every level wait for the whole previous level (the
	// seed's planner picture). Only for comparison in benchmarks: the
	// default ready queue starts a change as soon as its own dependencies
	// are done.
	LevelBarrier bool

	Lock statemgr.LockInfo // who is running (operation is filled in)
	// Executing, when set, is called as an apply starts running its
	// changes (after its plan and confirmation), and what it returns once
	// they have all ended: a process that runs one apply may tune its
	// runtime for a phase spent waiting on providers (cliproc).
	Executing func() (done func())
	Hook      progress.Hook    // apply progress (default: discard)
	Now       func() time.Time // default time.Now
	Rand      io.Reader        // randomness for prefix, lineage (default crypto/rand)
	Sleep     func(ctx context.Context, d time.Duration) error

	// Leases, when set, makes Apply lease the objects it changes and
	// those they read from, instead of locking the whole state, and write
	// the state by merging (leased.go). PR is the pull request an apply
	// runs for (0: none), recorded in its leases.
	Leases *lease.Manager
	PR     int
	// Answers is the box of the answers journal keepers kept for a state
	// whose backend keeps none beside it (a remote state: answers.go), on
	// this machine and in no place a pull request writes; nil: none, and
	// an interrupted create of such a state stays refused.
	Answers statemgr.AnswerBox
	// NoteWait is how long an apply's fold waits for a journal keeper of
	// an earlier apply still making a create whose note the fold would
	// close (foldlock.go), as for a held state lock (default 30s;
	// negative: not at all); past it the apply is refused.
	NoteWait time.Duration
	// Version is Kyku's version (and commit): a plan reads and plans again
	// every object of Kyku's own types last applied by another (reads.go).
	Version string

	// Secrets is the run's scrubber, which the engine feeds (secrets.go);
	// default: a book of its own (Engine.Secrets).
	Secrets *progress.SecretBook
}

// Engine runs the lifecycle against one provider and one backend.
type Engine struct {
	provider provider.Provider
	backend  statemgr.Backend
	opts     Options
	bases    *sync.Map // basisKey → its provider's digest and version (basis.go); shared by copies
	// attrNames are the attributes of Terraform providers' types
	// (attrNamesKey → objectSchema: wholeobjects.go); shared by copies.
	// typesKnown says one holds a type (objectType asks nothing before).
	attrNames  *sync.Map
	typesKnown *atomic.Bool
}

// New returns an Engine.
func New(p provider.Provider, b statemgr.Backend, opts Options) *Engine {
	if opts.Parallelism <= 0 {
		opts.Parallelism = 10
	}
	if opts.RetryAttempts <= 0 {
		opts.RetryAttempts = 5
	}
	if opts.RetryBase <= 0 {
		opts.RetryBase = time.Second
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = 30 * time.Second
	}
	if opts.DestroyAttempts <= 0 {
		opts.DestroyAttempts = 5
	}
	if opts.DestroyBase <= 0 {
		opts.DestroyBase = 2 * time.Second
	}
	if opts.VerifyAttempts <= 0 {
		opts.VerifyAttempts = 10
	}
	if opts.VerifyInterval <= 0 {
		opts.VerifyInterval = 2 * time.Second
	}
	if opts.NoteWait == 0 {
		opts.NoteWait = 30 * time.Second
	}
	if opts.Hook == nil {
		opts.Hook = progress.Discard{}
	}
	if opts.Secrets == nil {
		opts.Secrets = &progress.SecretBook{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	// A Terraform state writes a new object's unset attributes as
	// OpenTofu does: the backend learns them from the providers' schemas.
	if s, ok := b.(interface {
		SetEmpties(func(string) map[string]any)
	}); ok && p != nil { // state commands run no provider
		s.SetEmpties(p.Empties)
	}
	return &Engine{provider: p, backend: b, opts: opts, bases: &sync.Map{}, attrNames: &sync.Map{}, typesKnown: &atomic.Bool{}}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (e *Engine) randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(e.opts.Rand, b); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// lock takes the state lock for op and returns the function that releases
// it; release runs with a context that survives cancellation.
func (e *Engine) lock(ctx context.Context, op string) (func(), error) {
	// The environment names the state's files and keys: a name that could
	// reach outside them is refused before the backend is touched.
	if err := envname.Check(e.opts.Env); err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	info := e.opts.Lock
	info.Operation = op
	l, err := e.backend.Lock(ctx, info)
	if err != nil {
		return nil, fmt.Errorf("lock state (%s): %w", e.backend.Describe(), err)
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		_ = l.Unlock(uctx)
	}, nil
}

// load reads the state under the lock and folds a journal left by a crashed
// run into it. It returns nil when no state exists. With persist the state
// read is backed up, the folded one written (serial + 1) and the journal
// cleared; without it (plan, read-only commands) the fold stays in memory:
// it is deterministic, so the next apply's persisted fold yields the same
// serial a plan recorded.
func (e *Engine) load(ctx context.Context, persist bool) (*state.File, error) {
	st, err := e.backend.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("read state (%s): %w", e.backend.Describe(), err)
	}
	e.learnState(st) // before anything can fail quoting it
	entries, err := e.backend.Entries(ctx)
	if err != nil {
		return nil, fmt.Errorf("read journal (%s): %w", e.backend.Describe(), err)
	}
	if len(entries) == 0 {
		return st, nil
	}
	for _, en := range entries {
		e.opts.Secrets.Add(appendSecrets(nil, en.Resource)...)
	}
	var prior *state.File // the state the fold replaces, backed up first as an apply's is
	switch {
	case st == nil:
		// A journal without a state: the state was never written. Rebuild
		// it from the journal's lineage.
		st = state.New("", entries[0].Lineage, e.opts.Env)
		st.Metadata.Serial = entries[0].BaseSerial
	case persist:
		prior = st.Clone()
	}
	if state.Fold(st, entries) {
		st.Metadata.Serial++
		if !persist {
			return st, nil
		}
		if prior != nil {
			if _, err := e.backend.Backup(ctx, prior); err != nil {
				return nil, fmt.Errorf("back up state before recovering the journal: %w", err)
			}
		}
		if err := e.backend.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
			return nil, fmt.Errorf("recover journal into state: %w", err)
		}
	}
	if !persist {
		return st, nil
	}
	if err := e.backend.ClearJournal(ctx); err != nil {
		return nil, fmt.Errorf("clear journal: %w", err)
	}
	return st, nil
}

// ensure returns st, or a new state when there is none, written before
// anything is applied so that the deploy prefix and lineage a crash
// recovery finds are the ones the apply used. prefix, when not empty, is
// the prefix a saved plan chose; otherwise Options.DeployPrefix or a new
// random one.
func (e *Engine) ensure(ctx context.Context, st *state.File, prefix string) (*state.File, error) {
	if st != nil && st.Metadata.Prefix != "" {
		return st, nil
	}
	if prefix == "" {
		var err error
		if prefix, err = e.prefix(); err != nil {
			return nil, err
		}
	}
	if st != nil {
		st.Metadata.Prefix = prefix
		st.Metadata.Serial++
		if err := e.backend.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
			return nil, fmt.Errorf("write state: %w", err)
		}
		return st, nil
	}
	lineage, err := e.randomHex(16)
	if err != nil {
		return nil, err
	}
	st = state.New(prefix, lineage, e.opts.Env)
	st.Metadata.Serial = 1
	if err := e.backend.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		return nil, fmt.Errorf("write new state: %w", err)
	}
	return st, nil
}

// draft returns what a plan is computed against without writing anything:
// st itself, or, when there is no state (or it has no prefix yet), an
// in-memory stand-in holding the deploy prefix the plan chooses. The plan
// records that prefix, and the apply of the plan writes it.
func (e *Engine) draft(st *state.File) (*state.File, error) {
	if st != nil && st.Metadata.Prefix != "" {
		return st, nil
	}
	prefix, err := e.prefix()
	if err != nil {
		return nil, err
	}
	if st == nil {
		return state.New(prefix, "", e.opts.Env), nil
	}
	d := *st
	d.Metadata.Prefix = prefix
	return &d, nil
}

func (e *Engine) prefix() (string, error) {
	if e.opts.DeployPrefix != "" {
		return e.opts.DeployPrefix, nil
	}
	return e.randomHex(4)
}

// ReadState returns the current state (a journal left by a crashed apply
// folded in, in memory), or nil when there is none. It takes the lock and
// writes nothing.
func (e *Engine) ReadState(ctx context.Context) (*state.File, error) {
	st, unlock, err := e.locked(ctx, "read", false)
	if err != nil {
		return nil, err
	}
	unlock()
	return st, nil
}

// locked takes the state lock for op and loads the state (folding a journal
// left by a crashed run; see load for persist). The caller must call unlock
// on every path.
func (e *Engine) locked(ctx context.Context, op string, persist bool) (*state.File, func(), error) {
	unlock, err := e.lock(ctx, op)
	if err != nil {
		return nil, nil, err
	}
	if persist {
		if unlock, err = e.holdWhole(ctx, op, unlock); err != nil {
			return nil, nil, err
		}
	}
	st, err := e.load(ctx, persist)
	if err != nil {
		unlock()
		return nil, nil, err
	}
	return st, unlock, nil
}

// StaleError says a saved plan no longer matches the state or config.
type StaleError struct{ Reason string }

func (e *StaleError) Error() string {
	return "stale plan: state changed since it was planned; plan again (" + e.Reason + ")"
}

// IsStale reports whether err refuses a saved plan that no longer holds:
// the state moved on (*StaleError), or planning it again against the
// current state gives other changes (*MismatchError). Nothing was changed;
// plan again.
func IsStale(err error) bool {
	var s *StaleError
	return errors.As(err, &s) || IsMismatch(err)
}
