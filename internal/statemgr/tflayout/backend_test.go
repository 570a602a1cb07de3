package tflayout_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/statemgr/local"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// taintedWithExtra is the state tofu recorded with a tainted object, and
// what Kyku keeps beside it for that state: null_resource.bad's ID in
// Kyku's model, p-bad, not its "id" attribute.
func taintedWithExtra(t *testing.T) (recorded, extra []byte) {
	t.Helper()
	recorded, err := os.ReadFile(filepath.Join("..", "..", "tfstate", "testdata", "recorded", "tainted.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(recorded)
	return recorded, fmt.Appendf(nil, `{"lineage":"06c7c82e-0983-4f24-37fe-e20501a9068e","serial":1,"digest":"%x","resources":{"null_resource.bad":{"providerId":"p-bad"}}}`, sum)
}

// TestWriteMapsItsStateOnlyWhenAsked: a write does not map the state it
// wrote back into Kyku's model (an apply's last write would parse every
// object's attributes again for nothing); the next write or Tainted does,
// and a write after a write stores what a write after a read stores,
// Kyku's additions beside the state included: the tainted object whose ID
// in Kyku's model is not its "id" attribute (kept beside the state) is
// still the tainted one, not a replacement.
func TestWriteMapsItsStateOnlyWhenAsked(t *testing.T) {
	recorded, extra := taintedWithExtra(t)
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

// gatedSlot is a state that answers a read only once what Kyku keeps
// beside it is being read (or fails with err).
type gatedSlot struct {
	tflayout.Slot // nil: a read asks only Get and Where
	data          []byte
	err           error
	asideRead     <-chan struct{}
}

func (s gatedSlot) Get(ctx context.Context) ([]byte, statemgr.Version, error) {
	select {
	case <-s.asideRead:
	case <-time.After(5 * time.Second):
		return nil, "", errors.New("what kyku keeps beside the state was not read while the state was")
	}
	if s.err != nil {
		return nil, "", s.err
	}
	return s.data, "v1", nil
}

func (gatedSlot) Where() string { return "gated/terraform.tfstate" }

// signalAside tells when the extra object is asked for, and can fail it.
type signalAside struct {
	tflayout.Aside
	asked chan struct{}
	err   error
}

func (a signalAside) GetObject(ctx context.Context, key string) ([]byte, error) {
	if key == tflayout.ExtraKey {
		close(a.asked)
		if a.err != nil {
			return nil, a.err
		}
	}
	return a.Aside.GetObject(ctx, key)
}

// TestReadFetchesTheStateAndWhatIsBesideItTogether: a read asks for the
// state and for what Kyku keeps beside it at once (one round trip to a
// remote store, not two), and still maps them as before; when the state
// cannot be read its error is the one said, whatever the other read gave,
// and a missing state reads as none.
func TestReadFetchesTheStateAndWhatIsBesideItTogether(t *testing.T) {
	recorded, extra := taintedWithExtra(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "kyku"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kyku", tflayout.ExtraKey), extra, 0o644); err != nil {
		t.Fatal(err)
	}
	backend := func(slotErr, asideErr error) *tflayout.Backend {
		asked := make(chan struct{})
		aside := signalAside{Aside: local.New(filepath.Join(dir, "kyku"), "", local.Options{}), asked: asked, err: asideErr}
		return tflayout.New(gatedSlot{data: recorded, err: slotErr, asideRead: asked}, aside, tflayout.Options{LockTimeout: -1, Name: "gated"})
	}

	st, err := backend(nil, nil).Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if id := st.Resources["null_resource.bad"].ProviderID; id != "p-bad" {
		t.Errorf("null_resource.bad's ID = %q, want p-bad (kept beside the state)", id)
	}

	_, err = backend(errors.New("connection reset"), errors.New("aside unreachable")).Read(t.Context())
	if err == nil || !strings.Contains(err.Error(), "read state: connection reset") {
		t.Errorf("err = %v, want the state's", err)
	}
	if st, err := backend(fmt.Errorf("no object: %w", statemgr.ErrNotFound), errors.New("aside unreachable")).Read(t.Context()); err != nil || st != nil {
		t.Errorf("a missing state read as %v, %v; want none", st, err)
	}
	if _, err := backend(nil, errors.New("aside unreachable")).Read(t.Context()); err == nil || !strings.Contains(err.Error(), "aside unreachable") {
		t.Errorf("err = %v, want the failed read beside the state", err)
	}
}
