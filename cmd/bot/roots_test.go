package main

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/kyku/action/internal/bot"
	"github.com/kyku/action/internal/config"
	"github.com/kyku/action/internal/statemgr/s3/s3test"
	"github.com/kyku/action/internal/workspace"
)

// TestOpenerRefusesTerraformStateOnItsDisk: a Terraform root's local or
// http backend keeps Kyku's saved plans and backups on disk beside the
// root; the bot keeps nothing on its disk, so it refuses them (whatever
// the policy allowed) and names the backend block.
func TestOpenerRefusesTerraformStateOnItsDisk(t *testing.T) {
	open := opener(func(string) string { return "" }, t.TempDir())
	for _, typ := range []string{"", "local", "http"} {
		t.Run("type "+typ, func(t *testing.T) {
			ts := &workspace.TerraformState{Type: typ, Args: map[string]any{"address": "https://state.example/infra"}, Dir: t.TempDir(), Where: "infra/main.tf:2:3"}
			_, err := open(t.Context(), bot.Tenant{Repo: "acme/infra", Namespace: "repo.7", Terraform: ts}, &config.Config{}, "")
			if err == nil || !strings.Contains(err.Error(), "infra/main.tf:2:3: a Terraform root's") || !strings.Contains(err.Error(), "the bot opens a root's state in s3 or gcs") {
				t.Errorf("err = %v; want the refusal naming the block", err)
			}
		})
	}
}

// TestOpenerOpensATerraformRootsS3StateWithTheTenantsCredentials: a
// root's s3 state is read with the tenant's credentials (the role the
// policy grants its bucket, assumed for the repository) when it has
// them, not the bot's own: here the S3 server knows only the tenant's.
func TestOpenerOpensATerraformRootsS3StateWithTheTenantsCredentials(t *testing.T) {
	s := s3test.Require(t)
	bucket := s.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "bot-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "bot-secret")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	const key = "repo.7/infra/terraform.tfstate"
	if _, err := s.Client.PutObject(t.Context(), &awss3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: strings.NewReader(`{"version":4,"terraform_version":"1.12.6","serial":3,"lineage":"l-1","outputs":{},"resources":[]}`)}); err != nil {
		t.Fatal(err)
	}
	ts := &workspace.TerraformState{Type: "s3", Dir: t.TempDir(), Where: "infra/main.tf:2:3", Args: map[string]any{
		"bucket": bucket, "key": key, "region": s.Region, "endpoint": s.Endpoint, "use_path_style": true, "use_lockfile": true,
	}}
	open := opener(func(string) string { return "" }, t.TempDir())
	for _, tt := range []struct {
		name  string
		creds aws.CredentialsProvider
		ok    bool
	}{
		{"the tenant's", credentials.NewStaticCredentialsProvider(s.Access, s.Secret, ""), true},
		{"the bot's own", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := open(t.Context(), bot.Tenant{Repo: "acme/infra", Namespace: "repo.7", Terraform: ts, Credentials: tt.creds}, &config.Config{}, "")
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			f, err := ws.Backend.Read(t.Context())
			if got := err == nil && f != nil && f.Metadata.Serial == 3; got != tt.ok {
				t.Errorf("read the state (serial 3): %v, err %v; want %v", got, err, tt.ok)
			}
		})
	}
}
