package tflayout_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// TestWriteMapsItsStateOnlyWhenAsked: a write does not map the state it
// wrote back into Kyku's model (an apply's last write would parse every
// object's attributes again for nothing); the next write or Tainted does,
// and a write after a write stores what a write after a read stores,
// Kyku's additions beside the state included: the tainted object whose ID
// in Kyku's model is not its "id" attribute (kept beside the state) is
// still the tainted one, not a replacement.
func TestWriteMapsItsStateOnlyWhenAsked(t *testing.T) {
	recorded, err := os.ReadFile(filepath.Join("..", "..", "tfstate", "testdata", "recorded", "tainted.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(recorded)
	extra := fmt.Appendf(nil, `{"lineage":"06c7c82e-0983-4f24-37fe-e20501a9068e","serial":1,"digest":"%x","resources":{"null_resource.bad":{"providerId":"p-bad"}}}`, sum)
	first := func(st *state.File) { // the apply's change, in the state and beside it
		st.Resources["random_pet.ok"].Outputs["separator"] = "_"
		st.Resources["random_pet.ok"].Protect = true
		st.Resources["random_pet.ok"].Basis = &state.Basis{Config: "c", Provider: "p", ReadAt: time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)}
		st.Metadata.Serial++
	}
	second := func(st *state.File) {
		st.Resources["random_pet.ok"].Outputs["length"] = 3.0
		st.Metadata.Serial++
	}

	lazy := t.TempDir()
	be := open(t, lazy, recorded, extra)
	st := read(t, be)
	if id := st.Resources["null_resource.bad"].ProviderID; id != "p-bad" {
		t.Fatalf("null_resource.bad's ID in kyku's model is %q, want p-bad (kept beside the state)", id)
	}
	first(st)
	write(t, be, st)
	if n := tflayout.BridgesBuilt(be); n != 1 {
		t.Fatalf("after a read and a write, %d states mapped into kyku's model, want 1 (the one read)", n)
	}
	if d := cmp.Diff([]string{"null_resource.bad"}, be.Tainted()); d != "" {
		t.Errorf("tainted after the write (-want +got):\n%s", d)
	}
	second(st)
	write(t, be, st)
	if n := tflayout.BridgesBuilt(be); n != 2 {
		t.Errorf("after a second write, %d states mapped into kyku's model, want 2", n)
	}

	reread := t.TempDir() // the oracle: the second write on a state read afresh
	be = open(t, reread, recorded, extra)
	st = read(t, be)
	first(st)
	write(t, be, st)
	be = open(t, reread, nil, nil)
	st = read(t, be)
	second(st)
	write(t, be, st)

	for _, name := range []string{"terraform.tfstate", filepath.Join("terraform.tfstate.kyku", tflayout.ExtraKey)} {
		want, err := os.ReadFile(filepath.Join(reread, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(lazy, name))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(want), string(got)); d != "" {
			t.Errorf("%s, written after a write (-after a read +after a write):\n%s", name, d)
		}
	}
}

// open is a backend on dir's terraform.tfstate, holding data and extra
// beside it when data is not nil.
func open(t *testing.T, dir string, data, extra []byte) *tflayout.Backend {
	t.Helper()
	if data != nil {
		if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "terraform.tfstate.kyku"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate.kyku", tflayout.ExtraKey), extra, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	be, err := local.NewTerraform(local.TerraformConfig{Dir: dir}, "", tflayout.Options{LockTimeout: -1}, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return be
}

func read(t *testing.T, be *tflayout.Backend) *state.File {
	t.Helper()
	st, err := be.Read(t.Context())
	if err != nil || st == nil {
		t.Fatalf("read: %v, %v", st, err)
	}
	return st
}

func write(t *testing.T, be *tflayout.Backend, st *state.File) {
	t.Helper()
	if err := be.Write(t.Context(), st, statemgr.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
}
