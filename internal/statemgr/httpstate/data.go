package httpstate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// seenState is what the last Read or Write saw of the state.
type seenState struct {
	exists  bool
	sum     [32]byte // of the stored state item
	lineage string
	serial  int64
	corrupt error
}

// sumOf hashes a JSON item as the document stores it (compacted).
func sumOf(raw []byte) [32]byte {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return sha256.Sum256(raw)
	}
	return sha256.Sum256(buf.Bytes())
}

// Read returns the state in the document, or (nil, nil) when there is none.
func (b *Backend) Read(ctx context.Context) (*state.File, error) {
	d, err := b.fetch(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	f, seen, err := b.decodeState(ctx, d)
	b.seen = seen
	return f, err
}

func (b *Backend) decodeState(ctx context.Context, d *document) (*state.File, seenState, error) {
	if len(d.State) == 0 || string(d.State) == "null" {
		return nil, seenState{}, nil
	}
	seen := seenState{exists: true, sum: sumOf(d.State)}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.StateLabel(b.env), d.State)
	var f *state.File
	if err == nil {
		f, err = state.Decode(redact(b.cfg.Address), plain)
	}
	if err != nil {
		seen.corrupt = err
		return nil, seen, fmt.Errorf("http backend: read state %s: %w (it is left untouched)", redact(b.cfg.Address), err)
	}
	seen.lineage, seen.serial = f.Metadata.Lineage, f.Metadata.Serial
	return f, seen, nil
}

// Write stores f in the document. Unless forced it is refused with
// statemgr.ErrConflict when the stored state is not the one last read or
// written, when the lineage differs, or when the serial does not rise. A
// stored state that cannot be read is never overwritten.
func (b *Backend) Write(ctx context.Context, f *state.File, opts statemgr.WriteOptions) error {
	if err := statemgr.CheckWritable(f); err != nil {
		return fmt.Errorf("http backend: %w", err)
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.StateLabel(b.env), data)
	}
	if err != nil {
		return fmt.Errorf("http backend: write state: %w", err)
	}
	where := redact(b.cfg.Address)
	err = b.mutate(ctx, "write state", func(d *document) (bool, error) {
		_, cur, _ := b.decodeState(ctx, d)
		if cur.corrupt != nil {
			return false, fmt.Errorf("http backend: refusing to overwrite the state in %s, which cannot be read: %w", where, cur.corrupt)
		}
		if !opts.Force {
			seen := b.seen
			if cur.exists != seen.exists || cur.sum != seen.sum {
				return false, fmt.Errorf("http backend: write %s: the stored state changed since it was read (another run wrote it); read it again: %w", where, statemgr.ErrConflict)
			}
			if cur.exists {
				if err := statemgr.CheckSuccessor(cur.lineage, cur.serial, f.Metadata); err != nil {
					return false, fmt.Errorf("http backend: write %s: %w", where, err)
				}
			}
		}
		d.State, d.Lineage, d.Serial = data, f.Metadata.Lineage, f.Metadata.Serial
		return true, nil
	})
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.seen = seenState{exists: true, sum: sumOf(data), lineage: f.Metadata.Lineage, serial: f.Metadata.Serial}
	b.mu.Unlock()
	return nil
}

// Append adds e to the document's journal. The same entry again is not an
// error; another entry with a taken Seq is.
func (b *Backend) Append(ctx context.Context, e state.Entry) error {
	plain, err := json.Marshal(e)
	var sealed []byte
	if err == nil {
		sealed, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.JournalLabel(b.env), plain)
	}
	if err != nil {
		return fmt.Errorf("http backend: encode journal entry %d: %w", e.Seq, err)
	}
	return b.mutate(ctx, "append journal", func(d *document) (bool, error) {
		entries, err := b.openEntries(ctx, d)
		if err != nil {
			return false, err
		}
		for i, have := range entries {
			if have.Seq == e.Seq {
				got, _ := statemgr.Open(ctx, b.opts.Codec, statemgr.JournalLabel(b.env), d.Journal[i])
				if bytes.Equal(got, plain) {
					return false, nil // already there: a retry
				}
				return false, fmt.Errorf("http backend: append journal entry: %s already holds a different entry with seq %d", redact(b.cfg.Address), e.Seq)
			}
		}
		d.Journal = append(d.Journal, sealed)
		return true, nil
	})
}

// Entries returns the journal's entries sorted by Seq.
func (b *Backend) Entries(ctx context.Context) ([]state.Entry, error) {
	d, err := b.fetch(ctx)
	if err != nil {
		return nil, err
	}
	es, err := b.openEntries(ctx, d)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].Seq < es[j].Seq })
	return es, nil
}

// openEntries decodes the journal in document order.
func (b *Backend) openEntries(ctx context.Context, d *document) ([]state.Entry, error) {
	out := make([]state.Entry, len(d.Journal))
	for i, raw := range d.Journal {
		plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.JournalLabel(b.env), raw)
		if err != nil {
			return nil, fmt.Errorf("http backend: journal entry %d of %s: %w", i, redact(b.cfg.Address), err)
		}
		if out[i], err = statemgr.DecodeEntry(plain); err != nil {
			return nil, fmt.Errorf("http backend: journal entry %d of %s: %w", i, redact(b.cfg.Address), err)
		}
	}
	return out, nil
}

// ClearJournal empties the journal.
func (b *Backend) ClearJournal(ctx context.Context) error {
	return b.mutate(ctx, "clear journal", func(d *document) (bool, error) {
		if len(d.Journal) == 0 {
			return false, nil
		}
		d.Journal = nil
		return true, nil
	})
}

// Backup adds f to the document's backups as
// backups/state.<env>.<UTC time>.<serial>.json and drops the oldest beyond
// the retention.
func (b *Backend) Backup(ctx context.Context, f *state.File) (string, error) {
	if f == nil {
		return "", fmt.Errorf("http backend: backup: no state given")
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), data)
	}
	if err != nil {
		return "", fmt.Errorf("http backend: backup: %w", err)
	}
	created := b.opts.Now().UTC().Truncate(time.Millisecond)
	var key string
	err = b.mutate(ctx, "back up state", func(d *document) (bool, error) {
		for {
			key = "backups/" + statemgr.BackupName(b.env, created, f.Metadata.Serial)
			if findBackup(d, key) < 0 {
				break
			}
			created = created.Add(time.Millisecond)
		}
		d.Backups = append(d.Backups, backup{Key: key, Serial: f.Metadata.Serial, Created: created, State: data})
		sortBackups(d.Backups)
		if n := b.cfg.BackupRetention; n > 0 && len(d.Backups) > n {
			d.Backups = d.Backups[:n]
		}
		return true, nil
	})
	return key, err
}

func findBackup(d *document, key string) int {
	for i, bk := range d.Backups {
		if bk.Key == key {
			return i
		}
	}
	return -1
}

// sortBackups orders newest first.
func sortBackups(bs []backup) {
	sort.SliceStable(bs, func(i, j int) bool {
		if !bs[i].Created.Equal(bs[j].Created) {
			return bs[i].Created.After(bs[j].Created)
		}
		return bs[i].Serial > bs[j].Serial
	})
}

// ListBackups returns the backups, newest first.
func (b *Backend) ListBackups(ctx context.Context) ([]statemgr.BackupInfo, error) {
	d, err := b.fetch(ctx)
	if err != nil {
		return nil, err
	}
	sortBackups(d.Backups)
	out := make([]statemgr.BackupInfo, len(d.Backups))
	for i, bk := range d.Backups {
		out[i] = statemgr.BackupInfo{Key: bk.Key, Serial: bk.Serial, Created: bk.Created}
	}
	return out, nil
}

// ReadBackup returns the state in backup key; a missing one wraps
// statemgr.ErrNotFound.
func (b *Backend) ReadBackup(ctx context.Context, key string) (*state.File, error) {
	d, err := b.fetch(ctx)
	if err != nil {
		return nil, err
	}
	i := findBackup(d, strings.TrimPrefix(key, "./"))
	if i < 0 {
		return nil, fmt.Errorf("http backend: backup %s in %s: %w", key, redact(b.cfg.Address), statemgr.ErrNotFound)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), d.Backups[i].State)
	if err != nil {
		return nil, fmt.Errorf("http backend: read backup %s: %w", key, err)
	}
	return state.Decode(key, plain)
}

// RewriteBackup replaces backup key's content with f (kyku state rekey).
func (b *Backend) RewriteBackup(ctx context.Context, key string, f *state.File) error {
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), data)
	}
	if err != nil {
		return fmt.Errorf("http backend: rewrite backup: %w", err)
	}
	return b.mutate(ctx, "rewrite backup", func(d *document) (bool, error) {
		i := findBackup(d, key)
		if i < 0 {
			return false, fmt.Errorf("http backend: backup %s: %w", key, statemgr.ErrNotFound)
		}
		d.Backups[i].State = data
		return true, nil
	})
}

func objectKey(key string) error {
	if err := statemgr.CheckObjectKey(key); err != nil {
		return fmt.Errorf("http backend: %w", err)
	}
	return nil
}

// PutObject stores data under key in the document.
func (b *Backend) PutObject(ctx context.Context, key string, data []byte) error {
	if err := objectKey(key); err != nil {
		return err
	}
	sealed, err := statemgr.Seal(ctx, b.opts.Codec, statemgr.ObjectLabel(key), data)
	if err != nil {
		return fmt.Errorf("http backend: write %s: %w", key, err)
	}
	return b.mutate(ctx, "write "+key, func(d *document) (bool, error) {
		if d.Objects == nil {
			d.Objects = map[string][]byte{}
		}
		d.Objects[key] = sealed
		return true, nil
	})
}

// GetObject returns the object stored under key.
func (b *Backend) GetObject(ctx context.Context, key string) ([]byte, error) {
	if err := objectKey(key); err != nil {
		return nil, err
	}
	d, err := b.fetch(ctx)
	if err != nil {
		return nil, err
	}
	data, ok := d.Objects[key]
	if !ok {
		return nil, fmt.Errorf("http backend: %s in %s: %w", key, redact(b.cfg.Address), statemgr.ErrNotFound)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.ObjectLabel(key), data)
	if err != nil {
		return nil, fmt.Errorf("http backend: read %s: %w", key, err)
	}
	return plain, nil
}

// ListObjects returns the keys that start with prefix, sorted.
func (b *Backend) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	if strings.HasPrefix(prefix, "/") {
		return nil, fmt.Errorf("http backend: object prefix %q must be relative", prefix)
	}
	d, err := b.fetch(ctx)
	if err != nil {
		return nil, err
	}
	var keys []string
	for k := range d.Objects {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}
