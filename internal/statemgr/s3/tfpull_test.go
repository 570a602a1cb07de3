package s3_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTerraformS3Pull: kyku state pull on an s3 state prints what tofu
// 1.12.6's state pull prints: the state OpenTofu stored, compact, and a
// newline, its terraform_version tofu's own (OpenTofu rebuilds a remote
// state before printing it); no state prints an empty one, no lineage.
func TestTerraformS3Pull(t *testing.T) {
	needServer(t)
	bucket := newBucket(t)
	key := "env:/staging/net/terraform.tfstate"
	b := newTerraform(t, bucket, "staging")
	got, err := b.Pull(t.Context())
	want := `{"version":4,"terraform_version":"1.12.6","serial":0,"lineage":"","outputs":{},"resources":[],"check_results":null}` + "\n\n"
	if err != nil || string(got) != want {
		t.Errorf("no state: %q, %v; want %q", got, err, want)
	}
	stored := string(recorded(t, "counts"))
	rawPut(t, bucket, key, []byte(strings.Replace(stored, `"terraform_version":"1.12.6"`, `"terraform_version":"1.9.0"`, 1)))
	got, err = b.Pull(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(stored+"\n", string(got)); d != "" {
		t.Errorf("pull (-want +got):\n%s", d)
	}
}
