package s3test_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/statemgr/s3/s3test"
)

func TestMain(m *testing.M) { os.Exit(s3test.Main(m)) }

// TestKeepDirSurvivesDeletes: a directory KeepDir put stays when the last
// key under it is deleted (the server removes the directories a delete
// leaves empty, and so races a put beside it), as an implicit one does
// not.
func TestKeepDirSurvivesDeletes(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	s.KeepDir(t, bucket, "kept/")
	ctx := context.Background()
	for _, key := range []string{"kept/a/x", "loose/a/x"} {
		if _, err := s.Client.PutObject(ctx, &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader("x")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Client.DeleteObject(ctx, &awss3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
			t.Fatal(err)
		}
	}
	keys := s.Keys(t, bucket, "")
	if !slices.Contains(keys, "kept/") {
		t.Errorf("keys after the deletes %q: the kept directory is gone", keys)
	}
	if slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "loose/") }) {
		t.Errorf("keys after the deletes %q: want nothing left under loose/", keys)
	}
}
