package local_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
)

// TestTerraformKykuTypes: a state of Kyku's own types as a real tofu
// wrote it (internal/tfstate/testdata/kyku) is read and written back by
// the local backend as the same bytes (no write at all when nothing
// changed, the serial kept); the basis Kyku records of them goes beside
// the state (tfstate-extra.json), which stays as tofu wrote it; once
// OpenTofu writes the state, the basis is dropped and every argument,
// output and cloud name of the objects is still read.
func TestTerraformKykuTypes(t *testing.T) {
	ctx := t.Context()
	tofu, err := os.ReadFile(filepath.Join("..", "..", "tfstate", "testdata", "kyku", "kyku.tofu.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "terraform.tfstate")
	put(t, path, tofu)
	st, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	read := st.Clone()
	st.Metadata.Serial++
	if err := newTF(t, dir, "").Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(tofu), string(get(t, path))); d != "" {
		t.Errorf("written back unchanged (-tofu +kyku):\n%s", d)
	}
	if _, err := os.Stat(path + ".backup"); err == nil {
		t.Error("a state written back unchanged was written (a backup is there)")
	}

	const web = "kyku_vm.web[0]"
	basis := &state.Basis{Config: "c0ffee", Provider: "beef", ReadAt: time.Date(2026, 12, 6, 16, 0, 0, 0, time.UTC)}
	st.Resources[web].Basis = basis
	st.Metadata.Serial++
	if err := newTF(t, dir, "").Write(ctx, st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(tofu), string(get(t, path))); d != "" {
		t.Errorf("with a basis beside it (-tofu +kyku):\n%s", d)
	}
	extra := string(get(t, filepath.Join(dir, "terraform.tfstate.kyku", "tfstate-extra.json")))
	if !strings.Contains(extra, "c0ffee") || strings.Contains(extra, "cloudName") || strings.Contains(extra, `"config":{`) {
		t.Errorf("kept beside the state: %s", extra)
	}
	again, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(basis, again.Resources[web].Basis); d != "" {
		t.Errorf("basis read back (-want +got):\n%s", d)
	}

	// OpenTofu writes the state (tofu state mv there and back: its
	// bytes, a new serial): the basis no longer applies, the rest stays.
	put(t, path, []byte(strings.Replace(string(tofu), `"serial": 4,`, `"serial": 7,`, 1)))
	after, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := after.Resources[web].Basis; b != nil {
		t.Errorf("basis after OpenTofu wrote the state: %+v", b)
	}
	after.Metadata, read.Metadata = state.Metadata{}, state.Metadata{}
	if d := cmp.Diff(read.Resources, after.Resources); d != "" {
		t.Errorf("what is read after OpenTofu wrote the state (-before +after):\n%s", d)
	}
}
