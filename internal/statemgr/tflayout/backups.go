package tflayout

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfstate"
)

// ErrNoRawBackup is wrapped by Restore when the backup has no Terraform
// state kept with it (made before Kyku kept one): restore it through
// Kyku's model instead.
var ErrNoRawBackup = errors.New("the backup keeps no Terraform state of its own")

// rawBackupKey is where the Terraform state backed up as key is kept.
func rawBackupKey(key string) string { return "tfstate-backups/" + path.Base(key) }

// Backup keeps f among Kyku's backups and, when f is the state last read
// or written here (its lineage, its serial or Kyku's above it), that
// Terraform state's own bytes with it, so that Restore brings back the
// state as OpenTofu wrote it: data sources, deposed objects, null
// attributes and all.
func (b *Backend) Backup(ctx context.Context, f *state.File) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.backup(ctx, f)
}

// backup is Backup with b.mu held.
func (b *Backend) backup(ctx context.Context, f *state.File) (string, error) {
	key, err := b.aside.Backup(ctx, f)
	if err != nil {
		return "", err
	}
	if b.stored == nil || f.Metadata.Lineage != b.stored.Lineage || f.Metadata.Serial < int64(b.stored.Serial) {
		return key, nil
	}
	data, err := b.compactStored()
	if err == nil {
		err = b.aside.PutObject(ctx, rawBackupKey(key), data)
	}
	if err != nil {
		return "", fmt.Errorf("%s: back up the Terraform state: %w", b.opts.Name, err)
	}
	return key, nil
}

// Restore writes the Terraform state kept with backup key back over the
// stored state, as it was but for its serial, raised above the stored
// one; the stored state is backed up first. Refused when its lineage is
// not the stored state's. The caller holds the lock.
func (b *Backend) Restore(ctx context.Context, key string) (PushResult, error) {
	data, err := b.aside.GetObject(ctx, rawBackupKey(key))
	if errors.Is(err, statemgr.ErrNotFound) {
		return PushResult{}, fmt.Errorf("%s: %w", key, ErrNoRawBackup)
	}
	if err != nil {
		return PushResult{}, fmt.Errorf("%s: read backup %s: %w", b.opts.Name, key, err)
	}
	old, err := tfstate.Decode(key, data)
	if err != nil {
		return PushResult{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	cur, err := b.load(ctx)
	if err != nil {
		return PushResult{}, err
	}
	if cur != nil {
		if b.stored.Lineage != old.Lineage {
			return PushResult{}, fmt.Errorf("refusing to restore: backup lineage %s differs from the current state's %s", old.Lineage, b.stored.Lineage)
		}
		old.Serial = b.stored.Serial + 1 // the serial only rises
	}
	return b.replace(ctx, "restore", cur, old)
}
