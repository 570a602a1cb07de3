package tfplugin_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kyku/action/internal/state"
	"github.com/kyku/action/internal/tfplugin"
	"github.com/kyku/action/internal/tfplugin/tfplugintest"
)

// noteMovedKeeperArg makes the test binary a journal keeper that moves
// each note it opens for a create away before it locks it (moveNote, as
// the argument after it says).
const noteMovedKeeperArg = "__kyku-test-note-moved-keeper"

// movedSuffix is what moveNote appends to a note's path.
const movedSuffix = ".moved"

// moveNote renames the note at path away, as the next apply's fold
// removes a note it closed (renaming it back to its slot); with
// "renoted", it then notes the address again at path with another Note,
// as a later apply would.
func moveNote(how string) func(path string) {
	return func(path string) {
		if err := os.Rename(path, path+movedSuffix); err != nil {
			panic(err)
		}
		if how == "renoted" {
			data, err := state.EncodeAnswer(state.Answer{Address: "fwtest_held.a", Type: "fwtest_held", Note: "later"})
			if err == nil {
				err = os.WriteFile(path, data, 0o600)
			}
			if err != nil {
				panic(err)
			}
		}
	}
}

// TestCreateRefusedWhenNoteMovedBeforeLock: a create's note removed (or
// the address noted again) after the journal keeper, or Kyku itself for a
// provider run without one, opened it and before it locked it (a fold of
// the next apply closing the intent then) is not asked: ErrNotSent, the
// provider makes no object, neither the moved note nor the one at the
// path is marked asked.
func TestCreateRefusedWhenNoteMovedBeforeLock(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	provider := tfplugintest.Build(t, tfplugintest.Framework)
	for _, c := range []struct {
		name, how string
		keeper    bool
	}{
		{"keeper, removed", "removed", true},
		{"keeper, noted again", "renoted", true},
		{"no keeper, removed", "removed", false},
		{"no keeper, noted again", "renoted", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := tfplugin.Config{Name: "fwtest", Path: provider}
			if c.keeper {
				cfg.Keeper = []string{os.Args[0], noteMovedKeeperArg, c.how}
			} else {
				tfplugin.SetNoteOpened(t, moveNote(c.how))
			}
			p, cloud := startConfigured(t, cfg)
			answer := filepath.Join(t.TempDir(), state.AnswerName("fwtest_held.a"))
			_, err := heldCreate(p, "0s", answer)
			if !errors.Is(err, tfplugin.ErrNotSent) {
				t.Fatalf("a create whose note moved before its lock: %v, want ErrNotSent", err)
			}
			if ents, _ := os.ReadDir(cloud); len(ents) != 0 {
				t.Errorf("the cloud holds %d objects, want none: the provider was asked", len(ents))
			}
			for _, path := range []string{answer + movedSuffix, answer} {
				data, err := os.ReadFile(path)
				if errors.Is(err, os.ErrNotExist) && c.how == "removed" && path == answer {
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if a, err := state.DecodeAnswer(filepath.Base(answer), data); err != nil || a.Asked {
					t.Errorf("%s: %+v, %v: want a note not asked", filepath.Base(path), a, err)
				}
			}
		})
	}
}
