package s3_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/google/go-cmp/cmp"

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
			f, err := b.Read(context.Background())
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
		must(t, b.Write(context.Background(), f, statemgr.WriteOptions{}))
		_, err = b.Backup(context.Background(), f)
		must(t, err)
		must(t, b.PutObject(context.Background(), "plans/prod/1.json", []byte("{}")))
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
	if err := b.Write(context.Background(), statemgrtest.NewState("lin", 1), statemgr.WriteOptions{}); err != nil {
		t.Errorf("Write = %v, want success (the stored bytes are ours)", err)
	}
}
