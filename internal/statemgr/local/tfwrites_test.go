package local_test

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfstate"
)

// TestTerraformWritesInTurn: one Backend's writes one after another, each
// compared with what the one before it stored: a change is written with
// its serial, a write that changes nothing is not (and the writer's
// serial goes back to the stored one), a backup then keeps exactly the
// Terraform state stored, and the next change is written again.
func TestTerraformWritesInTurn(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "terraform.tfstate")
	put(t, path, recordedState(t, "counts"))
	b := newTF(t, dir, "")
	st, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	serialOf := func() uint64 {
		t.Helper()
		f, err := tfstate.Decode("written", get(t, path))
		if err != nil {
			t.Fatal(err)
		}
		return f.Serial
	}
	base := serialOf()
	write := func(step string) {
		t.Helper()
		st.Metadata.Serial++
		if err := b.Write(ctx, st, statemgr.WriteOptions{}); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}

	delete(st.Resources, "random_id.c[2]")
	write("a change")
	first := get(t, path)
	if got := serialOf(); got != base+1 || st.Metadata.Serial != int64(base+1) {
		t.Fatalf("after a change: stored serial %d, the writer's %d; want %d", got, st.Metadata.Serial, base+1)
	}

	write("no change")
	if d := cmp.Diff(string(first), string(get(t, path))); d != "" {
		t.Errorf("a write that changes nothing rewrote the state (-before +after):\n%s", d)
	}
	if st.Metadata.Serial != int64(base+1) {
		t.Errorf("the writer's serial after a write that changes nothing: %d, want the stored %d", st.Metadata.Serial, base+1)
	}

	key, err := b.Backup(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := tfstate.Decode("written", first)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := tfstate.Encode(stored, tfstate.Compact)
	if d := cmp.Diff(string(want), string(rawBackup(t, dir, key))); d != "" {
		t.Errorf("the Terraform state kept with backup %s (-want +got):\n%s", key, d)
	}

	delete(st.Resources, "random_id.c[1]")
	write("another change")
	if got := serialOf(); got != base+2 {
		t.Errorf("after another change: stored serial %d, want %d", got, base+2)
	}
	again, err := newTF(t, dir, "").Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := again.Resources["random_id.c[1]"]; ok {
		t.Error("the second change was not written")
	}
}

// rawBackup is the Terraform state's own bytes kept with backup key
// (under tfstate-backups/ in Kyku's directory beside the state).
func rawBackup(t *testing.T, dir, key string) []byte {
	t.Helper()
	var found []byte
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "tfstate-backups" && d.Name() == filepath.Base(key) {
			found = get(t, p)
		}
		return err
	})
	if err != nil || found == nil {
		t.Fatalf("no Terraform state kept with backup %s (%v)", key, err)
	}
	return found
}
