package workspace_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/crypt/kmstest"
	"github.com/kyku/action/internal/statemgr/statemgrtest"
	"github.com/kyku/action/internal/workspace"
	"github.com/kyku/action/internal/workspace/awsstore"
)

// encryption: { key: aws-kms } reaches KMS through the SDK's own chain
// (here AWS_ENDPOINT_URL_KMS, a fake speaking KMS's JSON protocol): the
// state round-trips, GenerateDataKey is called once, and a reader with
// another KMS key is refused.
func TestKMSEncryptionThroughTheSDKChain(t *testing.T) {
	srv := kmstest.New(t)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_KMS": srv.URL, "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret",
		"AWS_CONFIG_FILE": filepath.Join(t.TempDir(), "none"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"),
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_REGION": "",
	} {
		t.Setenv(k, v)
	}
	ctx := t.Context()
	dir := t.TempDir()
	s := workspace.Settings{AWS: awsstore.Store{}, Env: "prod"}
	cfg := parse(t, "backend: { type: local, path: \""+dir+"\" }\nencryption: { key: aws-kms, keyId: alias/kyku-state, region: eu-central-1 }\nresources: {}\n")
	b, err := workspace.OpenConfigBackend(ctx, cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	want := statemgrtest.NewState("lin", 1, "web")
	if err := b.Write(ctx, want, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := b.Read(ctx)
	if err != nil || got.Metadata.Lineage != "lin" || len(got.Resources) != 1 {
		t.Fatalf("Read = %v, %v", got, err)
	}
	if n := srv.Calls("GenerateDataKey"); n != 1 {
		t.Errorf("GenerateDataKey called %d times, want 1", n)
	}
	other := parse(t, "backend: { type: local, path: \""+dir+"\" }\nencryption: { key: aws-kms, keyId: alias/another, region: eu-central-1 }\nresources: {}\n")
	b2, err := workspace.OpenConfigBackend(ctx, other, s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b2.Read(ctx); err == nil || !strings.Contains(err.Error(), "alias/kyku-state") {
		t.Errorf("Read with another KMS key: %v; want an error naming the key it was sealed with", err)
	}
	noRegion := parse(t, "encryption: { key: aws-kms, keyId: alias/kyku-state }\nresources: {}\n")
	if _, err := workspace.Codec(ctx, noRegion.Encryption, s); err == nil || !strings.Contains(err.Error(), "region") {
		t.Errorf("aws-kms without a region: %v", err)
	}
}
