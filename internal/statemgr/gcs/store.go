package gcs

import (
	"bytes"
	"context"
	"fmt"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// seenState is what the last Read or Write saw of the state object; the
// zero value means "absent".
type seenState struct {
	exists     bool
	generation int64
	lineage    string
	serial     int64
	corrupt    error // non-nil when the stored object could not be opened or decoded
}

// Read returns the stored state, or (nil, nil) when there is none, and
// remembers its generation for Write.
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
	if err == nil {
		var f *state.File
		if f, err = state.Decode(b.url(key), plain); err == nil {
			b.seen = seenState{exists: true, generation: o.generation, lineage: f.Metadata.Lineage, serial: f.Metadata.Serial}
			return f, nil
		}
	}
	b.seen = seenState{exists: true, generation: o.generation, corrupt: err}
	return nil, fmt.Errorf("gcs backend: read state %s: %w (it is left untouched; fix it, or restore a backup with kyku state restore)", b.url(key), err)
}

// Write stores f with ifGenerationMatch on the generation last read (0 when
// none). Unless forced, a changed stored state, another lineage or a serial
// that does not rise is refused with statemgr.ErrConflict. A stored object
// that cannot be read is never overwritten.
func (b *Backend) Write(ctx context.Context, f *state.File, opts statemgr.WriteOptions) error {
	key := b.stateKey()
	switch {
	case f == nil:
		return fmt.Errorf("gcs backend: write state: no state given")
	case f.Metadata.Version != state.Version:
		return fmt.Errorf("gcs backend: write state: version %d is not this kyku's version %d", f.Metadata.Version, state.Version)
	case f.Metadata.Lineage == "":
		return fmt.Errorf("gcs backend: write state: the state has no lineage")
	}
	b.storeMu.Lock()
	defer b.storeMu.Unlock()
	seen := b.seen
	if opts.Force {
		if _, err := b.readLocked(ctx); err != nil && b.seen.corrupt == nil {
			return err
		}
		seen = b.seen
	}
	if seen.corrupt != nil {
		return fmt.Errorf("gcs backend: refusing to overwrite %s, which cannot be read (fix or remove it by hand): %w", b.url(key), seen.corrupt)
	}
	if !opts.Force && seen.exists {
		if f.Metadata.Lineage != seen.lineage {
			return fmt.Errorf("gcs backend: write %s: lineage %s differs from the stored lineage %s (a different state; use --force to replace it): %w",
				b.url(key), f.Metadata.Lineage, seen.lineage, statemgr.ErrConflict)
		}
		if f.Metadata.Serial <= seen.serial {
			return fmt.Errorf("gcs backend: write %s: serial %d is not greater than the stored serial %d: %w",
				b.url(key), f.Metadata.Serial, seen.serial, statemgr.ErrConflict)
		}
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.StateLabel(b.env), data)
	}
	if err != nil {
		return fmt.Errorf("gcs backend: write state: %w", err)
	}
	gen, err := b.put(ctx, key, data, onGeneration(seen.generation))
	if err != nil && (isPreconditionFailed(err) || isNotFound(err)) {
		// A retried request whose first attempt landed looks like a
		// conflict: accept it only when the stored bytes are ours.
		if o, gerr := b.get(ctx, key); gerr == nil && bytes.Equal(o.data, data) {
			gen, err = o.generation, nil
		}
	}
	if err != nil {
		if isPreconditionFailed(err) || isNotFound(err) {
			return fmt.Errorf("gcs backend: write %s: the stored state changed since it was read (another run wrote it); read it again: %w",
				b.url(key), statemgr.ErrConflict)
		}
		return b.wrap("write state", key, err)
	}
	b.seen = seenState{exists: true, generation: gen, lineage: f.Metadata.Lineage, serial: f.Metadata.Serial}
	return nil
}
