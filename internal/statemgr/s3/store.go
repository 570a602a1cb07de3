package s3

import (
	"bytes"
	"context"
	"fmt"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// seenState is what the last Read or Write saw of the state object. The
// zero value means "absent": a Write before any Read only succeeds if there
// is still no state (If-None-Match: *).
type seenState struct {
	exists  bool   // the object existed
	etag    string // its ETag, when it existed
	lineage string
	serial  int64
	corrupt error // non-nil when the stored object could not be decoded
}

// Read returns the stored state, or (nil, nil) when there is none. It
// remembers the object's ETag so that Write can be conditional on it.
func (b *Backend) Read(ctx context.Context) (*state.File, error) {
	b.storeMu.Lock()
	defer b.storeMu.Unlock()
	return b.readLocked(ctx)
}

func (b *Backend) readLocked(ctx context.Context) (*state.File, error) {
	key := b.stateKey()
	o, err := b.get(ctx, key)
	if isNotFound(err) {
		b.seen = seenState{}
		return nil, nil
	}
	if err != nil {
		return nil, b.wrap("read state", key, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.StateLabel(b.env), o.data)
	if err != nil {
		// Sealed with a key we do not have: never overwrite it.
		b.seen = seenState{exists: true, etag: o.etag, corrupt: err}
		return nil, fmt.Errorf("s3 backend: read state %s: %w", b.url(key), err)
	}
	f, err := state.Decode(b.url(key), plain)
	if err != nil {
		b.seen = seenState{exists: true, etag: o.etag, corrupt: err}
		return nil, fmt.Errorf("s3 backend: read state: %w (it is left untouched; fix it, or restore a backup with kyku state restore)", err)
	}
	b.seen = seenState{exists: true, etag: o.etag, lineage: f.Metadata.Lineage, serial: f.Metadata.Serial}
	return f, nil
}

// Write stores f conditionally on the ETag last read (or on the object
// being absent, when the last Read found none or there was no Read). Unless
// opts.Force, it refuses with statemgr.ErrConflict a stored state that
// changed since it was read, a lineage change, or a serial that does not
// rise. A stored object that is not a valid state is never overwritten,
// forced or not: remove or repair it by hand.
func (b *Backend) Write(ctx context.Context, f *state.File, opts statemgr.WriteOptions) error {
	key := b.stateKey()
	switch {
	case f == nil:
		return fmt.Errorf("s3 backend: write state: no state given")
	case f.Metadata.Version != state.Version:
		return fmt.Errorf("s3 backend: write state: version %d is not this kyku's version %d", f.Metadata.Version, state.Version)
	case f.Metadata.Lineage == "":
		return fmt.Errorf("s3 backend: write state: the state has no lineage")
	}
	b.storeMu.Lock()
	defer b.storeMu.Unlock()
	seen := b.seen
	if opts.Force {
		// Look at what is there now: a forced write still never replaces
		// an object that is not a state, and is still conditional on what
		// it looked at.
		if _, err := b.readLocked(ctx); err != nil && b.seen.corrupt == nil {
			return err
		}
		seen = b.seen
	}
	if seen.corrupt != nil {
		return fmt.Errorf("s3 backend: refusing to overwrite %s, which is not a valid state (fix or remove it by hand): %w", b.url(key), seen.corrupt)
	}
	if !opts.Force && seen.exists {
		if f.Metadata.Lineage != seen.lineage {
			return fmt.Errorf("s3 backend: write %s: lineage %s differs from the stored lineage %s (a different state; use --force to replace it): %w",
				b.url(key), f.Metadata.Lineage, seen.lineage, statemgr.ErrConflict)
		}
		if f.Metadata.Serial <= seen.serial {
			return fmt.Errorf("s3 backend: write %s: serial %d is not greater than the stored serial %d: %w",
				b.url(key), f.Metadata.Serial, seen.serial, statemgr.ErrConflict)
		}
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.StateLabel(b.env), data)
	}
	if err != nil {
		return fmt.Errorf("s3 backend: write state: %w", err)
	}
	etag, err := b.put(ctx, key, data, cond{absent: !seen.exists, ifMatch: seen.etag})
	if err != nil && (isPreconditionFailed(err) || isNotFound(err)) {
		// A retried request whose first attempt landed looks like a
		// conflict: accept it only when the stored bytes are ours.
		if o, gerr := b.get(ctx, key); gerr == nil && bytes.Equal(o.data, data) {
			etag, err = o.etag, nil
		}
	}
	if err != nil {
		if isPreconditionFailed(err) || isNotFound(err) {
			// b.seen keeps the old ETag: every Write fails until a new Read.
			return fmt.Errorf("s3 backend: write %s: the stored state changed since it was read (another run wrote it); read it again: %w",
				b.url(key), statemgr.ErrConflict)
		}
		return b.wrap("write state", key, err)
	}
	b.seen = seenState{exists: true, etag: etag, lineage: f.Metadata.Lineage, serial: f.Metadata.Serial}
	return nil
}
