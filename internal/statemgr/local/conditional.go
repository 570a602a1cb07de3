package local

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/kyku/action/internal/statemgr"
)

var _ statemgr.Conditional = (*Backend)(nil)

// The conditional writes on objects (statemgr.Conditional: what per-object
// leases are made of) are serialized, across processes, by an fcntl lock
// on .kyku.objects.lock in the directory (hidden: not an object), and
// within one by condMu. An object's version is the sha256 of its stored
// bytes.

// condMu excludes this process's Backends on one directory from each
// other (where fcntl locks are the process's, not the descriptor's).
var condMu sync.Map // directory → *sync.Mutex

// condLocked runs fn holding the directory's conditional-writes lock.
func (b *Backend) condLocked(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return fmt.Errorf("create directory: %w", err)
	}
	mu, _ := condMu.LoadOrStore(b.dir, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	f, err := os.OpenFile(filepath.Join(b.dir, ".kyku.objects.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open the objects' lock: %w", err)
	}
	defer f.Close()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: io.SeekStart}
	if err := unix.FcntlFlock(f.Fd(), condLockWait, &lk); err != nil {
		return fmt.Errorf("lock the objects: %w", err)
	}
	return fn() // closing f releases the lock
}

func version(sealed []byte) statemgr.Version {
	sum := sha256.Sum256(sealed)
	return statemgr.Version(hex.EncodeToString(sum[:]))
}

// current returns the stored bytes at p and their version; ok false when
// there is none.
func current(p string) ([]byte, statemgr.Version, bool, error) {
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	return data, version(data), true, nil
}

// CreateObject stores data at key only if no object is there.
func (b *Backend) CreateObject(ctx context.Context, key string, data []byte) (statemgr.Version, error) {
	p, sealed, err := b.condObject(ctx, "create", key, data)
	if err != nil {
		return "", err
	}
	var v statemgr.Version
	err = b.condLocked(ctx, func() error {
		got, _, ok, err := current(p)
		switch {
		case err != nil:
			return err
		case ok && bytes.Equal(got, sealed):
			v = version(sealed) // an earlier attempt of ours
			return nil
		case ok:
			return statemgr.ErrExists
		}
		v = version(sealed)
		return writeFileAtomic(p, sealed)
	})
	if err != nil {
		return "", fmt.Errorf("create object %s: %w", key, err)
	}
	return v, nil
}

// ReadObject returns the data at key and its version.
func (b *Backend) ReadObject(ctx context.Context, key string) ([]byte, statemgr.Version, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	p, err := b.objectPath(key)
	if err != nil {
		return nil, "", fmt.Errorf("read object: %w", err)
	}
	stored, v, ok, err := current(p)
	if err != nil {
		return nil, "", fmt.Errorf("read object %s: %w", key, err)
	}
	if !ok {
		return nil, "", fmt.Errorf("read object %s: %w", key, statemgr.ErrNotFound)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.ObjectLabel(key), stored)
	if err != nil {
		return nil, "", fmt.Errorf("read object %s: %w", key, err)
	}
	return plain, v, nil
}

// ReplaceObject stores data at key only while the object there is at v.
func (b *Backend) ReplaceObject(ctx context.Context, key string, data []byte, v statemgr.Version) (statemgr.Version, error) {
	p, sealed, err := b.condObject(ctx, "replace", key, data)
	if err != nil {
		return "", err
	}
	nv := version(sealed)
	err = b.condLocked(ctx, func() error {
		got, cur, ok, err := current(p)
		switch {
		case err != nil:
			return err
		case ok && bytes.Equal(got, sealed):
			return nil // an earlier attempt of ours
		case !ok || cur != v:
			return fmt.Errorf("it is no longer at version %s: %w", v, statemgr.ErrConflict)
		}
		return writeFileAtomic(p, sealed)
	})
	if err != nil {
		return "", fmt.Errorf("replace object %s: %w", key, err)
	}
	return nv, nil
}

// DeleteObject removes key only while its version is v; gone is done.
func (b *Backend) DeleteObject(ctx context.Context, key string, v statemgr.Version) error {
	p, err := b.objectPath(key)
	if err != nil {
		return fmt.Errorf("delete object: %w", err)
	}
	err = b.condLocked(ctx, func() error {
		_, cur, ok, err := current(p)
		switch {
		case err != nil:
			return err
		case !ok:
			return nil
		case cur != v:
			return fmt.Errorf("it is no longer at version %s: %w", v, statemgr.ErrConflict)
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete object %s: %w", key, err)
	}
	return nil
}

// condObject checks key and seals data for a conditional write.
func (b *Backend) condObject(ctx context.Context, op, key string, data []byte) (string, []byte, error) {
	p, err := b.objectPath(key)
	if err != nil {
		return "", nil, fmt.Errorf("%s object: %w", op, err)
	}
	sealed, err := statemgr.Seal(ctx, b.opts.Codec, statemgr.ObjectLabel(key), data)
	if err == nil {
		err = b.keepIgnored()
	}
	if err != nil {
		return "", nil, fmt.Errorf("%s object %s: %w", op, key, err)
	}
	return p, sealed, nil
}

// EnforcesConditionalWrites is true: a directory's objects are written
// under its fcntl lock (lease.Enforcer).
func (b *Backend) EnforcesConditionalWrites() bool { return true }
