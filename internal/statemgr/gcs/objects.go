package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"

	"github.com/kyku/action/internal/statemgr"
)

// object is one fetched object.
type object struct {
	data       []byte
	generation int64
	updated    time.Time
}

// errNotFound is returned (unwrapped) by get for a missing object.
var errNotFound = storage.ErrObjectNotExist

// status is the HTTP status of a GCS error, or 0.
func status(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	return 0
}

func isNotFound(err error) bool {
	return errors.Is(err, storage.ErrObjectNotExist) || status(err) == http.StatusNotFound
}

func isPreconditionFailed(err error) bool { return status(err) == http.StatusPreconditionFailed }

// op bounds one operation, retries included, by the retry budget.
func (b *Backend) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.opts.RetryBudget)
}

func (b *Backend) get(ctx context.Context, key string) (object, error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	r, err := b.bucket.Object(key).NewReader(ctx)
	if err != nil {
		return object{}, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return object{}, fmt.Errorf("read body: %w", err)
	}
	return object{data: data, generation: r.Attrs.Generation, updated: r.Attrs.LastModified}, nil
}

// cond is a write precondition: ifGeneration is the generation the object
// must have (0: it must not exist); any says there is none.
type cond struct {
	any          bool
	ifGeneration int64
}

var (
	anyGeneration = cond{any: true}
	absent        = cond{}
)

func onGeneration(g int64) cond { return cond{ifGeneration: g} }

// put writes data at key under c and returns the new generation. The error
// is the library's, unwrapped.
func (b *Backend) put(ctx context.Context, key string, data []byte, c cond) (int64, error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	o := b.bucket.Object(key)
	switch {
	case c.any:
	case c.ifGeneration == 0:
		o = o.If(storage.Conditions{DoesNotExist: true})
	default:
		o = o.If(storage.Conditions{GenerationMatch: c.ifGeneration})
	}
	w := o.NewWriter(ctx)
	w.ContentType = "application/json"
	w.ChunkSize = 0 // one request: small objects
	if _, err := w.Write(data); err != nil {
		_ = w.Close()
		return 0, err
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return w.Attrs().Generation, nil
}

// deleteGeneration removes key only while its generation is g.
func (b *Backend) deleteGeneration(ctx context.Context, key string, g int64) error {
	ctx, cancel := b.op(ctx)
	defer cancel()
	// generation= targets that very generation (enforced by GCS and by the
	// emulator); ifGenerationMatch= says the same to GCS.
	return b.bucket.Object(key).Generation(g).If(storage.Conditions{GenerationMatch: g}).Delete(ctx)
}

// list returns the full keys under prefix, sorted.
func (b *Backend) list(ctx context.Context, prefix string) ([]string, error) {
	ctx, cancel := b.op(ctx)
	defer cancel()
	it := b.bucket.Objects(ctx, &storage.Query{Prefix: prefix})
	var keys []string
	for {
		attrs, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, b.wrap("list", prefix, err)
		}
		keys = append(keys, attrs.Name)
	}
	sort.Strings(keys)
	return keys, nil
}

// deleteAll removes keys; one already gone is not an error.
func (b *Backend) deleteAll(ctx context.Context, keys []string) error {
	for _, k := range keys {
		ctx, cancel := b.op(ctx)
		err := b.bucket.Object(k).Delete(ctx)
		cancel()
		if err != nil && !isNotFound(err) {
			return b.wrap("delete", k, err)
		}
	}
	return nil
}

// wrap turns a library error into one a user can act on.
func (b *Backend) wrap(action, key string, err error) error {
	switch s := status(err); {
	case errors.Is(err, storage.ErrBucketNotExist):
		return fmt.Errorf("gcs backend: bucket %q does not exist: %w", b.cfg.Bucket, err)
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return fmt.Errorf("gcs backend: access denied to %s %s (check the Application Default Credentials and the bucket's IAM): %w", action, b.url(key), err)
	}
	return fmt.Errorf("gcs backend: %s %s: %w", action, b.url(key), err)
}

func (b *Backend) objectKey(key string) (string, error) {
	if key == "" || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") {
		return "", fmt.Errorf("gcs backend: object key %q must be a non-empty relative path", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Errorf("gcs backend: object key %q has an empty, \".\" or \"..\" segment", key)
		}
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
		return fmt.Errorf("gcs backend: write %s: %w", b.url(full), err)
	}
	if _, err := b.put(ctx, full, sealed, anyGeneration); err != nil {
		return b.wrap("write", full, err)
	}
	return nil
}

// GetObject returns the content of <prefix>/<key>; a missing key wraps
// statemgr.ErrNotFound.
func (b *Backend) GetObject(ctx context.Context, key string) ([]byte, error) {
	full, err := b.objectKey(key)
	if err != nil {
		return nil, err
	}
	o, err := b.get(ctx, full)
	if isNotFound(err) {
		return nil, fmt.Errorf("gcs backend: %s: %w", b.url(full), statemgr.ErrNotFound)
	}
	if err != nil {
		return nil, b.wrap("read", full, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.ObjectLabel(key), o.data)
	if err != nil {
		return nil, fmt.Errorf("gcs backend: read %s: %w", b.url(full), err)
	}
	return plain, nil
}

// ListObjects returns the keys (relative to the prefix) that start with
// prefix, sorted.
func (b *Backend) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	if strings.HasPrefix(prefix, "/") {
		return nil, fmt.Errorf("gcs backend: object prefix %q must be relative", prefix)
	}
	full, err := b.list(ctx, b.key(prefix))
	if err != nil {
		return nil, err
	}
	keys := make([]string, len(full))
	for i, k := range full {
		keys[i] = b.rel(k)
	}
	return keys, nil
}
