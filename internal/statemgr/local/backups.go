package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

const backupDir = "backups"

// Backup writes f to backups/state.<env>.<UTC time>.<serial>.json
// atomically, removes the oldest backups beyond Options.BackupRetention, and
// returns the new backup's key (its path relative to the directory).
func (b *Backend) Backup(ctx context.Context, f *state.File) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("back up state: %w", err)
	}
	if f == nil {
		return "", errors.New("back up state: no state given")
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), data)
	}
	if err == nil {
		err = b.keepIgnored()
	}
	if err != nil {
		return "", fmt.Errorf("back up state: %w", err)
	}
	b.backupMu.Lock()
	defer b.backupMu.Unlock()
	created := b.opts.Now().UTC().Truncate(time.Millisecond)
	key := b.backupKey(created, f.Metadata.Serial)
	// Two backups of one serial in one millisecond: keep both.
	for b.exists(key) {
		created = created.Add(time.Millisecond)
		key = b.backupKey(created, f.Metadata.Serial)
	}
	if err := writeFileAtomic(filepath.Join(b.dir, filepath.FromSlash(key)), data); err != nil {
		return "", fmt.Errorf("back up state: %w", err)
	}
	if b.opts.BackupRetention > 0 {
		list, err := b.listBackups()
		if err != nil {
			return key, fmt.Errorf("back up state: apply retention: %w", err)
		}
		for _, old := range list[min(b.opts.BackupRetention, len(list)):] {
			if err := os.Remove(filepath.Join(b.dir, filepath.FromSlash(old.Key))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return key, fmt.Errorf("back up state: remove old backup: %w", err)
			}
		}
	}
	return key, nil
}

func (b *Backend) backupKey(created time.Time, serial int64) string {
	return path.Join(backupDir, statemgr.BackupName(b.env, created, serial))
}

func (b *Backend) exists(key string) bool {
	_, err := os.Lstat(filepath.Join(b.dir, filepath.FromSlash(key)))
	return err == nil
}

// ListBackups returns this environment's backups, newest first.
func (b *Backend) ListBackups(ctx context.Context) ([]statemgr.BackupInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	b.backupMu.Lock()
	defer b.backupMu.Unlock()
	list, err := b.listBackups()
	if err != nil {
		return nil, fmt.Errorf("list backups: %w", err)
	}
	return list, nil
}

func (b *Backend) listBackups() ([]statemgr.BackupInfo, error) {
	ents, err := os.ReadDir(filepath.Join(b.dir, backupDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []statemgr.BackupInfo
	for _, e := range ents {
		if info, ok := b.parseBackupName(e.Name()); ok && e.Type().IsRegular() {
			out = append(out, info)
		}
	}
	statemgr.SortBackups(out)
	return out, nil
}

// parseBackupName reads a backup's file name (statemgr.BackupName); other
// environments' backups and stray files do not parse.
func (b *Backend) parseBackupName(name string) (statemgr.BackupInfo, bool) {
	created, serial, ok := statemgr.ParseBackupName(b.env, name)
	return statemgr.BackupInfo{Key: path.Join(backupDir, name), Serial: serial, Created: created}, ok
}

// ReadBackup decodes the backup with the given key (as returned by Backup
// or ListBackups); a missing one wraps statemgr.ErrNotFound.
func (b *Backend) ReadBackup(ctx context.Context, key string) (*state.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("read backup: %w", err)
	}
	p, err := b.objectPath(key)
	if err != nil {
		return nil, fmt.Errorf("read backup: %w", err)
	}
	if !strings.HasPrefix(key, backupDir+"/") {
		return nil, fmt.Errorf("read backup %q: not a backup key (want %s/…)", key, backupDir)
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read backup %s: %w", key, statemgr.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read backup: %w", err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), data)
	if err != nil {
		return nil, fmt.Errorf("read backup %s: %w", p, err)
	}
	f, err := state.Decode(p, plain)
	if err != nil {
		return nil, fmt.Errorf("read backup: %w", err)
	}
	return f, nil
}

// RewriteBackup replaces the content of the backup key with f, keeping its
// name (kyku state rekey).
func (b *Backend) RewriteBackup(ctx context.Context, key string, f *state.File) error {
	if _, err := b.ReadBackup(ctx, key); err != nil {
		return err
	}
	data, err := state.Encode(f)
	if err == nil {
		data, err = statemgr.Seal(ctx, b.opts.Codec, statemgr.BackupLabel(b.env), data)
	}
	if err != nil {
		return fmt.Errorf("rewrite backup %s: %w", key, err)
	}
	b.backupMu.Lock()
	defer b.backupMu.Unlock()
	if err := writeFileAtomic(filepath.Join(b.dir, filepath.FromSlash(key)), data); err != nil {
		return fmt.Errorf("rewrite backup %s: %w", key, err)
	}
	return nil
}
