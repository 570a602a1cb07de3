package s3

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/kyku/action/internal/statemgr/objstore"
)

// bucket is objstore's Bucket on one S3 bucket: conditional requests with
// ETags, every call retried within its budget (retry.go).
type bucket struct {
	api      API
	name     string
	kmsKeyID string // SSE-KMS key for every put, when set
	unlocked bool   // Config.Unlocked: preconditions are not sent
	region   string // for messages
	where    string // endpoint, for messages
	retry    objstore.Retry
}

func (s *bucket) url(key string) string { return "s3://" + s.name + "/" + key }

// Get fetches key, retrying transient errors within the operation's budget.
func (s *bucket) Get(ctx context.Context, key string) (objstore.Object, error) {
	var o objstore.Object
	_, err := s.call(ctx, "read", key, func(ctx context.Context) error {
		out, err := s.api.GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(s.name), Key: aws.String(key)}, noSDKRetries)
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
		o = objstore.Object{Data: data, Version: objstore.Version(aws.ToString(out.ETag)), Modified: aws.ToTime(out.LastModified)}
		return nil
	})
	return o, classify(err)
}

// Put writes data at key under c (If-None-Match: * / If-Match: <ETag>) and
// returns the new ETag, retrying transient errors within the operation's
// budget.
func (s *bucket) Put(ctx context.Context, key string, data []byte, c objstore.Cond) (objstore.Version, error) {
	var etag string
	_, err := s.call(ctx, "write", key, func(ctx context.Context) error {
		in := &awss3.PutObjectInput{
			Bucket:        aws.String(s.name),
			Key:           aws.String(key),
			Body:          bytes.NewReader(data),
			ContentLength: aws.Int64(int64(len(data))),
			ContentType:   aws.String("application/json"),
		}
		if s.kmsKeyID != "" {
			in.ServerSideEncryption = types.ServerSideEncryptionAwsKms
			in.SSEKMSKeyId = aws.String(s.kmsKeyID)
		}
		if c.IfAbsent && !s.unlocked {
			in.IfNoneMatch = aws.String("*")
		}
		if c.IfMatch != "" && !s.unlocked {
			in.IfMatch = aws.String(string(c.IfMatch))
		}
		out, err := s.api.PutObject(ctx, in, noSDKRetries)
		if err != nil {
			return err
		}
		etag = aws.ToString(out.ETag)
		return nil
	})
	return objstore.Version(etag), classify(err)
}

// Delete removes key only while its ETag is v (If-Match). ambiguous is
// true when a retried attempt may have landed before the last one failed.
func (s *bucket) Delete(ctx context.Context, key string, v objstore.Version) (ambiguous bool, err error) {
	out, err := s.call(ctx, "delete", key, func(ctx context.Context) error {
		in := &awss3.DeleteObjectInput{Bucket: aws.String(s.name), Key: aws.String(key)}
		if !s.unlocked {
			in.IfMatch = aws.String(string(v))
		}
		_, err := s.api.DeleteObject(ctx, in, noSDKRetries)
		return err
	})
	return out.Ambiguous, classify(err)
}

// List returns the full keys under prefix, sorted, following pagination.
func (s *bucket) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	in := &awss3.ListObjectsV2Input{Bucket: aws.String(s.name), Prefix: aws.String(prefix)}
	for {
		var out *awss3.ListObjectsV2Output
		_, err := s.call(ctx, "list", prefix, func(ctx context.Context) error {
			var err error
			out, err = s.api.ListObjectsV2(ctx, in, noSDKRetries)
			return err
		})
		if err != nil {
			return nil, s.explain("list", prefix, err)
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

// DeleteAll removes keys in batches of deleteBatchSize.
func (s *bucket) DeleteAll(ctx context.Context, keys []string) error {
	for start := 0; start < len(keys); start += deleteBatchSize {
		batch := keys[start:min(start+deleteBatchSize, len(keys))]
		ids := make([]types.ObjectIdentifier, len(batch))
		for i, k := range batch {
			ids[i] = types.ObjectIdentifier{Key: aws.String(k)}
		}
		// Deleting a missing key succeeds: a retry after a lost answer is
		// harmless.
		var out *awss3.DeleteObjectsOutput
		_, err := s.call(ctx, "delete", batch[0], func(ctx context.Context) error {
			var err error
			out, err = s.api.DeleteObjects(ctx, &awss3.DeleteObjectsInput{
				Bucket: aws.String(s.name),
				Delete: &types.Delete{Objects: ids, Quiet: aws.Bool(true)},
			}, noSDKRetries)
			return err
		})
		if err != nil {
			return s.explain("delete", batch[0], err)
		}
		if len(out.Errors) > 0 {
			e := out.Errors[0]
			return fmt.Errorf("s3 backend: delete %s: %s: %s (and %d more failures)",
				s.url(aws.ToString(e.Key)), aws.ToString(e.Code), aws.ToString(e.Message), len(out.Errors)-1)
		}
	}
	return nil
}
