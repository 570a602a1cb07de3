package objstore

import (
	"bytes"
	"context"

	"github.com/kyku/action/internal/statemgr"
)

var _ statemgr.Conditional = (*Backend)(nil)

// conditional checks that the store enforces conditional writes and
// returns the full key of a caller's relative key.
func (b *Backend) conditional(key string) (string, error) {
	if b.cfg.Unlocked {
		return "", b.errorf("%s: %w (it runs without a lock)", key, statemgr.ErrNotConditional)
	}
	return b.objectKey(key)
}

// CreateObject stores data at <prefix>/<key> only if no object is there
// (statemgr.Conditional). A create whose answer was lost but which landed
// is recognised by reading back exactly its bytes.
func (b *Backend) CreateObject(ctx context.Context, key string, data []byte) (statemgr.Version, error) {
	full, err := b.conditional(key)
	if err != nil {
		return "", err
	}
	sealed, err := statemgr.Seal(ctx, b.opts.Codec, statemgr.ObjectLabel(key), data)
	if err != nil {
		return "", b.errorf("create %s: %w", b.url(full), err)
	}
	v, err := b.bucket.Put(ctx, full, sealed, Cond{IfAbsent: true})
	if err == nil {
		return statemgr.Version(v), nil
	}
	if !isPrecondition(err) {
		return "", b.wrap("create", full, err)
	}
	if v, ours, rerr := b.holds(ctx, full, sealed); rerr != nil {
		return "", rerr
	} else if ours {
		return v, nil
	}
	return "", b.errorf("create %s: %w", b.url(full), statemgr.ErrExists)
}

// ReadObject returns the data at <prefix>/<key> and its version.
func (b *Backend) ReadObject(ctx context.Context, key string) ([]byte, statemgr.Version, error) {
	full, err := b.conditional(key)
	if err != nil {
		return nil, "", err
	}
	o, err := b.bucket.Get(ctx, full)
	if isNotFound(err) {
		return nil, "", b.errorf("%s: %w", b.url(full), statemgr.ErrNotFound)
	}
	if err != nil {
		return nil, "", b.wrap("read", full, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.ObjectLabel(key), o.Data)
	if err != nil {
		return nil, "", b.errorf("read %s: %w", b.url(full), err)
	}
	return plain, statemgr.Version(o.Version), nil
}

// ReplaceObject stores data at <prefix>/<key> only while the object there
// is at version v.
func (b *Backend) ReplaceObject(ctx context.Context, key string, data []byte, v statemgr.Version) (statemgr.Version, error) {
	full, err := b.conditional(key)
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", b.errorf("replace %s: no version given", b.url(full))
	}
	sealed, err := statemgr.Seal(ctx, b.opts.Codec, statemgr.ObjectLabel(key), data)
	if err != nil {
		return "", b.errorf("replace %s: %w", b.url(full), err)
	}
	nv, err := b.bucket.Put(ctx, full, sealed, Cond{IfMatch: Version(v)})
	if err == nil {
		return statemgr.Version(nv), nil
	}
	if !isPrecondition(err) && !isNotFound(err) {
		return "", b.wrap("replace", full, err)
	}
	if got, ours, rerr := b.holds(ctx, full, sealed); rerr != nil {
		return "", rerr
	} else if ours {
		return got, nil
	}
	return "", b.errorf("replace %s: it is no longer at version %s: %w", b.url(full), v, statemgr.ErrConflict)
}

// DeleteObject removes <prefix>/<key> only while its version is v.
func (b *Backend) DeleteObject(ctx context.Context, key string, v statemgr.Version) error {
	full, err := b.conditional(key)
	if err != nil {
		return err
	}
	ambiguous, err := b.bucket.Delete(ctx, full, Version(v))
	switch {
	case err == nil:
		return nil
	case !isPrecondition(err) && !isNotFound(err):
		return b.wrap("delete", full, err)
	}
	// A store that deletes a version rather than checking one (GCS) says
	// "not found" for a version that moved on; an earlier attempt of ours
	// may have deleted it. Gone is done; there at another version is not.
	if isNotFound(err) || ambiguous {
		_, gerr := b.bucket.Get(ctx, full)
		if isNotFound(gerr) {
			return nil
		}
		if gerr != nil {
			return b.wrap("read back", full, gerr)
		}
	}
	return b.errorf("delete %s: it is no longer at version %s: %w", b.url(full), v, statemgr.ErrConflict)
}

// holds reads full back after a failed conditional put: ours is true when
// it holds exactly sealed (an earlier attempt of ours landed).
func (b *Backend) holds(ctx context.Context, full string, sealed []byte) (statemgr.Version, bool, error) {
	o, err := b.bucket.Get(ctx, full)
	if isNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, b.wrap("read back", full, err)
	}
	return statemgr.Version(o.Version), bytes.Equal(o.Data, sealed), nil
}

// EnforcesConditionalWrites reports whether the store enforces them: not
// when it runs without a lock (lease.Enforcer).
func (b *Backend) EnforcesConditionalWrites() bool { return !b.cfg.Unlocked }
