package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kyku/action/internal/claim"
	"github.com/kyku/action/internal/statemgr"
)

// Objects is what the store must offer: conditional writes, and a listing
// to find the jobs left behind.
type Objects interface {
	statemgr.Conditional
	ListObjects(ctx context.Context, prefix string) ([]string, error)
}

// Where the objects live, under the store's prefix.
const (
	RecordPrefix = "jobs/"
	LeasePrefix  = "leases/"
)

// MaxRecordBytes bounds a record read back (a webhook body is at most 25 MB).
const MaxRecordBytes = 40 << 20

// ErrExists: a record with this ID is there already (the job was accepted).
var ErrExists = errors.New("job already recorded")

// ErrLost wraps the errors of a holder whose lease was taken over or whose
// record changed under it: it must stop working on the job.
var ErrLost = errors.New("the job's lease is no longer held")

// Record is a job as the store keeps it.
type Record struct {
	ID    string `json:"id"`
	Event string `json:"event"`
	Body  []byte `json:"body"`
	// MAC is the hex HMAC-SHA256 of Body under the webhook secret: for a
	// webhook, GitHub's X-Hub-Signature-256; for the bot's own work, its
	// own. A record is run only when it verifies — and when the record's
	// own signature, over all its fields, does (seal.go).
	MAC        string    `json:"mac"`
	Accepted   time.Time `json:"accepted"`
	AcceptedBy string    `json:"acceptedBy,omitempty"` // "" for offered work
	// Takeovers counts the replicas that took the job over from a holder
	// that stopped renewing it.
	Takeovers int             `json:"takeovers,omitempty"`
	Steps     map[string]Step `json:"steps,omitempty"`
	// Leases are the marks (Job.LeaseMark) of the leases the job was
	// held under, oldest first, the last maxLeases: what a holder left
	// elsewhere under one (a state lock) its successor may take over.
	Leases []string `json:"leases,omitempty"`
}

// Step is what a job did so far toward one of its parts (a target's plan,
// apply or dispatch), so that running it again does not do it twice.
type Step struct {
	Done     bool      `json:"done,omitempty"`
	CheckRun int64     `json:"checkRun,omitempty"` // the check run opened for it
	Dispatch *Dispatch `json:"dispatch,omitempty"`
	// Head is a pull request's head read when the job's event arrived (a
	// /kyku apply's: the commit its commenter saw), kept for a takeover.
	Head string `json:"head,omitempty"`
}

// Dispatch is a workflow run the job asked GitHub Actions for.
type Dispatch struct {
	ID       string    `json:"id"` // the dispatch-id input, unique
	Workflow string    `json:"workflow"`
	Ref      string    `json:"ref"`               // refs/heads/<default branch>
	HeadSHA  string    `json:"headSha,omitempty"` // the branch's head when dispatched: the run must be on it
	At       time.Time `json:"at"`
	Run      int64     `json:"run,omitempty"` // the run found for it
	RunURL   string    `json:"runUrl,omitempty"`
}

func (r Record) clone() Record {
	r.Body = append([]byte(nil), r.Body...)
	r.Leases = slices.Clone(r.Leases)
	r.Steps = maps.Clone(r.Steps)
	for k, s := range r.Steps {
		if s.Dispatch != nil {
			d := *s.Dispatch
			s.Dispatch = &d
			r.Steps[k] = s
		}
	}
	return r
}

// Options tune a Store.
type Options struct {
	// Secret is the webhook secret: every record written is signed with a
	// key derived from it, and one read is refused unless its signature
	// verifies. Without it nothing is written or read.
	Secret []byte
	Holder string        // this replica, in the leases
	Lease  time.Duration // how long a lease lasts unrenewed (default 1 minute)
	Now    func() time.Time
	Rand   io.Reader // lease tokens (default crypto/rand)
}

// Store keeps job records in a store's conditional writes.
type Store struct {
	objs   Objects
	key    []byte // signs the records (recordKey)
	claims *claim.Store
	holder string
	lease  time.Duration
	now    func() time.Time

	mu   sync.Mutex
	seen map[string]time.Time // lease key -> until when another holds it, as last read
}

// New returns a Store on objs.
func New(objs Objects, o Options) *Store {
	if o.Lease <= 0 {
		o.Lease = time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Store{
		objs: objs, key: recordKey(o.Secret), claims: claim.New(objs, claim.Options{Now: o.Now, Rand: o.Rand}),
		holder: o.Holder, lease: o.Lease, now: o.Now, seen: map[string]time.Time{},
	}
}

// Lease is how long a lease lasts unrenewed.
func (s *Store) Lease() time.Duration { return s.lease }

// Key is the record key of job id.
func Key(id string) string {
	sum := sha256.Sum256([]byte(id))
	return RecordPrefix + hex.EncodeToString(sum[:]) + ".json"
}

func leaseKey(recordKey string) string {
	return LeasePrefix + strings.TrimPrefix(recordKey, RecordPrefix)
}

// Job is a job whose lease this replica holds.
type Job struct {
	s     *Store
	key   string
	lease *claim.Claim

	mu      sync.Mutex
	rec     Record
	version statemgr.Version
	lost    bool
}

// Accept records a job accepted now: it takes the job's lease, then
// creates its record (conditional create). A record already there is
// ErrExists, and the lease is given back.
func (s *Store) Accept(ctx context.Context, rec Record) (*Job, error) {
	key := Key(rec.ID)
	lease, err := s.claims.Take(ctx, leaseKey(key), s.holder, "job "+rec.ID, s.lease)
	if errors.Is(err, claim.ErrHeld) {
		return nil, fmt.Errorf("accept job %s: %w", rec.ID, ErrExists)
	}
	if err != nil {
		return nil, fmt.Errorf("accept job %s: %w", rec.ID, err)
	}
	rec = rec.clone()
	rec.Leases = withLease(rec.Leases, leaseMark(lease.Token))
	data, err := s.seal(key, rec)
	if err != nil {
		_ = s.claims.Release(context.WithoutCancel(ctx), lease)
		return nil, fmt.Errorf("accept job %s: %w", rec.ID, err)
	}
	v, err := s.objs.CreateObject(ctx, key, data)
	if err != nil {
		_ = s.claims.Release(context.WithoutCancel(ctx), lease)
		if errors.Is(err, statemgr.ErrExists) {
			return nil, fmt.Errorf("accept job %s: %w", rec.ID, ErrExists)
		}
		return nil, fmt.Errorf("accept job %s: %w", rec.ID, err)
	}
	return &Job{s: s, key: key, lease: lease, rec: rec, version: v}, nil
}

// Offer records work that nobody holds yet; the first replica whose
// TakeOrphans sees it runs it. It reports false when a record with that ID
// is there already.
func (s *Store) Offer(ctx context.Context, rec Record) (bool, error) {
	data, err := s.seal(Key(rec.ID), rec)
	if err != nil {
		return false, fmt.Errorf("offer job %s: %w", rec.ID, err)
	}
	_, err = s.objs.CreateObject(ctx, Key(rec.ID), data)
	switch {
	case errors.Is(err, statemgr.ErrExists):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("offer job %s: %w", rec.ID, err)
	}
	return true, nil
}

// TakeOrphans takes up to limit jobs nobody holds: records whose lease
// expired (its holder died) or that have none (offered work), except those
// held(key) says this replica holds. A lease seen held is not read again
// before its deadline. Each job returned has been taken over: its
// Takeovers is counted in its record when it had a holder before.
// Records that cannot be read, or whose signature does not verify
// (ErrForged, ErrUnsigned), are returned in bad (with their lease taken),
// for the caller to report and Finish.
func (s *Store) TakeOrphans(ctx context.Context, limit int, held func(key string) bool) (taken []*Job, bad []BadRecord, err error) {
	if limit <= 0 {
		return nil, nil, nil
	}
	keys, err := s.objs.ListObjects(ctx, RecordPrefix)
	if err != nil {
		return nil, nil, fmt.Errorf("list jobs: %w", err)
	}
	var errs []error
	for _, key := range keys {
		if len(taken) >= limit || ctx.Err() != nil {
			break
		}
		if !strings.HasSuffix(key, ".json") || held(key) || s.heldElsewhere(leaseKey(key)) {
			continue
		}
		j, prior, err := s.take(ctx, key)
		var b *BadRecord
		switch {
		case errors.As(err, &b):
			bad = append(bad, *b)
			continue
		case err != nil:
			errs = append(errs, err)
			continue
		case j == nil:
			continue
		}
		// The record lists the lease the job is held under now before any
		// of its work runs under it.
		mark := j.LeaseMark()
		if err := j.update(ctx, func(r *Record) {
			if prior {
				r.Takeovers++
			}
			r.Leases = withLease(r.Leases, mark)
		}); err != nil {
			errs = append(errs, err)
			continue
		}
		taken = append(taken, j)
	}
	return taken, bad, errors.Join(errs...)
}

// BadRecord is a record TakeOrphans could not read; its lease is held.
type BadRecord struct {
	Key string
	Err error
	Job *Job // Finish it to remove the record
}

func (b *BadRecord) Error() string { return "job record " + b.Key + ": " + b.Err.Error() }

// heldElsewhere reports whether lease key was last seen held by another
// replica until a time not yet passed.
func (s *Store) heldElsewhere(lease string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.seen[lease]
	if ok && s.now().Before(until) {
		return true
	}
	delete(s.seen, lease)
	return false
}

// take takes the lease of record key and reads the record; nil when
// another holds it or the record is gone. prior reports whether the job
// had a holder before (a lease that expired, not offered work).
func (s *Store) take(ctx context.Context, key string) (j *Job, prior bool, err error) {
	lk := leaseKey(key)
	if data, _, err := s.objs.ReadObject(ctx, lk); err == nil {
		var held claim.Record
		if json.Unmarshal(data, &held) == nil && held.Token != "" {
			prior = true
			if s.now().Before(held.Until) {
				s.remember(lk, held.Until)
				return nil, false, nil
			}
		}
	} else if !errors.Is(err, statemgr.ErrNotFound) {
		return nil, false, fmt.Errorf("read lease %s: %w", lk, err)
	}
	lease, err := s.claims.Take(ctx, lk, s.holder, "job "+key, s.lease)
	var he *claim.HeldError
	if errors.As(err, &he) {
		s.remember(lk, he.Record.Until)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("take over %s: %w", key, err)
	}
	data, v, err := s.objs.ReadObject(ctx, key)
	if errors.Is(err, statemgr.ErrNotFound) { // finished meanwhile
		_ = s.claims.Release(context.WithoutCancel(ctx), lease)
		return nil, false, nil
	}
	j = &Job{s: s, key: key, lease: lease, version: v}
	if err != nil {
		_ = s.claims.Release(context.WithoutCancel(ctx), lease)
		return nil, false, fmt.Errorf("read %s: %w", key, err)
	}
	if len(data) > MaxRecordBytes {
		return nil, false, &BadRecord{Key: key, Err: fmt.Errorf("%d bytes, more than %d", len(data), MaxRecordBytes), Job: j}
	}
	if j.rec, err = s.open(key, data); err != nil {
		return nil, false, &BadRecord{Key: key, Err: err, Job: j}
	}
	return j, prior, nil
}

func (s *Store) remember(lease string, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[lease] = until
}

// Key is the job's record key.
func (j *Job) Key() string { return j.key }

// ID is the job's ID.
func (j *Job) ID() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec.ID
}

// Record is a copy of the job's record as last written.
func (j *Job) Record() Record {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.rec.clone()
}

// Step is the job's progress on step name.
func (j *Job) Step(name string) Step {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.rec.Steps[name]
	if s.Dispatch != nil {
		d := *s.Dispatch
		s.Dispatch = &d
	}
	return s
}

// SetStep changes step name and writes the record (conditional on the
// version this holder last wrote).
func (j *Job) SetStep(ctx context.Context, name string, change func(*Step)) error {
	return j.update(ctx, func(r *Record) {
		if r.Steps == nil {
			r.Steps = map[string]Step{}
		}
		s := r.Steps[name]
		change(&s)
		r.Steps[name] = s
	})
}

func (j *Job) update(ctx context.Context, change func(*Record)) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lost {
		return fmt.Errorf("update job %s: %w", j.rec.ID, ErrLost)
	}
	next := j.rec.clone()
	change(&next)
	data, err := j.s.seal(j.key, next)
	if err != nil {
		return fmt.Errorf("update job %s: %w", j.rec.ID, err)
	}
	v, err := j.s.objs.ReplaceObject(ctx, j.key, data, j.version)
	if errors.Is(err, statemgr.ErrConflict) {
		j.lost = true
		return fmt.Errorf("update job %s: %w: %w", j.rec.ID, ErrLost, err)
	}
	if err != nil {
		return fmt.Errorf("update job %s: %w", j.rec.ID, err)
	}
	j.rec, j.version = next, v
	return nil
}

// Until is when the lease expires unless renewed.
func (j *Job) Until() time.Time {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.lease.Until
}

// Renew extends the lease by the store's lease duration.
func (j *Job) Renew(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lost {
		return fmt.Errorf("renew job %s: %w", j.rec.ID, ErrLost)
	}
	c := *j.lease
	err := j.s.claims.Renew(ctx, &c, j.s.lease)
	if errors.Is(err, claim.ErrLost) {
		j.lost = true
		return fmt.Errorf("renew job %s: %w: %w", j.rec.ID, ErrLost, err)
	}
	if err != nil {
		return fmt.Errorf("renew job %s: %w", j.rec.ID, err)
	}
	*j.lease = c
	return nil
}

// Finish removes the record, then the lease: the job is done.
func (j *Job) Finish(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lost {
		return fmt.Errorf("finish job %s: %w", j.rec.ID, ErrLost)
	}
	if err := j.s.objs.DeleteObject(ctx, j.key, j.version); err != nil {
		if errors.Is(err, statemgr.ErrConflict) {
			j.lost = true
			return fmt.Errorf("finish job %s: %w: %w", j.rec.ID, ErrLost, err)
		}
		return fmt.Errorf("finish job %s: %w", j.rec.ID, err)
	}
	j.lost = true // nothing more to write
	if err := j.s.claims.Release(ctx, j.lease); err != nil && !errors.Is(err, claim.ErrLost) {
		return fmt.Errorf("finish job %s: %w", j.rec.ID, err)
	}
	return nil
}

// Abandon gives the lease back and keeps the record: another replica (or
// this one, later) takes the job over at once.
func (j *Job) Abandon(ctx context.Context) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.lost {
		return nil
	}
	j.lost = true
	if err := j.s.claims.Release(ctx, j.lease); err != nil && !errors.Is(err, claim.ErrLost) {
		return fmt.Errorf("give back job %s: %w", j.rec.ID, err)
	}
	return nil
}
