package s3_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	s3b "github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
)

// fakeAPI is a hand-written fake: each call goes to its function field.
type fakeAPI struct {
	put  func(*awss3.PutObjectInput) (*awss3.PutObjectOutput, error)
	get  func(*awss3.GetObjectInput) (*awss3.GetObjectOutput, error)
	del  func(*awss3.DeleteObjectInput) (*awss3.DeleteObjectOutput, error)
	list func(*awss3.ListObjectsV2Input) (*awss3.ListObjectsV2Output, error)
}

func (f *fakeAPI) PutObject(_ context.Context, in *awss3.PutObjectInput, _ ...func(*awss3.Options)) (*awss3.PutObjectOutput, error) {
	return f.put(in)
}
func (f *fakeAPI) GetObject(_ context.Context, in *awss3.GetObjectInput, _ ...func(*awss3.Options)) (*awss3.GetObjectOutput, error) {
	return f.get(in)
}
func (f *fakeAPI) DeleteObject(_ context.Context, in *awss3.DeleteObjectInput, _ ...func(*awss3.Options)) (*awss3.DeleteObjectOutput, error) {
	return f.del(in)
}
func (f *fakeAPI) DeleteObjects(context.Context, *awss3.DeleteObjectsInput, ...func(*awss3.Options)) (*awss3.DeleteObjectsOutput, error) {
	return &awss3.DeleteObjectsOutput{}, nil
}
func (f *fakeAPI) ListObjectsV2(_ context.Context, in *awss3.ListObjectsV2Input, _ ...func(*awss3.Options)) (*awss3.ListObjectsV2Output, error) {
	return f.list(in)
}

// s3Error is what the SDK returns for an S3 error response.
func s3Error(status int, code string) error {
	return &awshttp.ResponseError{ResponseError: &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: status}},
		Err:      &smithy.GenericAPIError{Code: code, Message: "message text is never branched on"},
	}}
}

func failing(err error) *fakeAPI {
	return &fakeAPI{
		put:  func(*awss3.PutObjectInput) (*awss3.PutObjectOutput, error) { return nil, err },
		get:  func(*awss3.GetObjectInput) (*awss3.GetObjectOutput, error) { return nil, err },
		del:  func(*awss3.DeleteObjectInput) (*awss3.DeleteObjectOutput, error) { return nil, err },
		list: func(*awss3.ListObjectsV2Input) (*awss3.ListObjectsV2Output, error) { return nil, err },
	}
}

// Error responses are classified by code and status, whatever the server's
// wording; an unknown 404 is never mistaken for "no state yet".
func TestErrorClassification(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want error
		msg  string
	}{
		{"no such bucket", s3Error(404, "NoSuchBucket"), s3b.ErrBucketNotFound, `s3 backend: bucket "acme-infra" does not exist (region eu-central-1, endpoint AWS default)`},
		{"access denied", s3Error(403, "AccessDenied"), s3b.ErrAccessDenied, "s3 backend: access denied to read state s3://acme-infra/prod/state.prod.json (check the credentials and the bucket policy)"},
		{"bare 403", s3Error(403, ""), s3b.ErrAccessDenied, "access denied to read state"},
		{"permanent redirect", s3Error(301, "PermanentRedirect"), s3b.ErrWrongRegion, `s3 backend: bucket "acme-infra" is in another region than eu-central-1`},
		{"bare 301", s3Error(301, ""), s3b.ErrWrongRegion, "another region"},
		{"authorization header malformed", s3Error(400, "AuthorizationHeaderMalformed"), s3b.ErrWrongRegion, "another region"},
		{"unknown 404", s3Error(404, "SomethingElse"), nil, "s3 backend: read state s3://acme-infra/prod/state.prod.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := s3b.NewWithClient(failing(tc.err), s3b.Config{Bucket: "acme-infra", Prefix: "prod", Region: "eu-central-1"}, "prod",
				s3b.Options{Getenv: func(string) string { return "" }})
			if err != nil {
				t.Fatal(err)
			}
			f, err := b.Read(t.Context())
			if err == nil {
				t.Fatalf("Read = %v, nil error; want an error", f)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Read error = %v, want one wrapping %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("message %q does not contain %q", err, tc.msg)
			}
		})
	}
}

// With KMSKeyID set every object is written with SSE-KMS under that key;
// without, no encryption header is sent.
func TestKMSEncryption(t *testing.T) {
	t.Parallel()
	for _, kms := range []string{"", "arn:aws:kms:eu-central-1:123456789012:key/abcd"} {
		var puts []*awss3.PutObjectInput
		api := failing(s3Error(404, "NoSuchKey"))
		api.put = func(in *awss3.PutObjectInput) (*awss3.PutObjectOutput, error) {
			puts = append(puts, in)
			return &awss3.PutObjectOutput{ETag: aws.String(`"e"`)}, nil
		}
		api.list = func(*awss3.ListObjectsV2Input) (*awss3.ListObjectsV2Output, error) {
			return &awss3.ListObjectsV2Output{}, nil
		}
		b, err := s3b.NewWithClient(api, s3b.Config{Bucket: "b", KMSKeyID: kms}, "", s3b.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f := statemgrtest.NewState("lin", 1, "x")
		must(t, b.Write(t.Context(), f, statemgr.WriteOptions{}))
		_, err = b.Backup(t.Context(), f)
		must(t, err)
		must(t, b.PutObject(t.Context(), "plans/prod/1.json", []byte("{}")))
		type sse struct{ Alg, Key string }
		want := sse{}
		if kms != "" {
			want = sse{"aws:kms", kms}
		}
		for _, in := range puts {
			got := sse{string(in.ServerSideEncryption), aws.ToString(in.SSEKMSKeyId)}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("put %s encryption (-want +got):\n%s", aws.ToString(in.Key), d)
			}
		}
		if len(puts) != 3 {
			t.Errorf("%d puts, want 3", len(puts))
		}
	}
}

// A write whose first attempt landed but whose answer was lost (the SDK's
// retry then gets 412) is not reported as a conflict: the stored bytes are
// ours.
func TestWriteRetryThatLandedIsNotAConflict(t *testing.T) {
	t.Parallel()
	var stored []byte
	api := failing(s3Error(404, "NoSuchKey"))
	api.put = func(in *awss3.PutObjectInput) (*awss3.PutObjectOutput, error) {
		stored, _ = io.ReadAll(in.Body)
		return nil, s3Error(412, "PreconditionFailed")
	}
	api.get = func(*awss3.GetObjectInput) (*awss3.GetObjectOutput, error) {
		if stored == nil {
			return nil, s3Error(404, "NoSuchKey")
		}
		return &awss3.GetObjectOutput{Body: io.NopCloser(strings.NewReader(string(stored))), ETag: aws.String(`"x"`)}, nil
	}
	b, _ := s3b.NewWithClient(api, s3b.Config{Bucket: "b"}, "", s3b.Options{})
	if err := b.Write(t.Context(), statemgrtest.NewState("lin", 1), statemgr.WriteOptions{}); err != nil {
		t.Errorf("Write = %v, want success (the stored bytes are ours)", err)
	}
}

// memAPI is an in-memory S3 whose answers can be lost after the work is
// done: lose(op) makes the next call of op land and then fail as a dropped
// connection would.
type memAPI struct {
	fakeAPI
	objects map[string][]byte
	losing  map[string]int
	failing map[string]int // the next n calls of op fail before doing anything
	failErr error          // what they fail with (nil: a 503 SlowDown)
	calls   map[string]int
}

func newMemAPI() *memAPI {
	m := &memAPI{objects: map[string][]byte{}, losing: map[string]int{}, failing: map[string]int{}, calls: map[string]int{}}
	lost := func(op string) error {
		m.calls[op]++
		if m.losing[op] > 0 {
			m.losing[op]--
			return fmt.Errorf("connection broken: %w", io.ErrUnexpectedEOF)
		}
		return nil
	}
	etag := func(data []byte) *string { return aws.String(fmt.Sprintf(`"%x"`, sha256.Sum256(data))) }
	m.put = func(in *awss3.PutObjectInput) (*awss3.PutObjectOutput, error) {
		if m.failing["put"] > 0 {
			m.failing["put"]--
			m.calls["put"]++
			if m.failErr != nil {
				return nil, m.failErr
			}
			return nil, s3Error(503, "SlowDown")
		}
		key := aws.ToString(in.Key)
		cur, exists := m.objects[key]
		if (in.IfNoneMatch != nil && exists) || (in.IfMatch != nil && (!exists || *etag(cur) != aws.ToString(in.IfMatch))) {
			m.calls["put"]++
			return nil, s3Error(412, "PreconditionFailed")
		}
		data, _ := io.ReadAll(in.Body)
		m.objects[key] = data
		if err := lost("put"); err != nil {
			return nil, err
		}
		return &awss3.PutObjectOutput{ETag: etag(data)}, nil
	}
	m.get = func(in *awss3.GetObjectInput) (*awss3.GetObjectOutput, error) {
		data, ok := m.objects[aws.ToString(in.Key)]
		if !ok {
			return nil, s3Error(404, "NoSuchKey")
		}
		return &awss3.GetObjectOutput{Body: io.NopCloser(bytes.NewReader(data)), ETag: etag(data), ContentLength: aws.Int64(int64(len(data)))}, nil
	}
	m.del = func(in *awss3.DeleteObjectInput) (*awss3.DeleteObjectOutput, error) {
		key := aws.ToString(in.Key)
		cur, exists := m.objects[key]
		if !exists {
			m.calls["delete"]++
			return nil, s3Error(404, "NoSuchKey")
		}
		if in.IfMatch != nil && *etag(cur) != aws.ToString(in.IfMatch) {
			m.calls["delete"]++
			return nil, s3Error(412, "PreconditionFailed")
		}
		delete(m.objects, key)
		if err := lost("delete"); err != nil {
			return nil, err
		}
		return &awss3.DeleteObjectOutput{}, nil
	}
	m.list = func(in *awss3.ListObjectsV2Input) (*awss3.ListObjectsV2Output, error) {
		out := &awss3.ListObjectsV2Output{}
		for k := range m.objects {
			if strings.HasPrefix(k, aws.ToString(in.Prefix)) {
				out.Contents = append(out.Contents, types.Object{Key: aws.String(k)})
			}
		}
		return out, nil
	}
	return m
}

// Every write whose answer is lost after it landed is recognised on the
// retry as Kyku's own: one backup (not two), one journal entry, the lock
// taken and released, the state written: no error, nothing duplicated.
func TestLostAnswersAreRecognised(t *testing.T) {
	t.Parallel()
	m := newMemAPI()
	b, err := s3b.NewWithClient(m, s3b.Config{Bucket: "b", Prefix: "p"}, "prod", s3b.Options{RetryBase: time.Millisecond, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	m.losing["put"] = 1
	l, err := b.Lock(ctx, statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatalf("Lock after a lost answer: %v", err)
	}
	f := statemgrtest.NewState("lin", 1, "web")
	m.losing["put"] = 1
	if _, err := b.Backup(ctx, f); err != nil {
		t.Fatalf("Backup after a lost answer: %v", err)
	}
	if list, _ := b.ListBackups(ctx); len(list) != 1 {
		t.Errorf("%d backups after one Backup whose answer was lost, want 1", len(list))
	}
	m.losing["put"] = 1
	if err := b.Append(ctx, state.Entry{Seq: 1, Lineage: "lin", Op: state.OpPut, Name: "web", Resource: statemgrtest.NewResource("web", 1)}); err != nil {
		t.Fatalf("Append after a lost answer: %v", err)
	}
	m.losing["put"] = 1
	if err := b.Write(ctx, f, statemgr.WriteOptions{}); err != nil {
		t.Fatalf("Write after a lost answer: %v", err)
	}
	m.losing["delete"] = 1
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("Unlock after a lost answer: %v", err)
	}
	if _, ok := m.objects["p/state.prod.json.lock"]; ok {
		t.Error("lock object left behind")
	}
	if m.calls["put"] < 8 {
		t.Errorf("%d puts: the lost answers were not retried", m.calls["put"])
	}
}

// TestPutRetriedThroughAParentDirectoryRace: an S3-compatible gateway
// that keeps keys as files (versitygw's posix backend) removes the parent
// directories a delete leaves empty, and answers a put that meets such a
// removal (its mkdir of the parents, or its link into one, finding it
// gone) with a 409 ExistingObjectIsDirectory, having stored nothing: the
// put is attempted again, as for a 503. S3 itself never answers so.
func TestPutRetriedThroughAParentDirectoryRace(t *testing.T) {
	t.Parallel()
	m := newMemAPI()
	b, err := s3b.NewWithClient(m, s3b.Config{Bucket: "b"}, "", s3b.Options{RetryBase: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m.failing["put"], m.failErr = 2, s3Error(409, "ExistingObjectIsDirectory")
	if err := b.Write(t.Context(), statemgrtest.NewState("lin", 1), statemgr.WriteOptions{}); err != nil {
		t.Fatalf("Write through two 409 ExistingObjectIsDirectory: %v", err)
	}
	if m.calls["put"] < 3 {
		t.Errorf("%d puts, want at least 3 (2 refused, then ours)", m.calls["put"])
	}
}

// Taking the lock rides out far more than the SDK's three attempts, within
// --lock-timeout; when the failures outlast it, the error says so.
func TestLockRetriesWithinLockTimeout(t *testing.T) {
	t.Parallel()
	m := newMemAPI()
	b, err := s3b.NewWithClient(m, s3b.Config{Bucket: "b"}, "", s3b.Options{RetryBase: time.Millisecond, LockTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	m.failing["put"] = 12
	l, err := b.Lock(t.Context(), statemgrtest.NewLockInfo("apply"))
	if err != nil {
		t.Fatalf("Lock through 12 SlowDowns: %v", err)
	}
	if m.calls["put"] < 13 {
		t.Errorf("%d puts, want 13 (12 refused, then ours)", m.calls["put"])
	}
	_ = l.Unlock(t.Context())

	m2 := newMemAPI()
	m2.failing["put"] = 1 << 30
	short, _ := s3b.NewWithClient(m2, s3b.Config{Bucket: "b"}, "", s3b.Options{RetryBase: time.Millisecond, LockTimeout: 200 * time.Millisecond, AttemptTimeout: 100 * time.Millisecond})
	_, err = short.Lock(t.Context(), statemgrtest.NewLockInfo("apply"))
	var rb *s3b.RetryBudgetError
	if !errors.As(err, &rb) || rb.Attempts < 4 || !strings.Contains(err.Error(), "SlowDown") {
		t.Errorf("Lock through endless SlowDowns = %v; want a RetryBudgetError after several attempts naming the last error", err)
	}
}
