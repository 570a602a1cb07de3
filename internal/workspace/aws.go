package workspace

import (
	"context"
	"fmt"

	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/crypt"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// AWS opens the stores that need the AWS SDK: the s3 and spaces backends,
// a Terraform root's s3 backend and aws-kms keys. It is a field of
// Settings, not an import, so that a program that does not use them does
// not link the SDK and pay its initialisation at every start (the kyku
// executable; docs/architecture.md, "Two executables"). Package
// workspace/awsstore implements it; every program that opens such stores
// passes it (the Action, the bot, kyku-engine).
type AWS interface {
	// Backend opens the backend bc of type "s3" or "spaces".
	Backend(ctx context.Context, bc *config.Backend, codec statemgr.Codec, s Settings) (statemgr.Backend, error)
	// TerraformS3 opens a Terraform root's s3 backend.
	TerraformS3(ctx context.Context, cfg TerraformS3, lay tflayout.Options, s Settings) (*tflayout.Backend, error)
	// KMSKey is the aws-kms key e names.
	KMSKey(ctx context.Context, e *config.Encryption, s Settings) (crypt.Key, error)
	// Default is this store with the environment's credentials only,
	// not a role handed to it (what terraform_remote_state reads with).
	Default() AWS
}

// TerraformS3 is what Kyku reads of a Terraform s3 backend's arguments.
type TerraformS3 struct {
	Bucket, Key, Region, Endpoint string
	UsePathStyle, UseLockfile     bool
	DynamoDBTable, KMSKeyID       string
	// WorkspaceKeyPrefix is nil when not given (OpenTofu's "env:").
	WorkspaceKeyPrefix *string
}

// NotLinkedError: what a configuration uses needs a library this program
// does not link (Settings.AWS is nil).
type NotLinkedError struct {
	What, Library string
}

func (e *NotLinkedError) Error() string {
	return fmt.Sprintf("%s needs the %s, which this program does not link (kyku-engine, installed beside kyku, does: install Kyku as docs/install.md says)", e.What, e.Library)
}

// aws is s.AWS, or an error naming what needed it.
func (s Settings) aws(what string) (AWS, error) {
	if s.AWS == nil {
		return nil, &NotLinkedError{What: what, Library: "AWS SDK"}
	}
	return s.AWS, nil
}
