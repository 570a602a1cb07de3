package spaces

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/kyku/action/internal/statemgr/s3"
)

// Config is the backend section of kyku.yaml (type spaces).
type Config struct {
	Bucket, Region, Prefix string
	Endpoint               string // "" → https://<region>.digitaloceanspaces.com
	UsePathStyle           bool
	// Lock false runs without a lock (and without conditional writes).
	Lock            bool
	BackupRetention int
}

// ErrNoConditionalWrites is wrapped by New when the endpoint does not
// enforce the conditional writes the lock relies on.
var ErrNoConditionalWrites = errors.New("conditional writes not enforced")

// Endpoint is the Spaces endpoint of a region.
func Endpoint(region string) string { return "https://" + region + ".digitaloceanspaces.com" }

// New builds the S3 client for Spaces (keys from getenv) and the backend.
func New(ctx context.Context, cfg Config, env string, getenv func(string) string, opts s3.Options) (*s3.Backend, error) {
	endpoint := cfg.Endpoint
	if endpoint == "" {
		if cfg.Region == "" {
			return nil, errors.New("spaces backend: region is required (e.g. nyc3, fra1)")
		}
		endpoint = Endpoint(cfg.Region)
	}
	id, secret := getenv("SPACES_ACCESS_KEY_ID"), getenv("SPACES_SECRET_ACCESS_KEY")
	if id == "" && secret == "" {
		id, secret = getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	}
	if id == "" || secret == "" {
		return nil, errors.New("spaces backend: no Spaces keys: set SPACES_ACCESS_KEY_ID and SPACES_SECRET_ACCESS_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) to a Spaces access key")
	}
	client := awss3.New(awss3.Options{
		// Spaces takes SigV4 with any region name; us-east-1 is what its
		// SDK examples use.
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint), UsePathStyle: cfg.UsePathStyle,
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, ""),
		// Spaces rejects the SDK's optional checksums (AWS SDKs from 2025 on).
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		Retryer:                    aws.NopRetryer{},
	})
	return NewWithClient(ctx, client, cfg, endpoint, env, opts)
}

// NewWithClient checks that api enforces conditional writes (unless
// cfg.Lock is false) and returns the backend on it.
func NewWithClient(ctx context.Context, api s3.API, cfg Config, endpoint, env string, opts s3.Options) (*s3.Backend, error) {
	s3cfg := s3.Config{Bucket: cfg.Bucket, Prefix: cfg.Prefix, Region: cfg.Region, Endpoint: endpoint,
		UsePathStyle: cfg.UsePathStyle, BackupRetention: cfg.BackupRetention, Unlocked: !cfg.Lock}
	if cfg.Lock {
		if err := probe(ctx, api, cfg.Bucket, strings.Trim(cfg.Prefix, "/")); err != nil {
			if errors.Is(err, ErrNoConditionalWrites) {
				return nil, fmt.Errorf("spaces backend: %s: %w; Kyku's lock relies on them and will not run unlocked unless the backend says lock: false (then make sure only one run at a time touches this state)", endpoint, err)
			}
			return nil, fmt.Errorf("spaces backend: check conditional writes on %s: %w", endpoint, err)
		}
	}
	b, err := s3.NewWithClient(api, s3cfg, env, opts)
	if err != nil {
		return nil, fmt.Errorf("spaces backend: %w", err)
	}
	return b, nil
}

// probe writes a probe object and checks that create-if-absent and
// overwrite-if-ETag are refused when they must be.
func probe(ctx context.Context, api s3.API, bucket, prefix string) error {
	tok := make([]byte, 8)
	_, _ = rand.Read(tok)
	key := ".kyku-probe/" + hex.EncodeToString(tok)
	if prefix != "" {
		key = prefix + "/" + key
	}
	put := func(c func(*awss3.PutObjectInput)) error {
		in := &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader([]byte("probe")), ContentLength: aws.Int64(5)}
		c(in)
		_, err := api.PutObject(ctx, in)
		return err
	}
	if err := put(func(in *awss3.PutObjectInput) { in.IfNoneMatch = aws.String("*") }); err != nil {
		if refusedAsUnsupported(err) {
			return fmt.Errorf("%w: If-None-Match was refused as unsupported (%v)", ErrNoConditionalWrites, err)
		}
		return err
	}
	defer func() {
		_, _ = api.DeleteObject(context.WithoutCancel(ctx), &awss3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	}()
	if err := put(func(in *awss3.PutObjectInput) { in.IfNoneMatch = aws.String("*") }); !is412(err) {
		return fmt.Errorf("%w: a second create-if-absent (If-None-Match: *) of an existing object was not refused (%v)", ErrNoConditionalWrites, err)
	}
	if err := put(func(in *awss3.PutObjectInput) { in.IfMatch = aws.String(`"00000000000000000000000000000000"`) }); !is412(err) {
		return fmt.Errorf("%w: an overwrite with a wrong If-Match ETag was not refused (%v)", ErrNoConditionalWrites, err)
	}
	return nil
}

func is412(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "PreconditionFailed" {
		return true
	}
	var re interface{ HTTPStatusCode() int }
	return errors.As(err, &re) && re.HTTPStatusCode() == 412
}

func refusedAsUnsupported(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "NotImplemented" || ae.ErrorCode() == "InvalidArgument") {
		return true
	}
	var re interface{ HTTPStatusCode() int }
	return errors.As(err, &re) && re.HTTPStatusCode() == 501
}
