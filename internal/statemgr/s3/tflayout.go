package s3

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kyku/action/internal/statemgr/tflayout"
)

// TerraformConfig is OpenTofu's s3 backend block: the arguments Kyku reads.
// It never holds credentials: those come from the SDK's default chain.
type TerraformConfig struct {
	Bucket       string
	Key          string
	Region       string
	Endpoint     string // endpoints.s3
	UsePathStyle bool
	// WorkspaceKeyPrefix is workspace_key_prefix; nil is OpenTofu's
	// default, "env:".
	WorkspaceKeyPrefix *string
	UseLockfile        bool
	DynamoDBTable      string
	KMSKeyID           string
}

// StateKey is where workspace's state is: Key for the default workspace,
// <workspace_key_prefix>/<workspace>/<key> for another.
func (c TerraformConfig) StateKey(workspace string) string {
	if workspace == "" || workspace == "default" {
		return c.Key
	}
	prefix := "env:"
	if c.WorkspaceKeyPrefix != nil {
		prefix = *c.WorkspaceKeyPrefix
	}
	return path.Join(prefix, workspace, c.Key)
}

// Check refuses what Kyku does not do with an s3 backend: DynamoDB
// locking, and a key OpenTofu refuses.
func (c TerraformConfig) Check() error {
	switch {
	case c.DynamoDBTable != "" && c.UseLockfile:
		return errors.New(`s3 backend: dynamodb_table is not supported: OpenTofu keeps the state's digest in the table, which kyku does not update; remove dynamodb_table and keep use_lockfile = true`)
	case c.DynamoDBTable != "":
		return errors.New(`s3 backend: DynamoDB locking (dynamodb_table) is not supported: lock with the lock file instead: use_lockfile = true, without dynamodb_table`)
	case c.Key == "":
		return errors.New("s3 backend: key is required")
	case strings.HasPrefix(c.Key, "/") || strings.HasSuffix(c.Key, "/"):
		return fmt.Errorf("s3 backend: key %q must not start or end with a slash", c.Key)
	case c.WorkspaceKeyPrefix != nil && (strings.HasPrefix(*c.WorkspaceKeyPrefix, "/") || strings.HasSuffix(*c.WorkspaceKeyPrefix, "/")):
		return fmt.Errorf("s3 backend: workspace_key_prefix %q must not start or end with a slash", *c.WorkspaceKeyPrefix)
	}
	return Config{Bucket: c.Bucket}.validate()
}

// NewTerraform builds the client as New does, then NewTerraformWithClient.
func NewTerraform(ctx context.Context, cfg TerraformConfig, workspace string, lay tflayout.Options, opts Options) (*tflayout.Backend, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	client, region, err := newClient(ctx, Config{Bucket: cfg.Bucket, Region: cfg.Region, Endpoint: cfg.Endpoint, UsePathStyle: cfg.UsePathStyle}, opts.Credentials)
	if err != nil {
		return nil, err
	}
	cfg.Region = region
	return NewTerraformWithClient(client, cfg, workspace, lay, opts)
}

// NewTerraformWithClient returns a backend on workspace's state in
// OpenTofu's s3 layout: the state at StateKey (compact, as OpenTofu writes
// it), written on the ETag read; with use_lockfile, the lock the object
// <state key>.tflock created with If-None-Match: * holding OpenTofu's lock
// body (without it, no lock, as OpenTofu takes none); Kyku's additions
// under <state key>.kyku/ (a Backend of this package there, with opts).
func NewTerraformWithClient(api API, cfg TerraformConfig, workspace string, lay tflayout.Options, opts Options) (*tflayout.Backend, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if opts.Codec != nil {
		return nil, errors.New("s3 backend: kyku's state encryption is not for a Terraform state (OpenTofu could not read it); remove \"encryption:\"")
	}
	if workspace == "default" {
		workspace = ""
	}
	key := cfg.StateKey(workspace)
	base := Config{Bucket: cfg.Bucket, Region: cfg.Region, Endpoint: cfg.Endpoint, UsePathStyle: cfg.UsePathStyle, KMSKeyID: cfg.KMSKeyID}
	aside := base
	aside.Prefix = key + ".kyku"
	kb, err := NewWithClient(api, aside, workspace, opts)
	if err != nil {
		return nil, err
	}
	slot := &tflayout.ObjectSlot{Bucket: newBucket(api, base, opts), Key: key, URL: "s3://" + cfg.Bucket + "/" + key, LockName: cfg.Bucket + "/" + key}
	if cfg.UseLockfile {
		slot.LockKey = key + ".tflock"
	}
	lay.Workspace, lay.Name = workspace, "s3"
	lay = lay.WithDefaults(opts.Now, opts.Hostname, opts.PID)
	return tflayout.New(slot, kb, lay), nil
}
