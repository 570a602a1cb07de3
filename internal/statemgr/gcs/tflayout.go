package gcs

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/kyku/action/internal/statemgr/tflayout"
)

// TerraformConfig is OpenTofu's gcs backend block: the arguments Kyku
// reads. Credentials are Application Default Credentials, as New has them.
type TerraformConfig struct {
	Bucket string
	Prefix string
}

// prefix is Prefix as OpenTofu uses it: no leading slash.
func (c TerraformConfig) prefix() string { return strings.TrimLeft(c.Prefix, "/") }

// StateObject is where workspace's state is: <prefix>/<workspace>.tfstate,
// the default workspace's "default.tfstate"; LockObject its lock.
func (c TerraformConfig) StateObject(workspace string) string {
	return path.Join(c.prefix(), workspaceName(workspace)+".tfstate")
}

func (c TerraformConfig) LockObject(workspace string) string {
	return path.Join(c.prefix(), workspaceName(workspace)+".tflock")
}

func workspaceName(ws string) string {
	if ws == "" {
		return "default"
	}
	return ws
}

// NewTerraform builds the client as New does, then NewTerraformWithClient.
func NewTerraform(ctx context.Context, cfg TerraformConfig, workspace string, lay tflayout.Options, opts Options) (*tflayout.Backend, error) {
	if err := (Config{Bucket: cfg.Bucket}).validate(); err != nil {
		return nil, err
	}
	client, err := newClient(ctx, cfg.Bucket, opts)
	if err != nil {
		return nil, err
	}
	return NewTerraformWithClient(client, cfg, workspace, lay, opts)
}

// NewTerraformWithClient returns a backend on workspace's state in
// OpenTofu's gcs layout: the state at StateObject (compact, as OpenTofu
// writes it), written on the generation read; the lock the object
// LockObject created with ifGenerationMatch=0 holding OpenTofu's lock body,
// its ID its generation (as OpenTofu's, so that either's force-unlock
// takes the other's ID); Kyku's additions under <state object>.kyku/ (a
// Backend of this package there, with opts).
func NewTerraformWithClient(client *Client, cfg TerraformConfig, workspace string, lay tflayout.Options, opts Options) (*tflayout.Backend, error) {
	if err := (Config{Bucket: cfg.Bucket}).validate(); err != nil {
		return nil, err
	}
	if client == nil {
		return nil, errors.New("gcs backend: nil client")
	}
	if opts.Codec != nil {
		return nil, errors.New("gcs backend: kyku's state encryption is not for a Terraform state (OpenTofu could not read it); remove \"encryption:\"")
	}
	if workspace == "default" {
		workspace = ""
	}
	if strings.Contains(workspace, "/") {
		return nil, fmt.Errorf("gcs backend: workspace name %q has a slash", workspace)
	}
	obj := cfg.StateObject(workspace)
	kb, err := NewWithClient(client, Config{Bucket: cfg.Bucket, Prefix: obj + ".kyku"}, workspace, opts)
	if err != nil {
		return nil, err
	}
	lockObj := cfg.LockObject(workspace)
	slot := &tflayout.ObjectSlot{
		Bucket: newBucket(client, cfg.Bucket, opts), Key: obj, LockKey: lockObj, IDIsVersion: true,
		URL: "gs://" + cfg.Bucket + "/" + obj, LockName: "gs://" + cfg.Bucket + "/" + lockObj,
	}
	lay.Workspace, lay.Name = workspace, "gcs"
	lay = lay.WithDefaults(opts.Now, opts.Hostname, opts.PID)
	return tflayout.New(slot, kb, lay), nil
}
