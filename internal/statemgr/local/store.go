package local

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// Read returns the state, or (nil, nil) when the file does not exist. It
// remembers what it read, so that Write can tell whether someone else wrote
// since. Corrupt data wraps state.ErrCorrupt, a newer format
// state.ErrUnsupportedVersion; both name the path.
func (b *Backend) Read(ctx context.Context) (*state.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	b.storeMu.Lock()
	defer b.storeMu.Unlock()
	data, fp, err := b.readStateBytes()
	if err != nil {
		return nil, err
	}
	b.fingerprint, b.meta = fp, state.Metadata{}
	if data == nil {
		return nil, nil
	}
	f, err := b.decodeState(ctx, data)
	if err != nil {
		return nil, fmt.Errorf("read state: %w", err)
	}
	b.meta = f.Metadata
	return f, nil
}

// decodeState opens (when sealed) and decodes the state file's bytes.
func (b *Backend) decodeState(ctx context.Context, data []byte) (*state.File, error) {
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.StateLabel(b.env), data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.statePath(), err)
	}
	return state.Decode(b.statePath(), plain)
}

// readStateBytes returns the state file's bytes (nil when absent) and their
// fingerprint.
func (b *Backend) readStateBytes() ([]byte, string, error) {
	data, err := os.ReadFile(b.statePath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fingerprintAbsent, nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("read state: %w", err)
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:]), nil
}

// Write stores f atomically. Unless opts.Force, it refuses with an error
// wrapping statemgr.ErrConflict when the file changed since this Backend
// last read or wrote it, when f's lineage differs from the stored one, or
// when f's serial is not greater than the stored one. A stored file that
// does not decode is never overwritten, even with Force.
func (b *Backend) Write(ctx context.Context, f *state.File, opts statemgr.WriteOptions) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	if err := statemgr.CheckWritable(f); err != nil {
		return err
	}
	if err := b.keepIgnored(); err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	b.storeMu.Lock()
	defer b.storeMu.Unlock()

	cur, fp, err := b.readStateBytes()
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	path := b.statePath()
	if cur != nil {
		stored := b.meta
		if fp != b.fingerprint || stored.Lineage == "" {
			// Not what we last read or wrote: decode it to check it.
			sf, err := b.decodeState(ctx, cur)
			if err != nil {
				return fmt.Errorf("write state: refusing to overwrite a state file that does not decode (fix or remove it by hand): %w", err)
			}
			stored = sf.Metadata
		}
		if !opts.Force {
			if err := checkSuccessor(path, b.fingerprint, fp, stored, f.Metadata); err != nil {
				return err
			}
		}
	} else if !opts.Force && b.fingerprint != fingerprintAbsent {
		return fmt.Errorf("write state: %w: %s was removed since it was read; read it again", statemgr.ErrConflict, path)
	}

	h := sha256.New()
	if b.opts.Codec == nil {
		// In clear: streamed into the file, never whole in memory.
		err = writeFileAtomicFunc(path, func(w io.Writer) error {
			return state.EncodeTo(io.MultiWriter(w, h), f)
		})
	} else {
		var data []byte
		data, err = state.Encode(f)
		if err == nil {
			data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.StateLabel(b.env), data)
		}
		if err == nil {
			h.Write(data)
			err = writeFileAtomic(path, data)
		}
	}
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	b.fingerprint, b.meta = hex.EncodeToString(h.Sum(nil)), f.Metadata
	return nil
}

// checkSuccessor says whether next may replace stored (fingerprint cur),
// given that this writer last saw fingerprint seen.
func checkSuccessor(path, seen, cur string, stored, next state.Metadata) error {
	switch {
	case seen != cur:
		return fmt.Errorf("write state: %w: %s changed since it was read (another writer?); read it again", statemgr.ErrConflict, path)
	case stored.Lineage != next.Lineage:
		return fmt.Errorf("write state: %w: lineage %s differs from the stored lineage %s in %s (a different state; use --force to replace it)",
			statemgr.ErrConflict, next.Lineage, stored.Lineage, path)
	case next.Serial <= stored.Serial:
		return fmt.Errorf("write state: %w: serial %d is not greater than the stored serial %d in %s",
			statemgr.ErrConflict, next.Serial, stored.Serial, path)
	}
	return nil
}
