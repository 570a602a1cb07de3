package s3

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/kyku/action/internal/statemgr"
)

// object is one fetched object.
type object struct {
	data     []byte
	etag     string
	modified time.Time
}

// get fetches key, retrying transient errors within the operation's
// budget; the error is the SDK's, unwrapped, so callers can test isNotFound
// before wrapping.
func (b *Backend) get(ctx context.Context, key string) (object, error) {
	var o object
	_, err := b.call(ctx, budgetOf(ctx, b.opts.RetryBudget), "read", key, func(ctx context.Context) error {
		out, err := b.api.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(b.cfg.Bucket), Key: aws.String(key)}, noSDKRetries)
		if err != nil {
			return err
		}
		defer out.Body.Close()
		data, err := io.ReadAll(out.Body)
		if err != nil {
			return fmt.Errorf("read body: %w", err)
		}
		if out.ContentLength != nil && *out.ContentLength != int64(len(data)) {
			return fmt.Errorf("read body: got %d of %d bytes: %w", len(data), *out.ContentLength, io.ErrUnexpectedEOF)
		}
		o = object{data: data, etag: aws.ToString(out.ETag), modified: aws.ToTime(out.LastModified)}
		return nil
	})
	return o, err
}

// budgetKey carries a retry budget shorter than Options.RetryBudget (the
// lock's remaining wait) down to call.
type budgetKey struct{}

func withBudget(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, budgetKey{}, d)
}

func budgetOf(ctx context.Context, def time.Duration) time.Duration {
	if d, ok := ctx.Value(budgetKey{}).(time.Duration); ok {
		return d
	}
	return def
}

// cond is the precondition of a put: none, the key must be absent, or its
// ETag must match.
type cond struct {
	absent  bool
	ifMatch string
}

// put writes data at key under c and returns the new ETag, retrying
// transient errors within the operation's budget. The error is the SDK's,
// unwrapped. A conditional put whose earlier attempt landed although its
// answer was lost comes back as a precondition failure: callers read the
// object back and accept it when it holds exactly their bytes.
func (b *Backend) put(ctx context.Context, key string, data []byte, c cond) (string, error) {
	var etag string
	_, err := b.call(ctx, budgetOf(ctx, b.opts.RetryBudget), "write", key, func(ctx context.Context) error {
		in := b.encrypt(&awss3.PutObjectInput{
			Bucket:        aws.String(b.cfg.Bucket),
			Key:           aws.String(key),
			Body:          bytes.NewReader(data),
			ContentLength: aws.Int64(int64(len(data))),
			ContentType:   aws.String("application/json"),
		})
		if c.absent && !b.cfg.Unlocked {
			in.IfNoneMatch = aws.String("*")
		}
		if c.ifMatch != "" && !b.cfg.Unlocked {
			in.IfMatch = aws.String(c.ifMatch)
		}
		out, err := b.api.PutObject(ctx, in, noSDKRetries)
		if err != nil {
			return err
		}
		etag = aws.ToString(out.ETag)
		return nil
	})
	return etag, err
}

// deleteIfMatch removes key only while its ETag is etag. It reports
// whether an attempt may have landed before a later one failed (then a
// missing key or a moved ETag may be our own delete). The error is the
// SDK's, unwrapped.
func (b *Backend) deleteIfMatch(ctx context.Context, key, etag string) (ambiguous bool, err error) {
	out, err := b.call(ctx, budgetOf(ctx, b.opts.RetryBudget), "delete", key, func(ctx context.Context) error {
		in := &awss3.DeleteObjectInput{Bucket: aws.String(b.cfg.Bucket), Key: aws.String(key)}
		if !b.cfg.Unlocked {
			in.IfMatch = aws.String(etag)
		}
		_, err := b.api.DeleteObject(ctx, in, noSDKRetries)
		return err
	})
	return out.ambiguous, err
}

// list returns the full keys under prefix, sorted, following pagination.
func (b *Backend) list(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	in := &awss3.ListObjectsV2Input{Bucket: aws.String(b.cfg.Bucket), Prefix: aws.String(prefix)}
	for {
		var out *awss3.ListObjectsV2Output
		_, err := b.call(ctx, budgetOf(ctx, b.opts.RetryBudget), "list", prefix, func(ctx context.Context) error {
			var err error
			out, err = b.api.ListObjectsV2(ctx, in, noSDKRetries)
			return err
		})
		if err != nil {
			return nil, b.wrap("list", prefix, err)
		}
		for _, o := range out.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
		if !aws.ToBool(out.IsTruncated) || aws.ToString(out.NextContinuationToken) == "" {
			break
		}
		in.ContinuationToken = out.NextContinuationToken
	}
	sort.Strings(keys)
	return keys, nil
}

// deleteBatchSize is S3's limit for one DeleteObjects request.
const deleteBatchSize = 1000

// deleteAll removes keys in batches of deleteBatchSize.
func (b *Backend) deleteAll(ctx context.Context, keys []string) error {
	for start := 0; start < len(keys); start += deleteBatchSize {
		batch := keys[start:min(start+deleteBatchSize, len(keys))]
		ids := make([]types.ObjectIdentifier, len(batch))
		for i, k := range batch {
			ids[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		// Deleting a missing key succeeds: a retry after a lost answer is
		// harmless.
		var out *awss3.DeleteObjectsOutput
		_, err := b.call(ctx, budgetOf(ctx, b.opts.RetryBudget), "delete", batch[0], func(ctx context.Context) error {
			var err error
			out, err = b.api.DeleteObjects(ctx, &awss3.DeleteObjectsInput{
				Bucket: aws.String(b.cfg.Bucket),
				Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
			}, noSDKRetries)
			return err
		})
		if err != nil {
			return b.wrap("delete", batch[0], err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("s3 backend: delete %s: %s: %s (and %d more failures)",
				b.url(aws.ToString(e.Key)), aws.ToString(e.Code), aws.ToString(e.Message), len(out.Errors)-1)
		}
	}
	return nil
}

// objectKey checks a caller's relative key and returns the full key.
func (b *Backend) objectKey(key string) (string, error) {
	if key == "" || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") {
		return "", fmt.Errorf("s3 backend: object key %q must be a non-empty relative path", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Errorf("s3 backend: object key %q has an empty, \".\" or \"..\" segment", key)
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
		return fmt.Errorf("s3 backend: write %s: %w", b.url(full), err)
	}
	if _, err := b.put(ctx, full, sealed, cond{}); err != nil {
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
	o, err := b.get(ctx, full)
	if isNotFound(err) {
		return nil, fmt.Errorf("s3 backend: %s: %w", b.url(full), statemgr.ErrNotFound)
	}
	if err != nil {
		return nil, b.wrap("read", full, err)
	}
	plain, err := statemgr.Open(ctx, b.opts.Codec, statemgr.ObjectLabel(key), o.data)
	if err != nil {
		return nil, fmt.Errorf("s3 backend: read %s: %w", b.url(full), err)
	}
	return plain, nil
}

// ListObjects returns the keys (relative to the backend's prefix) that start
// with prefix, sorted.
func (b *Backend) ListObjects(ctx context.Context, prefix string) ([]string, error) {
	if strings.HasPrefix(prefix, "/") {
		return nil, fmt.Errorf("s3 backend: object prefix %q must be relative", prefix)
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
