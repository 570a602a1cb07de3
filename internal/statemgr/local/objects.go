package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kyku/action/internal/statemgr"
)

// objectPath maps a slash-separated key ("plans/prod/pr-12.json") to a path
// under the directory, refusing keys that could leave it.
func (b *Backend) objectPath(key string) (string, error) {
	switch {
	case key == "":
		return "", errors.New("empty object key")
	case strings.HasPrefix(key, "/") || filepath.IsAbs(key) || strings.Contains(key, `\`):
		return "", fmt.Errorf("object key %q: must be a relative slash-separated path", key)
	case path.Clean(key) != key || key == "." || key == ".." || strings.HasPrefix(key, "../"):
		return "", fmt.Errorf("object key %q: must be a clean path without . or .. segments", key)
	}
	return filepath.Join(b.dir, filepath.FromSlash(key)), nil
}

// PutObject stores data under key atomically, creating directories.
func (b *Backend) PutObject(ctx context.Context, key string, data []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("put object: %w", err)
	}
	p, err := b.objectPath(key)
	if err != nil {
		return fmt.Errorf("put object: %w", err)
	}
	sealed, err := statemgr.Seal(ctx, b.opts.Codec, statemgr.ObjectLabel(key), data)
	if err == nil {
		err = b.keepIgnored()
	}
	if err != nil {
		return fmt.Errorf("put object %s: %w", key, err)
	}
	if err := writeFileAtomic(p, sealed); err != nil {
		return fmt.Errorf("put object %s: %w", key, err)
	}
	return nil
}

// GetObject returns the data stored under key; a missing key wraps
// statemgr.ErrNotFound.
func (b *Backend) GetObject(ctx context.Context, key string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("get object: %w", err)
	}
	p, err := b.objectPath(key)
	if err != nil {
		return nil, fmt.Errorf("get object: %w", err)
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get object %s: %w", key, statemgr.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("get object %s: %w", key, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.ObjectLabel(key), data)
	if err != nil {
		return nil, fmt.Errorf("get object %s: %w", p, err)
	}
	return plain, nil
}

// ListObjects returns the sorted keys that start with prefix. Hidden files
// (the lock, temp files of writes in progress) are not objects.
func (b *Backend) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list objects: %w", err)
	}
	// Walk only the deepest directory the prefix names.
	root := b.dir
	if i := strings.LastIndexByte(prefix, '/'); i > 0 {
		p, err := b.objectPath(prefix[:i])
		if err != nil {
			return nil, fmt.Errorf("list objects: %w", err)
		}
		root = p
	}
	var keys []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != root {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(b.dir, p)
		if err != nil {
			return err
		}
		if key := filepath.ToSlash(rel); strings.HasPrefix(key, prefix) {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list objects %q: %w", prefix, err)
	}
	sort.Strings(keys)
	return keys, nil
}
