package tflayout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/objstore"
	"github.com/kyku/action/internal/tfstate"
)

// ObjectSlot is a state in an object store (s3, gcs) and its lock object,
// as OpenTofu keeps them: the state in the compact form at Key, and the
// lock a body created at LockKey only if no object is there (S3's
// If-None-Match: *, GCS's ifGenerationMatch=0), removed on release.
type ObjectSlot struct {
	Bucket objstore.Bucket
	Key    string
	// LockKey is the lock object's key; "" when the backend takes no lock
	// (s3 without use_lockfile, as OpenTofu then takes none).
	LockKey string
	// URL names the state in messages (s3://bucket/key).
	URL string
	// LockName is what OpenTofu writes as the lock body's Path: s3's
	// "bucket/key", gcs's "gs://bucket/prefix/ws.tflock".
	LockName string
	// IDIsVersion: the lock's ID is its object's version (a GCS lock's is
	// its generation, as OpenTofu's GCS backend has it), not its body's.
	IDIsVersion bool

	mu   sync.Mutex
	held objstore.Version // the lock object this process created
}

var _ Slot = (*ObjectSlot)(nil)

func (s *ObjectSlot) Form() tfstate.Form { return tfstate.Compact }
func (s *ObjectSlot) Where() string      { return s.URL }

// LockPath names the lock in messages.
func (s *ObjectSlot) LockPath() string {
	if s.LockKey == "" {
		return s.URL + " (no lock: the backend takes none)"
	}
	return s.LockName
}

// Get reads the state; a missing or empty object is none.
func (s *ObjectSlot) Get(ctx context.Context) ([]byte, statemgr.Version, error) {
	o, err := s.Bucket.Get(ctx, s.Key)
	switch {
	case errors.Is(err, objstore.ErrNotFound):
		return nil, "", fmt.Errorf("%s: %w", s.URL, statemgr.ErrNotFound)
	case err != nil:
		return nil, "", err
	case len(o.Data) == 0:
		return nil, "", fmt.Errorf("%s is empty: %w", s.URL, statemgr.ErrNotFound)
	}
	return o.Data, statemgr.Version(o.Version), nil
}

// Put writes the state on the version read. A write whose answer was lost
// but which landed is recognised (the object holds exactly data).
func (s *ObjectSlot) Put(ctx context.Context, data []byte, v statemgr.Version, _ string) (statemgr.Version, error) {
	var c objstore.Cond
	switch v {
	case Unconditional:
	case "":
		c.IfAbsent = true
	default:
		c.IfMatch = objstore.Version(v)
	}
	nv, err := s.Bucket.Put(ctx, s.Key, data, c)
	if errors.Is(err, objstore.ErrPrecondition) {
		if o, gerr := s.Bucket.Get(ctx, s.Key); gerr == nil && bytes.Equal(o.Data, data) {
			return statemgr.Version(o.Version), nil
		}
		return "", fmt.Errorf("the state changed since it was read: %w", statemgr.ErrConflict)
	}
	if err != nil {
		return "", err
	}
	return statemgr.Version(nv), nil
}

// TryLock creates the lock object with body (Path LockName).
func (s *ObjectSlot) TryLock(ctx context.Context, body LockInfo) (LockInfo, error) {
	if s.LockKey == "" {
		return body, nil
	}
	body.Path = s.LockName
	data := body.Marshal()
	for range 2 {
		v, err := s.Bucket.Put(ctx, s.LockKey, data, objstore.Cond{IfAbsent: true})
		if err == nil {
			return s.took(body, v), nil
		}
		if !errors.Is(err, objstore.ErrPrecondition) {
			return LockInfo{}, err
		}
		o, gerr := s.Bucket.Get(ctx, s.LockKey)
		switch {
		case errors.Is(gerr, objstore.ErrNotFound):
			continue // released meanwhile: try again now
		case gerr != nil:
			return LockInfo{}, &HeldError{Err: gerr}
		case bytes.Equal(o.Data, data):
			return s.took(body, o.Version), nil // our own create, its answer lost
		}
		holder, ok := ParseLockInfo(o.Data)
		if !ok {
			return LockInfo{}, &HeldError{Err: fmt.Errorf("%s is not lock info", s.LockName)}
		}
		if s.IDIsVersion {
			holder.ID = string(o.Version)
		}
		return LockInfo{}, &HeldError{Holder: holder}
	}
	return LockInfo{}, &HeldError{Err: fmt.Errorf("%s came and went twice", s.LockName)}
}

func (s *ObjectSlot) took(body LockInfo, v objstore.Version) LockInfo {
	s.mu.Lock()
	s.held = v
	s.mu.Unlock()
	if s.IDIsVersion {
		body.ID = string(v)
	}
	return body
}

// Unlock removes the lock object this process created, on its version.
func (s *ObjectSlot) Unlock(ctx context.Context, id string) error {
	if s.LockKey == "" {
		return nil
	}
	s.mu.Lock()
	v := s.held
	s.held = ""
	s.mu.Unlock()
	if v == "" {
		return fmt.Errorf("%s is not held here: %w", s.LockName, statemgr.ErrLockLost)
	}
	return s.remove(ctx, id, v)
}

// ForceUnlock removes the lock object if its ID is id.
func (s *ObjectSlot) ForceUnlock(ctx context.Context, id string) error {
	if s.LockKey == "" {
		return fmt.Errorf("the backend takes no lock")
	}
	o, err := s.Bucket.Get(ctx, s.LockKey)
	if errors.Is(err, objstore.ErrNotFound) {
		return fmt.Errorf("no lock is held on %s", s.URL)
	}
	if err != nil {
		return err
	}
	if s.idOf(o) != id {
		return statemgr.ErrWrongToken
	}
	return s.remove(ctx, id, o.Version)
}

func (s *ObjectSlot) idOf(o objstore.Object) string {
	if s.IDIsVersion {
		return string(o.Version)
	}
	l, _ := ParseLockInfo(o.Data)
	return l.ID
}

// remove deletes the lock object on version v, when its ID is still id.
func (s *ObjectSlot) remove(ctx context.Context, id string, v objstore.Version) error {
	ambiguous, err := s.Bucket.Delete(ctx, s.LockKey, v)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, objstore.ErrNotFound) && ambiguous:
		return nil // our own delete, its answer lost
	case errors.Is(err, objstore.ErrNotFound), errors.Is(err, objstore.ErrPrecondition):
		if o, gerr := s.Bucket.Get(ctx, s.LockKey); gerr == nil && s.idOf(o) == id && o.Version != v {
			return s.remove(ctx, id, o.Version)
		}
		return fmt.Errorf("%s was taken from this run: %w", s.LockName, statemgr.ErrLockLost)
	}
	return err
}
