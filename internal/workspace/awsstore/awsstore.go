// Package awsstore is workspace.AWS: the s3 and spaces backends, a
// Terraform root's s3 backend and aws-kms keys, which need the AWS SDK.
// Every program that may open them passes a Store in workspace.Settings
// (the Action, the bot, kyku-engine, the public Go package); the kyku
// executable does not link it (docs/architecture.md, "Two executables").
// A Store holds no state; it is safe for concurrent use.
package awsstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/crypt"
	"github.com/kyku/action/internal/statemgr/crypt/awskms"
	"github.com/kyku/action/internal/statemgr/s3"
	"github.com/kyku/action/internal/statemgr/spaces"
	"github.com/kyku/action/internal/statemgr/tflayout"
	"github.com/kyku/action/internal/workspace"
)

// Store opens AWS stores with the SDK's default credential chain, or with
// Credentials for aws-kms keys and a Terraform root's s3 state when set
// (the bot passes a tenant's assumed role).
type Store struct {
	Credentials aws.CredentialsProvider
}

var _ workspace.AWS = Store{}

func getenv(s workspace.Settings) func(string) string {
	if s.Getenv == nil {
		return func(string) string { return "" }
	}
	return s.Getenv
}

// Backend opens the s3 or spaces backend bc.
func (Store) Backend(ctx context.Context, bc *config.Backend, codec statemgr.Codec, s workspace.Settings) (statemgr.Backend, error) {
	opts := s3.Options{
		LockTimeout: s.LockTimeout, StaleAfter: s.StaleAfter, Heartbeat: s.Heartbeat,
		PollInterval: s.PollInterval, Getenv: getenv(s), Codec: codec,
	}
	switch bc.Type {
	case "s3":
		b, err := s3.New(ctx, s3.Config{
			Bucket: bc.Bucket, Prefix: strings.Trim(bc.Prefix, "/"), Region: bc.Region, Endpoint: bc.Endpoint,
			UsePathStyle: bc.UsePathStyle, KMSKeyID: bc.KMSKeyID, BackupRetention: bc.BackupRetention,
		}, s.Env, opts)
		if err != nil {
			return nil, fmt.Errorf("open s3 backend: %w", err)
		}
		return b, nil
	case "spaces":
		b, err := spaces.New(ctx, spaces.Config{
			Bucket: bc.Bucket, Region: bc.Region, Prefix: strings.Trim(bc.Prefix, "/"), Endpoint: bc.Endpoint,
			UsePathStyle: bc.UsePathStyle, Lock: bc.Lock == nil || *bc.Lock, BackupRetention: bc.BackupRetention,
		}, s.Env, getenv(s), opts)
		if err != nil {
			return nil, fmt.Errorf("open spaces backend: %w", err)
		}
		return b, nil
	}
	return nil, fmt.Errorf("open backend: %q is not an AWS backend", bc.Type)
}

// Default is the store with the SDK's default credential chain.
func (Store) Default() workspace.AWS { return Store{} }

// TerraformS3 opens a Terraform root's s3 backend, with st.Credentials
// when set.
func (st Store) TerraformS3(ctx context.Context, c workspace.TerraformS3, lay tflayout.Options, s workspace.Settings) (*tflayout.Backend, error) {
	return s3.NewTerraform(ctx, s3.TerraformConfig{
		Bucket: c.Bucket, Key: c.Key, Region: c.Region, Endpoint: c.Endpoint,
		UsePathStyle: c.UsePathStyle, UseLockfile: c.UseLockfile,
		DynamoDBTable: c.DynamoDBTable, KMSKeyID: c.KMSKeyID, WorkspaceKeyPrefix: c.WorkspaceKeyPrefix,
	}, s.Env, lay, s3.Options{PollInterval: s.PollInterval, Getenv: getenv(s), Credentials: st.Credentials})
}

// KMSKey is the aws-kms key e names, in e.Region or the SDK's.
func (st Store) KMSKey(ctx context.Context, e *config.Encryption, _ workspace.Settings) (crypt.Key, error) {
	var load []func(*awsconfig.LoadOptions) error
	if e.Region != "" {
		load = append(load, awsconfig.WithRegion(e.Region))
	}
	if st.Credentials != nil {
		load = append(load, awsconfig.WithCredentialsProvider(st.Credentials))
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx, load...)
	if err != nil {
		return nil, fmt.Errorf("%s: encryption key aws-kms: load AWS configuration: %w", e.Pos, err)
	}
	if awsCfg.Region == "" {
		return nil, fmt.Errorf("%s: encryption key aws-kms %s: no region: set encryption.region or AWS_REGION", e.Pos, e.KeyID)
	}
	return awskms.New(kms.NewFromConfig(awsCfg), e.KeyID), nil
}
