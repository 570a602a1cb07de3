package objstore

import (
	"bytes"
	"context"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// seenState is what the last Read or Write saw of the state object. The
// zero value means "absent": a Write before any Read only succeeds if there
// is still no state (create only if absent).
type seenState struct {
	exists  bool    // the object existed
	version Version // its version, when it existed
	lineage string
	serial  int64
	corrupt error // non-nil when the stored object could not be opened or decoded
}

// Read returns the stored state, or (nil, nil) when there is none. It
// remembers the object's version so that Write can be conditional on it.
func (b *Backend) Read(ctx context.Context) (*state.File, error) {
	b.storeMu.Lock()
	defer b.storeMu.Unlock()
	return b.readLocked(ctx)
}

func (b *Backend) readLocked(ctx context.Context) (*state.File, error) {
	key := b.stateKey()
	o, err := b.bucket.Get(ctx, key)
	if isNotFound(err) {
		b.seen = seenState{}
		return nil, nil
	}
	if err != nil {
		return nil, b.wrap("read state", key, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.StateLabel(b.env), o.Data)
	if err != nil {
		// Sealed with a key we do not have: never overwrite it.
		b.seen = seenState{exists: true, version: o.Version, corrupt: err}
		return nil, b.errorf("read state %s: %w", b.url(key), err)
	}
	f, err := state.Decode(b.url(key), plain)
	if err != nil {
		b.seen = seenState{exists: true, version: o.Version, corrupt: err}
		return nil, b.errorf("read state: %w (it is left untouched; fix it, or restore a backup with kyku state restore)", err)
	}
	b.seen = seenState{exists: true, version: o.Version, lineage: f.Metadata.Lineage, serial: f.Metadata.Serial}
	return f, nil
}

// Write stores f conditionally on the version last read (or on the object
// being absent, when the last Read found none or there was no Read). Unless
// opts.Force, it refuses with statemgr.ErrConflict a stored state that
// changed since it was read, a lineage change, or a serial that does not
// rise. A stored object that cannot be read is never overwritten, forced or
// not: remove or repair it by hand.
func (b *Backend) Write(ctx context.Context, f *state.File, opts statemgr.WriteOptions) error {
	if err := statemgr.CheckWritable(f); err != nil {
		return b.errorf("%w", err)
	}
	key := b.stateKey()
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
		return b.errorf("refusing to overwrite %s, which cannot be read (fix or remove it by hand): %w", b.url(key), seen.corrupt)
	}
	if !opts.Force && seen.exists {
		if err := statemgr.CheckSuccessor(seen.lineage, seen.serial, f.Metadata); err != nil {
			return b.errorf("write %s: %w", b.url(key), err)
		}
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.StateLabel(b.env), data)
	}
	if err != nil {
		return b.errorf("write state: %w", err)
	}
	v, err := b.bucket.Put(ctx, key, data, Cond{IfAbsent: !seen.exists, IfMatch: seen.version})
	if err != nil && (isPrecondition(err) || isNotFound(err)) {
		// A retried request whose first attempt landed looks like a
		// conflict: accept it only when the stored bytes are ours.
		if o, gerr := b.bucket.Get(ctx, key); gerr == nil && bytes.Equal(o.Data, data) {
			v, err = o.Version, nil
		}
	}
	if err != nil {
		if isPrecondition(err) || isNotFound(err) {
			// b.seen keeps the old version: every Write fails until a new Read.
			return b.errorf("write %s: the stored state changed since it was read (another run wrote it); read it again: %w",
				b.url(key), statemgr.ErrConflict)
		}
		return b.wrap("write state", key, err)
	}
	b.seen = seenState{exists: true, version: v, lineage: f.Metadata.Lineage, serial: f.Metadata.Serial}
	return nil
}
