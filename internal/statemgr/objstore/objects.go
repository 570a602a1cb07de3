package objstore

import (
	"context"
	"strings"

	"github.com/kyku/action/internal/statemgr"
)

// objectKey checks a caller's relative key and returns the full key.
func (b *Backend) objectKey(key string) (string, error) {
	if err := statemgr.CheckObjectKey(key); err != nil {
		return "", b.errorf("%w", err)
	}
	return b.key(key), nil
}

// PutObject stores data at <prefix>/<key>, replacing any previous content.
func (b *Backend) PutObject(ctx context.Context, key string, data []byte) error {
	full, err := b.objectKey(key)
	if err != nil {
		return err
	}
	sealed, err := statemgr.Seal(ctx, b.opts.Codec, statemgr.ObjectLabel(key), data)
	if err != nil {
		return b.errorf("write %s: %w", b.url(full), err)
	}
	if _, err := b.bucket.Put(ctx, full, sealed, Cond{}); err != nil {
		return b.wrap("write", full, err)
	}
	return nil
}

// GetObject returns the content of <prefix>/<key>; a missing key is an
// error wrapping statemgr.ErrNotFound.
func (b *Backend) GetObject(ctx context.Context, key string) ([]byte, error) {
	full, err := b.objectKey(key)
	if err != nil {
		return nil, err
	}
	o, err := b.bucket.Get(ctx, full)
	if isNotFound(err) {
		return nil, b.errorf("%s: %w", b.url(full), statemgr.ErrNotFound)
	}
	if err != nil {
		return nil, b.wrap("read", full, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.ObjectLabel(key), o.Data)
	if err != nil {
		return nil, b.errorf("read %s: %w", b.url(full), err)
	}
	return plain, nil
}

// ListObjects returns the keys (relative to the backend's prefix) that start
// with prefix, sorted.
func (b *Backend) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	if strings.HasPrefix(prefix, "/") {
		return nil, b.errorf("object prefix %q must be relative", prefix)
	}
	full, err := b.bucket.List(ctx, b.key(prefix))
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(full))
	for i, k := range full {
		keys[i] = b.rel(k)
	}
	return keys, nil
}
