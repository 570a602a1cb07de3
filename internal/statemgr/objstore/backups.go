package objstore

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// Backup stores f at <prefix>/backups/state.<env>.<UTC time>.<serial>.json
// (created only if absent: a backup is never replaced) and returns that
// key relative to the prefix (what ReadBackup takes). Then it deletes the
// oldest backups beyond Config.BackupRetention (if set).
func (b *Backend) Backup(ctx context.Context, f *state.File) (string, error) {
	if f == nil {
		return "", b.errorf("backup: no state given")
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), data)
	}
	if err != nil {
		return "", b.errorf("backup: %w", err)
	}
	b.backupMu.Lock()
	defer b.backupMu.Unlock()
	stamp := b.opts.Now().UTC()
	var key string
	for range 100 {
		key = b.backupDir() + statemgr.BackupName(b.env, stamp, f.Metadata.Serial)
		_, err = b.bucket.Put(ctx, key, data, Cond{IfAbsent: true})
		if !isPrecondition(err) {
			break
		}
		if o, gerr := b.bucket.Get(ctx, key); gerr == nil && bytes.Equal(o.Data, data) {
			err = nil // our own earlier attempt landed: one backup, not two
			break
		}
		// Same millisecond and serial as an existing backup: never
		// replace a backup, take the next millisecond.
		stamp = stamp.Add(time.Millisecond)
	}
	if err != nil {
		return "", b.wrap("write backup", key, err)
	}
	if err := b.prune(ctx); err != nil {
		return "", err
	}
	return b.rel(key), nil
}

// prune deletes the oldest backups beyond the retention.
func (b *Backend) prune(ctx context.Context) error {
	keep := b.cfg.BackupRetention
	if keep <= 0 {
		return nil
	}
	all, err := b.ListBackups(ctx)
	if err != nil || len(all) <= keep {
		return err
	}
	var old []string
	for _, bi := range all[keep:] {
		old = append(old, b.key(bi.Key))
	}
	if err := b.bucket.DeleteAll(ctx, old); err != nil {
		return b.errorf("prune backups: %w", err)
	}
	return nil
}

// ListBackups returns this environment's backups, newest first. Keys are
// relative to the prefix.
func (b *Backend) ListBackups(ctx context.Context) ([]statemgr.BackupInfo, error) {
	keys, err := b.bucket.List(ctx, b.backupPrefix())
	if err != nil {
		return nil, err
	}
	var out []statemgr.BackupInfo
	for _, k := range keys {
		created, serial, ok := statemgr.ParseBackupName(b.env, strings.TrimPrefix(k, b.backupDir()))
		if !ok {
			continue // another environment whose name extends ours, or a stray object
		}
		out = append(out, statemgr.BackupInfo{Key: b.rel(k), Serial: serial, Created: created})
	}
	statemgr.SortBackups(out)
	return out, nil
}

// ReadBackup returns the state stored in a backup. key is as ListBackups
// gives it (relative to the prefix); the full object key, its URL and the
// bare file name are accepted too. A missing backup wraps
// statemgr.ErrNotFound.
func (b *Backend) ReadBackup(ctx context.Context, key string) (*state.File, error) {
	full, err := b.backupKey(key)
	if err != nil {
		return nil, err
	}
	o, err := b.bucket.Get(ctx, full)
	if isNotFound(err) {
		return nil, b.errorf("backup %s: %w", b.url(full), statemgr.ErrNotFound)
	}
	if err != nil {
		return nil, b.wrap("read backup", full, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), o.Data)
	if err != nil {
		return nil, b.errorf("read backup %s: %w", b.url(full), err)
	}
	f, err := state.Decode(b.url(full), plain)
	if err != nil {
		return nil, b.errorf("read backup: %w", err)
	}
	return f, nil
}

// RewriteBackup replaces the content of backup key with f, keeping its
// name, conditionally on the object not changing meanwhile (kyku state
// rekey).
func (b *Backend) RewriteBackup(ctx context.Context, key string, f *state.File) error {
	full, err := b.backupKey(key)
	if err != nil {
		return err
	}
	o, err := b.bucket.Get(ctx, full)
	if err != nil {
		return b.wrap("read backup", full, err)
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), data)
	}
	if err != nil {
		return b.errorf("rewrite backup: %w", err)
	}
	if _, err := b.bucket.Put(ctx, full, data, Cond{IfMatch: o.Version}); err != nil {
		return b.wrap("rewrite backup", full, err)
	}
	return nil
}

// backupKey resolves a user's backup name to the full key, refusing
// anything that is not under the backups folder.
func (b *Backend) backupKey(key string) (string, error) {
	key = strings.TrimPrefix(key, b.cfg.Root)
	dir := b.backupDir()
	switch {
	case strings.HasPrefix(key, dir):
	case strings.HasPrefix(key, "backups/"):
		key = b.key(key)
	default:
		key = dir + key
	}
	name := strings.TrimPrefix(key, dir)
	if name == "" || strings.Contains(name, "/") || !strings.HasSuffix(name, ".json") {
		return "", b.errorf("%q is not a backup name (see kyku state backups)", key)
	}
	return key, nil
}
