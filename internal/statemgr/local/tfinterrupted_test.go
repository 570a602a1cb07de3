package local_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
)

// TestTerraformInterrupted: the creates an apply left interrupted are
// kept beside a Terraform state (the state itself unchanged, so OpenTofu
// reads it as it was) and read back; once OpenTofu wrote the state again
// they still are, but for an address it holds an object at.
func TestTerraformInterrupted(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "terraform.tfstate")
	put(t, path, recordedState(t, "lifecycle"))
	b := newTF(t, dir, "")
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st.Interrupted = map[string]string{"random_pet.base": "random_pet", "random_pet.more[0]": "random_pet"}
	st.Metadata.Serial++
	if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if string(get(t, path)) != string(recordedState(t, "lifecycle")) {
		t.Error("the Terraform state was written, though nothing in it changed")
	}
	got, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(st.Interrupted, got.Interrupted); d != "" {
		t.Errorf("read back (-written +read):\n%s", d)
	}
	pushed := strings.Replace(string(recordedState(t, "lifecycle")), `"separator": "-"`, `"separator": "+"`, 1)
	put(t, path, []byte(pushed)) // tofu state push -force
	got, err = newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"random_pet.more[0]": "random_pet"}, got.Interrupted); d != "" {
		t.Errorf("after OpenTofu wrote the state (-want +got):\n%s", d)
	}
}
