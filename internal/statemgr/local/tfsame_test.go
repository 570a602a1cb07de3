package local_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/statemgr"
	"github.com/kyku/action/internal/tfstate"
)

// TestTerraformSameStateWhateverVersion: a state is unchanged whatever
// version wrote it, on a write as on a push (OpenTofu's
// StatesMarshalEqual): writing back a state that names no
// terraform_version, and pushing the stored state as another version
// wrote it, both leave the stored bytes as they were.
func TestTerraformSameStateWhateverVersion(t *testing.T) {
	noVersion := withState(t, recordedState(t, "counts"), func(f *tfstate.File) { f.TerraformVersion = "" })
	for _, tt := range []struct {
		name string
		do   func(t *testing.T, dir string)
	}{
		{"a write of what was read", func(t *testing.T, dir string) {
			b := newTF(t, dir, "")
			st, err := b.Read(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			st.Metadata.Serial++
			if err := b.Write(t.Context(), st, statemgr.WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"a push of the stored state", func(t *testing.T, dir string) {
			b := newTF(t, dir, "")
			lock, err := b.Lock(t.Context(), statemgr.LockInfo{Operation: "state push"})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = lock.Unlock(t.Context()) }()
			pushed := withState(t, noVersion, func(f *tfstate.File) { f.TerraformVersion = "1.9.0" })
			if res, err := b.Push(t.Context(), "pushed.tfstate", pushed, false); err != nil || res.Written {
				t.Errorf("push: %+v %v; want nothing written", res, err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "terraform.tfstate")
			put(t, path, noVersion)
			tt.do(t, dir)
			if d := cmp.Diff(string(noVersion), string(get(t, path))); d != "" {
				t.Errorf("the unchanged state was written again (-before +after):\n%s", d)
			}
		})
	}
}
