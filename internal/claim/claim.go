package claim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kyku/action/internal/statemgr"
)

// Record is what a claim's object holds.
type Record struct {
	Holder string    `json:"holder"` // who took it (a replica, a worker)
	Token  string    `json:"token"`  // random: tells this taking from every other
	Taken  time.Time `json:"taken"`
	Until  time.Time `json:"until"`          // the claim expires then
	Note   string    `json:"note,omitempty"` // what it is for, for people
}

// Claim is a claim held: its key, its record and the version written.
type Claim struct {
	Key string
	Record
	version statemgr.Version
}

// ErrHeld is wrapped by a *HeldError.
var ErrHeld = errors.New("claimed")

// ErrLost is returned (wrapped) by Renew and Release when the claim was
// taken over or removed since it was written.
var ErrLost = errors.New("the claim is no longer held")

// HeldError says that a key is claimed by another until Record.Until.
type HeldError struct {
	Key    string
	Record Record
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("%s is claimed by %s since %s until %s", e.Key, e.Record.Holder,
		e.Record.Taken.UTC().Format(time.RFC3339), e.Record.Until.UTC().Format(time.RFC3339))
}

// Is makes errors.Is(err, ErrHeld) true.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// Options tune a Store.
type Options struct {
	Now  func() time.Time // default time.Now
	Rand io.Reader        // tokens; default crypto/rand
}

// Store takes claims in a backend's conditional writes.
type Store struct {
	objs statemgr.Conditional
	now  func() time.Time
	rand io.Reader
}

// New returns a Store writing claims through objs.
func New(objs statemgr.Conditional, opts Options) *Store {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Rand == nil {
		opts.Rand = rand.Reader
	}
	return &Store{objs: objs, now: opts.Now, rand: opts.Rand}
}

// maxAttempts bounds Take's retries when the object keeps changing under it.
const maxAttempts = 5

// Take claims key for holder for ttl: it creates the claim's object, or,
// when there is one whose deadline has passed (or that is not a claim),
// replaces it on the version read. A claim another holds until later is a
// *HeldError (errors.Is ErrHeld) naming them.
func (s *Store) Take(ctx context.Context, key, holder, note string, ttl time.Duration) (*Claim, error) {
	if ttl <= 0 {
		return nil, fmt.Errorf("claim %s: duration %s is not positive", key, ttl)
	}
	for range maxAttempts {
		c, data, err := s.record(key, holder, note, ttl)
		if err != nil {
			return nil, err
		}
		v, err := s.objs.CreateObject(ctx, key, data)
		if err == nil {
			c.version = v
			return c, nil
		}
		if !errors.Is(err, statemgr.ErrExists) {
			return nil, fmt.Errorf("claim %s: %w", key, err)
		}
		old, ov, err := s.objs.ReadObject(ctx, key)
		if errors.Is(err, statemgr.ErrNotFound) {
			continue // released meanwhile: create again
		}
		if err != nil {
			return nil, fmt.Errorf("claim %s: %w", key, err)
		}
		var held Record
		if json.Unmarshal(old, &held) == nil && held.Token != "" && s.now().Before(held.Until) {
			return nil, &HeldError{Key: key, Record: held}
		}
		// Expired, or not a claim: take it over, if nobody did first.
		v, err = s.objs.ReplaceObject(ctx, key, data, ov)
		if err == nil {
			c.version = v
			return c, nil
		}
		if !errors.Is(err, statemgr.ErrConflict) {
			return nil, fmt.Errorf("claim %s: %w", key, err)
		}
	}
	return nil, fmt.Errorf("claim %s: it kept changing while it was taken; try again", key)
}

// Renew moves c's deadline to ttl from now, if c is still held.
func (s *Store) Renew(ctx context.Context, c *Claim, ttl time.Duration) error {
	next := *c
	next.Until = s.now().Add(ttl)
	data, err := json.Marshal(next.Record)
	if err != nil {
		return fmt.Errorf("renew claim %s: %w", c.Key, err)
	}
	v, err := s.objs.ReplaceObject(ctx, c.Key, data, c.version)
	if errors.Is(err, statemgr.ErrConflict) {
		return fmt.Errorf("renew claim %s: %w: %w", c.Key, ErrLost, err)
	}
	if err != nil {
		return fmt.Errorf("renew claim %s: %w", c.Key, err)
	}
	next.version = v
	*c = next
	return nil
}

// Release removes c, if it is still held.
func (s *Store) Release(ctx context.Context, c *Claim) error {
	err := s.objs.DeleteObject(ctx, c.Key, c.version)
	if errors.Is(err, statemgr.ErrConflict) {
		return fmt.Errorf("release claim %s: %w: %w", c.Key, ErrLost, err)
	}
	if err != nil {
		return fmt.Errorf("release claim %s: %w", c.Key, err)
	}
	return nil
}

// record is a fresh claim on key and its encoded record.
func (s *Store) record(key, holder, note string, ttl time.Duration) (*Claim, []byte, error) {
	tok := make([]byte, 16)
	if _, err := io.ReadFull(s.rand, tok); err != nil {
		return nil, nil, fmt.Errorf("claim %s: token: %w", key, err)
	}
	now := s.now().UTC()
	c := &Claim{Key: key, Record: Record{Holder: holder, Token: hex.EncodeToString(tok), Taken: now, Until: now.Add(ttl), Note: note}}
	data, err := json.Marshal(c.Record)
	if err != nil {
		return nil, nil, fmt.Errorf("claim %s: %w", key, err)
	}
	return c, data, nil
}
