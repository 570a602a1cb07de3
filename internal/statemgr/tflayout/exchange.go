package tflayout

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfstate"
)

// Pull returns the state as `tofu state pull` (OpenTofu 1.12.6) prints
// it: the compact form and a blank line. A local state keeps the
// terraform_version it was written with; a remote one (s3, gcs, http)
// says the version OpenTofu 1.12.6 would, its own, as OpenTofu rebuilds a
// remote state before printing it. No local state: nothing (nil); no
// remote state: an empty state with no lineage, serial 0, as tofu prints.
func (b *Backend) Pull(ctx context.Context) ([]byte, error) {
	data, _, err := b.slot.Get(ctx)
	var f *tfstate.File
	switch {
	case errors.Is(err, statemgr.ErrNotFound) && b.slot.Form() == tfstate.Indented:
		return nil, nil
	case errors.Is(err, statemgr.ErrNotFound):
		f = &tfstate.File{}
	case err != nil:
		return nil, fmt.Errorf("%s: read state: %w", b.opts.Name, err)
	default:
		if f, err = tfstate.Decode(b.slot.Where(), data); err != nil {
			return nil, err
		}
	}
	if b.slot.Form() != tfstate.Indented {
		f.TerraformVersion = tfstate.WriterVersion
	}
	out, err := tfstate.Encode(f, tfstate.Compact)
	if err != nil {
		return nil, fmt.Errorf("%s: pull state: %w", b.opts.Name, err)
	}
	return append(out, '\n'), nil
}

// PushResult is what Push did.
type PushResult struct {
	// Written is false when the pushed state is the stored one (nothing
	// written, as OpenTofu writes nothing then).
	Written bool
	// Serial is the stored state's serial after the push.
	Serial uint64
	// BackupKey is Kyku's backup of the state pushed over ("" when none).
	BackupKey string
}

// ErrPushRefused is wrapped by Push when OpenTofu's rules refuse the
// state without force.
var ErrPushRefused = errors.New("push refused")

// Push stores data, a state in format version 4 (name names it in
// errors), over the stored state as `tofu state push` does: unless force,
// refused (ErrPushRefused) when the stored state has resources or outputs
// and the pushed one's lineage is another, its serial is older, or its
// serial is the same with other contents. The pushed state is written in
// this backend's form as OpenTofu 1.12.6 writes it, its serial raised
// above the stored one when it is not already above it (Kyku's serial
// never goes back; tofu's forced push may). The stored state is backed up
// beside it first. The caller holds the lock.
func (b *Backend) Push(ctx context.Context, name string, data []byte, force bool) (PushResult, error) {
	next, err := tfstate.Decode(name, data)
	if err != nil {
		return PushResult{}, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	cur, err := b.load(ctx)
	if err != nil {
		return PushResult{}, err
	}
	stored := b.stored
	if !force {
		if err := b.checkImport(next); err != nil {
			return PushResult{}, fmt.Errorf("%s: %w: %w", b.slot.Where(), ErrPushRefused, err)
		}
	}
	next.TerraformVersion = tfstate.WriterVersion
	if stored != nil && next.Serial <= stored.Serial {
		if b.sameAsStored(next, nil) {
			return PushResult{Serial: stored.Serial}, nil
		}
		next.Serial = stored.Serial + 1
	}
	return b.replace(ctx, "push", cur, next)
}

// replace writes next over the stored state for op (push, restore),
// backing up cur, the stored state read, first when there is one (b.mu
// held).
func (b *Backend) replace(ctx context.Context, op string, cur *state.File, next *tfstate.File) (PushResult, error) {
	var res PushResult
	if cur != nil {
		var err error
		if res.BackupKey, err = b.backup(ctx, cur); err != nil {
			return PushResult{}, fmt.Errorf("%s: back up the state before %s: %w", b.opts.Name, op, err)
		}
	}
	if err := b.put(ctx, next); err != nil {
		return PushResult{}, err
	}
	res.Written, res.Serial = true, next.Serial
	return res, nil
}

// put writes f as the stored state on the version read (b.mu held), and
// makes it the state last read.
func (b *Backend) put(ctx context.Context, f *tfstate.File) error {
	data, err := tfstate.Encode(f, b.slot.Form())
	if err != nil {
		return fmt.Errorf("%s: write state: %w", b.opts.Name, err)
	}
	v, err := b.slot.Put(ctx, data, b.version, b.lockID)
	if err != nil {
		return fmt.Errorf("%s: write state %s: %w", b.opts.Name, b.slot.Where(), err)
	}
	br, err := b.newBridge(f, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", b.slot.Where(), err)
	}
	// storedCompact, if kept, was the state before: encoded again when asked.
	b.bridge, b.pending, b.stored, b.storedCompact, b.version, b.digest = br, nil, f, nil, v, digestOf(data)
	return nil
}

// checkImport is OpenTofu's rule for importing next over stored without
// force: anything over no state or one with neither resources nor
// outputs, or where either has no lineage; otherwise the same lineage and
// a newer serial, or the same serial and the same contents (b.mu held).
func (b *Backend) checkImport(next *tfstate.File) error {
	stored := b.stored
	if stored == nil || (len(stored.Resources) == 0 && len(stored.Outputs) == 0) || next.Lineage == "" || stored.Lineage == "" {
		return nil
	}
	switch {
	case next.Lineage != stored.Lineage:
		return fmt.Errorf("lineage %q is not the stored state's %q (another state's history); --force replaces it", next.Lineage, stored.Lineage)
	case next.Serial < stored.Serial:
		return fmt.Errorf("serial %d is older than the stored state's %d; --force replaces it", next.Serial, stored.Serial)
	case next.Serial == stored.Serial && !b.sameAsStored(next, nil):
		return fmt.Errorf("serial %d is the stored state's, with other contents; raise the serial, or --force replaces it", next.Serial)
	}
	return nil
}
