package tflayout_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/statemgr/tflayout"
)

// TestReadAheadIsTakenOnlyForWhatDidNotChange: a read ahead of the lock
// (a plan reads the state while it expands its configuration) gives the
// read under the lock exactly what a read without one gives; what it
// decoded is taken only when the state and what Kyku keeps beside it are
// byte for byte as it read them. A state or an extra written in between,
// a state half-written when read ahead (OpenTofu writes in place), or
// none then, is read as it is under the lock.
func TestReadAheadIsTakenOnlyForWhatDidNotChange(t *testing.T) {
	recorded, extra := taintedWithExtra(t)
	serial2 := bytes.Replace(recorded, []byte(`"serial": 1,`), []byte(`"serial": 2,`), 1)
	otherID := bytes.Replace(extra, []byte(`"p-bad"`), []byte(`"p-other"`), 1)
	if bytes.Equal(serial2, recorded) || bytes.Equal(otherID, extra) {
		t.Fatal("the fixture's serial or ID was not replaced")
	}
	statePath := func(dir string) string { return filepath.Join(dir, "terraform.tfstate") }
	extraPath := func(dir string) string { return filepath.Join(dir, "terraform.tfstate.kyku", tflayout.ExtraKey) }
	writeFile := func(path string, data []byte) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name             string
		before           []byte           // the state when read ahead (nil: none)
		between          func(dir string) // after the read ahead, before the read
		wantSerial       int64
		wantID           string // null_resource.bad's ID in Kyku's model (its "id" attribute once what is kept beside the state is another state's)
		wantTaken        int
		wantData, wantEx []byte // the files the read must equal a plain read of
	}{
		{name: "unchanged", before: recorded, between: func(string) {},
			wantSerial: 1, wantID: "p-bad", wantTaken: 1, wantData: recorded, wantEx: extra},
		{name: "state written since", before: recorded, between: func(dir string) { writeFile(statePath(dir), serial2) },
			wantSerial: 2, wantID: "4955368838262347931", wantData: serial2, wantEx: extra},
		{name: "extra written since", before: recorded, between: func(dir string) { writeFile(extraPath(dir), otherID) },
			wantSerial: 1, wantID: "p-other", wantData: recorded, wantEx: otherID},
		{name: "state half-written when read ahead", before: recorded[:len(recorded)/2], between: func(dir string) { writeFile(statePath(dir), recorded) },
			wantSerial: 1, wantID: "p-bad", wantData: recorded, wantEx: extra},
		{name: "no state when read ahead", between: func(dir string) { writeFile(statePath(dir), recorded) },
			wantSerial: 1, wantID: "p-bad", wantData: recorded, wantEx: extra},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			be := open(t, dir, recorded, extra)
			if c.before == nil {
				if err := os.Remove(statePath(dir)); err != nil {
					t.Fatal(err)
				}
			} else {
				writeFile(statePath(dir), c.before)
			}
			be.ReadAhead(t.Context())
			tflayout.AheadDone(be)
			c.between(dir)
			st := read(t, be)
			if st.Metadata.Serial != c.wantSerial {
				t.Errorf("serial %d, want %d", st.Metadata.Serial, c.wantSerial)
			}
			if id := st.Resources["null_resource.bad"].ProviderID; id != c.wantID {
				t.Errorf("null_resource.bad's ID %q, want %q", id, c.wantID)
			}
			if n := tflayout.AheadTaken(be); n != c.wantTaken {
				t.Errorf("reads ahead taken whole: %d, want %d", n, c.wantTaken)
			}
			plain := read(t, open(t, t.TempDir(), c.wantData, c.wantEx))
			if d := cmp.Diff(plain, st); d != "" {
				t.Errorf("read after a read ahead differs from a plain read (-plain +after):\n%s", d)
			}
			if n := tflayout.BridgesBuilt(be); n != 1 {
				t.Errorf("%d states mapped into kyku's model for one read, want 1", n)
			}
		})
	}
}

// TestReadAheadOnlyBeforeTheFirstRead: a read ahead asked for once the
// state was read (or a second time) reads nothing: the next read reads as
// without one.
func TestReadAheadOnlyBeforeTheFirstRead(t *testing.T) {
	recorded, extra := taintedWithExtra(t)
	dir := t.TempDir()
	be := open(t, dir, recorded, extra)
	first := read(t, be)
	be.ReadAhead(t.Context())
	tflayout.AheadDone(be)
	if st := read(t, be); tflayout.AheadTaken(be) != 0 || !cmp.Equal(first, st) {
		t.Errorf("after a read, a read ahead was taken (%d) or the state differs", tflayout.AheadTaken(be))
	}

	be = open(t, t.TempDir(), recorded, extra)
	be.ReadAhead(t.Context())
	be.ReadAhead(t.Context())
	tflayout.AheadDone(be)
	var st *state.File = read(t, be)
	read(t, be)
	if n := tflayout.AheadTaken(be); n != 1 || st.Resources["null_resource.bad"].ProviderID != "p-bad" {
		t.Errorf("two reads ahead and two reads: %d taken whole, want 1", n)
	}
}
