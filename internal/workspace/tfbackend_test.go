package workspace_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// TestOpenTerraformBackend: where each backend's state is, from its
// arguments and the workspace (-e), as OpenTofu has it.
func TestOpenTerraformBackend(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		ts   workspace.TerraformState
		env  string
		want string
	}{
		{"no block", workspace.TerraformState{}, "", "local " + filepath.Join(dir, "terraform.tfstate")},
		{"a workspace", workspace.TerraformState{}, "staging", "local " + filepath.Join(dir, "terraform.tfstate.d", "staging", "terraform.tfstate")},
		{"path", workspace.TerraformState{Type: "local", Args: map[string]any{"path": "s/prod.tfstate"}}, "", "local " + filepath.Join(dir, "s", "prod.tfstate")},
		{"workspace_dir", workspace.TerraformState{Type: "local", Args: map[string]any{"workspace_dir": "ws"}}, "qa", "local " + filepath.Join(dir, "ws", "qa", "terraform.tfstate")},
		{"http from TF_HTTP_ADDRESS", workspace.TerraformState{Type: "http"}, "", "http https://state.example/roots/net"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.ts.Dir = dir
			env := map[string]string{"TF_HTTP_ADDRESS": "https://state.example/roots/net"}
			b, err := workspace.OpenTerraformBackend(t.Context(), &tt.ts, workspace.Settings{AWS: awsstore.Store{}, Env: tt.env, Getenv: func(k string) string { return env[k] }})
			if err != nil {
				t.Fatal(err)
			}
			if got := b.Describe(); got != tt.want {
				t.Errorf("%s, want %s", got, tt.want)
			}
		})
	}
}

// TestOpenTerraformBackendRefuses: what Kyku does not do with a backend
// is refused with one line naming the block and the argument.
func TestOpenTerraformBackendRefuses(t *testing.T) {
	for _, tt := range []struct {
		name string
		ts   workspace.TerraformState
		env  string
		want string
	}{
		{"a backend type", workspace.TerraformState{Type: "azurerm"}, "", `main.tf:2:3: backend "azurerm": backend type "azurerm" is not supported`},
		{"an unknown argument", workspace.TerraformState{Type: "local", Args: map[string]any{"bucket": "b"}}, "", `main.tf:2:3: backend "local": bucket: not an argument kyku reads`},
		{"DynamoDB locking", workspace.TerraformState{Type: "s3", Args: map[string]any{"bucket": "b", "key": "k", "region": "eu-west-1", "dynamodb_table": "locks"}}, "", "DynamoDB locking (dynamodb_table) is not supported"},
		{"an s3 profile", workspace.TerraformState{Type: "s3", Args: map[string]any{"bucket": "b", "key": "k", "profile": "ops"}}, "", "profile: kyku uses the AWS SDK's default credential chain"},
		{"a gcs key", workspace.TerraformState{Type: "gcs", Args: map[string]any{"bucket": "b", "encryption_key": "k"}}, "", "encryption_key: a customer-supplied encryption key is not supported"},
		{"a password in the file", workspace.TerraformState{Type: "http", Args: map[string]any{"address": "https://x", "password": "hunter2"}}, "", "password: a password in the configuration"},
		{"http workspaces", workspace.TerraformState{Type: "http", Args: map[string]any{"address": "https://x"}}, "prod", "the http backend has only the default workspace"},
		{"a bool that is not", workspace.TerraformState{Type: "s3", Args: map[string]any{"bucket": "b", "key": "k", "use_lockfile": "yes"}}, "", "use_lockfile: a bool (true or false) is required"},
		{"a workspace outside", workspace.TerraformState{}, "../x", "open backend"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.ts.Dir, tt.ts.Where = t.TempDir(), "main.tf:2:3"
			_, err := workspace.OpenTerraformBackend(t.Context(), &tt.ts, workspace.Settings{AWS: awsstore.Store{}, Env: tt.env})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("got %v, want one line with %q", err, tt.want)
			}
		})
	}
}

// TestOpenTerraformS3: the s3 backend's key, workspace_key_prefix,
// endpoints and use_lockfile: a workspace's state and its lock object
// where OpenTofu puts them.
func TestOpenTerraformS3(t *testing.T) {
	srv := s3test.Require(t)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v) // the SDK's default chain reads the process's environment
	}
	bucket := srv.NewBucket(t)
	ts := &workspace.TerraformState{Type: "s3", Dir: t.TempDir(), Args: map[string]any{
		"bucket": bucket, "key": "net/terraform.tfstate", "region": srv.Region, "endpoints": map[string]any{"s3": srv.Endpoint},
		"use_path_style": true, "use_lockfile": "true", "workspace_key_prefix": "envs",
	}}
	b, err := workspace.OpenTerraformBackend(t.Context(), ts, workspace.Settings{AWS: awsstore.Store{}, Env: "staging", LockTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Describe(), "s3 s3://"+bucket+"/envs/staging/net/terraform.tfstate"; got != want {
		t.Errorf("%s, want %s", got, want)
	}
	l, err := b.Lock(t.Context(), statemgr.LockInfo{Operation: "plan"})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock(t.Context())
	if keys := srv.Keys(t, bucket, "envs/"); !slices.Contains(keys, "envs/staging/net/terraform.tfstate.tflock") {
		t.Errorf("no lock object where OpenTofu looks for it: %v", keys)
	}
}
